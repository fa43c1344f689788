#!/usr/bin/env bash
# The support matrix on the host: kps' `host` preset (warnings as errors) built against each
# Kokkos that scripts/kokkos.sh installs, and its suite run there (every test but those that do
# not depend on Kokkos: the spack concretization and the committed report's rendering).
#   scripts/matrix.sh [--deps DIR] [--out FILE] VERSION...      e.g. scripts/matrix.sh 4.6.01 4.7.1 5.0.2
# Kokkos 5 and later build kps with C++20, older ones with C++17. Builds go to build/matrix/kokkos-V;
# FILE (default build/matrix/matrix.md) gets one row per version: Kokkos, C++, tests passed, time.
# Exit 0 when every version built and passed, 1 otherwise, 2 on bad arguments.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="${KPS_DEPS:-$ROOT/../shared/deps}"
out="$ROOT/build/matrix/matrix.md"
versions=()
while [ $# -gt 0 ]; do
  case "$1" in
    --deps) deps="${2:?--deps needs a folder}"; shift 2 ;;
    --out) out="${2:?--out needs a file}"; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "matrix: unknown option $1" >&2; exit 2 ;;
    *) versions+=("$1"); shift ;;
  esac
done
[ ${#versions[@]} -gt 0 ] || { echo "usage: scripts/matrix.sh [--deps DIR] [--out FILE] VERSION..." >&2; exit 2; }
mkdir -p "$(dirname "$out")"
if [ -f "${KPS_CACHE:-$HOME/.cache/kps}/env.sh" ]; then . "${KPS_CACHE:-$HOME/.cache/kps}/env.sh"; fi
{
  echo "| Kokkos | C++ | host preset, warnings as errors | tests | time |"
  echo "|---|---|---|---|---|"
} >"$out"
status=0
for v in "${versions[@]}"; do
  start=$(date +%s)
  build="$ROOT/build/matrix/kokkos-$v"
  log="$ROOT/build/matrix/kokkos-$v.log"
  std=17
  [ "${v%%.*}" -ge 5 ] 2>/dev/null && std=20
  echo "[matrix] Kokkos $v (C++$std): $build"
  built=no tests="not run"
  if "$ROOT/scripts/kokkos.sh" "$v" --deps "$deps" >"$log" 2>&1; then
    prefix="$("$ROOT/scripts/kokkos.sh" "$v" --print-prefix)"
    if (cd "$ROOT" && CMAKE_PREFIX_PATH="$prefix" cmake --preset host -B "$build" -DCMAKE_CXX_STANDARD=$std) >>"$log" 2>&1 &&
       cmake --build "$build" -j "${KPS_JOBS:-$(nproc)}" >>"$log" 2>&1; then
      built=yes
      (cd "$build" && OMP_PROC_BIND=false ctest -E '^kps\.(spack|report\.committed|cluster\.slurm_real)$' --output-on-failure) >>"$log" 2>&1
      rc=$?
      tests="$(grep -E 'tests passed' "$log" | tail -n 1)"
      [ "$rc" = 0 ] || status=1
    else
      status=1
    fi
  else
    status=1
    tests="Kokkos $v did not build (scripts/kokkos.sh)"
  fi
  secs=$(( $(date +%s) - start ))
  printf '| %s | C++%s | %s | %s | %d s |\n' "$v" "$std" "$built" "$tests" "$secs" >>"$out"
  echo "[matrix] Kokkos $v: built $built; $tests ($secs s; log $log)"
  [ "$status" = 0 ] || tail -n 40 "$log" >&2  # what failed, where only this output is kept (CI)
done
cat "$out"
exit $status
