#!/usr/bin/env bash
# kps set-up: make sure this machine can configure, build and run kps on the host backend.
#
# - When a Kokkos (and Kokkos Kernels) is already findable (Kokkos_ROOT, CMAKE_PREFIX_PATH,
#   a spack environment or module), it is used and nothing is installed.
# - Otherwise, on Debian 12 as root: installs missing build tools with apt and builds
#   Kokkos 3.4.01 + Kokkos Kernels 3.4.01 (OpenMP + Serial) from Debian's own `trilinos`
#   source package into a cache prefix outside the checkout ($KPS_CACHE), reused next time.
#   The `host` preset runs its OpenMP backend, the `serial` preset its Serial backend: one
#   Kokkos serves both.
#
# - KPS_SETUP_SLURM=1 also installs Slurm and munge (Debian's packages; CI asks for them) for the
#   real-Slurm test, test/cluster/test_slurm_real.sh; the default set-up does not.
# - KPS_SETUP_HIP=1 also installs Debian's HIP compiler (hipcc 5.2, for gfx90a and older; CI asks
#   for it to compile the `hip` preset); the default set-up does not.
#
# Prints what it does; on failure prints one clear line saying what is missing.
# Output: writes "$KPS_CACHE/env.sh", which the run and test commands source
# (it exports CMAKE_PREFIX_PATH and KPS_PYTHON).
set -euo pipefail

KPS_CACHE="${KPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kps}"
KOKKOS_VERSION=3.4.01
HOST_PREFIX="$KPS_CACHE/kokkos-$KOKKOS_VERSION-openmp"
JOBS="${KPS_JOBS:-$(nproc)}"

say() { printf '[kps setup] %s\n' "$*"; }
trap 'printf "[kps setup] error: unexpected failure at line %s (%s)\n" "$LINENO" "$BASH_COMMAND" >&2' ERR
die() { printf '[kps setup] error: %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }
have_debian() { [ -r /etc/debian_version ] && command -v apt-get >/dev/null; }

# --- apt packages --------------------------------------------------------------------
# package -> a file or command that proves it is there
declare -A PROBES=(
  [cmake]="cmd:cmake"
  [g++]="cmd:g++"
  [make]="cmd:make"
  [libbenchmark-dev]="file:/usr/include/benchmark/benchmark.h"
  [libgtest-dev]="file:/usr/include/gtest/gtest.h"
  [nlohmann-json3-dev]="file:/usr/include/nlohmann/json.hpp"
  [python3]="cmd:/usr/bin/python3"
  [python3-matplotlib]="py:matplotlib"
  [python3-pytest]="pymod:pytest"
  # the reports' statistics: medians and spreads by group, the significance of "ahead of" (a
  # one-sided Mann-Whitney U test)
  [python3-scipy]="pymod:scipy"
  [python3-pandas]="pymod:pandas"
  # pip and setuptools install the kps package (python/pyproject.toml) into build/venv and the install
  [python3-pip]="pymod:pip"
  [python3-setuptools]="pymod:setuptools"
  [python3-wheel]="pymod:wheel"
  [dpkg-dev]="cmd:dpkg-source"
  [xz-utils]="cmd:xz"
  # oneTBB, a CPU peer of the scans and sums (optional for kps; found by CMake when present)
  [libtbb-dev]="file:/usr/include/oneapi/tbb.h"
)

probe() {
  local kind="${1%%:*}" what="${1#*:}"
  case "$kind" in
    cmd) command -v "$what" >/dev/null 2>&1 ;;
    file) [ -e "$what" ] ;;
    py) pick_python >/dev/null ;;
    pymod) has_module "$what" ;;
  esac
}

# The python that runs the runner and the reports (python/kps_report): the first of KPS_PYTHON,
# python3 on PATH and Debian's that has matplotlib, preferring one that also has pytest (the tests).
pick_python() {
  local p want
  for want in 'import matplotlib, pytest' 'import matplotlib'; do
    for p in "${KPS_PYTHON:-}" python3 /usr/bin/python3; do
      [ -n "$p" ] || continue
      if command -v "$p" >/dev/null 2>&1 && "$p" -c "$want" >/dev/null 2>&1; then
        command -v "$p"; return 0
      fi
    done
  done
  return 1
}

has_module() {  # $1 = a module some python3 here can import
  local p
  for p in "${KPS_PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$p" ] && command -v "$p" >/dev/null 2>&1 && "$p" -c "import $1" >/dev/null 2>&1 && return 0
  done
  return 1
}

