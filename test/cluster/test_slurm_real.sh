#!/usr/bin/env bash
# test/cluster/test_slurm_real.sh KPS_BENCH — ctest kps.cluster.slurm_real: cluster/slurm on a real
# Slurm. Starts munged (as the munge user), slurmctld and slurmd from a configuration this script
# writes into a temporary folder (one node at 127.0.0.1 with this machine's CPUs and memory, one
# partition, task/affinity, no cgroups, no accounting database; state, spool, sockets and logs in
# that folder; free ports), then, with KPS_BENCH (a host build's kps-bench) behind a wrapper that
# can make a study fail or pause:
#   1. bad input: an unknown --partition, an unknown --report-partition: one line each, exit 1,
#      nothing left queued;
#   2. every study at --scale small, one of them failing and one stopped by scancel while its
#      second run waits: one array task per study, each finished study's JSON and report, the exit
#      codes (scontrol show job), one line in the failed and in the stopped task's log, the
#      stopped study's finished run kept and nothing half-written, the report job held back
#      (afterok never satisfied) and cancelled without running;
#   3. the same submit.sh again: only what did not finish runs (the failed study, the stopped
#      study's second run; every JSON already written untouched), then the report job renders the
#      whole report.
# Stops every daemon it started, by PID (also on failure or interrupt), checks that nothing is
# left running and nothing was written to Slurm's or munge's own folders, and removes its folder.
# Without Slurm (KPS_SETUP_SLURM=1 ./kps test installs it first), without root, or where the
# daemons do not start, it says why in one line and exits 77 (skipped) — except under
# KPS_SETUP_SLURM=1 (CI), where Slurm was asked for and not having it fails. KPS_SLURM_TEST_KEEP=1
# keeps the folder (daemons' logs, results, job logs) to read afterwards.
# Prints one line per check; exits 1 when any failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SUBMIT="$ROOT/cluster/slurm/submit.sh"
REAL_BENCH="${1:-}"
BUDGET="${KPS_SLURM_TEST_BUDGET:-1500}"  # seconds for every wait together; ctest's TIMEOUT is above it
export KPS_PYTHON="${KPS_PYTHON:-python3}"

skip() {
  if [ "${KPS_SETUP_SLURM:-0}" = 1 ]; then
    printf 'FAIL Slurm was asked for (KPS_SETUP_SLURM=1) but %s\n' "$*"
    exit 1
  fi
  printf 'skipped: %s\n' "$*"
  exit 77
}

if [ -z "$REAL_BENCH" ] || [ ! -x "$REAL_BENCH" ]; then
  echo "usage: test_slurm_real.sh KPS_BENCH (a host build's kps-bench)"
  exit 2
fi
for c in munged slurmctld slurmd sbatch squeue scontrol scancel srun sinfo setpriv; do
  command -v "$c" >/dev/null 2>&1 || skip "no $c: Slurm is not installed (on Debian, as root, KPS_SETUP_SLURM=1 ./kps test installs it)"
done
[ "$(id -u)" = 0 ] || skip "starting slurmd and munged (as the munge user) needs root"
getent passwd munge >/dev/null || skip "no munge user (the munge package creates it)"

# The test's own Slurm: nothing of an outer allocation or site configuration reaches it.
while read -r v; do unset "$v"; done < <(compgen -e | grep '^SLURM_' || true)
WORK="$(mktemp -d "${TMPDIR:-/tmp}/kps-slurm-real.XXXXXX")"
chmod 711 "$WORK"   # munged, as the munge user, reaches its socket in WORK/munge
touch "$WORK/.start"
export SLURM_CONF="$WORK/slurm/slurm.conf"
pids=()          # daemons started, in start order
names=()

# shellcheck source-path=SCRIPTDIR source=checks.sh
. "$ROOT/test/cluster/checks.sh"
lines() { grep -c . <<<"$1" || true; }

