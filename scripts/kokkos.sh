#!/usr/bin/env bash
# kps: build one Kokkos release and its Kokkos Kernels from source archives into the cache, for
# the tested matrix (docs/install.md) and CI. Never touches the checkout.
#
#   scripts/kokkos.sh VERSION [--cuda ARCH | --hip ARCH | --threads [--hwloc]] [--cmake-language] [--deps DIR] [--jobs N]
#                     [--print-prefix]
#
#   VERSION            4.6.01, 4.7.1 or 5.0.2 (Kokkos Kernels 4.6.02 with 4.6.01, 4.7.00 with the others)
#   --cuda ARCH        add the CUDA backend for compute capability ARCH (90: Hopper), compiled with
#                      Kokkos' nvcc_wrapper as the C++ compiler (as spack's kokkos +wrapper)
#   --hip ARCH         add the HIP backend for the AMD GPU ARCH (gfx90a: MI200, gfx942: MI300), compiled
#                      with hipcc ($HIPCC, else the hipcc on PATH; Debian 12's hipcc 5.2 knows gfx90a, not
#                      gfx942; Kokkos 5 needs hipcc >= 6.2), Serial as its host backend, rocThrust off
#                      (Debian 12 has none)
#   --threads          Kokkos::Threads as the host's parallel backend instead of OpenMP (a Kokkos has
#                      one of them; the `threads` preset)
#   --hwloc            with --threads: Kokkos with hwloc (Debian: libhwloc-dev; spack: kokkos +hwloc),
#                      with which Kokkos::Threads binds each worker to a core (measurements: unbound
#                      workers may share a core for a while) but refuses more threads than cores
#                      (the tests run up to 16); the prefix's name ends in -hwloc
#   --cmake-language   with --cuda: CUDA as a CMake language instead (Kokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE;
#                      needs CMake >= 3.25.2 with Kokkos 5)
#   --deps DIR         where kokkos-VERSION.tar.gz and kokkos-kernels-*.tar.gz are (default: $KPS_DEPS, else
#                      ../shared/deps beside the checkout)
#   --print-prefix     print the install prefix and exit (builds nothing)
#
# Serial is always on, and OpenMP unless --threads or --hip; C++17 for Kokkos 4, C++20 for Kokkos 5 (which requires it).
# The install goes to $KPS_CACHE/kokkos-VERSION-<backends>[-hwloc][-cmakelang] and is reused when it is
# complete; its CMAKE_PREFIX_PATH line is written to <prefix>/env.sh. Exit 2 on bad options, 1
# on a failed build (the log's path is printed).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KPS_CACHE="${KPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kps}"
usage() { sed -n '4,30p' "$0" | sed 's/^# \{0,1\}//'; }
die() { printf '[kps kokkos] error: %s\n' "$1" >&2; exit "${2:-1}"; }
say() { printf '[kps kokkos] %s\n' "$*"; }

version="" cuda_arch="" hip_arch="" threads=0 hwloc=0 cmake_lang=0 deps="${KPS_DEPS:-$ROOT/../shared/deps}" jobs="${KPS_JOBS:-$(nproc)}" print=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) usage; exit 0 ;;
    --cuda) [ $# -ge 2 ] || die "--cuda needs an architecture (90)" 2; cuda_arch="$2"; shift 2 ;;
    --cuda=*) cuda_arch="${1#--cuda=}"; shift ;;
    --hip) [ $# -ge 2 ] || die "--hip needs an architecture (gfx90a)" 2; hip_arch="$2"; shift 2 ;;
    --hip=*) hip_arch="${1#--hip=}"; shift ;;
    --threads) threads=1; shift ;;
    --hwloc) hwloc=1; shift ;;
    --cmake-language) cmake_lang=1; shift ;;
    --deps) [ $# -ge 2 ] || die "--deps needs a folder" 2; deps="$2"; shift 2 ;;
    --deps=*) deps="${1#--deps=}"; shift ;;
    --jobs) [ $# -ge 2 ] || die "--jobs needs a number" 2; jobs="$2"; shift 2 ;;
    --print-prefix) print=1; shift ;;
    -*) die "unknown option '$1' (--help lists them)" 2 ;;
    *) [ -z "$version" ] || die "one version at a time" 2; version="$1"; shift ;;
  esac
done
case "$version" in
  4.6.01) kk=4.6.02; std=17 ;;
  4.7.1) kk=4.7.00; std=17 ;;
  5.0.2) kk=4.7.00; std=20 ;;
  "") usage >&2; die "which Kokkos? 4.6.01, 4.7.1 or 5.0.2" 2 ;;
  *) die "Kokkos $version is not one kps builds from archives (4.6.01, 4.7.1, 5.0.2)" 2 ;;
