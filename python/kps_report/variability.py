"""GPU-to-GPU variability: the same benchmarks run on every GPU of a node (`kps variability`),
side by side.

A machine folder's variability/ holds one folder per GPU and run: gpu<index>/<study>/<job>.json
for the first run, gpu<index>-run<k>/... for the k-th (`--runs`), each JSON naming its GPU
(kps_gpu_index, kps_gpu_uuid). Per benchmark run on every GPU, with t_gr the median time of its
repetitions in run r on GPU g and T_g the median of GPU g's runs:

- across: (max_g T_g - min_g T_g) / median_g T_g, how far the GPUs lie apart;
- within: the largest over the runs of (slowest - fastest repetition) / t_gr, how far the
  repetitions of one run lie apart (2 x cv where the JSON has no min and max);
- run to run: the largest over the GPUs of (max_r t_gr - min_r t_gr) / T_g, how far two runs of
  the same benchmark on the same GPU lie apart (with two runs or more per GPU);
- flagged where across exceeds the noise, the larger of within and run to run: the GPUs differ by
  more than one GPU differs from itself, so the GPU a figure came from matters.

The report shows per study how many benchmarks were compared and flagged and the typical spreads,
the flagged benchmarks (largest first), with more than two GPUs how far each pair lies apart
(the GPUs of one node against those of another), what nvidia-smi said of each GPU before and after its runs
(SM and memory clocks, temperature, power), and one figure: the noise against across per benchmark.
"""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from kps_report import gbench
from kps_report.text import markdown_table

FOLDER = "variability"
GPU_FOLDER = re.compile(r"gpu(\d+)(?:-run(\d+))?$")
SHOWN = 15  # flagged benchmarks listed in the report (largest across / within first)


@dataclass
class GpuRuns:
    """One GPU (by UUID) and its runs of the set, whichever folders they lie in."""
    index: str
    uuid: str
    runs: list = field(default_factory=list)  # per run: [(study, doc)]
    label: str = ""

    @property
    def docs(self) -> list:
        return [sd for run in self.runs for sd in run]

    @property
    def device(self) -> str:
        return next((d["context"].get("device", "") for _, d in self.docs), "")


@dataclass
class Row:
    study: str
    name: str
    medians: list    # seconds, one per GPU (the median of its runs), in the GPUs' order
    across: float
    within: Optional[float]
    run_to_run: Optional[float] = None

    @property
    def noise(self) -> Optional[float]:
        known = [x for x in (self.within, self.run_to_run) if x is not None]
        return max(known) if known else None

    @property
    def flagged(self) -> bool:
        return self.noise is not None and self.across > self.noise

    @property
    def ratio(self) -> float:
        return self.across / self.noise if self.noise else float("inf")


def has_runs(machine: Path) -> bool:
    return any((machine / FOLDER).glob("gpu*/*/*.json"))


def load(folder: Path) -> list:
    """Every GPU under `folder` (a machine's variability/) with its runs, in run and index order.
    A GPU is its UUID: a folder gpu<index>-run<k> measured on another machine (another UUID) is
    another GPU, not a second run of the first."""
    folders = []
    for d in folder.glob("gpu*"):
        m = GPU_FOLDER.match(d.name)
        if not m or not d.is_dir():
            continue
        docs = [(f.parent.name, gbench.load(f)) for f in sorted(d.glob("*/*.json"))]
        if docs:
            folders.append((int(m.group(2) or 1), int(m.group(1)), docs))
    gpus = {}
    for _, index, docs in sorted(folders, key=lambda x: (x[0], x[1])):
        by_uuid = {}  # a folder is one run of one GPU; files measured on another GPU are another's
        for study, d in docs:
            by_uuid.setdefault(d["context"].get("kps_gpu_uuid") or f"gpu{index}", []).append((study, d))
        for uuid, run in by_uuid.items():
            gpus.setdefault(uuid, GpuRuns(str(index), uuid)).runs.append(run)
    out = list(gpus.values())
    shared = {g.index for g in out if sum(h.index == g.index for h in out) > 1}
    for g in out:
        g.label = f"GPU {g.index}" + (f" ({g.uuid[:12]})" if g.index in shared else "")
    return out


def _within(rec: dict) -> Optional[float]:
    s = rec.get("spread", {}).get("seconds")
    t = rec.get("seconds")
    if not s or not t:
        return None
    if s.lo is not None and s.hi is not None:
        return (s.hi - s.lo) / t
    return 2 * s.cv if s.cv is not None else None


def _records(run: list) -> dict:
    out = {}
    for study, doc in run:
        for r in gbench.records(doc):
            if not r.get("error") and r.get("seconds"):
                out[(study, r["name"])] = r
    return out