apt_updated=0
apt_install() {
  is_root && have_debian || die "missing: $* — install them (Debian: apt-get install $*) or run this as root on Debian 12"
  if [ "$apt_updated" = 0 ]; then
    say "apt-get update"
    apt-get update -qq || die "apt-get update failed: check the machine's apt sources and network"
    apt_updated=1
  fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null \
    || die "apt-get install $* failed"
}

missing=()
for pkg in "${!PROBES[@]}"; do
  probe "${PROBES[$pkg]}" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  apt_install "${missing[@]}"
else
  say "build tools, Google Benchmark, GoogleTest, python3 + matplotlib + pytest: present"
fi
PY="$(pick_python)" || die "no python3 with matplotlib found (Debian: apt-get install python3-matplotlib)"

# --- Slurm, only when asked (KPS_SETUP_SLURM=1, as CI sets it) ---------------------------------
# The real-Slurm test (test/cluster/test_slurm_real.sh) starts munged, slurmctld and slurmd of its
# own from a configuration in a temporary folder; without them it is skipped. Debian 12: Slurm
# 22.05, munge 0.5.15, about 10 s.
if [ "${KPS_SETUP_SLURM:-0}" = 1 ]; then
  if [ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] && [ -x /usr/sbin/munged ] && command -v sbatch >/dev/null; then
    say "Slurm and munge (KPS_SETUP_SLURM=1): present"
  else
    apt_install slurmctld slurmd slurm-client munge
  fi
fi

# --- HIP, only when asked (KPS_SETUP_HIP=1, as CI sets it) --------------------------------------
# Debian 12's hipcc 5.2.3 (HIP 5.2, clang 15) and its device libraries, about 20 s: the `hip`
# preset compiles for gfx90a with it (scripts/kokkos.sh --hip gfx90a builds its Kokkos).
if [ "${KPS_SETUP_HIP:-0}" = 1 ]; then
  if command -v hipcc >/dev/null; then
    say "hipcc (KPS_SETUP_HIP=1): present"
  else
    apt_install hipcc libamdhip64-dev rocm-device-libs
  fi
fi

# --- Kokkos ----------------------------------------------------------------------------
# A Kokkos the user already has wins. Debian's binary libtrilinos-kokkos-dev ships a broken
# CMake config under /usr/lib/*/cmake: never take that one.
find_config() {  # $1 = package name; prints the directory holding <name>Config.cmake
  local name="$1" roots=() r d
  [ -n "${Kokkos_ROOT:-}" ] && roots+=("$Kokkos_ROOT")
  [ -n "${KokkosKernels_ROOT:-}" ] && roots+=("$KokkosKernels_ROOT")
  IFS=: read -r -a cpp <<<"${CMAKE_PREFIX_PATH:-}"
  roots+=("${cpp[@]}")
  [ -n "${SPACK_ENV:-}" ] && roots+=("$SPACK_ENV/.spack-env/view")
  roots+=("$HOST_PREFIX")
  for r in "${roots[@]}"; do
    [ -n "$r" ] && [ -d "$r" ] || continue
    for d in "$r" "$r"/lib*/cmake/"$name" "$r"/share/cmake/"$name" "$r"/cmake; do
      if [ -f "$d/${name}Config.cmake" ]; then echo "$d"; return 0; fi
    done
  done
  return 1
}

if kdir="$(find_config Kokkos)" && kkdir="$(find_config KokkosKernels)"; then
  say "using the installed Kokkos at ${kdir%/lib*/cmake/Kokkos} (Kokkos Kernels: $kkdir)"
  prefix_path="$(cd "$kdir/../../.." && pwd):$(cd "$kkdir/../../.." && pwd)"
