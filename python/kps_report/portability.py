"""Performance portability of the scan, sum and dot implementations across the compared folders:
Pennycook, Sewall & Lee's metric P, per size class, with Sewall et al.'s cascade plots.

Why: the side-by-side tables of `kps compare` say how fast each benchmark ran on each folder, not
how well one implementation holds up across all of them. P answers that with one number per
implementation: the harmonic mean of its efficiencies over a set of platforms, 0 where it does not
run, so a code that is fast on GPUs and missing (or failing) on a CPU does not look portable.

References:
- S. J. Pennycook, J. D. Sewall, V. W. Lee, "Implications of a metric for performance
  portability", Future Generation Computer Systems 92 (2019), doi:10.1016/j.future.2017.08.007.
- J. D. Sewall, S. J. Pennycook, D. Jacobsen, T. Deakin, S. McIntosh-Smith, "Interpreting and
  visualizing performance portability metrics", P3HPC 2020 (the cascade plot).

What is measured, and how:
- A platform is one compared folder (a machine, a backend, a thread count).
- An implementation is one row of IMPLEMENTATIONS (a benchmark family/variant); only those found
  in at least one folder get a row. Benchmarks with axes beyond type and N are not read.
- Its GB/s at an (element type, N) point of a platform gives two efficiencies there:
  architectural, over the platform's measured bound at that point (kps_report.bounds.point_bound:
  the fastest copy for scans, the fastest streaming read for sums and dot products, the latter at
  the same rate for its 2N elements);
  application, over the best implementation of its study at that point. Efficiencies above 1
  (a size that stays in a cache can beat a copy) are kept as measured and counted in a note.
- A point whose check failed is efficiency 0 there (a wrong answer supports nothing).
- Size classes (SIZE_CLASSES) are kept apart: launch-bound and memory-bound sizes behave
  differently, and one mean over both would hide either.
- Per (implementation, platform, class): the harmonic mean over the (type, N) points of the class
  that the platform measured for any implementation of the study. An implementation absent from
  the platform entirely is unsupported there: 0. One that ran on the platform but not at a point
  skips that point (a sweep that covered fewer types or sizes); one that ran on the platform but
  at none of the class's points is unsupported there for that class: 0.
- A platform enters a class when some implementation has a point there. Where a platform has no
  measured bound at any point of a class, the implementations that ran there have no
  architectural efficiency there and the platform is left out of their architectural P (a note
  names it); one that did not run there still has 0 there, so P = 0. A point without a bound is
  skipped for the architectural efficiency only.
- P per (implementation, class, efficiency) is the harmonic mean over the class's platforms, 0 if
  any efficiency is 0; `k of m`: the class's m platforms, k of them where it ran.
"""
from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from typing import Optional

from kps_report import bounds, plots
from kps_report.text import fmt, join_parts, markdown_table, pow2


@dataclass(frozen=True)
class Implementation:
    study: str    # the benchmark family it answers: scan, reduce (sums), dot
    variant: str  # the benchmark's variant: its records are <study>/<variant>/<type>/<N>
    label: str


# The rows, in this order; a new peer is one line. Not here: kps' own named scan algorithms
# (single_pass, blelloch, hillis_steele), which `automatic` chooses among, not peers to compare.
IMPLEMENTATIONS = (
    Implementation("scan", "automatic", "kps scan"),
    Implementation("scan", "kokkos", "Kokkos parallel_scan"),
    Implementation("scan", "kokkos_kernels", "Kokkos Kernels prefix sum"),
    Implementation("scan", "cub", "CUB DeviceScan"),
    Implementation("scan", "cub_cccl", "CUB DeviceScan (newer CCCL)"),
    Implementation("scan", "serial_loop", "serial loop"),
    Implementation("scan", "openmp", "OpenMP inscan"),
    Implementation("scan", "tbb", "oneTBB parallel_scan"),
    Implementation("reduce", "tuned", "kps sum"),
    Implementation("reduce", "kokkos", "Kokkos parallel_reduce"),
    Implementation("reduce", "kokkos_kernels", "KokkosBlas::sum"),
    Implementation("reduce", "cub", "CUB DeviceReduce::Sum"),
    Implementation("reduce", "cub_cccl", "CUB DeviceReduce::Sum (newer CCCL)"),
    Implementation("reduce", "serial_loop", "serial loop"),
    Implementation("reduce", "openmp", "OpenMP reduction(+:)"),
    Implementation("reduce", "tbb", "oneTBB"),
    Implementation("dot", "kps", "kps dot"),
    Implementation("dot", "kokkos_kernels", "Kokkos Kernels dot"),
)


@dataclass(frozen=True)
class Bound:
    """A platform's measured bandwidth bound at one (type, N): kps_report.bounds.point_bound of
    `kind` (the fastest copy of the same bytes, or the fastest streaming read, wherever the run
    measured one: in kps' rounds or on its own)."""
    name: str
    kind: str  # bounds.point_bound's kind: copy or read


