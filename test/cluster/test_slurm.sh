#!/usr/bin/env bash
# test/cluster/test_slurm.sh — ctest kps.cluster.slurm: the Slurm scripts of cluster/slurm, run
# with a fake sbatch and srun first on PATH (test/cluster/fake/bin: they log their arguments and
# environment, hand out job ids, and run the batch scripts on this host) and a stand-in kps-bench
# that writes minimal Google Benchmark JSON, so neither a cluster nor a build is needed. The
# studies really run through tools/kps_run.py and the report job really renders the report.
#
# Checks: one array job with one task per study; each backend's resource flags (gpu: --gpus=1;
# cpu: --exclusive, --cpus-per-task, srun --cpu-bind=cores and the OpenMP environment reaching
# kps-bench); the report job's --dependency=afterok:<array id>; a failed study holds the report
# back; `./kps compare` on the two runs; clear error exits for bad options, a missing kps-bench,
# a failing sbatch. Prints one line per check; exits 1 when any failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SUBMIT="$ROOT/cluster/slurm/submit.sh"
FAKE="$ROOT/test/cluster/fake"
BENCH="$FAKE/kps-bench"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/kps-slurm-test.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
export PATH="$FAKE/bin:$PATH"
export KPS_PYTHON="${KPS_PYTHON:-python3}"
unset FAKE_SBATCH_EXEC FAKE_SBATCH_FAIL_CALL FAKE_SBATCH_PRINT FAKE_SBATCH_CLUSTER FAKE_KPS_FAIL \
      FAKE_KPS_BACKEND FAKE_KPS_DEVICE FAKE_KPS_GBS SLURM_ARRAY_TASK_ID SLURM_CPUS_PER_TASK

failures=0
check() {  # DESCRIPTION COMMAND...: one line, ok or FAIL
  local what="$1"
  shift
  if "$@"; then
    printf 'ok   %s\n' "$what"
  else
    printf 'FAIL %s\n' "$what"
    failures=$((failures + 1))
  fi
}
has_line() { grep -qxF -- "$2" "$1"; }           # FILE LINE: LINE is one whole line of FILE
has_text() { grep -qF -- "$2" "$1"; }            # FILE TEXT
lacks_text() { [ -f "$1" ] && ! grep -qF -- "$2" "$1"; }
has_regex() { grep -qE -- "$2" "$1"; }
lacks_regex() { [ -f "$1" ] && ! grep -qE -- "$2" "$1"; }
has_json() { compgen -G "$1/*.json" >/dev/null; }   # DIR holds JSON
count_lines() { grep -cF -- "$2" "$1" || true; } # FILE TEXT: lines holding TEXT
equals() { [ "$1" = "$2" ] || { printf '     expected %s, got %s\n' "$2" "$1"; return 1; }; }

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

# --- CPU: a subset, with the OpenMP environment ----------------------------------------------
d="$WORK/cpu" s="$WORK/cpu/state" out="$WORK/cpu/results"
unset FAKE_SBATCH_CLUSTER
export FAKE_KPS_BACKEND=OpenMP FAKE_KPS_DEVICE="Fake Xeon" FAKE_KPS_GBS=500
submit "$d" --backend=cpu --cpus=8 --scale=small --studies=scan,reduce "--bench=$BENCH" "--out=$out"
check "cpu: submit.sh exits 0" equals "$rc" 0
check "cpu: two array tasks (--array=0-1)" has_line "$s/sbatch.1.args" --array=0-1
check "cpu: the studies in the order asked" has_line "$s/sbatch.1.args" scan,reduce
check "cpu: a whole node (--exclusive)" has_line "$s/sbatch.1.args" --exclusive
check "cpu: --cpus-per-task=8" has_line "$s/sbatch.1.args" --cpus-per-task=8
check "cpu: no GPU asked" lacks_text "$s/sbatch.1.args" --gpus
check "cpu: the report job waits for the array (afterok:4100)" has_line "$s/sbatch.2.args" --dependency=afterok:4100
check "cpu: both tasks and the report succeeded" equals "$(count_lines "$s/jobs.log" "exit 0")" 3
# one kps-bench run per run of the studies' small sweeps (study.json may list several per study)
runs="$("${KPS_PYTHON:-python3}" -c 'import json, sys
print(sum(len(json.load(open(f"{sys.argv[1]}/studies/{s}/study.json"))["sweeps"]["small"]["runs"]) for s in ("scan", "reduce")))' "$ROOT")"
omp="OMP_NUM_THREADS=8 OMP_PROC_BIND=spread OMP_PLACES=threads"
check "cpu: srun steps see $omp" equals "$(count_lines "$s/srun.log" "$omp")" 2
check "cpu: srun --cpu-bind=cores --cpus-per-task=8" \
  equals "$(count_lines "$s/srun.log" "options: --ntasks=1 --cpus-per-task=8 --cpu-bind=cores command:")" 2
