#!/usr/bin/env bash
# The support matrix: kps (warnings as errors) built against each Kokkos that scripts/kokkos.sh
# installs, and its suite run there (every test but those that do not depend on Kokkos: the spack
# concretization, the committed report's rendering and the real-Slurm test).
#   scripts/matrix.sh [--threads | --hip ARCH] [--deps DIR] [--out FILE] VERSION...
#                     e.g. scripts/matrix.sh 4.6.01 4.7.1 5.0.2; scripts/matrix.sh --hip gfx90a 4.7.1
# The backend: OpenMP and the `host` preset by default; --threads: Kokkos::Threads and the `threads`
# preset; --hip ARCH: a HIP Kokkos for that AMD GPU and the `hip` preset, compiled only (its suite
# needs the GPU). Kokkos 5 and later build kps with C++20, older ones with C++17. Builds go to
# build/matrix/kokkos-V[-threads|-hip-ARCH]; FILE (default build/matrix/matrix.md) gets one row per
# version: Kokkos, backend, C++, built, tests passed, time. KPS_JOBS: build jobs (default: the
# machine's cores); KPS_TEST_JOBS: tests at once (default 1); KPS_MATRIX_CMAKE_ARGS: more configure
# arguments (CI's HIP stage: -DKPS_ENABLE_TESTS=OFF).
# Exit 0 when every version built (and passed), 1 otherwise, 2 on bad arguments.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
deps="${KPS_DEPS:-$ROOT/../shared/deps}"
out="$ROOT/build/matrix/matrix.md"
versions=()
backend=openmp kokkos_flags=() preset=host hip_arch=""
while [ $# -gt 0 ]; do
  case "$1" in
    --deps) deps="${2:?--deps needs a folder}"; shift 2 ;;
    --out) out="${2:?--out needs a file}"; shift 2 ;;
    --threads) backend=threads kokkos_flags=(--threads) preset=threads; shift ;;
    --hip) [ $# -ge 2 ] || { echo "matrix: --hip needs an AMD GPU architecture (gfx90a)" >&2; exit 2; }
           hip_arch="$2" backend="hip-$2" kokkos_flags=(--hip "$2") preset=hip; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "matrix: unknown option $1" >&2; exit 2 ;;
    *) versions+=("$1"); shift ;;
  esac
done
[ ${#versions[@]} -gt 0 ] || { echo "usage: scripts/matrix.sh [--threads | --hip ARCH] [--deps DIR] [--out FILE] VERSION..." >&2; exit 2; }
mkdir -p "$(dirname "$out")"
if [ -f "${KPS_CACHE:-$HOME/.cache/kps}/env.sh" ]; then . "${KPS_CACHE:-$HOME/.cache/kps}/env.sh"; fi
{
  echo "| Kokkos | backend | C++ | $preset preset, warnings as errors | tests | time |"
  echo "|---|---|---|---|---|---|"
} >"$out"
status=0
for v in "${versions[@]}"; do
  start=$(date +%s)
  name="kokkos-$v"
  [ "$backend" = openmp ] || name="kokkos-$v-$backend"
  build="$ROOT/build/matrix/$name"
  log="$ROOT/build/matrix/$name.log"
  std=17
  [ "${v%%.*}" -ge 5 ] 2>/dev/null && std=20
  echo "[matrix] Kokkos $v, $backend (C++$std): $build"
  built=no tests="not run"
  if "$ROOT/scripts/kokkos.sh" "$v" "${kokkos_flags[@]}" --deps "$deps" >"$log" 2>&1; then
    prefix="$("$ROOT/scripts/kokkos.sh" "$v" "${kokkos_flags[@]}" --print-prefix)"
    if (cd "$ROOT" && CMAKE_PREFIX_PATH="$prefix" cmake --preset "$preset" -B "$build" -DCMAKE_CXX_STANDARD=$std ${KPS_MATRIX_CMAKE_ARGS:-}) >>"$log" 2>&1 &&
       cmake --build "$build" -j "${KPS_JOBS:-$(nproc)}" >>"$log" 2>&1; then
      built=yes
      if [ -n "$hip_arch" ]; then
        tests="compiled for $hip_arch, not run (no AMD GPU here)"
      else
        (cd "$build" && OMP_PROC_BIND=false ctest -j "${KPS_TEST_JOBS:-1}" -E '^kps\.(spack|report\.committed|cluster\.slurm_real)$' --output-on-failure) >>"$log" 2>&1
        rc=$?
        tests="$(grep -E 'tests passed' "$log" | tail -n 1)"
        [ "$rc" = 0 ] || status=1
      fi
    else
      status=1
    fi
  else
    status=1
    tests="Kokkos $v ($backend) did not build (scripts/kokkos.sh)"
  fi
  secs=$(( $(date +%s) - start ))
  printf '| %s | %s | C++%s | %s | %s | %d s |\n' "$v" "$backend" "$std" "$built" "$tests" "$secs" >>"$out"
  echo "[matrix] Kokkos $v, $backend: built $built; $tests ($secs s; log $log)"
  [ "$status" = 0 ] || tail -n 40 "$log" >&2  # what failed, where only this output is kept (CI)
done
cat "$out"
exit $status