BOUNDS = {
    "copy": Bound("the fastest copy of the same bytes", "copy"),
    "read": Bound("the fastest streaming read of the same bytes", "read"),
}

# kps' own variant of each study: a peer timed only in its rounds (a host's one-thread loop and
# OpenMP at the largest sizes, Kokkos' own) has its GB/s there, the variant's over its ratio_to_<peer>.
ANCHORS = {"scan": "automatic", "reduce": "tuned", "dot": "kps"}


@dataclass(frozen=True)
class Study:
    name: str   # the benchmark family of its implementations
    title: str
    bound: str  # key of BOUNDS
    above: str  # how it can beat its bound


IN_CACHE = ("by a few per cent, the spread of two measurements; by more, data that stayed in a cache for the "
            "implementation more than for the bound's measurement")
STUDIES = (
    Study("scan", "Scans", "copy", IN_CACHE),
    Study("reduce", "Sums", "read", IN_CACHE),
    Study("dot", "Dot products", "read",
          "its bound is a read of N elements at that size's rate, and where a call is bound by its launch, "
          "reading 2N elements takes about as long: up to 2 at small sizes"),
)


@dataclass(frozen=True)
class SizeClass:
    name: str
    upto: Optional[int]  # the largest N of the class (None: no limit); the smallest is the previous class's + 1


# Up to 2^16 elements a call is bound by its launch and synchronisation (a few µs); past 2^24
# (64 MiB of 4-byte elements) by memory bandwidth beyond any cache; between them, caches.
SIZE_CLASSES = (SizeClass("small", 1 << 16), SizeClass("medium", 1 << 24), SizeClass("large", None))

KINDS = (("architectural", "arch"), ("application", "app"))


def size_class(n: int) -> SizeClass:
    return next(c for c in SIZE_CLASSES if c.upto is None or n <= c.upto)


def class_range(c: SizeClass) -> str:
    i = SIZE_CLASSES.index(c)
    lo = SIZE_CLASSES[i - 1].upto if i else None
    if lo is None:
        return f"N ≤ {pow2(c.upto)}"
    return f"{pow2(lo)} < N ≤ {pow2(c.upto)}" if c.upto else f"N > {pow2(lo)}"


def harmonic_mean(values) -> float:
    """The harmonic mean, 0 if any value is 0 (unsupported somewhere: Pennycook's P = 0),
    whatever this python's statistics.harmonic_mean does with a zero."""
    values = list(values)
    return 0.0 if any(v == 0 for v in values) else statistics.harmonic_mean(values)


def gbps(rec) -> Optional[float]:
    v = rec.get("GB/s") if rec and "error" not in rec else None
    return v if isinstance(v, (int, float)) and v > 0 else None


def bound_gbps(bound: Bound, recs: dict, dtype: str, n: int) -> Optional[float]:
    """The bound's GB/s at (type, N) on a platform (recs: base name -> record), or None."""
    b = bounds.point_bound(bound.kind, recs, dtype, n)
    return b.gbps if b else None


@dataclass
class Cell:
    """One implementation on one platform in one size class: its efficiencies (harmonic means
    over its points; None where there is no bound) and the number of points it ran there."""
    arch: Optional[float]
    app: float
    points: int


@dataclass
class ClassResult:
    size: SizeClass
    platforms: list                                   # labels of the class's platforms, folder order
    arch_platforms: list                              # those with a measured bound in the class
    cells: dict = field(default_factory=dict)         # implementation label -> platform -> Cell
    above_one: list = field(default_factory=list)     # (implementation, platform, type, N, efficiency)

    def values(self, impl: str, kind: str) -> list:
        """(platform, efficiency) over the platforms P of this kind is taken over: for the
        architectural one those with a bound, and those where the implementation did not run (0
        whatever the bound); None inside where an architectural efficiency cannot be had."""
        cells = self.cells[impl]
        hs = [p for p in self.platforms if kind == "app" or p in self.arch_platforms or not cells[p].points]
        return [(p, getattr(cells[p], kind)) for p in hs]

    def p(self, impl: str, kind: str) -> Optional[float]:
        vals = [v for _, v in self.values(impl, kind)]
        if not vals or any(v is None for v in vals):
            return None
        return harmonic_mean(vals)

    def ran(self, impl: str) -> int:
        return sum(self.cells[impl][p].points > 0 for p in self.platforms)


@dataclass
class StudyResult:
    study: Study
    implementations: list  # labels of the rows
    variants: dict         # label -> variant (the plots' fixed styles)
    classes: list          # ClassResult, SIZE_CLASSES order, those with platforms