else
  say "no Kokkos found: building Kokkos $KOKKOS_VERSION + Kokkos Kernels (OpenMP + Serial) from Debian's trilinos source into $HOST_PREFIX"
  is_root && have_debian || die "no Kokkos found and cannot build one here: set Kokkos_ROOT (or CMAKE_PREFIX_PATH) to an installed Kokkos + Kokkos Kernels, or run as root on Debian 12"
  src="$KPS_CACHE/src"
  mkdir -p "$src"
  if ! ls "$src"/trilinos_*.orig.tar.* >/dev/null 2>&1; then
    # deb-src entries derived from this machine's own apt sources (same mirrors, suites, keys).
    srclist=/etc/apt/sources.list.d/kps-deb-src.sources
    if ! grep -rqs '^Types:.*deb-src\|^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
      say "adding deb-src entries derived from the apt sources to $srclist"
      tmp="$(mktemp)"
      for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && [ "$f" != "$srclist" ] || continue
        awk 'BEGIN{RS=""; ORS="\n\n"} /(^|\n)Types:[^\n]*deb/ {sub(/Types:[^\n]*/, "Types: deb-src"); print}' "$f" >>"$tmp"
      done
      install -m 644 "$tmp" "$srclist"
      : >"$tmp"
      for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] && [ "$f" != "${srclist%.sources}.list" ] || continue
        sed -n 's/^deb\([[:space:]]\)/deb-src\1/p' "$f" >>"$tmp"
      done
      [ -s "$tmp" ] && install -m 644 "$tmp" "${srclist%.sources}.list"
      rm -f "$tmp"
      apt_updated=0
    fi
    if [ "$apt_updated" = 0 ]; then
      say "apt-get update"; apt-get update -qq || die "apt-get update failed"; apt_updated=1
    fi
    say "apt-get source --download-only trilinos (about 170 MB, once)"
    (cd "$src" && apt-get source -qq --download-only trilinos) \
      || die "could not download Debian's trilinos source package (needs deb-src entries and the Debian archive)"
  fi
  orig="$(ls "$src"/trilinos_*.orig.tar.* | head -n 1)"
  top="$(tar tf "$orig" 2>/dev/null | sed -n '1{s,/.*,,;p;q}' || true)"
  [ -n "$top" ] || die "cannot read $orig"
  if [ ! -d "$src/$top/packages/kokkos-kernels" ]; then
    say "extracting packages/kokkos and packages/kokkos-kernels from $(basename "$orig")"
    tar xf "$orig" -C "$src" "$top/packages/kokkos" "$top/packages/kokkos-kernels"
  fi
  build="$KPS_CACHE/build-kokkos-$KOKKOS_VERSION"
  common=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$HOST_PREFIX" -DCMAKE_CXX_STANDARD=17
          -DCMAKE_CXX_COMPILER=g++ -DBUILD_SHARED_LIBS=OFF)
  say "configuring and building Kokkos $KOKKOS_VERSION ($JOBS jobs)"
  cmake -S "$src/$top/packages/kokkos" -B "$build/kokkos" "${common[@]}" \
    -DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_OPENMP=ON -DKokkos_ENABLE_TESTS=OFF >"$build.log" 2>&1 \
    && cmake --build "$build/kokkos" -j "$JOBS" >>"$build.log" 2>&1 \
    && cmake --install "$build/kokkos" >>"$build.log" 2>&1 \
    || die "building Kokkos failed; the log is $build.log"
  say "configuring and building Kokkos Kernels $KOKKOS_VERSION (no explicit instantiations: kps instantiates what it uses)"
  cmake -S "$src/$top/packages/kokkos-kernels" -B "$build/kokkos-kernels" "${common[@]}" \
    -DKokkos_ROOT="$HOST_PREFIX" -DKokkosKernels_ENABLE_TESTS=OFF \
    -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_LAYOUTLEFT=OFF -DKokkosKernels_INST_LAYOUTRIGHT=OFF \
    -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_OFFSET_INT=OFF -DKokkosKernels_INST_OFFSET_SIZE_T=OFF \
    >>"$build.log" 2>&1 \
    && cmake --build "$build/kokkos-kernels" -j "$JOBS" >>"$build.log" 2>&1 \
    && cmake --install "$build/kokkos-kernels" >>"$build.log" 2>&1 \
    || die "building Kokkos Kernels failed; the log is $build.log"
  rm -rf "$build"
  prefix_path="$HOST_PREFIX"
  say "Kokkos installed in $HOST_PREFIX"
fi

mkdir -p "$KPS_CACHE"
{
  echo "# written by scripts/setup.sh"
  echo "export CMAKE_PREFIX_PATH=\"$prefix_path\${CMAKE_PREFIX_PATH:+:\$CMAKE_PREFIX_PATH}\""
  echo "export KPS_PYTHON=\"$PY\""
} >"$KPS_CACHE/env.sh"
say "ready (environment: $KPS_CACHE/env.sh)"