def rows(gpus: list) -> list:
    """One Row per benchmark that ran (and passed its checks) in every run on every GPU: within
    the largest repetitions' spread of the runs that have one, run to run the largest over the GPUs
    of two runs or more (None where no GPU has two)."""
    per_gpu = [[_records(run) for run in g.runs] for g in gpus]
    out = []
    keys = per_gpu[0][0] if per_gpu and per_gpu[0] else {}
    for key in keys:
        if not all(key in recs for runs in per_gpu for recs in runs):
            continue
        medians, run_spreads, withins = [], [], []
        for runs in per_gpu:
            ts = [recs[key]["seconds"] for recs in runs]
            t = statistics.median(ts)
            medians.append(t)
            if len(ts) > 1:
                run_spreads.append((max(ts) - min(ts)) / t)
            withins += [_within(recs[key]) for recs in runs]
        mid = statistics.median(medians)
        known = [w for w in withins if w is not None]
        out.append(Row(key[0], key[1], medians, (max(medians) - min(medians)) / mid,
                       max(known) if known else None, max(run_spreads) if run_spreads else None))
    return out


def _pct(x: Optional[float]) -> str:
    return "" if x is None else f"{100 * x:.1f} %"


def _range(values: list, unit: str) -> str:
    vals = []
    for v in values:
        try:
            vals.append(float(str(v).split()[0]))
        except (ValueError, IndexError):
            continue
    if not vals:
        return ""
    lo, hi = min(vals), max(vals)
    return f"{lo:g} {unit}" if lo == hi else f"{lo:g}-{hi:g} {unit}"


def state_table(gpus: list) -> str:
    """What nvidia-smi said of each GPU before and after its runs (ranges over the runs)."""
    head = ["GPU", "UUID", "runs of the set", "kps-bench runs", "SM clock before / after",
            "memory clock before / after", "temperature before / after", "power before / after", "wall time"]
    body = []
    for g in gpus:
        ctxs = [d["context"] for _, d in g.docs]
        col = lambda key, unit: " / ".join(  # noqa: E731
            _range([c.get(f"nvidia_smi_{w}{key}") for c in ctxs if c.get(f"nvidia_smi_{w}{key}")], unit) or "?"
            for w in ("before_", ""))
        wall = sum(float(c.get("kps_wall_seconds", 0) or 0) for c in ctxs)
        body.append([g.label, g.uuid or "?", str(len(g.runs)), str(len(ctxs)), col("sm_clock", "MHz"),
                     col("mem_clock", "MHz"), col("temperature", "C"), col("power_draw", "W"), f"{wall:.0f} s"])
    return markdown_table(head, body)


def figure(path: Path, found: list, title: str) -> bool:
    from kps_report.plots import pyplot
    plt = pyplot()
    pts = [r for r in found if r.noise and r.across > 0]
    if plt is None or not pts:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    f, ax = plt.subplots(figsize=(6.4, 5.0))
    for flagged, color, marker, label in ((False, "C0", "o", "within one GPU's noise"),
                                          (True, "C3", "D", "flagged: across > noise")):
        sel = [r for r in pts if r.flagged == flagged]
        if sel:
            ax.scatter([100 * r.noise for r in sel], [100 * r.across for r in sel], s=22, facecolors="none",
                       edgecolors=color, marker=marker, linewidths=1.1, label=f"{label} ({len(sel)})")
    lo = min(min(100 * r.noise, 100 * r.across) for r in pts)
    hi = max(max(100 * r.noise, 100 * r.across) for r in pts)
    ax.plot([lo, hi], [lo, hi], color="0.5", linestyle=":", linewidth=1.0, label="across = noise")
    ax.set_xscale("log")
    ax.set_yscale("log")
    runs = any(r.run_to_run is not None for r in pts)
    ax.set_xlabel("one GPU's noise, %: the larger of its repetitions' spread" +
                  (" and its run-to-run spread" if runs else "") + " (largest over the GPUs)")
    ax.set_ylabel("across GPUs: (slowest - fastest GPU) / median, %")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    f.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(f)
    return True


def _median(values) -> Optional[float]:
    vals = [v for v in values if v is not None]
    return statistics.median(vals) if vals else None


def summary_table(found: list) -> str:
    body = []
    for study in dict.fromkeys(r.study for r in found):
        rs = [r for r in found if r.study == study]
        worst = max(rs, key=lambda r: r.across)
        body.append([study, str(len(rs)), f"{sum(r.flagged for r in rs)}", _pct(_median(r.across for r in rs)),
                     _pct(_median(r.within for r in rs)), _pct(_median(r.run_to_run for r in rs)) or "(one run)",
                     f"{_pct(worst.across)} ({worst.name})"])
    return markdown_table(["study", "benchmarks on every GPU", "flagged", "median across", "median within a run",
                           "median run to run", "largest across"], body) + "\n"