esac
declare -A arch_names=([70]=VOLTA70 [80]=AMPERE80 [86]=AMPERE86 [89]=ADA89 [90]=HOPPER90)
if [ -n "$cuda_arch" ]; then
  [ -n "${arch_names[$cuda_arch]:-}" ] || die "--cuda $cuda_arch: known architectures are ${!arch_names[*]}" 2
fi
[ "$cmake_lang" = 0 ] || [ -n "$cuda_arch" ] || die "--cmake-language needs --cuda" 2
[ "$threads" = 0 ] || [ -z "$cuda_arch" ] || die "--threads and --cuda are separate builds (one at a time)" 2
[ -z "$hip_arch" ] || [ -z "$cuda_arch" ] || die "--hip and --cuda are separate builds (one at a time)" 2
[ -z "$hip_arch" ] || [ "$threads" = 0 ] || die "--hip and --threads are separate builds (one at a time)" 2
if [ -n "$hip_arch" ]; then
  case "$hip_arch" in
    gfx*) ;;
    *) die "--hip $hip_arch: an AMD GPU architecture is named gfxNNN (gfx90a, gfx942)" 2 ;;
  esac
fi

host_kind=host
[ "$threads" = 0 ] || host_kind=threads
# Kokkos::Threads binds its workers only through hwloc (Kokkos_ENABLE_HWLOC); OpenMP binds its
# own (OMP_PROC_BIND), so only a Threads build asks for it.
if [ "$hwloc" = 1 ]; then
  [ "$threads" = 1 ] || die "--hwloc goes with --threads (OpenMP binds its threads itself: OMP_PROC_BIND)" 2
  host_kind=threads-hwloc
fi
gpu=""
[ -z "$cuda_arch" ] || gpu="cuda$cuda_arch"
[ -z "$hip_arch" ] || gpu="hip-$hip_arch"
name="kokkos-$version-$([ -n "$gpu" ] && echo "$gpu" || echo "$host_kind")$([ "$cmake_lang" = 1 ] && echo -cmakelang || true)"
prefix="$KPS_CACHE/$name"
if [ "$print" = 1 ]; then echo "$prefix"; exit 0; fi
if [ -f "$prefix/env.sh" ]; then
  say "Kokkos $version + Kokkos Kernels $kk already in $prefix"
  exit 0
fi

if [ -n "$hip_arch" ]; then
  hipcc="${HIPCC:-$(command -v hipcc || true)}"
  [ -n "$hipcc" ] || die "--hip: no hipcc (HIPCC names it; Debian: apt-get install hipcc libamdhip64-dev rocm-device-libs)" 2
  hip_version="$("$hipcc" --version 2>/dev/null | sed -n 's/^HIP version: \([0-9]*\.[0-9]*\).*/\1/p' | head -n 1)"
  hip_version="${hip_version:-0.0}"
  # The compiler must know the architecture: one compile of an empty kernel says so.
  probe_dir="$(mktemp -d)"
  printf '#include <hip/hip_runtime.h>\n__global__ void k() {}\n' >"$probe_dir/probe.hip"
  if ! "$hipcc" --offload-arch="$hip_arch" -c "$probe_dir/probe.hip" -o "$probe_dir/probe.o" >"$probe_dir/log" 2>&1; then
    rm -rf "$probe_dir"
    die "--hip $hip_arch: $hipcc (HIP $hip_version) cannot compile for $hip_arch" 2
  fi
  rm -rf "$probe_dir"
  if [ "${version%%.*}" -ge 5 ] && printf '%s\n6.2\n' "$hip_version" | sort -V -C; then
    [ "$hip_version" = 6.2 ] || die "Kokkos $version needs hipcc >= 6.2 (HIP $hip_version here: Kokkos 4.7.1 builds with it)" 2
  fi
fi
if [ "$hwloc" = 1 ]; then
  printf '#include <hwloc.h>\n' | "${CXX:-g++}" -E -x c++ - >/dev/null 2>&1 \
    || die "--hwloc: no hwloc.h (Debian: apt-get install libhwloc-dev)" 2
fi
for a in "kokkos-$version" "kokkos-kernels-$kk"; do
  [ -f "$deps/$a.tar.gz" ] || die "$deps/$a.tar.gz not found (--deps DIR or KPS_DEPS names the folder of the archives)" 2
done
command -v cmake >/dev/null || die "cmake not found"
cmake_version="$(cmake --version | sed -n '1s/[^0-9]*\([0-9.]*\).*/\1/p')"
if [ "$cmake_lang" = 1 ] && [ "${version%%.*}" -ge 5 ]; then
  printf '%s\n3.25.2\n' "$cmake_version" | sort -V -C && die "Kokkos $version with CUDA as a CMake language needs CMake >= 3.25.2 (found $cmake_version; pip install 'cmake>=3.25.2')"
fi

