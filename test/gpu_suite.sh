#!/usr/bin/env bash
# The GPU node's check of a CUDA build: the tests that need the GPU (ctest -L gpu) and the
# sanitizer stage (ctest's kps.sanitize.* run by hand: test/sanitize/sanitize.sh), with a log
# of each and a summary naming the command, the kps revision, Kokkos and the device.
#   test/gpu_suite.sh BUILD_DIR OUT_DIR [gpu|gpu-hard|gpu-rest|sanitize]...     (default: gpu sanitize)
# Writes OUT_DIR/summary.md, OUT_DIR/ctest-<part>.log, OUT_DIR/sanitize/<tool>.log. Exit 0 when
# everything passed, 1 otherwise, 2 on bad arguments.
set -uo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BUILD_DIR OUT_DIR [gpu|gpu-hard|gpu-rest|sanitize]..." >&2; exit 2; }
build="$(cd "$1" 2>/dev/null && pwd)" || { echo "gpu_suite: no build folder $1" >&2; exit 2; }
out="$2"
shift 2
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(gpu sanitize)
for part in "${parts[@]}"; do
  case "$part" in
    gpu | gpu-hard | gpu-rest | sanitize) ;;
    *) echo "gpu_suite: unknown part '$part' (gpu, gpu-hard, gpu-rest, sanitize)" >&2; exit 2 ;;
  esac
done
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$out"
bench="$build/bench/kps-bench"
context="$("$bench" --kps_context 2>/dev/null)" || { echo "gpu_suite: $bench --kps_context failed (no GPU?)" >&2; exit 2; }
field() { printf '%s\n' "$context" | sed -n "s/.*\"$1\": \"\\(.*\\)\".*/\\1/p" | head -n 1; }
status=0
{
  echo "# GPU suite of a CUDA build"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| device | $(field device) (compute capability $(field device_compute_capability), $(field device_compute_units) SMs) |"
  echo "| driver | $(field device_driver) |"
  echo "| kps revision | $(field kps_git_revision) |"
  echo "| Kokkos | $(field kokkos_version) ($(field kokkos_backends)), $(field compiler) |"
  echo "| date | $(date -u +%Y-%m-%dT%H:%M:%SZ) |"
  echo
} >"$out/summary.md"
for part in "${parts[@]}"; do
  case "$part" in
    gpu | gpu-hard | gpu-rest)
      # gpu: every test labelled gpu; gpu-hard: the hard inputs alone (minutes: 2^31 elements of
      # each type); gpu-rest: the others. The two halves make the whole, for a node's time limits.
      case "$part" in
        gpu) select=() ;;
        gpu-hard) select=(-R '^HardInputs\.') ;;
        gpu-rest) select=(-E '^HardInputs\.') ;;
      esac
      cmd="ctest --test-dir <build> -L gpu ${select[*]} --output-on-failure --timeout 600"
      log="ctest-$part.log"
      start=$(date +%s)
      (cd "$build" && ctest -L gpu "${select[@]}" --output-on-failure --timeout 600) >"$out/$log" 2>&1
      rc=$?
      sed -i "s#$build#<build>#g" "$out/$log"  # a log names no folder of the machine it ran on
      line="$(grep -E 'tests passed|tests failed' "$out/$log" | tail -n 1)"
      printf -- '- `%s`: %s (exit %d, %d s; %s)\n' "$cmd" "$line" "$rc" $(( $(date +%s) - start )) "$log" >>"$out/summary.md"
      [ "$rc" = 0 ] || status=1
      ;;
    sanitize)
      start=$(date +%s)
      bash "$here/sanitize/sanitize.sh" "$build/test/kps-sanitize-tests" "$out/sanitize" >"$out/sanitize.txt" 2>&1
      rc=$?
      {
        printf -- '- `test/sanitize/sanitize.sh <build>/test/kps-sanitize-tests <out>/sanitize` (exit %d, %d s):\n' "$rc" $(( $(date +%s) - start ))
        sed 's/^/    /' "$out/sanitize.txt"
      } >>"$out/summary.md"
      rm -f "$out/sanitize.txt"
      [ "$rc" = 0 ] || status=1
      ;;
  esac
done
cat "$out/summary.md"
exit $status
