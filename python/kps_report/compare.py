"""The studies of several results folders (machines, backends) side by side.

Benchmarks are matched by name: names carry no backend (the backend and the device are in each
JSON's context), so `scan/single_pass/int32/1048576` is the same benchmark on CUDA, OpenMP or
Serial, as Google Benchmark's own compare.py assumes. A cell holds the folder's median GB/s
where the benchmark reports a bandwidth, else its median time, and in brackets its speed relative
to the best folder of the row (1.00 = the best; GB/s: value / best, time: best / value).

Where a GPU and a host ask the same question with different names (the latency and occupancy
studies size their teams by the hardware: warps and SMs on a GPU, one thread per team on a host),
a second table per study normalises what differs: teams per compute unit (an SM, or a thread of
the host backend) and times relative to each folder's own reference, so the columns compare.

Before the studies, the scan, sum and dot implementations' performance portability across the
folders (kps_report.portability: Pennycook's P per size class, and cascade plots).
"""
from __future__ import annotations

import math
import re
from pathlib import Path

from kps_report import gbench, portability
from kps_report.machine import device_label, is_gpu, short_device
from kps_report.text import fmt, fmt_time, join_parts, markdown_table



def column_label(ctx: dict, folder: Path) -> str:
    backend = ctx.get("backend")
    if not backend:
        return folder.name
    label = backend
    threads = ctx.get("kokkos_concurrency")
    if threads and not is_gpu(ctx) and backend.lower() != "serial":
        label += f" ×{threads} thread" + ("s" if str(threads) != "1" else "")
    device = short_device(ctx.get("device", ""))
    return f"{label}, {device}" if device else label


def display_name(name: str) -> str:
    return gbench.base_name(name)