work="$KPS_CACHE/build-$name"
log="$work.log"
rm -rf "$work" && mkdir -p "$work"
say "unpacking Kokkos $version and Kokkos Kernels $kk"
tar xzf "$deps/kokkos-$version.tar.gz" -C "$work"
tar xzf "$deps/kokkos-kernels-$kk.tar.gz" -C "$work"

common=(-DCMAKE_BUILD_TYPE=Release "-DCMAKE_INSTALL_PREFIX=$prefix" "-DCMAKE_CXX_STANDARD=$std" -DBUILD_SHARED_LIBS=OFF)
kokkos=(-DKokkos_ENABLE_SERIAL=ON -DKokkos_ENABLE_TESTS=OFF -DKokkos_ENABLE_EXAMPLES=OFF)
if [ "$threads" = 1 ]; then
  kokkos+=(-DKokkos_ENABLE_THREADS=ON)
  [ "$hwloc" = 0 ] || kokkos+=(-DKokkos_ENABLE_HWLOC=ON)
elif [ -z "$hip_arch" ]; then kokkos+=(-DKokkos_ENABLE_OPENMP=ON); fi
compiler=(-DCMAKE_CXX_COMPILER="${CXX:-g++}")
if [ -n "$cuda_arch" ]; then
  kokkos+=(-DKokkos_ENABLE_CUDA=ON "-DKokkos_ARCH_${arch_names[$cuda_arch]}=ON")
  # Kokkos 4 asks for extended lambdas explicitly; Kokkos 5 always has them.
  [ "${version%%.*}" -ge 5 ] || kokkos+=(-DKokkos_ENABLE_CUDA_LAMBDA=ON)
  if [ "$cmake_lang" = 1 ]; then
    kokkos+=(-DKokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE=ON "-DCMAKE_CUDA_ARCHITECTURES=$cuda_arch")
  else
    # The wrapper at its installed place: Kokkos records its compiler for the projects that use
    # it (kokkos_launch_compiler), and the unpacked sources go away after the build.
    mkdir -p "$prefix/bin" && cp "$work/kokkos-$version/bin/nvcc_wrapper" "$prefix/bin/"
    compiler=(-DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper")
  fi
fi
if [ -n "$hip_arch" ]; then
  kokkos_arch="$(printf '%s' "$hip_arch" | tr '[:lower:]' '[:upper:]')"
  kokkos+=(-DKokkos_ENABLE_HIP=ON "-DKokkos_ARCH_AMD_${kokkos_arch}=ON" -DKokkos_ENABLE_ROCTHRUST=OFF)
  compiler=(-DCMAKE_CXX_COMPILER="$hipcc")
fi
say "building Kokkos $version (C++$std$([ -n "$cuda_arch" ] && echo ", CUDA sm_$cuda_arch" || true)$([ -n "$hip_arch" ] && echo ", HIP $hip_arch" || true)$([ "$threads" = 1 ] && echo ", Threads" || true)$([ "$hwloc" = 1 ] && echo " with hwloc" || true), $jobs jobs; log: $log)"
{ cmake -S "$work/kokkos-$version" -B "$work/kokkos" "${common[@]}" "${compiler[@]}" "${kokkos[@]}" \
    && cmake --build "$work/kokkos" -j "$jobs" && cmake --install "$work/kokkos"; } >"$log" 2>&1 \
  || { tail -n 20 "$log" >&2; die "building Kokkos $version failed; the log is $log"; }
# Kokkos Kernels: the BLAS component only (kps uses KokkosBlas::dot and ::sum), without explicit
# instantiations (kps instantiates what it uses). nvcc_wrapper builds need it as the compiler too.
kk_compiler=("${compiler[@]}")
say "building Kokkos Kernels $kk"
{ cmake -S "$work/kokkos-kernels-$kk" -B "$work/kokkos-kernels" "${common[@]}" "${kk_compiler[@]}" \
    "-DKokkos_ROOT=$prefix" -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_ALL_COMPONENTS=OFF \
    -DKokkosKernels_ENABLE_COMPONENT_BLAS=ON -DKokkosKernels_ENABLE_TPL_BLAS=OFF \
    -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF -DKokkosKernels_INST_LAYOUTLEFT=OFF \
    -DKokkosKernels_INST_LAYOUTRIGHT=OFF -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_OFFSET_INT=OFF \
    -DKokkosKernels_INST_OFFSET_SIZE_T=OFF \
    && cmake --build "$work/kokkos-kernels" -j "$jobs" && cmake --install "$work/kokkos-kernels"; } >>"$log" 2>&1 \
  || { tail -n 20 "$log" >&2; die "building Kokkos Kernels $kk failed; the log is $log"; }
rm -rf "$work"
printf '# written by scripts/kokkos.sh: Kokkos %s + Kokkos Kernels %s\nexport CMAKE_PREFIX_PATH="%s${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"\n' \
  "$version" "$kk" "$prefix" >"$prefix/env.sh"
say "Kokkos $version + Kokkos Kernels $kk installed in $prefix"
