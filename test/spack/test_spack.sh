#!/usr/bin/env bash
# kps.spack: the spack files of the project concretize with a real spack, offline:
#   spack.yaml (GPU node), cluster/spack-host/spack.yaml (CPU cores), and `kps +cuda cuda_arch=90`
#   from the project's own package repository (spack_repo/kps).
# The spack is the one on PATH (with its own configuration, plus the kps repository), else
# Spack 1.1.0 and its package repository v2025.11 unpacked from the archives in $KPS_DEPS (default:
# ../shared/deps beside the checkout) into $KPS_CACHE/spack, with clingo from PyPI in a virtual
# environment there. Nothing is written to the checkout. Exit 77 (skipped) with a message where
# there is no spack; the concretized versions are printed.
set -euo pipefail
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KPS_CACHE="${KPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kps}"
DEPS="${KPS_DEPS:-$SRC/../shared/deps}"
say() { printf '[kps.spack] %s\n' "$*"; }
skip() { say "SKIPPED: $*"; exit 77; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scope"
printf 'repos:\n  kps: %s/spack_repo/kps\n' "$SRC" >"$work/scope/repos.yaml"

if command -v spack >/dev/null 2>&1; then
  SPACK=(spack)
  say "using the spack on PATH: $(command -v spack) ($(spack --version))"
else
  spack_tgz="$DEPS/spack-1.1.0.tar.gz" packages_tgz="$DEPS/spack-packages-v2025.11.tar.gz"
  [ -f "$spack_tgz" ] && [ -f "$packages_tgz" ] \
    || skip "no spack on PATH, and no $spack_tgz and $packages_tgz to unpack one from (KPS_DEPS names their folder)"
  home="$KPS_CACHE/spack-1.1.0"
  if [ ! -x "$home/spack/bin/spack" ] || [ ! -d "$home/spack-packages/repos/spack_repo/builtin" ]; then
    say "unpacking Spack 1.1.0 and spack-packages v2025.11 into $home"
    rm -rf "$home" && mkdir -p "$home"
    tar xzf "$spack_tgz" -C "$home" && tar xzf "$packages_tgz" -C "$home"
  fi
  if [ ! -x "$home/venv/bin/python" ] || ! "$home/venv/bin/python" -c 'import clingo' 2>/dev/null; then
    say "installing clingo (PyPI) into $home/venv"
    python3 -m venv "$home/venv" && "$home/venv/bin/pip" install -q clingo \
      || skip "clingo could not be installed from PyPI into $home/venv (spack's concretizer needs it offline)"
  fi
  export PATH="$home/venv/bin:$PATH"
  # A configuration of its own: the unpacked builtin repository, no bootstrapping, this machine's compilers.
  export SPACK_USER_CONFIG_PATH="$home/config" SPACK_USER_CACHE_PATH="$home/cache"
  mkdir -p "$SPACK_USER_CONFIG_PATH"
  printf 'repos::\n  builtin: %s/spack-packages/repos/spack_repo/builtin\n' "$home" >"$SPACK_USER_CONFIG_PATH/repos.yaml"
  SPACK=("$home/spack/bin/spack")
  if [ ! -f "$SPACK_USER_CONFIG_PATH/packages.yaml" ]; then
    "${SPACK[@]}" bootstrap disable >/dev/null
    "${SPACK[@]}" compiler find >/dev/null
  fi
  say "using Spack $("${SPACK[@]}" --version) from $home (offline)"
fi
SPACK+=(-C "$work/scope")

versions() {  # the root specs' and CUDA's versions in `spack spec` output
  grep -oE '(^| )\^?(kps|kokkos|kokkos-kernels|kokkos-tools|cuda|hip|benchmark|googletest|cmake|py-matplotlib)@[^~+ ]+' "$1" \
    | sed 's/^ *\^\{0,1\}//' | sort -u | tr '\n' ' '
}

status=0
for env in "spack.yaml" "cluster/spack-host/spack.yaml"; do
  d="$work/env-$(echo "$env" | tr '/.' '--')"
  mkdir -p "$d" && cp "$SRC/$env" "$d/spack.yaml"
  if "${SPACK[@]}" -e "$d" concretize -f >"$d.log" 2>&1; then
    say "$env concretizes: $(versions "$d.log")"
  else
    tail -n 20 "$d.log" >&2
    say "FAILED: $env does not concretize"
    status=1
  fi
done
for spec in "kps +cuda cuda_arch=90" "kps +rocm amdgpu_target=gfx90a" "kps +threads"; do
  log="$work/$(echo "$spec" | tr ' =+' '---').log"
  # shellcheck disable=SC2086  # the spec's words are spack's arguments
  if "${SPACK[@]}" spec $spec >"$log" 2>&1; then
    say "$spec concretizes: $(versions "$log")"
  else
    tail -n 20 "$log" >&2
    say "FAILED: $spec does not concretize"
    status=1
  fi
done
exit $status
