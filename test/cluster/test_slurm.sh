#!/usr/bin/env bash
# test/cluster/test_slurm.sh — ctest kps.cluster.slurm: what a one-node Slurm cannot show of the
# Slurm scripts of cluster/slurm (test_slurm_real.sh runs them on a real Slurm), with a fake sbatch
# and srun first on PATH (test/cluster/fake/bin: they log their arguments and environment, hand
# out job ids, and run the batch scripts on this host) and a stand-in kps-bench that writes minimal
# Google Benchmark JSON, so neither a cluster, a GPU nor a build is needed. The studies really run
# through tools/kps_run.py and the report job really renders the report.
#
# Checks: the gpu backend's array (one task per study, --gpus=1, no --exclusive, no CPU binding,
# --partition/--account passed on, a "jobid;cluster" answer parsed) and its report job
# (--dependency=afterok:<array id>, --kill-on-invalid-dep=yes, no GPU); the cpu backend's default
# flags (--dry-run); clear error exits for bad options, a missing kps-bench, an sbatch answer that
# is no job id; the batch scripts refusing to run outside a job. Prints one line per check; exits 1
# when any failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SUBMIT="$ROOT/cluster/slurm/submit.sh"
FAKE="$ROOT/test/cluster/fake"
BENCH="$FAKE/kps-bench"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/kps-slurm-test.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export PATH="$FAKE/bin:$PATH"
export KPS_PYTHON="${KPS_PYTHON:-python3}"
unset FAKE_SBATCH_EXEC FAKE_SBATCH_PRINT FAKE_SBATCH_CLUSTER FAKE_KPS_FAIL \
      FAKE_KPS_BACKEND FAKE_KPS_DEVICE FAKE_KPS_GBS SLURM_ARRAY_TASK_ID SLURM_CPUS_PER_TASK

# shellcheck source-path=SCRIPTDIR source=checks.sh
. "$ROOT/test/cluster/checks.sh"

# submit DIR ARGS...: runs submit.sh with the fakes' state in DIR/state; sets rc, leaves
# DIR/stdout and DIR/stderr.
submit() {
  local dir="$1"
  shift
  mkdir -p "$dir"
  rc=0
  FAKE_SLURM_DIR="$dir/state" "$SUBMIT" "$@" >"$dir/stdout" 2>"$dir/stderr" || rc=$?
}

