#!/usr/bin/env bash
# The newest Kokkos a Debian user gets: kps built and tested inside a Debian sid chroot (debootstrap)
# against sid's own libkokkos-dev (Kokkos 5.2 with Serial and OpenMP: the `host` preset, warnings as
# errors, and its suite), and with --hip ARCH the `hip` preset compiled for that AMD GPU with sid's
# hipcc (7.x: gfx90a, gfx942, gfx950) against Kokkos 5.0.2 built with HIP from ../shared/deps.
#   scripts/sid.sh [--root DIR] [--hip ARCH] [--no-host] [--deps DIR] [--jobs N] [--out FILE] [--dry-run]
# DIR: the chroot (default ~/.cache/kps/sid, $KPS_CACHE; made once with `debootstrap --variant=minbase
# sid`, about 1.6 GB with the packages; later runs reuse it and upgrade it). FILE (default
# build/sid/matrix.md) gets one row per build, as scripts/matrix.sh writes them. --dry-run prints the
# steps and changes nothing. Needs root (debootstrap, chroot, mounts) and Debian's archive. Sid moves
# every day: CI does not run this; it runs by hand, and the tested matrix (docs/install.md) names the
# date and the versions it found.
# Exit 0 when every build passed, 1 otherwise, 2 on bad arguments or a machine that cannot run it.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { echo "sid: $1" >&2; exit "${2:-2}"; }
chroot_dir="${KPS_CACHE:-$HOME/.cache/kps}/sid" hip_arch="" host=1 deps="${KPS_DEPS:-$ROOT/../shared/deps}"
jobs="${KPS_JOBS:-$(nproc)}" out="$ROOT/build/sid/matrix.md" dry=0
mirror="${KPS_DEBIAN_MIRROR:-http://deb.debian.org/debian}" hip_kokkos=5.0.2
while [ $# -gt 0 ]; do
  case "$1" in
    --root) [ $# -ge 2 ] && [ -n "$2" ] || die "--root needs a folder"; chroot_dir="$2"; shift 2 ;;
    --hip) [ $# -ge 2 ] || die "--hip needs an AMD GPU architecture (gfx942)"
           case "$2" in gfx[0-9]*) hip_arch="$2" ;; *) die "--hip $2: an AMD GPU architecture is named gfxNNN (gfx90a, gfx942)" ;; esac
           shift 2 ;;
    --no-host) host=0; shift ;;
    --deps) [ $# -ge 2 ] || die "--deps needs a folder"; deps="$2"; shift 2 ;;
    --jobs) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--jobs needs a positive number"; jobs="$2"; shift 2 ;;
    --out) [ $# -ge 2 ] || die "--out needs a file"; out="$2"; shift 2 ;;
    --dry-run) dry=1; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $1 (scripts/sid.sh --help)" ;;
  esac