check "cpu: kps-bench ran both studies' $runs runs with $omp" equals "$(count_lines "$s/bench.log" "$omp")" "$runs"
# each study's first small run, with the filter its study.json gives it
first_filter() {
  "${KPS_PYTHON:-python3}" -c 'import json, sys
print(json.load(open(f"{sys.argv[1]}/studies/{sys.argv[2]}/study.json"))["sweeps"]["small"]["runs"][0]["filter"])' "$ROOT" "$1"
}
check "cpu: kps-bench ran the scan sweep" has_text "$s/bench.log" "filter=$(first_filter scan) "
check "cpu: kps-bench ran the reduce sweep" has_text "$s/bench.log" "filter=$(first_filter reduce) "
check "cpu: the report job rendered OUT/report.md" has_text "$out/report.md" "Scan study"

# --- the two runs side by side ---------------------------------------------------------------
rc=0
"$ROOT/kps" compare "$WORK/gpu/results" "$WORK/cpu/results" --out "$WORK/compare.md" >"$WORK/compare.log" 2>&1 || rc=$?
check "compare: ./kps compare exits 0" equals "$rc" 0
check "compare: a CUDA column from the context" has_text "$WORK/compare.md" "| Cuda, H100 80GB HBM3 |"
check "compare: an OpenMP column with its thread count" has_text "$WORK/compare.md" "OpenMP ×8 threads, Fake Xeon |"
check "compare: scan row matched by name, ratios to the best" \
  has_text "$WORK/compare.md" "| \`scan/single_pass/int32/1024\` | 2000 (1.00) | 500 (0.25) |"
check "compare: a study only one folder ran says so" has_text "$WORK/compare.md" "ran in more than one folder"
unset FAKE_KPS_BACKEND FAKE_KPS_DEVICE FAKE_KPS_GBS

# --- a failed study holds the report back ----------------------------------------------------
d="$WORK/fail" s="$WORK/fail/state"
FAKE_KPS_FAIL=reduce submit "$d" --backend cpu --cpus 2 --scale small --studies scan,reduce --bench "$BENCH" \
  --out "$d/results"
check "failed study: submission still succeeds" equals "$rc" 0
check "failed study: the reduce task failed" has_regex "$s/jobs.log" "job 4100 task 1 exit [1-9]"
check "failed study: the report job did not run" has_text "$s/jobs.log" "job 4101 not run"
unset FAKE_SBATCH_EXEC

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

# --- sbatch failing, or printing no job id: exit 1 -------------------------------------------
FAKE_SBATCH_FAIL_CALL=1 submit "$WORK/sbatch1" --bench "$BENCH" --out "$WORK/sbatch1/results"
check "sbatch refusing the array: exit 1" equals "$rc" 1
check "sbatch refusing the array: its message is shown" has_text "$WORK/sbatch1/stderr" "Batch job submission failed"
check "sbatch refusing the array: no report job submitted" equals "$(cat "$WORK/sbatch1/state/sbatch.calls")" 1
FAKE_SBATCH_FAIL_CALL=2 submit "$WORK/sbatch2" --bench "$BENCH" --out "$WORK/sbatch2/results"
check "sbatch refusing the report: exit 1" equals "$rc" 1
check "sbatch refusing the report: says so" has_text "$WORK/sbatch2/stderr" "sbatch failed"
FAKE_SBATCH_PRINT="sbatch: warning: something" submit "$WORK/sbatch3" --bench "$BENCH" --out "$WORK/sbatch3/results"
check "sbatch printing no job id: exit 1" equals "$rc" 1
check "sbatch printing no job id: says so" has_text "$WORK/sbatch3/stderr" "not a job id"

# --- --dry-run prints, submits nothing -------------------------------------------------------
submit "$WORK/dry" --dry-run --bench "$BENCH" --backend cpu --out "$WORK/dry/results"
check "dry run: exit 0" equals "$rc" 0
check "dry run: prints the two sbatch commands" equals "$(count_lines "$WORK/dry/stdout" "sbatch --parsable")" 2
check "dry run: submits nothing" [ ! -e "$WORK/dry/state/sbatch.calls" ]

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
  check "shellcheck: cluster/slurm and the fakes" shellcheck "$ROOT"/cluster/slurm/*.sh "$ROOT"/cluster/slurm/*.sbatch \
    "$FAKE"/bin/* "$FAKE"/kps-bench "${BASH_SOURCE[0]}"
else
  echo "skip shellcheck: not installed"
fi

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) FAILED"
  exit 1
fi
echo "all checks passed"