def pairs_table(gpus: list, found: list) -> str:
    """Per pair of GPUs and study, the median over the benchmarks of how far the two lie apart
    (|a - b| / their mean): which GPUs (or nodes) differ, not only how much the set does."""
    studies = list(dict.fromkeys(r.study for r in found))
    body = []
    for i in range(len(gpus)):
        for j in range(i + 1, len(gpus)):
            cells = []
            for study in studies:
                d = [abs(r.medians[i] - r.medians[j]) / ((r.medians[i] + r.medians[j]) / 2)
                     for r in found if r.study == study]
                cells.append(_pct(_median(d)))
            body.append([f"{gpus[i].label} - {gpus[j].label}"] + cells)
    return markdown_table(["pair of GPUs"] + [f"{s}: median difference" for s in studies], body) + "\n"


def analyze(machine: Path, figures) -> str:
    """The report's section on the machine's variability/ folder ('' where there is none)."""
    gpus = load(machine / FOLDER)
    if not gpus:
        return ""
    found = rows(gpus)
    device = gpus[0].device or "GPU"
    counts = sorted({len(g.runs) for g in gpus})
    times = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
    nodes = "one node" if len({g.index for g in gpus}) == len(gpus) else "more than one node"
    parts = [f"## GPU-to-GPU variability: {len(gpus)} GPUs of {nodes}\n",
             f"The same benchmarks ran on each GPU ({', '.join(g.label for g in gpus)}, {device}), "
             f"{times} time{'s' if counts[-1] != 1 else ''} each (`kps variability`: every GPU of a node at once, each "
             f"run seeing its GPU alone and its own share of the cores); JSON in `{FOLDER}/gpu<index>[-run<k>]/`, "
             "a GPU known by its UUID (a folder of a later run measured on another node's GPUs holds other GPUs). Per "
             "benchmark, *across* is how far the GPUs lie apart ((slowest - fastest) / median of the GPUs' "
             "medians), *within a run* how far one run's repetitions lie apart, *run to run* how far two runs on "
             "the same GPU lie apart (the largest over the GPUs each). A benchmark is flagged where across exceeds "
             "the larger of the two: there the GPU a figure came from matters more than one GPU's own noise." +
             ("" if counts[-1] > 1 else " With one run per GPU the run-to-run noise is unknown and the flags "
              "over-count: repetitions within one run scatter less than runs do (`--runs 2`).") + "\n"]
    if len(gpus) < 2 or not found:
        parts.append("Fewer than two GPUs with the same benchmarks: nothing to compare.\n")
        return "\n".join(parts)
    parts.append(summary_table(found))
    flagged = sorted((r for r in found if r.flagged), key=lambda r: -r.ratio)
    if flagged:
        head = (["benchmark"] + [f"{g.label} µs" for g in gpus] +
                ["across", "within a run", "run to run", "across / noise"])
        lines = [[f"{r.study}: {r.name}"] + [f"{1e6 * t:.4g}" for t in r.medians] +
                 [_pct(r.across), _pct(r.within), _pct(r.run_to_run), f"{r.ratio:.1f}"] for r in flagged[:SHOWN]]
        more = f" ({len(flagged) - SHOWN} more not shown)" if len(flagged) > SHOWN else ""
        parts.append(f"Flagged benchmarks, largest across / noise first{more}:\n\n" +
                     markdown_table(head, lines) + "\n")
    elif all(r.noise is not None for r in found):
        parts.append("No benchmark differs between the GPUs by more than one GPU differs from itself.\n")
    else:
        parts.append("No benchmark flagged; the noise of one GPU is unknown for "
                     f"{sum(r.noise is None for r in found)} of them (one repetition, one run).\n")
    if len(gpus) > 2:
        parts.append("GPU by GPU (each GPU's median time; the medians over the benchmarks):\n\n" +
                     pairs_table(gpus, found))
    parts.append("What nvidia-smi said of each GPU before and after its runs (ranges over the runs):\n\n" +
                 state_table(gpus) + "\n")
    name = "variability.png"
    if figure(figures.path(name), found, f"{device}: {len(gpus)} GPUs, {len(found)} benchmarks, {times} run(s) each"):
        parts.append(figures.link(name, "one GPU's noise against the spread across GPUs, per benchmark"))
    return "\n".join(parts)