def points_of(recs: dict, impl: Implementation) -> dict:
    """(type, N) -> record of an implementation on one platform (failed checks included); where it
    has no record of its own at a point, one derived from kps' variant's rounds there (ANCHORS):
    its GB/s over ratio_to_<variant>, or a failed check where the rounds found it wrong (wrong_<variant>)."""
    out = {}
    for r in recs.values():
        if r["family"] == impl.study and r["variant"] == impl.variant and not r["params"] and r.get("type") \
                and r.get("n"):
            out[(r["type"], r["n"])] = r
    anchor = ANCHORS.get(impl.study)
    if anchor and impl.variant != anchor:
        for r in recs.values():
            if r["family"] != impl.study or r["variant"] != anchor or r["params"] or not r.get("type") \
                    or not r.get("n") or (r["type"], r["n"]) in out:
                continue
            g, ratio = gbps(r), r.get(f"ratio_to_{impl.variant}")
            base = {"family": impl.study, "variant": impl.variant, "params": {}, "type": r["type"], "n": r["n"]}
            if r.get(f"wrong_{impl.variant}"):
                out[(r["type"], r["n"])] = dict(base, error="wrong result (in kps' rounds)")
            elif g and isinstance(ratio, (int, float)) and ratio > 0:
                out[(r["type"], r["n"])] = dict(base, **{"GB/s": g / ratio})
    return out


def evaluate(study: Study, platforms: list) -> Optional[StudyResult]:
    """The study's efficiencies and P over `platforms`: [(label, {base name: record})]."""
    impls = [i for i in IMPLEMENTATIONS if i.study == study.name]
    per = {}  # platform -> implementation label -> (type, N) -> record
    for label, recs in platforms:
        per[label] = {i.label: points_of(recs, i) for i in impls}
    impls = [i for i in impls if any(per[p][i.label] for p in per)]
    if not impls:
        return None
    bound = BOUNDS[study.bound]
    recs_of = dict(platforms)
    classes = []
    for size in SIZE_CLASSES:
        res = ClassResult(size, [], [])
        for label, _ in platforms:
            pts = sorted({pt for i in impls for pt in per[label][i.label] if size_class(pt[1]) == size})
            if not pts:
                continue
            res.platforms.append(label)
            bounds = {pt: bound_gbps(bound, recs_of[label], *pt) for pt in pts}
            if any(bounds.values()):
                res.arch_platforms.append(label)
            best = {pt: max((g for g in (gbps(per[label][i.label].get(pt)) for i in impls) if g), default=None)
                    for pt in pts}
            for i in impls:
                mine = per[label][i.label]
                arch, app = [], []
                for pt in pts:
                    if pt not in mine:
                        continue
                    g = gbps(mine[pt])
                    if g is None and "error" not in mine[pt]:
                        continue  # a record without a bandwidth: nothing measured
                    app.append(g / best[pt] if g else 0.0)
                    if bounds[pt]:
                        arch.append(g / bounds[pt] if g else 0.0)
                        if arch[-1] > 1:
                            res.above_one.append((i.label, label, pt[0], pt[1], arch[-1]))
                if not app:  # absent from the platform, or from every point of the class there
                    res.cells.setdefault(i.label, {})[label] = Cell(0.0, 0.0, 0)
                else:
                    res.cells.setdefault(i.label, {})[label] = Cell(
                        harmonic_mean(arch) if arch else None, harmonic_mean(app), len(app))
        if res.platforms:
            classes.append(res)
    return StudyResult(study, [i.label for i in impls], {i.label: i.variant for i in impls}, classes)


# --- Markdown and figures -----------------------------------------------------------------------

def intro() -> str:
    classes = "; ".join(f"{c.name}: {class_range(c)}" for c in SIZE_CLASSES)
    return (
        "## Performance portability\n\n"
        "Pennycook, Sewall and Lee's metric [1]: for an implementation over a set H of platforms (here a "
        "platform is one compared folder: a machine, a backend, a thread count), P = |H| / Σ 1/e_i, the "
        "harmonic mean of its efficiencies e_i on the platforms of H, and P = 0 if it does not run (or fails its "
        "check) on any of them. Two efficiencies, per element type and size: *architectural*, its GB/s over the "
        "platform's measured bound (scans: " + BOUNDS["copy"].name + ", by any copy kernel, timed in kps' rounds "
        "(`scan/automatic`'s) or on its own (`copy/kokkos`, `copy/streaming`); sums and dot products: "
        + BOUNDS["read"].name + ", in `reduce/tuned`'s rounds, else the fastest copy's, a dot product's 2N elements "
        "read at the same rate; a slower measurement of a kernel never lowers the bound); *application*, "
        "its GB/s over the best implementation of the table at that platform, type and size (1 = the best). "
        "A peer timed only in the rounds of kps' own call has its GB/s from them (kps' GB/s over its "
        "`ratio_to_<peer>`). "
        "Launch-bound and memory-bound sizes behave differently, so P is taken per size class (" + classes + "); "
        "within a class a platform's efficiency is the harmonic mean over the (type, N) points the platform "
        "measured (an implementation that ran there but skipped a point is not charged for it). `k of m`: the "
        "class's m platforms, k of them where the implementation ran. The cascade plots [2] add an "
        "implementation's platforms best first: a marker is the platform's efficiency, the line P of the "
        "platforms added so far; a line that falls to 0 has reached a platform it does not run on.\n\n"
        "[1] S. J. Pennycook, J. D. Sewall, V. W. Lee, \"Implications of a metric for performance portability\", "
        "Future Generation Computer Systems 92 (2019), doi:10.1016/j.future.2017.08.007. "
        "[2] J. D. Sewall, S. J. Pennycook, D. Jacobsen, T. Deakin, S. McIntosh-Smith, \"Interpreting and "
        "visualizing performance portability metrics\", P3HPC 2020.\n")


