"""`kps tune`: re-tunes the reduction on the machine at hand.

Runs the seed's sweep (studies/reduce/study.json "tune") into the run's own folder
(<results>/<machine>/reduce/tune), derives the lookup table there with its CSV, figures and
tune.md, then a verification run of reduce/tuned with the new table (KPS_TUNING_TABLE), and says
how to install the table where the tuned reduction reads it (layout.TABLES_DIR_IN_SOURCE, or
<prefix>/share/kps/tables): `--install` copies it there, on purpose only. `kps tune-table DIR`
redoes the analysis from the JSON in DIR. The report of a machine folder renders the same
analysis from reduce/tune (render_folder).
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from kps_report import gbench
from kps_report.analyses import reduce_tune
from kps_report.commands import bench_command
from kps_report.errors import die
from kps_report.machine import load_conditions
from kps_report.output import Figures
from kps_report.study import Job, Study

VERIFY = "verify"


@dataclass
class TuneRendering:
    summary: str          # tables and checks (no figures), for the machine's report
    table_name: str
    table_text: str
    failed: int
    verified: bool


def sweep_spec(study: Study, scale: str) -> dict:
    if scale not in study.tune or not isinstance(study.tune[scale], dict):
        die(f"studies/reduce/study.json has no tune sweep '{scale}'")
    return study.tune[scale]


def sweep_jobs(study: Study, scale: str) -> list:
    return [Job.from_json(j, f"study.json tune.{scale}") for j in sweep_spec(study, scale)["runs"]]


def sweep_text(scale: str, jobs: list) -> str:
    return f"study.json tune.{scale}: " + "; ".join(
        f"{j.id}: sizes {j.sizes}, types {j.types}, {j.repetitions} repetitions" for j in jobs)


def scale_of(folder: Path, study: Study) -> Optional[str]:
    """The tune sweep whose runs are all in folder, else the one whose runs include every sweep
    JSON there (a sweep under way)."""
    present = {p.stem for p in folder.glob("*.json")} - {VERIFY}
    sweeps = {scale: {j["id"] for j in spec["runs"]} for scale, spec in study.tune.items()
              if isinstance(spec, dict) and spec.get("runs")}
    for scale, ids in sweeps.items():
        if ids <= present:
            return scale
    for scale, ids in sweeps.items():
        if present and present <= ids:
            return scale
    return None


@dataclass
class Sweep:
    """The sweep JSON of a tune folder and what the analysis needs beside it."""
    scale: Optional[str]
    ctx: dict
    docs: list
    records: list
    tolerance: float
    text: str
    verify_doc: Optional[dict]


def load_sweep(folder: Path, study: Optional[Study]) -> Optional[Sweep]:
    scale = scale_of(folder, study) if study else None
    if scale:
        ids = [j["id"] for j in study.tune[scale]["runs"] if (folder / f"{j['id']}.json").exists()]
        tolerance = float(study.tune[scale].get("merge_tolerance", reduce_tune.TOLERANCE))
        text = sweep_text(scale, sweep_jobs(study, scale))
    else:  # a sweep of an older definition: every JSON but the verification
        ids = sorted(p.stem for p in folder.glob("*.json") if p.stem != VERIFY)
        tolerance, text = reduce_tune.TOLERANCE, "the sweep JSON in this folder"
    if not ids:
        return None
    docs = [gbench.load(folder / f"{i}.json") for i in ids]
    ctx = {}
    for d in docs:  # in the sweep's order: the table's header names the last run's date and revision
        ctx.update(d["context"])
    vpath = folder / f"{VERIFY}.json"
    return Sweep(scale, ctx, docs, [r for d in docs for r in gbench.records(d)], tolerance, text,
                 gbench.load(vpath) if vpath.exists() else None)


def _verified(sweep: Sweep, table: str) -> list:
    """The verification run's records where it tested this very table, else none."""
    sha = reduce_tune.fingerprint(table)
    if sweep.verify_doc and sweep.verify_doc["context"].get("kps_tune_table_sha256") == sha:
        return gbench.records(sweep.verify_doc)
    return []


def render_folder(folder: Path, figures: Figures, study: Optional[Study] = None, prog: str = "kps",
                  installed: bool = False) -> Optional[TuneRendering]:
    """The tuning analysis of the sweep JSON in folder, written through `figures` (tune.md, the
    table, CSV, one figure per size). None where the folder holds no sweep."""
    sweep = load_sweep(folder, study)
    if sweep is None:
        return None
    bench_cmds = sorted({f"{bench_command(d['context'], installed)}  [revision "
                         f"{d['context'].get('kps_git_revision', '?')}, {d['context'].get('date', '?')}]"
                         for d in sweep.docs if d["context"].get("kps_command")})
    command = f"{prog} tune --scale {sweep.scale}" if sweep.scale else f"{prog} tune-table DIR"
    table = reduce_tune.table_only(sweep.records, sweep.ctx, sweep.text, command, bench_cmds, sweep.tolerance)
    if table is None:
        return None
    verify = _verified(sweep, table)
    md, table, failed = reduce_tune.analyze(sweep.records, sweep.ctx, figures.folder(), sweep.text, command,
                                            bench_cmds, tolerance=sweep.tolerance, verify=verify)
    name = reduce_tune.table_slug(sweep.ctx) + ".table"
    figures.path(name).write_text(table, encoding="utf-8")
    line, warning = load_conditions(sweep.docs + ([sweep.verify_doc] if sweep.verify_doc else []))
    conditions = warning or (f"Load: other processes used {line} cores on average.\n" if line else "")
    md = (conditions + "\n" if conditions else "") + md
    figures.path("tune.md").write_text(
        f"# Reduction tuning: {sweep.ctx.get('device', '')} ({sweep.ctx.get('backend', '')})\n\n"
        f"Table: `{name}` (in this folder). Rendered from the JSON in this folder (`{prog} tune-table DIR`).\n\n"
        + md, encoding="utf-8")
    summary = md.split("\n#### Time against load per thread")[0]
    return TuneRendering(summary, name, table, failed, bool(verify))


def check_counts(folder: Path, study: Optional[Study]):
    """reduce_tune.check_counts of the folder's sweep (and its verification of the table it makes)."""
    sweep = load_sweep(folder, study)
    if sweep is None:
        return None
    table = reduce_tune.table_only(sweep.records, sweep.ctx, tolerance=sweep.tolerance)
    if table is None:
        return None
    return reduce_tune.check_counts(sweep.records, sweep.ctx, sweep.tolerance, _verified(sweep, table))


def install_hint(table: Path, tables_dir: Path) -> str:
    return (f"review it, then install it where the tuned reduction reads tables: cp {table} {tables_dir}/ "
            f"(or `kps tune --install`); to try it first: KPS_TUNING_TABLE={table}")


def install(table: Path, tables_dir: Path) -> Path:
    tables_dir.mkdir(parents=True, exist_ok=True)
    dest = tables_dir / table.name
    shutil.copyfile(table, dest)
    return dest
