"""`kps tune`: re-tunes the reduction, and on a GPU the scan, on the machine at hand.

Runs the seed's sweep (studies/reduce/study.json "tune") and on a GPU the scan sweep
(studies/scan/study.json "tune": the single pass's knobs and Kokkos' scan by size) into the run's
own folder (<results>/<machine>/reduce/tune), derives the lookup table there (reduce rows, then
scan rows) with its CSV, figures and tune.md, then verification runs of reduce/tuned and
scan/automatic with the new table (KPS_TUNING_TABLE), and says how to install the table where
the library reads it (layout.TABLES_DIR_IN_SOURCE, or <prefix>/share/kps/tables): `--install`
copies it there, on purpose only. `kps tune-table DIR` redoes the analysis from the JSON in DIR.
The report of a machine folder renders the same analysis from reduce/tune (render_folder).
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from kps_report import gbench
from kps_report.analyses import tune
from kps_report.commands import bench_command
from kps_report.errors import die
from kps_report.machine import load_conditions
from kps_report.output import Figures
from kps_report.runner import Task
from kps_report.study import Job, Study

VERIFY = "verify"
VERIFY_SCAN = "verify-scan"
SCAN_PREFIX = "scan-"  # the scan sweep's run ids (studies/scan/study.json "tune")


def _is_scan(stem: str) -> bool:
    return stem.startswith(SCAN_PREFIX) or stem == VERIFY_SCAN


@dataclass
class TuneRendering:
    summary: str          # tables and checks (no figures), for the machine's report
    table_name: str
    table_text: str
    failed: int
    verified: bool
    scan_rows: bool = False       # the table has scan rows (a scan sweep in the folder)
    scan_verified: bool = False   # and a verification run of them


def tune_key(study: Optional[Study], scale: str, gpu: bool) -> str:
    """The tune block a scale means on this kind of backend: `<scale>-host` on a host backend
    where the study has one (a CPU node's sweep: its own sizes and knobs), else `<scale>`."""
    host = f"{scale}-host"
    return host if not gpu and study is not None and host in study.tune else scale


def sweep_spec(study: Study, scale: str) -> dict:
    if scale not in study.tune or not isinstance(study.tune[scale], dict):
        die(f"studies/reduce/study.json has no tune sweep '{scale}'")
    return study.tune[scale]


def sweep_jobs(study: Study, scale: str) -> list:
    return [Job.from_json(j, f"study.json tune.{scale}") for j in sweep_spec(study, scale)["runs"]]


def scan_spec(scan_study: Optional[Study], scale: str) -> Optional[dict]:
    """The scan sweep of a tune block (tune_key), or None."""
    spec = scan_study.tune.get(scale) if scan_study else None
    return spec if isinstance(spec, dict) and spec.get("runs") else None


def scan_jobs(scan_study: Optional[Study], scale: str) -> list:
    spec = scan_spec(scan_study, scale)
    jobs = [Job.from_json(j, f"studies/scan/study.json tune.{scale}") for j in spec["runs"]] if spec else []
    for j in jobs:
        if not j.id.startswith(SCAN_PREFIX):
            die(f"studies/scan/study.json tune.{scale}: run id {j.id} must start with '{SCAN_PREFIX}'")
    return jobs


def sweep_text(scale: str, jobs: list) -> str:
    return f"study.json tune.{scale}: " + "; ".join(
        f"{j.id}: sizes {j.sizes}, types {j.types}, {j.repetitions} repetitions" for j in jobs)


def scale_of(folder: Path, study: Study) -> Optional[str]:
    """The tune sweep whose runs are all in folder, else the one whose runs include every sweep
    JSON there (a sweep under way)."""
    present = {p.stem for p in folder.glob("*.json") if not _is_scan(p.stem)} - {VERIFY}
    sweeps = {scale: {j["id"] for j in spec["runs"]} for scale, spec in study.tune.items()
              if isinstance(spec, dict) and spec.get("runs")}
    for scale, ids in sweeps.items():
        if ids <= present:
            return scale
    for scale, ids in sweeps.items():
        if present and present <= ids:
            return scale
    return None


def merged_context(docs: list) -> dict:
    """Every run's context, the newest last: the table's header names the newest run's date and
    revision (a partial re-tune re-runs some sweeps, not always the last in the study's order)."""
    ctx = {}
    for d in sorted(docs, key=lambda d: str(d["context"].get("date", ""))):
        ctx.update(d["context"])
    return ctx


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
    pool: bool = False  # study.json's pool_launches: a launch's points timed as one (tune.pool_equivalent)


def load_sweep(folder: Path, study: Optional[Study]) -> Optional[Sweep]:
    scale = scale_of(folder, study) if study else None
    if scale:
        ids = [j["id"] for j in study.tune[scale]["runs"] if (folder / f"{j['id']}.json").exists()]
        tolerance = float(study.tune[scale].get("merge_tolerance", tune.TOLERANCE))
        pool = bool(study.tune[scale].get("pool_launches", False))
        text = sweep_text(scale, [j for j in sweep_jobs(study, scale) if j.id in ids])  # the runs that ran
    else:  # a sweep of an older definition: every JSON but the verification
        ids = sorted(p.stem for p in folder.glob("*.json") if p.stem != VERIFY and not _is_scan(p.stem))
        tolerance, text, pool = tune.TOLERANCE, "the sweep JSON in this folder", False
    if not ids:
        return None
    docs = [gbench.load(folder / f"{i}.json") for i in ids]
    ctx = merged_context(docs)
    vpath = folder / f"{VERIFY}.json"
    return Sweep(scale, ctx, docs, [r for d in docs for r in gbench.records(d)], tolerance, text,
                 gbench.load(vpath) if vpath.exists() else None, pool)


@dataclass
class ScanSweep:
    """The scan sweep JSON of a tune folder (scan-*.json) and its verification (verify-scan.json)."""
    docs: list
    records: list
    tolerance: float
    verify_doc: Optional[dict]
    knobs: dict  # gbench.knobs of the sweep's context


def load_scan_sweep(folder: Path, scan_study: Optional[Study] = None) -> Optional[ScanSweep]:
    paths = sorted(p for p in folder.glob(f"{SCAN_PREFIX}*.json"))
    if not paths:
        return None
    docs = [gbench.load(p) for p in paths]
    spec = next((v for v in (scan_study.tune.values() if scan_study else []) if isinstance(v, dict)
                 and {j["id"] for j in v.get("runs", [])} >= {p.stem for p in paths}), {})
    vpath = folder / f"{VERIFY_SCAN}.json"
    return ScanSweep(docs, [r for d in docs for r in gbench.records(d)],
                     float(spec.get("merge_tolerance", tune.TOLERANCE)),
                     gbench.load(vpath) if vpath.exists() else None, gbench.knobs(merged_context(docs)))


def _scan_verified(scan: ScanSweep, table: str) -> list:
    """The scan verification run's records where it tested these very scan rows, else none."""
    if scan.verify_doc and scan.verify_doc["context"].get("kps_tune_table_sha256") == tune.SCAN.fingerprint(table):
        return gbench.records(scan.verify_doc)
    return []


def _verified(sweep: Sweep, table: str) -> list:
    """The verification run's records where it tested this very table, else none."""
    sha = tune.REDUCE.fingerprint(table)
    if sweep.verify_doc and sweep.verify_doc["context"].get("kps_tune_table_sha256") == sha:
        return gbench.records(sweep.verify_doc)
    return []


def render_folder(folder: Path, figures: Figures, study: Optional[Study] = None, prog: str = "kps",
                  installed: bool = False, scan_study: Optional[Study] = None) -> Optional[TuneRendering]:
    """The tuning analysis of the sweep JSON in folder, written through `figures` (tune.md, the
    table, CSV, one figure per size; the scan rows and their section where the folder holds a
    scan sweep). None where the folder holds no reduction sweep."""
    sweep = load_sweep(folder, study)
    if sweep is None:
        return None
    scan = load_scan_sweep(folder, scan_study)

    def commands(docs):
        return sorted({f"{bench_command(d['context'], installed)}  [revision "
                       f"{d['context'].get('kps_git_revision', '?')}, {d['context'].get('date', '?')}]"
                       for d in docs if d["context"].get("kps_command")})

    bench_cmds = commands(sweep.docs) + (commands(scan.docs) if scan else [])
    # (a host's tune block `<scale>-host` is what `--scale <scale>` runs there: tune_key)
    command = f"{prog} tune --scale {sweep.scale.removesuffix('-host')}" if sweep.scale else f"{prog} tune-table DIR"
    table = tune.REDUCE.table_only(sweep.records, sweep.ctx, sweep.text, command, bench_cmds, sweep.tolerance,
                                   sweep.pool)
    if table is None:
        return None
    verify = _verified(sweep, table)
    md, table, failed = tune.REDUCE.analyze(sweep.records, sweep.ctx, figures.folder(), sweep.text, command,
                                            bench_cmds, tolerance=sweep.tolerance, verify=verify, pool=sweep.pool)
    scan_md, scan_verified = "", False
    scan_lines = tune.SCAN.table_lines(scan.records, scan.tolerance, scan.knobs) if scan else []
    if scan_lines:
        # The scan rows follow the reduce rows; their verification is tied to them alone
        # (tune.SCAN.fingerprint), the reduction's to the reduce rows (tune.REDUCE.fingerprint).
        table = table + "\n".join(scan_lines) + "\n"
        scan_verify = _scan_verified(scan, table)
        scan_md, _, scan_failed = tune.SCAN.analyze(scan.records, scan.tolerance, scan_verify, scan.knobs)
        failed += scan_failed
        scan_verified = bool(scan_verify)
    name = tune.table_slug(sweep.ctx) + ".table"
    figures.path(name).write_text(table, encoding="utf-8")
    line, warning = load_conditions(sweep.docs + ([sweep.verify_doc] if sweep.verify_doc else []))
    conditions = warning or (f"Load: other processes used {line} cores on average.\n" if line else "")
    md = (conditions + "\n" if conditions else "") + md
    reduce_summary, _, reduce_figures = md.partition("\n#### Time against load per thread")
    md = reduce_summary + ("\n" + scan_md if scan_md else "") + (_ + reduce_figures if _ else "")
    title = "Tuning: reduction and scan" if scan_md else "Reduction tuning"
    figures.path("tune.md").write_text(
        f"# {title}: {sweep.ctx.get('device', '')} ({sweep.ctx.get('backend', '')})\n\n"
        f"Table: `{name}` (in this folder). Rendered from the JSON in this folder (`{prog} tune-table DIR`).\n\n"
        + md, encoding="utf-8")
    summary = md.split("\n#### Time against load per thread")[0]
    return TuneRendering(summary, name, table, failed, bool(verify), bool(scan_md), scan_verified)


def check_counts(folder: Path, study: Optional[Study]):
    """tune.REDUCE.check_counts of the folder's sweep (and its verification of the table it makes)."""
    sweep = load_sweep(folder, study)
    if sweep is None:
        return None
    table = tune.REDUCE.table_only(sweep.records, sweep.ctx, tolerance=sweep.tolerance, pool=sweep.pool)
    if table is None:
        return None
    return tune.REDUCE.check_counts(sweep.records, sweep.ctx, sweep.tolerance, _verified(sweep, table), sweep.pool)


def verify_task(run_id: str, spec: dict, where: str, sweep_docs: list, filter_of, sha: str, table: Path,
                force: bool, dest: Path, env: dict):
    """The runner's task of a verification run (`spec`: study.json's tune `verify` entry): its
    filter extended by filter_of(the sweep's records, base filter, knobs=its kps-bench's knobs) (the
    re-measured optima), the new table by KPS_TUNING_TABLE, and the fingerprint of the rows it
    verifies in its context."""
    base = Job.from_json(dict(spec, id=run_id), where)
    job = Job(base.id, filter_of([r for d in sweep_docs for r in gbench.records(d)], base.filter,
                                 knobs=gbench.knobs(merged_context(sweep_docs))),
              base.sizes, base.types, base.repetitions, base.min_time, base.args)
    return Task("tune", job, dest, {**env, "KPS_TUNING_TABLE": str(table.resolve())},
                {"kps_tune_table_sha256": sha, "kps_tune_table": table.name}, force)


def unverified(rendered: TuneRendering) -> list:
    """The verification runs a rendered table still lacks (run ids)."""
    return (([] if rendered.verified else [VERIFY]) +
            ([VERIFY_SCAN] if rendered.scan_rows and not rendered.scan_verified else []))


def install_hint(table: Path, tables_dir: Path) -> str:
    return (f"review it, then install it where the library reads tables: cp {table} {tables_dir}/ "
            f"(or `kps tune --install`); to try it first: KPS_TUNING_TABLE={table}")


def install(table: Path, tables_dir: Path) -> Path:
    tables_dir.mkdir(parents=True, exist_ok=True)
    dest = tables_dir / table.name
    shutil.copyfile(table, dest)
    return dest