done
[ "$host" = 1 ] || [ -n "$hip_arch" ] || die "--no-host without --hip leaves nothing to build"
case "$chroot_dir" in /*) ;; *) chroot_dir="$PWD/$chroot_dir" ;; esac
# Sid has no Kokkos Kernels for its libkokkos-dev (its Kokkos Kernels is Trilinos', for Trilinos'
# Kokkos): the host build gets Kokkos Kernels 4.7.00 from DIR built against sid's Kokkos, the HIP
# build Kokkos 5.0.2 and that Kokkos Kernels (scripts/kokkos.sh).
kk_archive="$deps/kokkos-kernels-4.7.00.tar.gz"
hip_archives=("$deps/kokkos-$hip_kokkos.tar.gz" "$kk_archive")

# What scripts/setup.sh installs on Debian 12 (the suite's Python tests and the installed kps
# command need matplotlib, pytest, pip, setuptools and wheel), and sid's Kokkos.
packages=(ca-certificates g++ cmake make git python3 python3-matplotlib python3-pytest python3-pip
          python3-setuptools python3-wheel libkokkos-dev libbenchmark-dev libgtest-dev nlohmann-json3-dev libtbb-dev)
[ -z "$hip_arch" ] || packages+=(hipcc libamdhip64-dev)  # hipcc brings its clang and rocm-device-libs
src=/kps/src
tests_skipped='^kps\.(spack|report\.committed|cluster\.slurm_real|cluster\.slurm)$'

if [ "$dry" = 1 ]; then
  echo "chroot: $chroot_dir (debootstrap --variant=minbase sid from $mirror unless it exists)"
  echo "packages: ${packages[*]}"
  echo "source: the checkout's tracked files, copied to $src"
  for a in "${hip_archives[@]}"; do [ -f "$a" ] || echo "missing: $a (--deps DIR)"; done
  [ "$host" = 0 ] || echo "host: Kokkos Kernels 4.7.00 against sid's Kokkos, cmake --preset host (C++20), build with $jobs jobs, ctest -E '$tests_skipped'"
  [ -z "$hip_arch" ] || echo "hip: Kokkos $hip_kokkos with HIP for $hip_arch (scripts/kokkos.sh), then cmake --preset hip, build"
  echo "rows: $out"
  exit 0
fi
if [ -n "$hip_arch" ]; then
  for a in "${hip_archives[@]}"; do
    [ -f "$a" ] || die "--hip needs Kokkos $hip_kokkos's and Kokkos Kernels 4.7.00's source archives: no $a (--deps DIR)"
  done
fi
[ "$host" = 0 ] || [ -f "$kk_archive" ] || die "the host build needs Kokkos Kernels 4.7.00's source archive: no $kk_archive (--deps DIR)"

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and mounts)"
command -v chroot >/dev/null || die "no chroot on this machine"
if ! command -v debootstrap >/dev/null; then
  echo "[sid] installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap >/dev/null ||
    die "cannot install debootstrap (apt-get install debootstrap)" 1
fi
mkdir -p "$(dirname "$out")" "$chroot_dir"
log="$(dirname "$out")/sid.log"
: >"$log"
say() { echo "[sid] $*"; echo "[sid] $*" >>"$log"; }
mounted=()
cleanup() {  # unmount in reverse order
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null; done
}
trap cleanup EXIT
trap 'echo "sid: interrupted" >&2; exit 130' INT TERM

start=$(date +%s)
if [ ! -x "$chroot_dir/usr/bin/apt-get" ]; then
  say "debootstrap sid into $chroot_dir"
  debootstrap --variant=minbase sid "$chroot_dir" "$mirror" >>"$log" 2>&1 ||
    die "debootstrap failed (the last lines of $log)" 1
fi
for m in proc dev sys; do
  mkdir -p "$chroot_dir/$m"
  if [ "$m" = proc ]; then mount -t proc proc "$chroot_dir/proc"; else mount --rbind "/$m" "$chroot_dir/$m"; fi 2>>"$log" ||
    die "cannot mount /$m in the chroot" 1
  mounted+=("$chroot_dir/$m")
done
cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf" 2>/dev/null
in_chroot() { chroot "$chroot_dir" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive bash -c "$1"; }
# A mirror that serves a snapshot of sid (snapshot.debian.org, a site's frozen copy) has Release
# files past their Valid-Until date: apt refuses them unless told.
echo 'Acquire::Check-Valid-Until "false";' >"$chroot_dir/etc/apt/apt.conf.d/99kps-snapshot"
say "apt: ${packages[*]}"
in_chroot "apt-get update -q && apt-get -y -q dist-upgrade && apt-get install -y -q --no-install-recommends ${packages[*]}" >>"$log" 2>&1 ||
  die "the packages did not install in the chroot (the last lines of $log)" 1

say "source: the checkout's tracked files"
rm -rf "$chroot_dir/kps/src" && mkdir -p "$chroot_dir/kps/src" "$chroot_dir/kps/deps"
(cd "$ROOT" && git ls-files -z | xargs -0 tar cf - 2>/dev/null) | tar xf - -C "$chroot_dir/kps/src" ||
  die "cannot copy the checkout into the chroot" 1
[ -z "$hip_arch" ] || cp "${hip_archives[@]}" "$chroot_dir/kps/deps/"
[ "$host" = 0 ] || cp "$kk_archive" "$chroot_dir/kps/deps/"

{
  echo "| Kokkos | backend | compiler, C++ | what ran | result | time |"
  echo "|---|---|---|---|---|---|"
} >"$out"
status=0
version_of() { in_chroot "dpkg-query -W -f='\${Version}' $1 2>/dev/null"; }
if [ "$host" = 1 ]; then
  t0=$(date +%s)
  kokkos="$(version_of libkokkos-dev)" gxx="$(in_chroot 'g++ -dumpfullversion')"
  say "host preset against sid's Kokkos $kokkos (g++ $gxx)"
  # libkokkos-dev 5.2.2-2's CMake targets name static archives of Kokkos' header-only parts
  # (libkokkosalgorithms.a, libkokkossimd.a) that the package does not ship, and find_package(Kokkos)
  # stops there; empty archives stand in for them (a packaging bug, said in the row).
  stood_in="$(in_chroot 'for f in $(sed -n "s|.*\${_IMPORT_PREFIX}\(/lib/[^\"]*\.a\)\".*|/usr\1|p" /usr/lib/*/cmake/Kokkos/KokkosTargets-*.cmake | sort -u); do
                           [ -e "$f" ] || { ar rc "$f" && basename "$f"; }; done' 2>>"$log" | tr '\n' ' ')"
  [ -z "$stood_in" ] || say "empty archives for what libkokkos-dev names but lacks: $stood_in"
  result="build failed"
  kk_flags="-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/kps/kokkos-kernels -DKokkos_ROOT=/usr \
    -DKokkosKernels_ENABLE_TESTS=OFF -DKokkosKernels_ENABLE_ALL_COMPONENTS=OFF -DKokkosKernels_ENABLE_COMPONENT_BLAS=ON \
    -DKokkosKernels_ENABLE_TPL_BLAS=OFF -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF \
    -DKokkosKernels_INST_LAYOUTLEFT=OFF -DKokkosKernels_INST_LAYOUTRIGHT=OFF -DKokkosKernels_INST_ORDINAL_INT=OFF \
    -DKokkosKernels_INST_OFFSET_INT=OFF -DKokkosKernels_INST_OFFSET_SIZE_T=OFF"
  if in_chroot "rm -rf /kps/kk /kps/kokkos-kernels && mkdir -p /kps/kk && tar xzf /kps/deps/$(basename "$kk_archive") -C /kps/kk &&
                cmake -S /kps/kk/kokkos-kernels-4.7.00 -B /kps/kk/build $kk_flags && cmake --build /kps/kk/build -j $jobs &&
                cmake --install /kps/kk/build" >>"$log" 2>&1 &&
     in_chroot "cd $src && CMAKE_PREFIX_PATH=/kps/kokkos-kernels cmake --preset host -B /kps/build/host -DCMAKE_CXX_STANDARD=20 &&
                cmake --build /kps/build/host -j $jobs" >>"$log" 2>&1; then
    if in_chroot "cd /kps/build/host && OMP_PROC_BIND=false ctest -E '$tests_skipped' --output-on-failure" >>"$log" 2>&1; then
      result="built; $(grep -o '[0-9]* tests passed[^,]*\|100% tests passed, 0 tests failed out of [0-9]*' "$log" | tail -1)"
    else
      result="built; tests failed: $(grep -o '[0-9]*% tests passed, [0-9]* tests failed out of [0-9]*' "$log" | tail -1)"
      status=1
    fi
  else
    status=1
  fi
  [ -z "$stood_in" ] || result="$result (empty stand-ins for the missing ${stood_in% })"
  echo "| $kokkos (sid's libkokkos-dev), Kokkos Kernels 4.7.00 | Serial, OpenMP | g++ $gxx, C++20 | host preset, warnings as errors; the suite | $result | $(( $(date +%s) - t0 )) s |" >>"$out"
  say "host: $result"