# --- the daemons ----------------------------------------------------------------------------
# stop_daemons: every job cancelled, then slurmd, slurmctld, munged by PID (TERM, then KILL after
# 10 s); idempotent.
stopped=0
stop_daemons() {
  [ "$stopped" = 0 ] || return 0
  stopped=1
  local i pid t
  if [ ${#pids[@]} -ge 2 ] && kill -0 "${pids[1]}" 2>/dev/null; then
    scancel --quiet --user="$(id -un)" >/dev/null 2>&1 || true
    for ((t = 0; t < 60; t++)); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.5
    done
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid="${pids[$i]}"
    kill -TERM "$pid" 2>/dev/null || continue
    for ((t = 0; t < 100; t++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}
# leftovers: processes of this test's Slurm still running (slurmstepd and job steps inherit the
# daemons' KPS_SLURM_TEST_DIR, the jobs this script's SLURM_CONF), as "PID COMMAND" lines.
leftovers() {
  local p
  for p in /proc/[0-9]*; do
    p="${p#/proc/}"
    if [ "$p" = $$ ] || [ "$p" = "$BASHPID" ]; then continue; fi
    if { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null \
        | grep -qxF -e "KPS_SLURM_TEST_DIR=$WORK" -e "SLURM_CONF=$SLURM_CONF"; then
      printf '%s %s\n' "$p" "$({ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null)"
    fi
  done
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_daemons
  local left
  left="$(leftovers)"
  if [ -n "$left" ]; then
    printf 'FAIL left running, now killed: %s\n' "$left"
    while read -r p _; do kill -KILL "$p" 2>/dev/null || true; done <<<"$left"
    [ "$rc" != 0 ] || rc=1
  fi
  if [ "${KPS_SLURM_TEST_KEEP:-0}" = 1 ]; then
    echo "     kept: $WORK (the daemons' logs in slurm/, the results and job logs)"
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# daemon NAME COMMAND...: started in the background, its output in WORK/NAME.log.
daemon() {
  local name="$1"
  shift
  KPS_SLURM_TEST_DIR="$WORK" "$@" </dev/null >"$WORK/$name.log" 2>&1 &
  pids+=("$!")
  names+=("$name")
}
# not_started WHAT: skips (or fails under CI) with the daemon's last error line.
not_started() {
  local i why=""
  for i in "${!pids[@]}"; do
    if ! kill -0 "${pids[$i]}" 2>/dev/null; then
      why="$(grep -iE 'error|fatal' "$WORK/${names[$i]}.log" | tail -n 1 || true)"
      why="${names[$i]} exited${why:+: $why}"
      break
    fi
  done
  trap - EXIT
  stop_daemons
  rm -rf "$WORK"
  skip "$1 ${why:-did not happen in time}"
}

# munged: its own key, socket, pid and seed files; it checks that only the munge user can read them.
mkdir -p "$WORK/munge" "$WORK/slurm/state" "$WORK/slurm/spool"
head -c 1024 /dev/urandom >"$WORK/munge/munge.key"
chmod 600 "$WORK/munge/munge.key"
chown -R munge:munge "$WORK/munge"
chmod 711 "$WORK/munge"
daemon munged setpriv --reuid=munge --regid=munge --init-groups munged --foreground \
  "--socket=$WORK/munge/munge.socket.2" "--key-file=$WORK/munge/munge.key" "--log-file=$WORK/munge/munged.log" \
  "--pid-file=$WORK/munge/munged.pid" "--seed-file=$WORK/munge/munged.seed"
for ((t = 0; t < 50; t++)); do [ -S "$WORK/munge/munge.socket.2" ] && break; sleep 0.1; done
[ -S "$WORK/munge/munge.socket.2" ] || not_started "munged did not start:"

node="$(uname -n)"
node="${node%%.*}"   # the name slurmd finds for itself
read -r ctld_port slurmd_port < <("$KPS_PYTHON" -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
cpus="$(nproc)"
mem_mb=$(( $(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / 1024 ))
cat >"$SLURM_CONF" <<EOF
# One node, this machine, for test/cluster/test_slurm_real.sh; everything under $WORK.
ClusterName=kps-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$WORK/munge/munge.socket.2
CredType=cred/munge
StateSaveLocation=$WORK/slurm/state
SlurmdSpoolDir=$WORK/slurm/spool
SlurmctldPidFile=$WORK/slurm/slurmctld.pid
SlurmdPidFile=$WORK/slurm/slurmd.pid
SlurmctldLogFile=$WORK/slurm/slurmctld.log
SlurmdLogFile=$WORK/slurm/slurmd.log
# No cgroups, no accounting database: exit codes from scontrol (and jobcomp.txt); task/affinity
# makes the cpu steps' srun --cpu-bind=cores bind.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/filetxt
JobCompLoc=$WORK/slurm/jobcomp.txt
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
# Finished jobs stay visible to scontrol for the whole test; a cancelled step is killed 30 s after
# SIGTERM (Slurm's default: 5 s let a loaded machine SIGKILL the runner before it said what it kept).
MinJobAge=3600
KillWait=30
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=kps Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
daemon slurmctld slurmctld -D -i
daemon slurmd slurmd -D
for ((t = 0; t < 150; t++)); do
  [ "$(sinfo -h -n "$node" -o %T 2>/dev/null)" = idle ] && break
  if ! kill -0 "${pids[1]}" 2>/dev/null || ! kill -0 "${pids[2]}" 2>/dev/null; then break; fi
  sleep 0.2
done
[ "$(sinfo -h -n "$node" -o %T 2>/dev/null)" = idle ] || not_started "the node did not become idle:"
echo "ok   Slurm $(sinfo -V | awk '{ print $2 }'): munged, slurmctld, slurmd started; node $node idle with $cpus CPUs, $mem_mb MB"

# --- helpers over jobs ----------------------------------------------------------------------
start_time=$(date +%s)
# wait_jobs ID...: until none is pending, running or completing; 1 past the test's budget.
wait_jobs() {
  local ids
  ids="$(IFS=,; echo "$*")"
  while [ -n "$(squeue -h -j "$ids" -o %i 2>/dev/null)" ]; do
    if [ $(( $(date +%s) - start_time )) -gt "$BUDGET" ]; then
      printf 'FAIL jobs %s still queued or running after %s s (the test budget)\n' "$ids" "$BUDGET"
      squeue -j "$ids" || true
      return 1
    fi
    sleep 0.5
  done
}
# jobs_of ID: one line per job, or per task of an array job: "TASK STATE EXITCODE REASON" (TASK
# is - for a plain job), by task.
jobs_of() {
  scontrol -o show job "$1" | awk '{
    t = "-"
    for (i = 1; i <= NF; i++) {
      k = $i; sub(/=.*/, "", k); v = substr($i, length(k) + 2)
      if (k == "ArrayTaskId") t = v; else if (k == "JobState") s = v
      else if (k == "ExitCode") e = v; else if (k == "Reason") r = v
    }
    print t, s, e, r }' | sort -n
}
# submit NAME ARGS...: runs submit.sh; sets rc, array_id, report_id; output in WORK/NAME.{out,err}.
submit() {
  local name="$1"
  shift
  rc=0
  "$SUBMIT" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || rc=$?
  array_id="$(sed -n 's/^\[kps slurm\] array job \([0-9]*\):.*/\1/p' "$WORK/$name.out")"
  report_id="$(sed -n 's/^\[kps slurm\] report job \([0-9]*\):.*/\1/p' "$WORK/$name.out")"
}
queued() { squeue -h -o %i; }
sha() { sha256sum "$@" | awk '{ print $1 }'; }

# kps-bench as the studies run it, behind a wrapper (same file for every submit, so the runner's
# up-to-date check holds): a run whose --benchmark_filter contains $KPS_TEST_FAIL fails as a failed
# result check does; one whose filter contains $KPS_TEST_PAUSE touches $KPS_TEST_PAUSED and waits
# (for scancel).
mkdir -p "$WORK/bin"
BENCH="$WORK/bin/kps-bench"
cat >"$BENCH" <<EOF
#!/usr/bin/env bash
filter=""
for a in "\$@"; do case "\$a" in --benchmark_filter=*) filter="\${a#*=}" ;; esac; done
if [ -n "\${KPS_TEST_FAIL:-}" ] && [[ "\$filter" == *"\$KPS_TEST_FAIL"* ]]; then
  echo "kps-bench: at least one benchmark's result check FAILED (made to fail by the test)" >&2
  exit 1
fi
if [ -n "\${KPS_TEST_PAUSE:-}" ] && [[ "\$filter" == *"\$KPS_TEST_PAUSE"* ]]; then
  touch "\$KPS_TEST_PAUSED"
  sleep 600
fi
exec "$REAL_BENCH" "\$@"
EOF
chmod +x "$BENCH"
unset KPS_TEST_FAIL KPS_TEST_PAUSE KPS_TEST_PAUSED

studies=()
for f in "$ROOT"/studies/*/study.json; do studies+=("$(basename "$(dirname "$f")")"); done
n=${#studies[@]}
# The quickest study fails; the occupancy study (two runs, studies/occupancy/study.json) is
# stopped by scancel while its second run waits.
fail_study=latency
pause_study=occupancy pause_id=occupancy-curve pause_run="^occupancy_curve/"
pause_task=""
for i in "${!studies[@]}"; do [ "${studies[$i]}" != "$pause_study" ] || pause_task=$i; done
check "studies found: ${studies[*]} ($fail_study and $pause_study among them)" \
  equals "$(printf '%s\n' "${studies[@]}" | grep -cxE "$fail_study|$pause_study")" 2
common=(--backend cpu --scale small --cpus "$cpus" --bench "$BENCH")

# --- 1. bad input: one line, exit 1, nothing left queued ------------------------------------
submit bad-partition "${common[@]}" --studies "$fail_study" --out "$WORK/bad" --partition no-such-partition
check "unknown --partition: exit 1" equals "$rc" 1
check "unknown --partition: one line" equals "$(lines "$(cat "$WORK/bad-partition.err")")" 1
check "unknown --partition: says sbatch refused the array, and why" \
  grep -qE "^submit.sh: error: sbatch refused the study array: .*[Ii]nvalid partition.*; nothing submitted$" "$WORK/bad-partition.err"
check "unknown --partition: nothing queued" equals "$(queued)" ""
submit bad-report "${common[@]}" --studies "$fail_study" --out "$WORK/bad" --report-partition no-such-partition
check "unknown --report-partition: exit 1" equals "$rc" 1
check "unknown --report-partition: one line" equals "$(lines "$(cat "$WORK/bad-report.err")")" 1
check "unknown --report-partition: says the array was cancelled" \
  grep -qE "^submit.sh: error: sbatch refused the report job: .*[Ii]nvalid partition.*; array job [0-9]+ cancelled, nothing left queued$" \
  "$WORK/bad-report.err"
wait_jobs "$(queued | paste -sd, -)" 2>/dev/null || true
check "unknown --report-partition: nothing queued" equals "$(queued)" ""

# --- 2. every study: one fails, one is stopped by scancel mid-study; the report is held back --
out="$WORK/results"
export KPS_TEST_PAUSED="$WORK/paused"
t0=$(date +%s)
KPS_TEST_FAIL="^$fail_study/" KPS_TEST_PAUSE="$pause_run" submit first "${common[@]}" --out "$out"
check "first submit: exit 0, an array job and a report job" equals "$rc ${array_id:+array} ${report_id:+report}" "0 array report"
if [ -z "$array_id" ] || [ -z "$report_id" ]; then cat "$WORK/first.err"; exit 1; fi
first_array=$array_id first_report=$report_id
while [ ! -e "$KPS_TEST_PAUSED" ] && [ $(( $(date +%s) - start_time )) -le "$BUDGET" ] \
      && [ -n "$(squeue -h -j "$array_id" -o %i)" ]; do
  sleep 0.5
done
check "first: $pause_study's second run ($pause_id) started" [ -e "$KPS_TEST_PAUSED" ]
pause_json="$out/$pause_study/$pause_study.json"
check "first: $pause_study's first run wrote its JSON" [ -f "$pause_json" ]
pause_sha="$(sha "$pause_json" 2>/dev/null || true)"
scancel "${array_id}_$pause_task"
wait_jobs "$array_id" "$report_id"
unset KPS_TEST_PAUSED
echo "     (every study, small scale: $(( $(date +%s) - t0 )) s)"
tasks="$(jobs_of "$array_id")"
check "first: one array task per study ($n)" equals "$(lines "$tasks")" "$n"
for i in "${!studies[@]}"; do
  st="${studies[$i]}" log="$out/slurm/kps-cpu-${array_id}_$i.out"
  row="$(awk -v t="$i" '$1 == t { print $2, $3 }' <<<"$tasks")"
  check "first: task $i runs study $st" has_text "$log" "array task $i: study $st,"
  case "$st" in
    "$fail_study")
      check "first: task $i ($st) FAILED with exit code 1" equals "$row" "FAILED 1:0"
      check "first: task $i ($st) ends its log with one line saying so and how to resume" \
        grep -qE "^\[kps slurm\] array task $i: study $st FAILED \(exit 1;.*the same submit.sh command re-runs" <(tail -n 1 "$log")
      check "first: $st wrote no JSON" [ -z "$(compgen -G "$out/$st/*.json" || true)" ]
      ;;
    "$pause_study")
      check "first: task $i ($st) CANCELLED by scancel" equals "${row% *}" CANCELLED
      check "first: task $i ($st): one line in its log says it was stopped and how to resume" \
        equals "$(count_lines "$log" "[kps slurm] array task $i: study $st stopped by Slurm (scancel or --time); its finished runs are kept in $out/$st; the same submit.sh command resumes it")" 1
      check "first: task $i ($st): the runner's line says what it kept" \
        has_text "$log" "kps: interrupted during $st run $pause_id; kept 1 finished run"
      check "first: $st's finished run's JSON kept as it was, nothing half-written (.partial) left" \
        equals "$(sha "$pause_json" 2>/dev/null) $(compgen -G "$out/$st/*.partial" || echo none)" "$pause_sha none"
      ;;
    *)
      check "first: task $i ($st) COMPLETED with exit code 0" equals "$row" "COMPLETED 0:0"
      check "first: task $i ($st) wrote its JSON" [ -n "$(compgen -G "$out/$st/*.json" || true)" ]
      check "first: task $i ($st) rendered the report" has_text "$log" "[kps] report: $out/report.md"
      check "first: task $i ($st): OMP_NUM_THREADS=$cpus OMP_PROC_BIND=spread in the JSON context" \
        equals "$(grep -cE "\"omp_(num_threads\": \"$cpus|proc_bind\": \"spread)\"" "$(compgen -G "$out/$st/*.json" | head -n 1)")" 2
      check "first: task $i ($st): its step bound to cores (srun --cpu-bind=cores)" lacks_text "$log" "lacks support for cpu binding"
      ;;
  esac
done
check "first: the report job was cancelled, its dependency never satisfied" \
  equals "$(jobs_of "$report_id" | awk '{ print $2, $4 }')" "CANCELLED DependencyNeverSatisfied"
check "first: the report job never ran (no log)" [ ! -e "$out/slurm/kps-report-$report_id.out" ]
declare -A kept=()
for f in "$out"/*/*.json; do kept["$f"]="$(sha "$f")"; done

# --- 3. the same submit again: only what did not finish runs, then the report ---------------
t0=$(date +%s)
submit second "${common[@]}" --out "$out"
check "second submit: exit 0" equals "$rc" 0
wait_jobs "$array_id" "$report_id"
echo "     (the resume and the report: $(( $(date +%s) - t0 )) s)"
tasks="$(jobs_of "$array_id")"
check "second: $n tasks, all COMPLETED with exit code 0" \
  equals "$(awk '$2 == "COMPLETED" && $3 == "0:0"' <<<"$tasks" | grep -c .)" "$n"
for i in "${!studies[@]}"; do
  st="${studies[$i]}" log="$out/slurm/kps-cpu-${array_id}_$i.out"
  case "$st" in
    "$fail_study")
      check "second: task $i ran $st" has_text "$log" "[kps] $st: run 1/"
      check "second: $st wrote its JSON" [ -n "$(compgen -G "$out/$st/*.json" || true)" ]
      ;;
    "$pause_study")
      check "second: task $i skipped $st's finished run" has_text "$log" "[kps] $st: $st: up to date"
      check "second: task $i resumed $st at the stopped run" has_text "$log" "[kps] $st: run 1/1: $pause_id ("
      ;;
    *)
      check "second: task $i skipped $st, up to date" has_text "$log" "up to date"
      check "second: task $i ran no benchmark of $st" lacks_text "$log" "[kps] $st: run "
      ;;
  esac
done
same=1
for f in "${!kept[@]}"; do [ "$(sha "$f")" = "${kept[$f]}" ] || same=0; done
check "second: the ${#kept[@]} JSON the first submit finished are untouched" equals "$same" 1
check "second: the report job COMPLETED with exit code 0" equals "$(jobs_of "$report_id" | awk '{ print $2, $3 }')" "COMPLETED 0:0"
check "second: the report job's log names the report" has_text "$out/slurm/kps-report-$report_id.out" "report: $out/report.md"
check "second: the final report has a section per study ($n)" equals "$(grep -cE '^## .+ study$' "$out/report.md")" "$n"
check "second: the job completion log holds every job of both submits" \
  equals "$(grep -cE "JobId=($first_array|$first_report|$array_id|$report_id) " "$WORK/slurm/jobcomp.txt")" "$((2 * n + 2))"

# --- nothing left running, nothing written outside WORK -------------------------------------
stop_daemons
check "every daemon and job stopped" equals "$(leftovers)" ""
outside="$(find /run/munge /var/log/munge /var/lib/munge /var/spool/slurmd /var/spool/slurmctld /var/log/slurm \
  /var/lib/slurm /run/slurm /etc/slurm -newer "$WORK/.start" 2>/dev/null || true)"
check "nothing written to Slurm's or munge's own folders" equals "$outside" ""
echo "     (the whole test: $(( $(date +%s) - start_time )) s after the node came up)"

if [ "$failures" -gt 0 ]; then
  echo "the daemons' logs end with:"
  tail -n 5 "$WORK"/slurm/slurmctld.log "$WORK"/slurm/slurmd.log 2>/dev/null || true
fi
checks_done
