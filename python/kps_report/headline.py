"""The README's headline table: what kps' scan and sum reach on every committed machine.

One row per machine and call (`scan/automatic`, `reduce/tuned`), at the largest int32 N the
machine's runs measured: kps' GB/s, its share of the machine's measured bound there (the fastest
copy of the same bytes for a scan, the fastest streaming read for a sum, in kps' rounds or on its
own: kps_report.bounds.point_bound; the kernel taken and where it ran beside it),
and its speed over the fastest peer and over Kokkos' own call (above 1: kps is faster). A peer's
ratio is the one measured in kps' own interleaved rounds (ratio_to_<peer>) where those rounds timed
it, else kps' GB/s over the peer's own run's at the same point. Every number comes from the
committed JSON, read as the reports read it (kps_report.report.load_machine). Where the study's
jobs were run several times (`kps run --runs K`: <study>/runs/<id>.run<k>.json, read by
gbench.repeated_runs as the targets tables read them), each figure is the median over the runs that
measured the point, with their range and count (`0.998 (0.978–1.01, 3 runs)`); the bound and the
peer named are those of the run nearest that median.

`kps headline [RESULTS]` prints the table; `--write README.md` replaces it in the README between
its two markers (BEGIN, END); python/tests/test_headline.py checks the README holds what this
module generates from results/.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from kps_report import bounds, gbench, portability, report
from kps_report.compare import column_label
from kps_report.errors import die
from kps_report.layout import Layout
from kps_report.stats import over_runs
from kps_report.text import fmt, markdown_table, pow2

BEGIN = "<!-- headline: generated from results/ by `./kps headline --write README.md`; do not edit by hand -->"
END = "<!-- end of headline -->"
TYPE = "int32"


@dataclass(frozen=True)
class Call:
    study: str     # the study holding it, and its benchmark family
    label: str
    bound: str     # key of portability.BOUNDS
    bound_label: str


CALLS = (Call("scan", "exclusive scan", "copy", "copy"), Call("reduce", "sum", "read", "read"))


@dataclass(frozen=True)
class Row:
    machine: str        # the results folder's name
    platform: str       # its backend and device, as `kps compare` labels its column
    call: Call
    n: int
    gbps: float
    of_bound: Optional[float]
    bound: Optional[bounds.Bound]  # the bound taken (its kernel, where it ran, every kernel measured)
    peer: Optional[str]  # the fastest peer's name, None where no peer ran
    over_peer: Optional[float]
    over_kokkos: Optional[float]
    # Over repeated runs (`kps run --runs K`), each figure above is the median over the runs that
    # measured it: {figure: (lo, hi, runs)} where more than one did.
    spread: dict = field(default_factory=dict)

    @property
    def runs(self) -> int:
        """The most runs any of the row's figures is the median over."""
        return max((v[2] for v in self.spread.values()), default=1)


def _implementations(study: str) -> list:
    return [i for i in portability.IMPLEMENTATIONS if i.study == study]


def _over(kps: dict, impl: portability.Implementation, recs: dict) -> Optional[float]:
    """kps' speed over a peer's at kps' point: the ratio of their shared rounds, else the GB/s of the
    peer's own run; None where it did not run or failed its check."""
    if kps.get(f"wrong_{impl.variant}"):
        return None
    ratio = kps.get(f"ratio_to_{impl.variant}")
    if isinstance(ratio, (int, float)) and ratio > 0:
        return float(ratio)
    own = portability.gbps(recs.get(f"{impl.study}/{impl.variant}/{kps['type']}/{kps['n']}"))
    return kps["GB/s"] / own if own else None


FIGURES = ("gbps", "of_bound", "over_peer", "over_kokkos")


def _figures(call: Call, kps: dict, recs: dict) -> dict:
    """One run's figures at kps' point: {gbps, of_bound, bound, peer, over_peer, over_kokkos}."""
    anchor = portability.ANCHORS[call.study]
    bound = bounds.point_bound(portability.BOUNDS[call.bound].kind, recs, TYPE, kps["n"], kps)
    peers = {i.label: _over(kps, i, recs) for i in _implementations(call.study)
             if i.variant not in (anchor, "kokkos")}
    peers = {k: v for k, v in peers.items() if v}
    fastest = min(peers, key=peers.get) if peers else None  # the smallest ratio: the fastest peer
    kokkos = next(i for i in _implementations(call.study) if i.variant == "kokkos")
    return {"gbps": kps["GB/s"], "of_bound": kps["GB/s"] / bound.gbps if bound else None, "bound": bound,
            "peer": fastest, "over_peer": peers.get(fastest), "over_kokkos": _over(kps, kokkos, recs)}


