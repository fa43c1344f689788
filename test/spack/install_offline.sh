#!/usr/bin/env bash
# `spack install --test=root kps` without a network: kps built from this checkout by spack
# (`spack dev-build`), its suite run by spack's check phase, every dependency an external package
# of this machine (Debian's CMake, GNU make, Google Benchmark, GoogleTest, nlohmann-json, python3 with
# matplotlib, pip, setuptools and wheel; the Kokkos 3.4.01 and Kokkos Kernels that scripts/setup.sh
# builds, or KPS_KOKKOS_PREFIX).
#   test/spack/install_offline.sh [--spack PATH] [--keep]
# The spack is the one test/spack/test_spack.sh unpacks (or --spack); its configuration and
# install tree live in a temporary folder (removed unless --keep). Exit 0 when spack installed
# kps and its tests passed.
set -euo pipefail
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KPS_CACHE="${KPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kps}"
spack_bin="$KPS_CACHE/spack-1.1.0/spack/bin/spack" keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --spack) spack_bin="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "usage: $0 [--spack PATH] [--keep]" >&2; exit 2 ;;
  esac
done
[ -x "$spack_bin" ] || { echo "install_offline: no spack at $spack_bin (test/spack/test_spack.sh unpacks one)" >&2; exit 2; }
kokkos="${KPS_KOKKOS_PREFIX:-$KPS_CACHE/kokkos-3.4.01-openmp}"
[ -f "$kokkos/lib/cmake/Kokkos/KokkosConfig.cmake" ] || { echo "install_offline: no Kokkos in $kokkos (run scripts/setup.sh)" >&2; exit 2; }
kversion="$(sed -n 's/.*PACKAGE_VERSION "\([0-9.]*\)".*/\1/p' "$kokkos"/lib/cmake/Kokkos/KokkosConfigVersion.cmake | head -n 1)"

work="$(mktemp -d)"
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
export SPACK_USER_CONFIG_PATH="$work/config" SPACK_USER_CACHE_PATH="$work/cache"
mkdir -p "$SPACK_USER_CONFIG_PATH"
home="$(cd "$(dirname "$spack_bin")/../.." && pwd)"
venv="$home/venv/bin"
[ -d "$venv" ] && export PATH="$venv:$PATH"
cat >"$SPACK_USER_CONFIG_PATH/repos.yaml" <<EOF
repos::
  kps: $SRC/spack_repo/kps
  builtin: $home/spack-packages/repos/spack_repo/builtin
EOF
cat >"$SPACK_USER_CONFIG_PATH/config.yaml" <<EOF
config:
  install_tree:
    root: $work/opt
  build_stage: [$work/stage]
EOF
py_version="$(/usr/bin/python3 -c 'import platform; print(platform.python_version())')"
# Debian's python3 packages as externals: matplotlib (the reports' figures), pip, setuptools and
# wheel (what builds the kps command: python/CMakeLists.txt); each imported in a process of its own
# (pip imports distutils, which Debian's setuptools then refuses to replace).
py_externals() {
  local pkg mod
  for pkg in py-matplotlib:matplotlib py-pip:pip py-setuptools:setuptools py-wheel:wheel; do
    mod="${pkg#*:}" pkg="${pkg%%:*}"
    printf '  %s:\n    buildable: false\n    externals: [{spec: "%s@%s", prefix: /usr}]\n' "$pkg" "$pkg" \
      "$(/usr/bin/python3 -c "import $mod; print($mod.__version__)")"
  done
}
deb() { dpkg-query -W -f='${Version}' "$1" | sed 's/[-+~].*//'; }
cat >"$SPACK_USER_CONFIG_PATH/packages.yaml" <<EOF
packages:
  kokkos:
    buildable: false
    externals: [{spec: "kokkos@$kversion +openmp +serial ~cuda", prefix: $kokkos}]
  kokkos-kernels:
    buildable: false
    externals: [{spec: "kokkos-kernels@$kversion", prefix: $kokkos}]
  benchmark:
    buildable: false
    externals: [{spec: "benchmark@$(deb libbenchmark-dev)", prefix: /usr}]
  googletest:
    buildable: false
    externals: [{spec: "googletest@$(deb libgtest-dev)", prefix: /usr}]
  nlohmann-json:
    buildable: false
    externals: [{spec: "nlohmann-json@$(deb nlohmann-json3-dev)", prefix: /usr}]
  gmake:
    buildable: false
    externals: [{spec: "gmake@$(deb make)", prefix: /usr}]
  cmake:
    buildable: false
    externals: [{spec: "cmake@$(cmake --version | sed -n '1s/[^0-9]*\([0-9.]*\).*/\1/p')", prefix: /usr}]
  python:
    buildable: false
    externals: [{spec: "python@$py_version", prefix: /usr}]
$(py_externals)
EOF
"$spack_bin" bootstrap disable >/dev/null
"$spack_bin" compiler find >/dev/null
# A copy of the working tree (tracked files and untracked ones git does not ignore): spack builds
# inside the source folder it is given, and the checkout stays as it is.
mkdir -p "$work/src"
(cd "$SRC" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$work/src")
echo "[kps spack] spack dev-build --test=root kps@main from a copy of $SRC (dependencies: this machine's)"
"$spack_bin" spec -I kps@main | grep -E "kps@|kokkos|benchmark|googletest|python@|cmake@|nlohmann" | sed 's/ build_system.*//'
(cd "$work/src" && "$spack_bin" dev-build --test=root -q kps@main)
"$spack_bin" find -p kps
# The suite spack ran in its check phase (--test=root), from the build log spack keeps in the prefix.
buildlog="$("$spack_bin" location -i kps)/.spack/spack-build-out.txt"
[ -f "$buildlog" ] || buildlog="$buildlog.gz"  # spack compresses the log it keeps
zcat -f "$buildlog" | grep -E "tests passed|tests failed" || { echo "install_offline: no test summary in $buildlog" >&2; exit 1; }
echo "[kps spack] installed and tested; spack test run kps:"
"$spack_bin" test run kps
