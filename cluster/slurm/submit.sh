#!/usr/bin/env bash
# cluster/slurm/submit.sh — runs every kps study on a Slurm cluster, then renders the report.
#
# Submits one job array over the studies (task i runs study i alone: `tools/kps_run.py run
# --studies S`, on a GPU or on a whole CPU node), then one report job that renders OUT/report.md
# (`tools/kps_run.py report OUT`) once every task succeeded (--dependency=afterok). Run it on a
# login node with the environment the jobs need (spack env activate ...): sbatch exports it to
# the jobs. The checkout, the kps-bench binary and OUT must be on a file system the nodes share.
#
#   cluster/slurm/submit.sh [--backend gpu|cpu] [--scale small|full] [--studies a,b] [--bench PATH]
#                           [--out DIR] [--partition P] [--report-partition P] [--account A]
#                           [--time HH:MM:SS] [--cpus N] [--force] [--update-committed] [--dry-run]
#
#   --backend gpu    one GPU per study (--gpus=1), the kps-bench of a CUDA build (default)
#   --backend cpu    a whole node per study (--exclusive), N cores for one task (--cpus-per-task),
#                    OpenMP threads spread over them (OMP_NUM_THREADS=N, OMP_PROC_BIND=spread,
#                    OMP_PLACES=threads, srun --cpu-bind=cores); the kps-bench of a host build
#   --cpus N         cores of a study task: cpu default 16 (the GPU node's); gpu default unset
#                    (given, a gpu task's OpenMP threads are pinned to its own N cores, so tasks
#                    side by side on a multi-GPU node do not share one)
#   --scale          the studies' sweeps: full (default) or small
#   --studies        a comma-separated subset (default: every studies/*/study.json)
#   --bench PATH     kps-bench (default: build/cuda or build/host of this checkout, by backend,
#                    else kps-bench on PATH, as installed by cmake --install or spack)
#   --out DIR        results folder (default: results/local/slurm-<backend>, ignored by git); job
#                    logs in DIR/slurm/. A committed folder (results/<machine>) needs --update-committed
#   --partition P, --account A    passed to sbatch; --report-partition P for the report job
#                    (default: the --partition); --time per study task (default: 04:00:00 for
#                    full, 00:30:00 for small)
#   --force          re-run studies whose results are up to date (default: resume, skip them)
#   --update-committed  allow --out to name a committed results folder: re-measure it on purpose
#   --dry-run        print the sbatch commands, submit nothing
#
# Exit status: 0 submitted, 2 bad option or missing kps-bench, 1 no sbatch or sbatch refused a job
# (an unknown --partition, more --cpus than a node has, ...): one line with sbatch's reason; where
# it refused the report job, the study array is cancelled again, so nothing is left queued.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"

usage() { sed -n '2,30p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { printf 'submit.sh: error: %s\n' "$*" >&2; exit 2; }    # bad input: nothing submitted
fail() { printf 'submit.sh: error: %s\n' "$*" >&2; exit 1; }   # Slurm refused or is missing
say() { printf '[kps slurm] %s\n' "$*"; }

backend=gpu scale=full studies_csv="" bench="" out="" partition="" report_partition="" account=""
time_limit="" cpus="" force=0 update=0 dry_run=0

# Options take their value as `--opt value` or `--opt=value`.
while [ $# -gt 0 ]; do
  opt="$1" val="" has_val=0
  case "$opt" in
    --*=*) val="${opt#*=}"; opt="${opt%%=*}"; has_val=1 ;;
  esac
  case "$opt" in
    --backend|--scale|--studies|--bench|--out|--partition|--report-partition|--account|--time|--cpus)
      if [ "$has_val" = 0 ]; then
        [ $# -ge 2 ] || die "$opt needs a value"
        val="$2"; shift
      fi
      [ -n "$val" ] || die "$opt needs a non-empty value"
      ;;
    --force|--update-committed|--dry-run|-h|--help)
      [ "$has_val" = 0 ] || die "$opt takes no value"
      ;;
    *) die "unknown option '$1' (--help lists them)" ;;
  esac
  shift
  case "$opt" in
    --backend) backend="$val" ;;
    --scale) scale="$val" ;;
    --studies) studies_csv="$val" ;;
    --bench) bench="$val" ;;
    --out) out="$val" ;;
    --partition) partition="$val" ;;
    --report-partition) report_partition="$val" ;;
    --account) account="$val" ;;
    --time) time_limit="$val" ;;
    --cpus) cpus="$val" ;;
    --force) force=1 ;;
    --update-committed) update=1 ;;
    --dry-run) dry_run=1 ;;
    -h|--help) usage; exit 0 ;;
  esac
done

case "$backend" in
  gpu) preset=cuda ;;
  cpu) preset=host ;;
  *) die "--backend must be gpu or cpu, not '$backend'" ;;
esac
case "$scale" in
  small|full) ;;
  *) die "--scale must be small or full, not '$scale'" ;;
esac
if [ -n "$cpus" ]; then
  [[ "$cpus" =~ ^[1-9][0-9]*$ ]] || die "--cpus must be a positive integer, not '$cpus'"
elif [ "$backend" = cpu ]; then
  cpus=16
fi
if [ -n "$time_limit" ]; then
  [[ "$time_limit" =~ ^[0-9:-]+$ ]] || die "--time must be a Slurm time (HH:MM:SS, D-HH:MM), not '$time_limit'"
elif [ "$scale" = full ]; then
  time_limit=04:00:00
else
  time_limit=00:30:00
fi