def sort_key(name: str):
    """family, variant, element type, N, then the rest with numbers in numeric order."""
    rec = gbench.parse_name(name)
    t = gbench.TYPES.index(rec["type"]) if rec["type"] in gbench.TYPES else len(gbench.TYPES)
    natural = [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", name)]
    return (rec["family"], rec["variant"], t, rec["n"] or 0, natural)


def row_values(name: str, columns: list):
    """(metric, [value or None or 'failed' per column], [relative speed or None per column])."""
    recs = [c.get(name) for c in columns]
    ok = [r if r and "error" not in r else None for r in recs]
    bandwidth = any(r and isinstance(r.get("GB/s"), (int, float)) and r["GB/s"] > 0 for r in ok)
    if bandwidth:
        vals = [r.get("GB/s") if r and r.get("GB/s", 0) > 0 else None for r in ok]
        best = max(v for v in vals if v is not None)
        rel = [v / best if v is not None else None for v in vals]
    else:
        vals = [r["seconds"] if r and r.get("seconds", 0) > 0 else None for r in ok]
        present = [v for v in vals if v is not None]
        best = min(present) if present else None
        rel = [best / v if v is not None else None for v in vals]
    vals = ["failed" if r and "error" in r else v for r, v in zip(recs, vals)]
    return ("GB/s" if bandwidth else "time"), vals, rel


def cell(metric, value, rel) -> str:
    if value is None:
        return "—"
    if value == "failed":
        return "check failed"
    text = fmt(value) if metric == "GB/s" else fmt_time(value)
    return f"{text} ({rel:.2f})" if rel is not None else text


def by_name(columns_results: list) -> list:
    return [{r["name"]: r for r in res.records} if res else {} for res in columns_results]


def study_section(name: str, title: str, labels: list, results: list, show_all: bool) -> str:
    columns = by_name(results)
    names = sorted(set().union(*[set(c) for c in columns]), key=sort_key)
    present = {n: sum(n in c for c in columns) for n in names}
    shown = [n for n in names if show_all or len(columns) == 1 or present[n] >= 2]
    md = [f"## {name}: {title}\n"]
    normalised = NORMALISED.get(name)
    norm = normalised(labels, results) if normalised else ""
    if not shown:
        md.append(f"No benchmark of this study ran in more than one folder under the same name ({len(names)} ran "
                  "in one; `--all` shows them)" + (": the table below compares them normalised." if norm else ".")
                  + "\n")
        md.append(norm)
        return join_parts(md)
    tables = {"GB/s": [], "time": []}
    common = {lbl: [] for lbl in labels}
    for n in shown:
        metric, vals, rel = row_values(n, columns)
        if len(columns) == 1:  # nothing to compare with
            rel = [None]
        tables[metric].append(["`" + display_name(n) + "`"] + [cell(metric, v, r) for v, r in zip(vals, rel)])
        if all(r is not None for r in rel):
            for lbl, r in zip(labels, rel):
                common[lbl].append(r)
    for metric, rows in tables.items():
        if rows:
            what = "median GB/s" if metric == "GB/s" else "median time"
            md.append(f"### {what} (relative speed to the best of the row)\n")
            md.append(markdown_table(["benchmark"] + labels, rows) + "\n")
    k = len(next(iter(common.values()))) if common else 0
    if k and len(columns) > 1:
        md.append(f"Geometric mean of the relative speed over the {k} benchmarks every folder ran: " +
                  "; ".join(f"{lbl}: {math.exp(sum(map(math.log, rs)) / k):.3g}" for lbl, rs in common.items()) +
                  ".\n")
    left = len(names) - len(shown)
    if left:
        md.append(f"{left} benchmarks that ran in one folder only are not shown (`--all` shows them).\n")
    md.append(norm)
    return join_parts(md)


# --- normalised comparisons ---------------------------------------------------------------------

LAT = re.compile(r"latency/kokkos/cosf/chains:1/threads:(?P<threads>\d+)/teams:(?P<teams>\w+)(?:/|$)")


def latency_normalised(labels, results) -> str:
    """Time of the Kokkos cos loop against teams per compute unit (SM or host thread), relative to
    one team alone: the GPU hides a second team per SM until its schedulers saturate, a host
    thread runs its teams one after the other."""
    cols, heads = [], []
    for lbl, res in zip(labels, results):
        if not res:
            continue
        pts = {}
        for r in res.records:
            m = LAT.match(r["name"])
            if m and "error" not in r:
                pts[(int(m["threads"]), m["teams"])] = r.get("measured_ms", r["seconds"] * 1e3)
        threads = sorted({t for t, _ in pts})
        picks = [t for t in (32, 1024) if t in threads] if is_gpu(res.context) else threads[:1]
        for t in picks:
            base = pts.get((t, "1"))
            if base:
                cols.append({lg: pts.get((t, lg)) / base if pts.get((t, lg)) else None for lg in ("1", "sm", "2sm", "3sm")})
                unit = f"teams of {t} threads" if is_gpu(res.context) else "teams of 1 thread"
                heads.append(f"{lbl} ({unit})")
    if len(cols) < 2:
        return ""
    rows = [[label] + [fmt(c[lg]) for c in cols] for lg, label in
            (("1", "1 team"), ("sm", "1 per unit"), ("2sm", "2 per unit"), ("3sm", "3 per unit"))]
    return ("### Normalised: time against teams per compute unit (relative to one team alone)\n\n"
            "The Kokkos cos loop, cosf, one chain; a unit is an SM on a GPU, a core of the machine on a host "
            "(`sm` in the benchmark names). 1.00 down the column: latency hidden (the GPU fills idle issue slots "
            "with the other teams' warps); 2.00 at two per unit: teams run one after the other (a Serial backend "
            "runs even one per core one after the other).\n\n"
            + markdown_table(["teams"] + heads, rows) + "\n")


OCC = re.compile(r"occupancy/(?:cuda/regs:48/threads:1024|kokkos/threads:1)/blocks:(?P<blocks>[\w+]+)/smem:0K(?:/|$)")
OCC_CURVE = re.compile(r"occupancy_curve/reduce/int32/(?P<n>\d+)/threads:(?P<threads>\d+)/blocks_per_sm:(?P<b>\d+)(?:/|$)")


def occupancy_normalised(labels, results) -> str:
    """Waves of a launch against blocks (teams) per wave: the GPU with the seed's kernel (1024
    threads, 48 registers: one block per SM), a host with teams of one thread (one per thread);
    and the reduction's time against teams per unit relative to each folder's best."""
    cols, heads = [], []
    curve_cols, curve_heads = [], []
    for lbl, res in zip(labels, results):
        if not res:
            continue
        pts = {}
        curve = {}
        for r in res.records:
            if "error" in r:
                continue
            m = OCC.match(r["name"])
            if m and r.get("measured_waves") is not None:
                pts[m["blocks"]] = r["measured_waves"]
            m = OCC_CURVE.match(r["name"])
            if m and r.get("measured_ms"):
                curve.setdefault((int(m["n"]), int(m["threads"])), {})[int(m["b"])] = r["measured_ms"]
        if pts:
            cols.append(pts)
            heads.append(f"{lbl} ({'1024 threads, 48 registers' if is_gpu(res.context) else 'teams of 1 thread'})")
        if curve:
            (n, threads), c = max(curve.items(), key=lambda kv: (kv[0][1] == 256, kv[0]))
            best = min(c.values())
            curve_cols.append({b: t / best for b, t in c.items()})
            curve_heads.append(f"{lbl} (N = 2^{n.bit_length() - 1}, teams of {threads})")
    md = []
    if len(cols) >= 2:
        rows = [[label] + [fmt(c.get(b)) for c in cols] for b, label in
                (("1", "1"), ("sm", "one per unit (sm)"), ("sm+1", "one per unit + 1 (sm+1)"), ("2sm", "two per unit (2sm)"))]
        md.append("### Normalised: measured waves against blocks per compute unit\n\n"
                  "A unit is an SM on the GPU, a core on a host. The GPU runs the seed's register-bound kernel (1024 "
                  "threads, 48 registers: one block per SM at a time), a host teams of one thread (as many at a time "
                  "as the backend has threads). One block past a wave costs a whole wave on both.\n\n"
                  + markdown_table(["blocks"] + heads, rows) + "\n")
    if len(curve_cols) >= 2:
        bs = sorted(set().union(*[set(c) for c in curve_cols]))
        rows = [[b] + [fmt(c.get(b)) for c in curve_cols] for b in bs]
        md.append("### Normalised: the reduction's time against teams per unit (relative to each folder's best)\n\n"
                  "Seed 003's sweep: b teams per SM (GPU) or per core (host), the same work at every b. On a GPU more "
                  "teams raise the occupancy until the memory system is busy; on a host they change little.\n\n"
                  + markdown_table(["teams per unit"] + curve_heads, rows) + "\n")
    return join_parts(md)


NORMALISED = {"latency": latency_normalised, "occupancy": occupancy_normalised}


def legend(machines: list, labels: list, out_dir: Path) -> str:
    keys = ["backend", "device", "kokkos_concurrency", "kokkos_version", "kokkos_backends", "compiler",
            "device_driver", "kps_git_revision", "date"]
    rows = []
    for m, lbl in zip(machines, labels):
        try:
            rel = m.folder.resolve().relative_to(out_dir.resolve())
        except ValueError:
            rel = m.folder
        ctx = m.context
        rows.append([lbl, f"`{rel}`"] + [str(ctx.get(k, "—")) for k in keys])
    return markdown_table(["column", "folder"] + keys, rows) + "\n"


def labels_of(machines: list) -> list:
    labels = [column_label(m.context, m.folder) for m in machines]
    for i, lbl in enumerate(labels):  # two runs on one backend and device: the folder tells them apart
        if labels.count(lbl) > 1:
            labels[i] = f"{lbl} ({machines[i].folder.name})"
    return labels


def markdown(machines: list, studies: list, command: str, show_all: bool = False, out_dir: Path = None,
             figures=None, figure_prefix: str = "") -> str:
    """The comparison of machines (report.Machine) over the studies, as Markdown; with `figures`
    (output.Figures) the performance portability's cascade plots are drawn and linked."""
    labels = labels_of(machines)
    parts = ["# kps: the studies across backends\n",
             f"Rendered from the Google Benchmark JSON of the folders below alone (`{command}`). The scan, sum and "
             "dot implementations' performance portability across the folders comes first; then, per study, "
             "benchmarks matched by name: each cell is the median over repetitions and, in brackets, the speed "
             "relative to the best folder of the row (1.00 = the best; for GB/s value / best, for times best / "
             "value). `—`: not run there. Where the backends size their teams differently, a normalised table "
             "follows.\n",
             legend(machines, labels, out_dir or Path.cwd())]
    platforms = [(lbl, {r["name"]: r for s in studies if m.studies.get(s.name) for r in m.studies[s.name].records})
                 for m, lbl in zip(machines, labels)]
    parts.append(portability.section(platforms, figures, figure_prefix))
    for s in studies:
        results = [m.studies.get(s.name) for m in machines]
        if any(r and r.records for r in results):
            parts.append(study_section(s.name, s.title, labels, results, show_all))
    return join_parts(parts)


def describe(machines: list) -> str:
    return "; ".join(f"{m.folder}: {device_label(m.context)}" for m in machines)
