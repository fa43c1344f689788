"""The studies' sweep definitions (studies/<study>/study.json) as data.

A study has a title and named sweeps (`small`, `full`); a sweep is a list of runs (jobs), each
one kps-bench command: a benchmark filter, sizes, element types, repetitions, a minimum time and
extra arguments. The reduction study also has `tune` sweeps (kps_report.tuning). A job's
fingerprint is the hash of the kps-bench arguments it makes: a changed sweep definition changes
it, and the runner re-runs the job.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from kps_report.errors import die

DEFAULT_TYPES = "int32,int64,float,double"
SCALES = ("small", "full")


BACKENDS = ("gpu", "host")


@dataclass(frozen=True)
class Job:
    """One kps-bench run of a sweep: its results go to <study folder>/<id>.json. `on`: the kind of
    backend it is for ("gpu", "host"; empty: any), so one scale can size a GPU's sweeps and a CPU
    node's apart; `env`: variables its process gets ((name, value) pairs), e.g. a peer of another
    threading runtime measured in a process of its own with OpenMP's threads asleep."""
    id: str
    filter: str
    sizes: str
    types: str = DEFAULT_TYPES
    repetitions: int = 3
    min_time: float = 0.05
    args: tuple = ()
    on: str = ""
    env: tuple = ()

    @classmethod
    def from_json(cls, d: dict, where: str) -> "Job":
        try:
            on = str(d.get("on", ""))
            if on and on not in BACKENDS:
                die(f"{where}: run {d.get('id')}: 'on' is one of {', '.join(BACKENDS)}, not '{on}'")
            env = d.get("env", {})
            if not isinstance(env, dict):
                raise TypeError("env")
            return cls(str(d["id"]), str(d["filter"]), str(d["sizes"]), str(d.get("types", DEFAULT_TYPES)),
                       int(d.get("repetitions", 3)), float(d.get("min_time", 0.05)), tuple(d.get("args", ())), on,
                       tuple(sorted((str(k), str(v)) for k, v in env.items())))
        except (KeyError, TypeError, ValueError) as e:
            die(f"{where}: a run without a valid {e} (id, filter and sizes are required)")

    def runs_on(self, gpu: bool) -> bool:
        return not self.on or self.on == ("gpu" if gpu else "host")

    def bench_args(self, repetitions: Optional[int] = None) -> list:
        """kps-bench's arguments for this job, without the output file."""
        return [f"--benchmark_filter={self.filter}", f"--kps_sizes={self.sizes}", f"--kps_types={self.types}",
                f"--benchmark_repetitions={repetitions or self.repetitions}",
                "--benchmark_display_aggregates_only=true", f"--benchmark_min_time={self.min_time:g}",
                *self.args]

    def fingerprint(self, repetitions: Optional[int] = None) -> str:
        parts = self.bench_args(repetitions) + [f"env:{k}={v}" for k, v in self.env]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


@dataclass
class Study:
    name: str
    title: str
    dir: Path
    sweeps: dict = field(default_factory=dict)  # scale -> [Job]
    tune: dict = field(default_factory=dict)    # the raw "tune" block (kps tune: reduce, scan)

    def jobs(self, scale: str, gpu: Optional[bool] = None) -> list:
        """The scale's runs; for one kind of backend (gpu True or False) only its own and the shared."""
        if scale not in self.sweeps:
            die(f"study {self.name} has no '{scale}' sweep (it has: {', '.join(self.sweeps)})")
        return [j for j in self.sweeps[scale] if gpu is None or j.runs_on(gpu)]


def study_names(studies_dir: Path) -> list:
    """Every study: the folders of studies/ that hold a study.json."""
    if not studies_dir.is_dir():
        die(f"no studies folder {studies_dir}")
    return sorted(p.parent.name for p in studies_dir.glob("*/study.json"))


def load_study(name: str, studies_dir: Path) -> Study:
    path = studies_dir / name / "study.json"
    if not path.is_file():
        die(f"unknown study '{name}' (studies: {', '.join(study_names(studies_dir))})")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        die(f"{path}: cannot read the study's definition ({e})")
    sweeps = {}
    for scale, sweep in raw.get("sweeps", {}).items():
        sweeps[scale] = [Job.from_json(j, f"{path} sweeps.{scale}") for j in sweep.get("runs", [])]
    return Study(name, raw.get("title", name), path.parent, sweeps, raw.get("tune", {}))


def load_studies(names, studies_dir: Path) -> list:
    known = study_names(studies_dir)
    for n in names:
        if n not in known:
            die(f"unknown study '{n}' (studies: {', '.join(known)})")
    if len(set(names)) != len(names):
        die("a study is listed twice in --studies")
    return [load_study(n, studies_dir) for n in names]


def parse_list(text: str) -> list:
    return [x for x in (s.strip() for s in text.split(",")) if x]