# The studies: every studies/<name>/study.json, or the subset asked for (in its order).
known=()
for f in "$ROOT"/studies/*/study.json; do
  [ -f "$f" ] && known+=("$(basename "$(dirname "$f")")")
done
[ ${#known[@]} -gt 0 ] || die "no studies/*/study.json under $ROOT"
studies=()
if [ -n "$studies_csv" ]; then
  IFS=, read -r -a asked <<<"$studies_csv"
  for s in "${asked[@]}"; do
    [ -n "$s" ] || continue
    [ -f "$ROOT/studies/$s/study.json" ] || die "unknown study '$s' (studies: ${known[*]})"
    for t in "${studies[@]+"${studies[@]}"}"; do
      [ "$t" != "$s" ] || die "study '$s' is listed twice"
    done
    studies+=("$s")
  done
  [ ${#studies[@]} -gt 0 ] || die "--studies names no study (studies: ${known[*]})"
else
  studies=("${known[@]}")
fi

# The benchmark binary: absolute, since the jobs run in the checkout's root (sbatch --chdir).
if [ -z "$bench" ]; then
  if [ -x "$ROOT/build/$preset/bench/kps-bench" ]; then
    bench="$ROOT/build/$preset/bench/kps-bench"
  elif command -v kps-bench >/dev/null 2>&1; then
    bench="$(command -v kps-bench)"
  else
    die "no kps-bench for --backend $backend: build it (cmake --preset $preset && cmake --build --preset $preset) or pass --bench PATH"
  fi
fi
if [ ! -f "$bench" ] || [ ! -x "$bench" ]; then
  die "--bench $bench is not an executable file"
fi
bench="$(cd "$(dirname "$bench")" && pwd)/$(basename "$bench")"

out="${out:-$ROOT/results/local/slurm-$backend}"
case "$out" in
  /*) ;;
  *) out="$PWD/$out" ;;
esac
report_partition="${report_partition:-$partition}"

common=(--parsable "--chdir=$ROOT")
[ -z "$account" ] || common+=("--account=$account")

array=(sbatch "${common[@]}" "--job-name=kps-$backend" "--array=0-$((${#studies[@]} - 1))"
       "--output=$out/slurm/%x-%A_%a.out" "--time=$time_limit" --ntasks=1)
[ -z "$partition" ] || array+=("--partition=$partition")
if [ "$backend" = gpu ]; then
  array+=(--gpus=1)
  [ -z "$cpus" ] || array+=("--cpus-per-task=$cpus")
else
  array+=(--exclusive "--cpus-per-task=$cpus")
fi
array+=("$HERE/study.sbatch" "$backend" "$bench" "$scale" "$out" "$(IFS=,; echo "${studies[*]}")" "$force")
report_args=("$out")
if [ "$update" = 1 ]; then
  array+=(update-committed)
  report_args+=(--in-place)
fi

report=(sbatch "${common[@]}" --job-name=kps-report "--output=$out/slurm/%x-%j.out" --time=00:30:00
        --ntasks=1 --kill-on-invalid-dep=yes)
[ -z "$report_partition" ] || report+=("--partition=$report_partition")

if [ "$dry_run" = 1 ]; then
  printf '%q ' "${array[@]}"; echo
  printf '%q ' "${report[@]}"; printf -- '--dependency=afterok:ARRAY_JOB_ID '
  printf '%q ' "$HERE/report.sbatch" "${report_args[@]}"; echo
  exit 0
fi

command -v sbatch >/dev/null 2>&1 || fail "no sbatch on PATH: run this on a Slurm login node (--dry-run prints the commands)"

# submit SBATCH-ARGS...: prints the job id (`sbatch --parsable` prints "jobid" or "jobid;cluster")
# and passes sbatch's warnings on; where sbatch refuses, prints its messages joined into one line
# and returns 1.
submit() {
  local printed id err msg rc=0
  err="$(mktemp)"
  printed="$("$@" 2>"$err")" || rc=$?
  if [ "$rc" != 0 ]; then
    # "sbatch: error: invalid partition specified: x", "sbatch: error: Batch job submission failed: ..."
    msg="$(awk 'NF { sub(/^sbatch: (error: )?/, ""); printf "%s%s", sep, $0; sep = "; " }' "$err")"
    rm -f "$err"
    printf '%s\n' "${msg:-sbatch exited with status $rc and no message}"
    return 1
  fi
  cat "$err" >&2
  rm -f "$err"
  id="${printed%%;*}"
  [[ "$id" =~ ^[0-9]+$ ]] || { printf "sbatch printed '%s', not a job id\n" "$printed"; return 1; }
  printf '%s\n' "$id"
}

mkdir -p "$out/slurm"
array_id="$(submit "${array[@]}")" || fail "sbatch refused the study array: $array_id; nothing submitted"
say "array job $array_id: ${#studies[@]} studies (${studies[*]}), backend $backend, scale $scale, $bench"
if ! report_id="$(submit "${report[@]}" "--dependency=afterok:$array_id" "$HERE/report.sbatch" "${report_args[@]}")"; then
  # A study array without its report job would run unasked for: take it back.
  if scancel "$array_id" >/dev/null 2>&1; then
    fail "sbatch refused the report job: $report_id; array job $array_id cancelled, nothing left queued"
  fi
  fail "sbatch refused the report job: $report_id; array job $array_id is queued without it (scancel $array_id)"
fi
say "report job $report_id: renders $out/report.md once every study succeeded"
say "logs: $out/slurm/; watch: squeue -j $array_id,$report_id"