def _row(machine: str, platform: str, call: Call, recs: dict, repeats=()) -> Optional[Row]:
    """The row of `call` at kps' largest int32 point; `repeats`: the records of each repeated run
    of the study's jobs (gbench.repeated_runs), each figure then the median over the runs that
    measured the point (each repeat's records over the folder's, the rest of the folder as it is)."""
    anchor = portability.ANCHORS[call.study]
    mine = [r for r in recs.values() if r["family"] == call.study and r["variant"] == anchor and not r["params"]
            and r.get("type") == TYPE and r.get("n") and portability.gbps(r)]
    if not mine:
        return None
    kps = max(mine, key=lambda r: r["n"])
    runs = [_figures(call, kps, recs)]
    for records in repeats:
        again = {r["name"]: r for r in records}
        same = again.get(kps["name"])
        if same and "error" not in same and portability.gbps(same):
            runs.append(_figures(call, same, {**recs, **again}))
    figures, spread = {}, {}
    for key in FIGURES:
        values = [f[key] for f in runs if f[key] is not None]
        stat = over_runs(values)
        figures[key] = stat[0] if stat else None
        if len(values) > 1:
            spread[key] = (stat[1], stat[2], len(values))

    def nearest(key):  # the run whose figure is nearest the median
        return min((f for f in runs if f[key] is not None), key=lambda f: abs(f[key] - figures[key]), default=runs[0])

    return Row(machine, platform, call, kps["n"], figures["gbps"], figures["of_bound"], nearest("of_bound")["bound"],
               nearest("over_peer")["peer"], figures["over_peer"], figures["over_kokkos"], spread)


# A machine folder's file that names the folder superseding it (first line) and why.
SUPERSEDED = "SUPERSEDED"


def rows(results: Path, lay: Layout) -> list:
    """The table's rows: every machine folder of `results` (in name order) with kps' scan or sum."""
    studies = [s for s in report.all_studies(lay) if s.name in {c.study for c in CALLS}]
    # A folder another one supersedes (its SUPERSEDED file names which, and why) is left out.
    folders = [d for d in report.machine_folders(results, [s.name for s in studies], lay)
               if not (Path(d) / SUPERSEDED).is_file()]
    machines = [report.load_machine(d, studies) for d in folders]
    machines = [m for m in machines if any(m.studies.get(c.study) for c in CALLS)]
    out = []
    for m in machines:
        recs = {r["name"]: r for s in m.studies.values() if s for r in s.records}
        for c in CALLS:
            study = m.studies.get(c.study)
            repeats = gbench.repeated_runs(study.folder).runs.values() if study else ()
            r = _row(m.name, column_label(m.context, m.folder), c, recs, list(repeats))
            if r:
                out.append(r)
    return out


def figure(r: Row, key: str, unit: str = "") -> str:
    """One figure of a row: its value, and over repeated runs the median with the runs' range and count."""
    v = getattr(r, key)
    if not v:
        return "—"
    if key not in r.spread:
        return f"{fmt(v)}{unit}"
    lo, hi, n = r.spread[key]
    return f"{fmt(v)}{unit} ({fmt(lo)}–{fmt(hi)}, {n} runs)"


def markdown(rs: list) -> str:
    body = [[f"[{r.machine}](results/{r.machine}/report.md)", r.platform, r.call.label, pow2(r.n), figure(r, "gbps"),
             f"{figure(r, 'of_bound')} of a {r.bound.kind if r.bound else r.call.bound_label} ({r.bound.label()})"
             if r.of_bound else "—",
             f"{figure(r, 'over_peer', '×')} {r.peer}" if r.peer else "—", figure(r, "over_kokkos", "×")]
            for r in rs]
    return markdown_table(["results", "backend, device", f"call, {TYPE}", "N", "kps GB/s", "of the bound",
                           "over the fastest peer", "over Kokkos"], body)


def table(results: Path, lay: Layout) -> str:
    if not results.is_dir():
        die(f"no results folder {results}")
    rs = rows(results, lay)
    if not rs:
        die(f"no scan or sum results of kps under {results} (expected {results}/<machine>/<study>/*.json)")
    return markdown(rs)


def block(text: str) -> str:
    """The README's block: the markers around the table."""
    return f"{BEGIN}\n{text}\n{END}"


def current(readme_text: str, name: str = "README.md") -> str:
    """The table between the README's markers (without them)."""
    start, end = readme_text.find(BEGIN), readme_text.find(END)
    if start < 0 or end < start:
        die(f"{name} has no headline block (a line `{BEGIN}`, the table, then `{END}`)")
    return readme_text[start + len(BEGIN):end].strip("\n")


def write(readme: Path, text: str) -> bool:
    """Replaces the table between the README's markers; False where it was already the same."""
    if not readme.is_file():
        die(f"no file {readme}")
    old = readme.read_text(encoding="utf-8")
    if current(old, str(readme)) == text:
        return False
    start, end = old.find(BEGIN), old.find(END)
    readme.write_text(old[:start] + block(text) + old[end + len(END):], encoding="utf-8")
    return True
