"""Runs sweeps with kps-bench: one Google Benchmark JSON per job (<folder>/<job id>.json).

A job whose JSON is up to date is skipped: it was written by this very kps-bench binary (its
checksum, context kps_bench_sha256) for this very job definition (kps_job, a hash of the kps-bench
arguments), it is complete, and the tuning table it read has the same rows (kps_tuning_rows_sha256;
a run on the rules: no table for it installed since; table_changed). Anything else re-runs it, saying
why. kps-bench writes to <id>.json.partial; the runner keeps the aggregates with the repetitions'
spread and every repetition (gbench.slim), adds the command, the load around the run, its wall time and the GPU's clocks,
power and temperature before and after it to the context and moves the file into place, so a folder
never holds a half-written <id>.json. Paths in the context are written as a reader of the results
would type them (`portable`): relative inside the checkout, else the file's name alone, never a
folder of the machine that ran it. Ctrl-C (or SIGTERM) stops the run in progress and keeps the
benchmarks it completed (gbench.salvage) in <id>.json, with the same context and kps_incomplete =
"true" (so the next run re-measures that job), or beside a complete <id>.json of an earlier run
(--force) as <id>.json.interrupted, leaving that run's JSON as it was; where nothing was complete it
keeps nothing. Either way no .partial is left, and it raises Interrupted, which says what was kept.

On a node of several GPUs (`kps run --gpus`), each run sees one GPU alone (CUDA_VISIBLE_DEVICES),
its JSON names that GPU (kps_gpu_index, kps_gpu_uuid), and one run per GPU goes at a time; Ctrl-C
stops them all and keeps each one's completed benchmarks as above.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Optional

from kps_report import gbench
from kps_report.errors import KpsError, say, warn
from kps_report.gpus import gpu_state
from kps_report.machine import LoadProbe
from kps_report.study import Job


@dataclass
class Task:
    """One job of one study, with where its JSON goes and what it runs with."""
    label: str            # the study (or 'tune'), for progress lines
    job: Job
    dest: Path            # folder of the job's JSON
    env: dict = field(default_factory=dict)
    context: dict = field(default_factory=dict)  # added to the JSON's context
    force: bool = False
    gpu: Optional[object] = None  # kps_report.gpus.Gpu: the one GPU this task runs on (None: any)
    parent: Optional["Task"] = None  # a shard's job (one type of it, run on one GPU)
    shard_count: int = 0             # a sharded job: its shards, and those done
    shards_done: list = field(default_factory=list)
    run: int = 1          # the k-th run of the job (`kps run --runs K`): run 1 is <id>.json

    @property
    def out(self) -> Path:
        if self.parent is not None:  # shards wait out of the study's folder until merged
            return self.dest / SHARDS / f"{self.job.id}.json"
        if self.run > 1:  # a repeat, beside the study's own JSON, out of what a report merges
            return self.dest / RUNS / f"{self.job.id}.run{self.run}.json"
        return self.dest / f"{self.job.id}.json"


class Interrupted(Exception):
    """Ctrl-C during a run: what was kept and where to resume. `kept`: the tasks finished before
    it; `salvaged`: how many benchmarks the interrupted run had completed, kept (marked
    incomplete) in `salvaged_to` (its task's JSON, or <id>.json.interrupted beside a complete one),
    or 0 and None where none was."""

    def __init__(self, task: Task, kept: list, salvaged: int = 0, salvaged_to: Optional[Path] = None,
                 others: Optional[list] = None):
        super().__init__(task.job.id)
        self.task, self.kept = task, kept
        self.salvaged, self.salvaged_to = salvaged, salvaged_to
        self.others = others or []  # (task, salvaged, salvaged_to) of the runs stopped beside it (other GPUs)


@dataclass
class Outcome:
    done: list = field(default_factory=list)     # tasks up to date at the end (run now or before)
    failed: list = field(default_factory=list)   # tasks whose kps-bench failed


# An absolute path where a context value has one: at its start, after a space or after '='.
_ABSOLUTE = re.compile(r"(?<![^\s=])/[^\s()'\"]+")

# The context values that name files: Google Benchmark's argv[0], the command, and the table the
# run read ("PATH (the nearest table: ...)" or "KPS_TUNING_TABLE=PATH").
PATH_KEYS = ("executable", "kps_command", "kps_tuning_table")


def portable(text: str, display: Callable[[Path], str] = str) -> str:
    """`text` with each absolute path as `display` shows it where that is relative (inside the
    checkout), else as the file's name alone (a build or temporary folder of this machine)."""
    def one(m):
        shown = display(Path(m.group(0)))
        return shown if not Path(shown).is_absolute() else Path(m.group(0)).name
    return _ABSOLUTE.sub(one, text)


class Runner:
    def __init__(self, bench: Path, bench_sha: str, display_bench: str, repetitions: Optional[int] = None,
                 display: Callable[[Path], str] = str, root: Optional[Path] = None,
                 tables_dir: Optional[Path] = None):
        self.bench, self.bench_sha, self.display_bench = bench, bench_sha, display_bench
        # where a run's recorded table path lies now (table_changed): the checkout, the installed tables
        self.root, self.tables_dir = root, tables_dir
        self.repetitions = repetitions
        self.display = display
        self._live, self._live_lock = {}, threading.Lock()  # pid -> Popen of the kps-bench runs in progress

    def status(self, task: Task) -> Optional[str]:
        """None where the task's JSON is up to date, else why it must run."""
        if task.force:
            return "--force"
        if not task.out.exists():
            return "not run yet"
        try:
            ctx = gbench.load(task.out)["context"]
        except KpsError as e:
            return f"its JSON is unusable ({e})"
        if ctx.get("kps_incomplete") == "true":
            return "the last run of it was interrupted"
        if ctx.get("kps_bench_sha256") != self.bench_sha:
            was = ctx.get("kps_bench_sha256")
            return f"kps-bench changed (binary {was} -> {self.bench_sha})" if was else "no record of the kps-bench that ran it"
        if ctx.get("kps_job") != task.job.fingerprint(self.repetitions):
            return "the sweep's definition of it changed"
        ran_on = ctx.get("kps_gpu_uuid")
        if task.gpu is not None and ran_on and ran_on != task.gpu.uuid:
            return f"it ran on another GPU ({ran_on})"
        # a study's run measures the installed table; a tuning run's table is the tune's own
        # (its verification keeps the rows' fingerprint, kps_tune_table_sha256)
        return table_changed(ctx, self.root, self.tables_dir) if task.label != "tune" else None

    def command(self, task: Task) -> list:
        return [str(self.bench)] + task.job.bench_args(self.repetitions)

    def run(self, tasks: list, gpus: Optional[list] = None) -> Outcome:
        """Runs every task that is not up to date, in order; a failed task stops the rest of its
        label's (study's) tasks. With `gpus` (kps_report.gpus.Gpu), each run sees one GPU alone
        and its JSON names it; with several, one run per GPU at once, each GPU taking the next
        task (or the next of its own: Task.gpu)."""
        outcome = Outcome()
        todo = []
        for t in tasks:
            why = self.status(t)
            if why is None:
                say(f"{t.label}: {t.job.id}: up to date ({t.out.name}), skipped")
                outcome.done.append(t)
                _drop_shards(t)
            else:
                todo.append((t, why))
        if gpus and len(gpus) > 1:
            return self._run_concurrently(todo, gpus, outcome)
        failed_labels = set()
        gpu = gpus[0] if gpus else None
        t0, ran = time.monotonic(), 0
        for i, (t, why) in enumerate(todo):
            if t.label in failed_labels:
                continue
            eta = ""
            if ran:
                eta = _eta((time.monotonic() - t0) / ran * (len(todo) - i))
            say(f"{t.label}: run {i + 1}/{len(todo)}: {t.job.id} ({why}){eta}")
            say("  " + " ".join([self.display_bench] + t.job.bench_args(self.repetitions)))
            if self._run_one(t, outcome.done, t.gpu or gpu):
                outcome.done.append(t)
                _drop_shards(t)
            else:
                outcome.failed.append(t)
                failed_labels.add(t.label)
            ran += 1
        return outcome

    # --- several GPUs at once ---------------------------------------------------------------

    def _run_concurrently(self, todo: list, gpus: list, outcome: Outcome) -> Outcome:
        """One worker thread per GPU, each running one kps-bench at a time on its GPU and its own
        share of the cores. A job of several types that may run on any GPU is split into one shard
        per type (the jobs of most types first), merged into the job's JSON once every shard is
        done. Ctrl-C (in the main thread) stops every run in progress and keeps what each had
        completed."""
        lock = threading.Lock()
        pending = _shards(todo, self)
        failed_labels = set()
        interrupted = []   # (task, salvaged, where) of the runs Ctrl-C stopped
        stopping = threading.Event()
        started, t0, total = [0], time.monotonic(), len(pending)
        shares = cpu_shares(len(gpus))

        def next_task(gpu):
            with lock:
                for k, (t, why) in enumerate(pending):
                    if t.label in failed_labels:
                        continue
                    if t.gpu is None or t.gpu == gpu:
                        del pending[k]
                        started[0] += 1
                        return t, why, started[0]
            return None

        def finish(t, ok):  # under lock: a task, or a shard of one, ended
            job = t.parent or t
            if not ok:
                failed_labels.add(t.label)
                if job not in outcome.failed:
                    outcome.failed.append(job)
                return
            if t.parent is not None:
                job.shards_done.append(t)
                if len(job.shards_done) < job.shard_count or job in outcome.failed:
                    return
                self._merge(job)
            outcome.done.append(job)

        for t, _ in todo:  # a sharded job whose every shard was up to date: merged now
            if t.shard_count and len(t.shards_done) == t.shard_count:
                self._merge(t)
                outcome.done.append(t)

        errors = []  # what a worker raised (a KpsError, a full disk): re-raised in the main thread

        def worker(gpu, cpus, ended):
            try:
                while not stopping.is_set():
                    nxt = next_task(gpu)
                    if nxt is None:
                        return
                    t, why, i = nxt
                    say(f"GPU {gpu.index}: {t.label}: run {i}/{total}: {t.job.id} ({why})")
                    say(f"  GPU {gpu.index}: " + " ".join([self.display_bench] + t.job.bench_args(self.repetitions)))
                    ok = self._run_one(t, outcome.done, gpu, stopping, interrupted, lock, cpus)
                    with lock:
                        if stopping.is_set():
                            return
                        finish(t, ok)
            except BaseException as e:  # noqa: B902 (any failure ends the whole run, in one line)
                errors.append(e)
                stopping.set()
            finally:
                ended.set()

        # The main thread polls the workers' own flags: a Thread.join cut short by Ctrl-C can leave
        # is_alive() False for a thread still running (CPython gh-90882).
        ended = [threading.Event() for _ in gpus]
        threads = [threading.Thread(target=worker, args=(g, c, e), name=f"gpu-{g.index}", daemon=True)
                   for g, c, e in zip(gpus, shares, ended)]
        previous = {}
        try:
            previous = _stop_on_signals(stopping)
            for th in threads:
                th.start()
            while not all(e.is_set() for e in ended) and not errors:
                time.sleep(0.1)
            if errors:
                self._stop_live(ended)
                raise errors[0]
        except KeyboardInterrupt:
            stopping.set()
            for th, e in zip(threads, ended):
                if th.ident is None:  # never started: nothing to wait for
                    e.set()
            self._stop_live(ended)
            if interrupted:
                (task, salvaged, where), others = interrupted[0], interrupted[1:]
                raise Interrupted(task, list(outcome.done), salvaged, where, others)
            raise
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        say(f"ran {started[0]} run{'s' if started[0] != 1 else ''} on {len(gpus)} GPUs in "
            f"{time.monotonic() - t0:.0f} s")
        return outcome

    def _merge(self, parent: Task) -> None:
        """The JSON of a job run as shards (one per type, each on a GPU): their benchmarks in the
        job's order of types, the context of the first with the job's command and fingerprint, and
        which GPU ran which type (kps_shards); the shards' files go."""
        shards = sorted(parent.shards_done, key=lambda t: parent.job.types.split(",").index(t.job.types))
        docs = [gbench.load(t.out) for t in shards]
        doc = {"context": dict(docs[0]["context"]), "benchmarks": [b for d in docs for b in d["benchmarks"]]}
        ctx = doc["context"]
        ctx.update({"kps_command": " ".join([self.display_bench] + parent.job.bench_args(self.repetitions)),
                    "kps_job": parent.job.fingerprint(self.repetitions), "kps_job_id": parent.job.id,
                    "kps_wall_seconds": f"{sum(float(d['context'].get('kps_wall_seconds', 0)) for d in docs):.1f}",
                    "kps_shards": "; ".join(f"{t.job.types}: GPU {d['context'].get('kps_gpu_index', '?')} "
                                            f"({d['context'].get('kps_wall_seconds', '?')} s, cores "
                                            f"{d['context'].get('kps_cpus_bound', '?')})"
                                            for t, d in zip(shards, docs))})
        for key, sep in (("kps_gpu_index", ","), ("kps_gpu_uuid", ","), ("kps_cpus_bound", " and ")):
            vals = [d["context"][key] for d in docs if key in d["context"]]
            if vals:
                ctx[key] = sep.join(dict.fromkeys(vals))
        loads = [float(d["context"]["kps_other_cpu_load"]) for d in docs if "kps_other_cpu_load" in d["context"]]
        if loads:
            ctx["kps_other_cpu_load"] = f"{max(loads):.2f}"
        write_json(doc, parent.out, parent.out.with_name(parent.out.name + ".partial"))
        for t in shards:
            t.out.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            (parent.dest / SHARDS).rmdir()

    def _stop_live(self, ended: list) -> None:
        """After Ctrl-C: SIGINT to every kps-bench still running (a SIGTERM to kps reached none of
        them), SIGKILL to those that do not stop, and the workers' end (`ended`: they keep what
        completed)."""
        for sig, wait in ((signal.SIGINT, 10.0), (signal.SIGKILL, 10.0)):
            with self._live_lock:
                procs = list(self._live.values())
            for p in procs:
                try:
                    p.send_signal(sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + wait
            while not all(e.is_set() for e in ended) and time.monotonic() < deadline:
                try:
                    time.sleep(0.1)
                except KeyboardInterrupt:  # Ctrl-C again: go on stopping them
                    continue
            if all(e.is_set() for e in ended):
                return

    def live_pids(self) -> list:
        with self._live_lock:
            return list(self._live)

    # --- one run ------------------------------------------------------------------------------

    def _run_one(self, task: Task, kept: list, gpu=None, stopping: Optional[threading.Event] = None,
                 interrupted: Optional[list] = None, lock: Optional[threading.Lock] = None,
                 cpus: Optional[list] = None) -> bool:
        """Runs one task (on `gpu` alone where given, its host threads on `cpus` where given). In a
        worker thread (`stopping` given) a run stopped by Ctrl-C keeps its completed benchmarks and
        records itself in `interrupted`."""
        task.out.parent.mkdir(parents=True, exist_ok=True)
        partial = task.out.with_name(task.out.name + ".partial")
        partial.unlink(missing_ok=True)
        cmd = self.command(task) + [f"--benchmark_out={partial}", "--benchmark_out_format=json"]
        env = {**os.environ, **task.env, **(gpu.env() if gpu else {}), **(cpu_env(cpus) if cpus else {})}
        probe = LoadProbe.start(self.live_pids)
        probe.gpu, probe.gpu_before, probe.cpus = gpu, gpu_state(gpu), cpus
        with self._live_lock:  # no run starts once Ctrl-C is stopping the others
            if stopping is not None and stopping.is_set():
                return False
            try:
                proc = subprocess.Popen(cmd, env=env)
            except OSError as e:
                raise KpsError(f"cannot run {self.bench}: {e.strerror}")
            self._live[proc.pid] = proc
        try:
            rc = proc.wait()
        except KeyboardInterrupt:
            _stop(proc)
            salvaged, where = 0, None
            try:
                salvaged, where = self._keep_completed(task, partial, probe)
            except KeyboardInterrupt:  # Ctrl-C again while keeping them: the JSON is whole or untouched
                pass
            finally:
                partial.unlink(missing_ok=True)
            raise Interrupted(task, kept, salvaged, where)
        finally:
            with self._live_lock:
                self._live.pop(proc.pid, None)
        if stopping is not None and rc in _STOPPED_BY_SIGNAL:
            stopping.wait(5.0)  # Ctrl-C reached kps-bench first: the main thread is about to say so
        if stopping is not None and stopping.is_set():
            salvaged, where = 0, None
            try:
                salvaged, where = self._keep_completed(task, partial, probe)
            finally:
                partial.unlink(missing_ok=True)
            with lock:
                interrupted.append((task, salvaged, where))
            return False
        if not partial.exists():
            warn(f"{task.label}: {task.job.id} FAILED (kps-bench exit {rc}) and wrote no results")
            return False
        try:
            doc = gbench.slim(gbench.load(partial), repetitions=True)
        except KpsError:
            try:
                doc = gbench.salvage(partial)
            except KpsError:
                partial.unlink(missing_ok=True)
                warn(f"{task.label}: {task.job.id} FAILED (kps-bench exit {rc}); no complete benchmark kept")
                return False
        self._write(task, doc, partial, probe, rc)
        if rc != 0:
            what = "its completed benchmarks kept" if doc["context"].get("kps_incomplete") == "true" else \
                "its results (failed checks listed in the report) kept"
            warn(f"{task.label}: {task.job.id} FAILED (kps-bench exit {rc}); {what} in {task.out}")
            return False
        return True

    def _keep_completed(self, task: Task, partial: Path, probe: LoadProbe) -> tuple:
        """After Ctrl-C: the benchmarks the stopped run completed, written as a finished run's
        JSON is, marked incomplete (gbench.salvage): to task.out, or beside it as
        <id>.json.interrupted where task.out holds a complete earlier run (--force), which stays.
        Returns how many and where (0 and None: none, nothing written)."""
        if not partial.exists():
            return 0, None
        try:
            doc = gbench.salvage(partial)
        except KpsError:
            return 0, None
        if not isinstance(doc.get("benchmarks"), list) or not doc["benchmarks"]:
            return 0, None
        dest = task.out
        if task.out.exists():
            try:
                complete = gbench.load(task.out)["context"].get("kps_incomplete") != "true"
            except KpsError:
                complete = False
            if complete:
                dest = task.out.with_name(task.out.name + ".interrupted")
        self._write(task, doc, partial, probe, dest=dest)
        return completed_benchmarks(doc), dest

    def _write(self, task: Task, doc: dict, partial: Path, probe: LoadProbe, rc: Optional[int] = None,
               dest: Optional[Path] = None) -> None:
        """Completes the context of kps-bench's document `doc` (the command, the job, the binary, the
        load around the run, the GPU's state, the task's own, the table read, portable paths; the
        exit status where not 0) and moves it into place, `dest` (default task.out), through `partial`."""
        gpu = probe.gpu
        context = {"kps_command": " ".join([self.display_bench] + task.job.bench_args(self.repetitions)),
                   "kps_job": task.job.fingerprint(self.repetitions), "kps_job_id": task.job.id,
                   "kps_bench_sha256": self.bench_sha, **probe.context(),
                   "kps_wall_seconds": f"{time.monotonic() - probe.wall0:.1f}",
                   **{f"nvidia_smi_before_{k}": v for k, v in probe.gpu_before.items()},
                   **{f"nvidia_smi_{k}": v for k, v in gpu_state(gpu).items()},
                   **(gpu.context() if gpu else {}), **task.context}
        if probe.cpus:
            context["kps_cpus_bound"] = _ranges(probe.cpus)
        if rc:
            context["kps_exit_status"] = str(rc)
        # kps_tuning_table: the table's path, then what selected it ("PATH (the nearest table: ...)").
        table = recorded_table(doc["context"].get("kps_tuning_table") or "")
        if table and Path(table).is_file():  # which table the run read, by content (its path may change)
            context["kps_tuning_table_sha256"] = hashlib.sha256(Path(table).read_bytes()).hexdigest()[:16]
            context["kps_tuning_rows_sha256"] = table_rows_sha(Path(table).read_text(errors="replace"))
        doc["context"].update(context)
        for key in PATH_KEYS:
            if isinstance(doc["context"].get(key), str):
                doc["context"][key] = portable(doc["context"][key], self.display)
        write_json(doc, dest or task.out, partial)


# A table's header keys that say how and when it was made, not what kps reads from it.
_TABLE_MAKING = {"date", "command", "sweep", "kps_revision"}


def table_rows_sha(text: str) -> str:
    """A tuning table's fingerprint by what kps reads from it: its header keys (device, backend,
    concurrency, ...) and its rows, each line as the library parses it (trimmed, split on any
    whitespace, comments dropped: src/kps/tuning/table.cpp), without how and when it was made
    (date, command, sweep line, revision). A format-1 table's rows have no `reduce` word; they
    count as they stand."""
    body = []
    for line in text.splitlines():
        code = line.split("#")[0]
        if "=" in code:
            key, value = (x.strip() for x in code.split("=", 1))
            if key not in _TABLE_MAKING:
                body.append(f"{key} = {' '.join(value.split())}")
        elif code.split():
            body.append(" ".join(code.split()))
    return hashlib.sha256("\n".join(body).encode()).hexdigest()[:16]


def _table_header(path: Path) -> dict:
    """The header keys of the table at `path` (device, backend, concurrency, ...)."""
    out = {}
    for line in path.read_text(errors="replace").splitlines():
        code = line.split("#")[0]
        if "=" in code:
            key, value = (x.strip() for x in code.split("=", 1))
            out[key] = value
    return out


def recorded_table(recorded: str) -> str:
    """The table's path in kps-bench's kps_tuning_table note ("PATH", "PATH (the nearest table:
    ...)", "KPS_TUNING_TABLE=PATH ..."), or '' for a note without one."""
    return recorded.split(" (")[0].removeprefix("KPS_TUNING_TABLE=") if recorded else ""


def _table_path(recorded: str, root: Optional[Path], tables_dir: Optional[Path]) -> Path:
    """A table path as a run recorded it (`portable`: relative inside the checkout, else the file's
    name alone), where it is now: under the checkout (`root`), else among the installed tables."""
    path = Path(recorded)
    if path.is_absolute():
        return path
    if root is not None and (root / path).is_file():
        return root / path
    if tables_dir is not None and len(path.parts) == 1 and (tables_dir / path).is_file():
        return tables_dir / path
    return path


def table_changed(ctx: dict, root: Optional[Path] = None, tables_dir: Optional[Path] = None) -> Optional[str]:
    """Why a run must be measured again because of the tuning table it read, else None: the table
    (kps_tuning_table, by its path as recorded, found under the checkout `root` or among the
    installed `tables_dir`) has other rows now (kps_tuning_rows_sha256; a run recorded before it
    kept only the whole file's checksum, kps_tuning_table_sha256, so any edit counts), or the run
    found no table for its device and used the rules where a table of that name, made for its
    device, backend and concurrency (or `*`), now lies in one of the folders it searched."""
    recorded = ctx.get("kps_tuning_table") or ""
    missing = re.match(r"(?:.*KPS_TUNING_TABLE: )?no table (\S+) for '(.*)' \((\S+), concurrency (\d+)\) in (.*?);",
                       recorded)
    if missing:
        name, device, backend, concurrency, folders = missing.groups()
        for folder in folders.split(", "):
            path = _table_path(str(Path(folder) / name), root, tables_dir)
            if not path.is_file():
                continue
            h = _table_header(path)
            if (h.get("device") in (device, "*") and h.get("backend", "").lower() == backend.lower()
                    and h.get("concurrency", "*") in (concurrency, "*")):
                return f"it ran on the rules; a table for it is installed now ({Path(folder) / name})"
        return None
    if not recorded:
        return None
    shown = recorded_table(recorded)
    path = _table_path(shown, root, tables_dir)
    if not path.is_file():
        return None
    if "(the nearest table:" in recorded:  # another device's table stood in: has its own come since?
        from kps_report.analyses.tune import table_slug
        own = path.parent / (table_slug(ctx) + ".table")
        if own.is_file() and own != path:
            h = _table_header(own)
            if h.get("device") == ctx.get("device") and h.get("backend", "").lower() == str(ctx.get("backend", "")).lower():
                return f"it ran on the nearest table ({shown}); its device's own is installed now ({own.name})"
    if ctx.get("kps_tuning_rows_sha256"):
        was, now = ctx["kps_tuning_rows_sha256"], table_rows_sha(path.read_text(errors="replace"))
    else:
        was, now = ctx.get("kps_tuning_table_sha256"), hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    if was and now != was:
        return f"the tuning table it read changed ({shown}: {was} -> {now})"
    return None


# Where the shards of a job run on several GPUs wait, in its study's folder, until merged.
SHARDS = ".shards"
# Where the repeats of a job go (<study>/runs/<id>.run<k>.json, k >= 2): a report's targets take
# the median over a job's runs (gbench.repeated_runs).
RUNS = "runs"


def _shards(todo: list, runner: "Runner") -> list:
    """The (task, why) list of a run on several GPUs: a task any GPU may run whose job has several
    types becomes one shard per type (those up to date from an earlier, interrupted run are kept
    and not run again), the jobs of most types first; the rest as given."""
    out = []
    for t, why in todo:
        types = [x for x in t.job.types.split(",") if x]
        if t.gpu is not None or len(types) < 2:
            out.append((0 if t.gpu is not None else len(types), t, why))  # a GPU's own tasks keep their order
            continue
        t.shard_count, t.shards_done = len(types), []
        for ty in types:
            shard = Task(t.label, replace(t.job, id=f"{t.job.id}.{ty}", types=ty), t.dest, t.env, dict(t.context),
                         t.force, parent=t)
            shard_why = runner.status(shard)
            if shard_why is None:
                say(f"{t.label}: {shard.job.id}: up to date ({SHARDS}/{shard.out.name}), kept")
                t.shards_done.append(shard)
            else:
                out.append((len(types), shard, f"{why}; shard {ty}"))
    return [(t, why) for _, t, why in sorted(out, key=lambda x: -x[0])]


def write_json(doc: dict, path: Path, through: Optional[Path] = None, compact: bool = False) -> None:
    """`doc` into `path` whole or not at all: written to `through` (default path.tmp), then moved;
    `compact`: without indentation or spaces (a long sweep's JSON about a sixth smaller)."""
    tmp = through or path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        if compact:
            json.dump(doc, f, separators=(",", ":"))
        else:
            json.dump(doc, f, indent=1)
    os.replace(tmp, path)


def _drop_shards(task: Task) -> None:
    """The shards of a task's job left by an earlier run on several GPUs (interrupted, or with a
    failed shard), once the job's own JSON is up to date without them."""
    folder = task.dest / SHARDS
    if not folder.is_dir():
        return
    for f in folder.glob(f"{task.job.id}.*.json*"):
        if f.name.split(".json")[0].rsplit(".", 1)[0] == task.job.id:
            f.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        folder.rmdir()


def _siblings(cpu: int) -> str:
    """The hardware threads of cpu's core (Linux sysfs), or the cpu alone."""
    base = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
    for name in ("core_cpus_list", "thread_siblings_list"):
        try:
            return (base / name).read_text().strip()
        except OSError:
            continue
    return str(cpu)


def cpu_shares(n: int) -> list:
    """This process' cores split into n equal shares of whole cores (one per GPU; a core's hardware
    threads stay in one share): each GPU's kps-bench binds its host threads to its own share, so
    that runs side by side do not share a core."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else list(range(os.cpu_count() or 1))
    cores = {}
    for c in cpus:
        cores.setdefault(_siblings(c), []).append(c)
    groups = list(cores.values())
    per = max(1, len(groups) // n)
    return [sorted(c for g in (groups[i * per:(i + 1) * per] or groups[-1:]) for c in g) for i in range(n)]


def cpu_env(cpus: list) -> dict:
    """OpenMP's threads (Kokkos' host space) on these cores alone, one thread per core."""
    return {"OMP_NUM_THREADS": str(len(cpus)), "OMP_PLACES": ",".join(f"{{{c}}}" for c in cpus),
            "OMP_PROC_BIND": os.environ.get("OMP_PROC_BIND", "spread")}


def _ranges(cpus: list) -> str:
    """[0, 1, 2, 5] -> '0-2,5'."""
    out, start = [], None
    for i, c in enumerate(cpus):
        if start is None:
            start = c
        if i + 1 == len(cpus) or cpus[i + 1] != c + 1:
            out.append(f"{start}-{c}" if c != start else f"{c}")
            start = None
    return ",".join(out)


def _stop_on_signals(stopping: threading.Event) -> dict:
    """Ctrl-C and SIGTERM raise KeyboardInterrupt once: a second signal while the runs are being
    stopped (`timeout` sends one to kps and one to its process group) does not cut that short.
    Returns the handlers it replaced."""
    def handler(signum, frame):
        if not stopping.is_set():
            stopping.set()
            raise KeyboardInterrupt
    return {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}


# Exit statuses of a kps-bench stopped by Ctrl-C or SIGTERM (killed by the signal, or 128 + it).
_STOPPED_BY_SIGNAL = {-signal.SIGINT, -signal.SIGTERM, 128 + signal.SIGINT, 128 + signal.SIGTERM}


def _eta(left: float) -> str:
    return f", about {left / 60:.0f} min left" if left >= 90 else f", about {left:.0f} s left"


def completed_benchmarks(doc: dict) -> int:
    """How many benchmarks a Google Benchmark document holds: its entries less the repetitions and
    aggregates of one benchmark counted again (they share its run_name)."""
    return len({b.get("run_name", b.get("name")) for b in doc["benchmarks"] if isinstance(b, dict)})


def _stop(proc: subprocess.Popen) -> None:
    """Stops kps-bench after Ctrl-C: it got the terminal's SIGINT too, unless it runs without one."""
    for sig, wait in ((signal.SIGINT, 10), (signal.SIGKILL, 10)):
        if proc.poll() is not None:
            return
        try:
            proc.send_signal(sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
        except KeyboardInterrupt:
            continue
