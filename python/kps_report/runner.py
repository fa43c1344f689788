"""Runs sweeps with kps-bench: one Google Benchmark JSON per job (<folder>/<job id>.json).

A job whose JSON is up to date is skipped: it was written by this very kps-bench binary (its
checksum, context kps_bench_sha256) for this very job definition (kps_job, a hash of the
kps-bench arguments) and it is complete. Anything else re-runs it, saying why. kps-bench writes
to <id>.json.partial; the runner keeps the aggregates with the repetitions' spread (gbench.slim),
adds the command, the load around the run and the GPU's clocks to the context and moves the file
into place, so a folder never holds a half-written <id>.json. Paths in the context are written as
a reader of the results would type them (`portable`): relative inside the checkout, else the
file's name alone, never a folder of the machine that ran it. Ctrl-C (or SIGTERM) stops the
run in progress and keeps the benchmarks it completed (gbench.salvage) in <id>.json, with the
same context and kps_incomplete = "true" (so the next run re-measures that job), or beside a
complete <id>.json of an earlier run (--force) as <id>.json.interrupted, leaving that run's
JSON as it was; where nothing was complete it keeps nothing. Either way no .partial is left,
and it raises Interrupted, which says what was kept.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from kps_report import gbench
from kps_report.errors import KpsError, say, warn
from kps_report.machine import LoadProbe, gpu_state
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

    @property
    def out(self) -> Path:
        return self.dest / f"{self.job.id}.json"


class Interrupted(Exception):
    """Ctrl-C during a run: what was kept and where to resume. `kept`: the tasks finished before
    it; `salvaged`: how many benchmarks the interrupted run had completed, kept (marked
    incomplete) in `salvaged_to` (its task's JSON, or <id>.json.interrupted beside a complete one),
    or 0 and None where none was."""

    def __init__(self, task: Task, kept: list, salvaged: int = 0, salvaged_to: Optional[Path] = None):
        super().__init__(task.job.id)
        self.task, self.kept = task, kept
        self.salvaged, self.salvaged_to = salvaged, salvaged_to


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
                 display: Callable[[Path], str] = str):
        self.bench, self.bench_sha, self.display_bench = bench, bench_sha, display_bench
        self.repetitions = repetitions
        self.display = display

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
        return None

    def command(self, task: Task) -> list:
        return [str(self.bench)] + task.job.bench_args(self.repetitions)

    def run(self, tasks: list) -> Outcome:
        """Runs every task that is not up to date, in order; a failed task stops the rest of its
        label's (study's) tasks."""
        outcome = Outcome()
        todo = []
        for t in tasks:
            why = self.status(t)
            if why is None:
                say(f"{t.label}: {t.job.id}: up to date ({t.out.name}), skipped")
                outcome.done.append(t)
            else:
                todo.append((t, why))
        failed_labels = set()
        t0, ran = time.monotonic(), 0
        for i, (t, why) in enumerate(todo):
            if t.label in failed_labels:
                continue
            eta = ""
            if ran:
                left = (time.monotonic() - t0) / ran * (len(todo) - i)
                eta = f", about {left / 60:.0f} min left" if left >= 90 else f", about {left:.0f} s left"
            say(f"{t.label}: run {i + 1}/{len(todo)}: {t.job.id} ({why}){eta}")
            say("  " + " ".join([self.display_bench] + t.job.bench_args(self.repetitions)))
            if self._run_one(t, outcome.done):
                outcome.done.append(t)
            else:
                outcome.failed.append(t)
                failed_labels.add(t.label)
            ran += 1
        return outcome

    def _run_one(self, task: Task, kept: list) -> bool:
        task.dest.mkdir(parents=True, exist_ok=True)
        partial = task.out.with_name(task.out.name + ".partial")
        partial.unlink(missing_ok=True)
        cmd = self.command(task) + [f"--benchmark_out={partial}", "--benchmark_out_format=json"]
        probe = LoadProbe.start()
        try:
            proc = subprocess.Popen(cmd, env={**os.environ, **task.env})
        except OSError as e:
            raise KpsError(f"cannot run {self.bench}: {e.strerror}")
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
        if not partial.exists():
            warn(f"{task.label}: {task.job.id} FAILED (kps-bench exit {rc}) and wrote no results")
            return False
        try:
            doc = gbench.slim(gbench.load(partial))
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
        context = {"kps_command": " ".join([self.display_bench] + task.job.bench_args(self.repetitions)),
                   "kps_job": task.job.fingerprint(self.repetitions), "kps_job_id": task.job.id,
                   "kps_bench_sha256": self.bench_sha, **probe.context(),
                   **{f"nvidia_smi_{k}": v for k, v in gpu_state().items()}, **task.context}
        if rc:
            context["kps_exit_status"] = str(rc)
        # kps_tuning_table: the table's path, then what selected it ("PATH (the nearest table: ...)").
        table = (doc["context"].get("kps_tuning_table") or "").split(" (")[0].removeprefix("KPS_TUNING_TABLE=")
        if table and Path(table).is_file():  # which table the run read, by content (its path may change)
            context["kps_tuning_table_sha256"] = hashlib.sha256(Path(table).read_bytes()).hexdigest()[:16]
        doc["context"].update(context)
        for key in PATH_KEYS:
            if isinstance(doc["context"].get(key), str):
                doc["context"][key] = portable(doc["context"][key], self.display)
        with open(partial, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
        os.replace(partial, dest or task.out)


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