def eff(v) -> str:
    return "—" if v is None else fmt(v)


def summary_table(r: StudyResult) -> str:
    head = ["implementation"]
    for c in r.classes:
        head += [f"{c.size.name}: P arch", f"{c.size.name}: P app", f"{c.size.name}: platforms"]
    rows = []
    for impl in r.implementations:
        row = [impl]
        for c in r.classes:
            over = len(c.values(impl, "arch"))
            arch = eff(c.p(impl, "arch")) + (f" ({over} of {len(c.platforms)})" if over < len(c.platforms) else "")
            row += [arch, eff(c.p(impl, "app")), f"{c.ran(impl)} of {len(c.platforms)}"]
        rows.append(row)
    return markdown_table(head, rows) + "\n"


def platform_table(c: ClassResult) -> str:
    rows = []
    for impl, cells in c.cells.items():
        row = [impl]
        for p in c.platforms:
            x = cells[p]
            row.append(f"{eff(x.arch)} / {eff(x.app)}" + (" (not run)" if not x.points else ""))
        rows.append(row)
    return markdown_table(["implementation"] + c.platforms, rows) + "\n"


def notes(r: StudyResult) -> str:
    out = []
    for c in r.classes:
        missing = [p for p in c.platforms if p not in c.arch_platforms]
        if missing:
            out.append(f"{c.size.name}: no measured bound ({BOUNDS[r.study.bound].name}) on "
                       + ", ".join(missing) + ": left out of P arch of the implementations that ran there (P arch "
                       "(k of m): over the k platforms with a bound); one that did not run there has 0 there, so "
                       "P arch = 0.")
        if c.above_one:
            top = max(c.above_one, key=lambda a: a[4])
            out.append(f"{c.size.name}: {len(c.above_one)} of the points beat the bound (architectural efficiency "
                       f"above 1, kept as measured: {r.study.above}); the largest, {fmt(top[4])}: {top[0]} on "
                       f"{top[1]}, {top[2]}, N = {pow2(top[3])}.")
    return "".join(f"- {o}\n" for o in out)


def cascade_panels(r: StudyResult, kind: str) -> list:
    panels = []
    for c in r.classes:
        series = []
        for impl in r.implementations:
            vals = [v for _, v in c.values(impl, kind)]
            if not vals or any(v is None for v in vals):
                continue
            vals.sort(reverse=True)
            series.append(plots.CascadeSeries(impl, [(v, harmonic_mean(vals[:k + 1])) for k, v in enumerate(vals)],
                                              style=r.variants[impl]))
        if series:
            panels.append(plots.CascadePanel(f"{c.size.name} ({class_range(c.size)})", series))
    return panels


def section(platforms: list, figures=None, prefix: str = "") -> str:
    """The Markdown section over platforms [(label, {base name: record})]; with `figures`
    (output.Figures) the cascade plots too, named <prefix>portability_<study>_<kind>.png."""
    results = [r for r in (evaluate(s, platforms) for s in STUDIES) if r]
    if not results:
        return ""
    md = [intro()]
    for r in results:
        md.append(f"### {r.study.title} (`{r.study.name}/…`): P per size class\n")
        md.append(summary_table(r))
        md.append(notes(r))
        if figures is not None:
            for kind, short in KINDS:
                name = f"{prefix}portability_{r.study.name}_{kind}.png"
                title = f"{r.study.title}: cascade of {kind} efficiency over {len(platforms)} platforms"
                if plots.cascade(figures.path(name), title, f"{kind} efficiency", cascade_panels(r, short)):
                    md.append(figures.link(name, f"{r.study.title}: {kind} efficiency cascade"))
        for c in r.classes:
            md.append(f"#### {r.study.title}, {c.size.name} ({class_range(c.size)}): efficiency per platform "
                      "(architectural / application)\n")
            md.append(platform_table(c))
    return join_parts(md)