fi
if [ -n "$hip_arch" ]; then
  t0=$(date +%s)
  hip="$(version_of hipcc)"
  say "hip preset for $hip_arch against Kokkos $hip_kokkos (hipcc $hip)"
  result="build failed"
  if in_chroot "cd $src && KPS_CACHE=/kps/cache HIPCC=hipcc scripts/kokkos.sh $hip_kokkos --hip $hip_arch --deps /kps/deps --jobs $jobs &&
                CMAKE_PREFIX_PATH=\$(KPS_CACHE=/kps/cache scripts/kokkos.sh $hip_kokkos --hip $hip_arch --print-prefix) \
                cmake --preset hip -B /kps/build/hip-$hip_arch -DCMAKE_CXX_STANDARD=20 &&
                cmake --build /kps/build/hip-$hip_arch -j $jobs" >>"$log" 2>&1; then
    result="every target built; not run (no AMD GPU here)"
  else
    status=1
  fi
  echo "| $hip_kokkos | Serial, HIP ($hip_arch) | sid's hipcc $hip, C++20 | hip preset, warnings as errors | $result | $(( $(date +%s) - t0 )) s |" >>"$out"
  say "hip: $result"
fi
say "done in $(( $(date +%s) - start )) s: $out (log: $log)"
exit $status
