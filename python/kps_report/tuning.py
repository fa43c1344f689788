"""`kps tune`: re-tunes the reduction on the machine at hand.

Runs the seed's sweep (studies/reduce/study.json "tune") into the run's own folder
(<results>/<machine>/reduce/tune), derives the lookup table there with its CSV, figures and
tune.md, then a verification run of reduce/tuned with the new table (KPS_REDUCE_TABLE), and says
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
from kps_report.errors import die, say
from kps_report.output import Figures, Staging
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
    """The tune sweep whose runs are all in folder."""
    for scale, spec in study.tune.items():
        if isinstance(spec, dict) and spec.get("runs") and all((folder / f"{j['id']}.json").exists()
                                                               for j in spec["runs"]):
            return scale
    return None


def render_folder(folder: Path, figures: Figures, study: Optional[Study] = None, prog: str = "kps",
                  installed: bool = False) -> Optional[TuneRendering]:
    """The tuning analysis of the sweep JSON in folder, written through `figures` (tune.md, the
    table, CSV, one figure per size). None where the folder holds no sweep."""
    scale = scale_of(folder, study) if study else None
    if scale:
        ids = [j["id"] for j in study.tune[scale]["runs"]]
        tolerance = float(study.tune[scale].get("merge_tolerance", reduce_tune.TOLERANCE))
        text = sweep_text(scale, sweep_jobs(study, scale))
    else:  # a sweep of an older definition: every JSON but the verification
        ids = sorted(p.stem for p in folder.glob("*.json") if p.stem != VERIFY)
        tolerance, text = reduce_tune.TOLERANCE, "the sweep JSON in this folder"
    if not ids:
        return None
    docs = [gbench.load(folder / f"{i}.json") for i in ids]
    ctx = {}
    for d in sorted(docs, key=lambda d: d["context"].get("date", "")):
        ctx.update(d["context"])
    records = [r for d in docs for r in gbench.records(d)]
    bench_cmds = sorted({f"{bench_command(d['context'], installed)}  [revision "
                         f"{d['context'].get('kps_git_revision', '?')}, {d['context'].get('date', '?')}]"
                         for d in docs if d["context"].get("kps_command")})
    command = f"{prog} tune --scale {scale}" if scale else f"{prog} tune-table DIR"
    table = reduce_tune.table_only(records, ctx, text, command, bench_cmds, tolerance)
    if table is None:
        return None
    sha = reduce_tune.fingerprint(table)
    vpath = folder / f"{VERIFY}.json"
    verify_doc = gbench.load(vpath) if vpath.exists() else None
    verified = bool(verify_doc) and verify_doc["context"].get("kps_tune_table_sha256") == sha
    verify = gbench.records(verify_doc) if verified else []
    md, table, failed = reduce_tune.analyze(records, ctx, figures.folder(), text, command, bench_cmds,
                                            tolerance=tolerance, verify=verify)
    name = reduce_tune.table_slug(ctx) + ".table"
    figures.path(name).write_text(table, encoding="utf-8")
    figures.path("tune.md").write_text(
        f"# Reduction tuning: {ctx.get('device', '')} ({ctx.get('backend', '')})\n\n"
        f"Table: `{name}` (in this folder). Rendered from the JSON in this folder (`{prog} tune-table DIR`).\n\n"
        + md, encoding="utf-8")
    summary = md.split("\n#### Time against load per thread")[0]
    return TuneRendering(summary, name, table, failed, verified)


def install_hint(table: Path, tables_dir: Path) -> str:
    return (f"review it, then install it where the tuned reduction reads tables: cp {table} {tables_dir}/ "
            f"(or `kps tune --install`); to try it first: KPS_REDUCE_TABLE={table}")


def install(table: Path, tables_dir: Path) -> Path:
    tables_dir.mkdir(parents=True, exist_ok=True)
    dest = tables_dir / table.name
    shutil.copyfile(table, dest)
    return dest