studies=()
for f in "$ROOT"/studies/*/study.json; do studies+=("$(basename "$(dirname "$f")")"); done
n=${#studies[@]}
check "studies found: ${studies[*]}" [ "$n" -ge 1 ]

# --- GPU: every study, run through the batch scripts -----------------------------------------
d="$WORK/gpu" s="$WORK/gpu/state" out="$WORK/gpu/results"
export FAKE_SBATCH_EXEC=1 FAKE_SBATCH_CLUSTER=fakecluster FAKE_KPS_BACKEND=Cuda \
       FAKE_KPS_DEVICE="NVIDIA H100 80GB HBM3" FAKE_KPS_GBS=2000
submit "$d" --backend gpu --scale small --bench "$BENCH" --out "$out" --partition=gpu-part --account proj42
check "gpu: submit.sh exits 0" equals "$rc" 0
check "gpu: two sbatch calls (array, report)" equals "$(cat "$s/sbatch.calls")" 2
check "gpu: one array task per study (--array=0-$((n - 1)))" has_line "$s/sbatch.1.args" "--array=0-$((n - 1))"
check "gpu: the array job asks one GPU (--gpus=1)" has_line "$s/sbatch.1.args" --gpus=1
check "gpu: no --exclusive" lacks_text "$s/sbatch.1.args" --exclusive
check "gpu: --partition passed through" has_line "$s/sbatch.1.args" --partition=gpu-part
check "gpu: --account passed through" has_line "$s/sbatch.1.args" --account=proj42
check "gpu: --parsable" has_line "$s/sbatch.1.args" --parsable
check "gpu: jobs run in the checkout (--chdir)" has_line "$s/sbatch.1.args" "--chdir=$ROOT"
check "gpu: the array runs study.sbatch" has_line "$s/sbatch.1.args" "$ROOT/cluster/slurm/study.sbatch"
check "gpu: the array's study list is every study" has_line "$s/sbatch.1.args" "$(IFS=,; echo "${studies[*]}")"
check "gpu: the report job waits for the array (afterok:4100, parsed from '4100;fakecluster')" \
  has_line "$s/sbatch.2.args" --dependency=afterok:4100
check "gpu: the report job is cancelled if a study fails" has_line "$s/sbatch.2.args" --kill-on-invalid-dep=yes
check "gpu: the report job runs report.sbatch OUT" has_text "$s/sbatch.2.args" "$ROOT/cluster/slurm/report.sbatch"
check "gpu: the report job asks no GPU" lacks_text "$s/sbatch.2.args" --gpus
check "gpu: $n array tasks ran and succeeded" equals "$(count_lines "$s/jobs.log" "job 4100 task")" "$n"
check "gpu: no task failed" lacks_regex "$s/jobs.log" "job 4100 task [0-9]+ exit [1-9]"
check "gpu: the report job ran and succeeded" has_text "$s/jobs.log" "job 4101 task - exit 0"
check "gpu: one srun step per study" equals "$(count_lines "$s/srun.log" "srun task=")" "$n"
check "gpu: no CPU binding on the GPU steps" lacks_text "$s/srun.log" --cpu-bind
for i in "${!studies[@]}"; do
  st="${studies[$i]}"
  check "gpu: task $i ran study $st" has_text "$s/srun.log" "srun task=$i "
  check "gpu: task $i: kps_run.py run --studies $st --scale small --out OUT" \
    has_text "$s/srun.log" "tools/kps_run.py run --bench $BENCH --studies $st --scale small --out $out"
  check "gpu: $st wrote Google Benchmark JSON" has_json "$out/$st"
done
check "gpu: the report job rendered OUT/report.md" has_text "$out/report.md" "# kps report"
check "gpu: the report job's log names the report" has_text "$out/slurm/kps-report-4101.out" "report.md"
check "gpu: submit.sh names both jobs" has_text "$d/stdout" "report job 4101"

unset FAKE_SBATCH_EXEC FAKE_SBATCH_CLUSTER FAKE_KPS_BACKEND FAKE_KPS_DEVICE FAKE_KPS_GBS

# --- errors: exit 2 with a clear message, nothing submitted ----------------------------------
i=0
while IFS='|' read -r message args; do
  i=$((i + 1))
  read -r -a argv <<<"${args//@BENCH@/$BENCH}"
  argv=("${argv[@]//@WORK@/$WORK}")
  argv=("${argv[@]//@ROOT@/$ROOT}")
  submit "$WORK/bad$i" "${argv[@]}"
  check "rejects '$args': exit 2" equals "$rc" 2
  check "rejects '$args': says '$message'" has_text "$WORK/bad$i/stderr" "$message"
  check "rejects '$args': submits nothing" [ ! -e "$WORK/bad$i/state/sbatch.calls" ]
done <<'EOF'
--backend must be gpu or cpu, not 'tpu'|--backend tpu --bench @BENCH@
--scale must be small or full, not 'huge'|--scale huge --bench @BENCH@
unknown study 'nosuch'|--studies scan,nosuch --bench @BENCH@
study 'scan' is listed twice|--studies scan,scan --bench @BENCH@
--studies names no study|--studies , --bench @BENCH@
--cpus must be a positive integer|--backend cpu --cpus 0 --bench @BENCH@
--time must be a Slurm time|--time soon --bench @BENCH@
unknown option '--frobnicate'|--frobnicate --bench @BENCH@
--out needs a value|--bench @BENCH@ --out
--out needs a non-empty value|--bench @BENCH@ --out=
--force takes no value|--force=yes --bench @BENCH@
is not an executable file|--bench @WORK@/no-such-kps-bench
is not an executable file|--bench @ROOT@/README.md
EOF

# --- sbatch printing no job id: exit 1 (a refusal is shown on a real Slurm: test_slurm_real.sh) --
FAKE_SBATCH_PRINT="sbatch: warning: something" submit "$WORK/sbatch3" --bench "$BENCH" --out "$WORK/sbatch3/results"
check "sbatch printing no job id: exit 1" equals "$rc" 1
check "sbatch printing no job id: says so in one line" \
  equals "$(cat "$WORK/sbatch3/stderr")" "submit.sh: error: sbatch refused the study array: sbatch printed 'sbatch: warning: something', not a job id; nothing submitted"

# --- --dry-run prints, submits nothing -------------------------------------------------------
submit "$WORK/dry" --dry-run --bench "$BENCH" --backend cpu --out "$WORK/dry/results"
check "dry run: exit 0" equals "$rc" 0
check "dry run: prints the two sbatch commands" equals "$(count_lines "$WORK/dry/stdout" "sbatch --parsable")" 2
check "dry run: submits nothing" [ ! -e "$WORK/dry/state/sbatch.calls" ]
check "dry run: cpu asks a whole node, 16 cores by default" \
  has_text "$WORK/dry/stdout" "--exclusive --cpus-per-task=16 "

# --- the batch scripts alone refuse to run outside their job ---------------------------------
rc=0
(cd "$ROOT" && bash cluster/slurm/study.sbatch gpu "$BENCH" small "$WORK/x" scan 0) >"$WORK/alone.log" 2>&1 || rc=$?
check "study.sbatch without SLURM_ARRAY_TASK_ID: exit 2" equals "$rc" 2
check "study.sbatch without SLURM_ARRAY_TASK_ID: says so" has_text "$WORK/alone.log" "SLURM_ARRAY_TASK_ID is not set"
rc=0
(cd "$ROOT" && SLURM_ARRAY_TASK_ID=3 bash cluster/slurm/study.sbatch gpu "$BENCH" small "$WORK/x" scan,reduce 0) \
  >"$WORK/alone.log" 2>&1 || rc=$?
check "study.sbatch with a task id past the studies: exit 2" equals "$rc" 2
rc=0
(cd "$ROOT" && SLURM_ARRAY_TASK_ID=0 bash cluster/slurm/study.sbatch cpu "$BENCH" small "$WORK/x" scan 0) \
  >"$WORK/alone.log" 2>&1 || rc=$?
check "study.sbatch cpu without SLURM_CPUS_PER_TASK: exit 2" equals "$rc" 2

# --- shell style, where shellcheck is installed ----------------------------------------------
if command -v shellcheck >/dev/null 2>&1; then
  check "shellcheck: cluster/slurm, the tests and the fakes" shellcheck -x "$ROOT"/cluster/slurm/*.sh "$ROOT"/cluster/slurm/*.sbatch \
    "$FAKE"/bin/* "$FAKE"/kps-bench "$ROOT"/test/cluster/*.sh
else
  echo "skip shellcheck: not installed"
fi

checks_done
