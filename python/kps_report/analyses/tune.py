"""Tuning analysis: the device's tuning table from Google Benchmark JSON of the sweeps, one method
for its reduce rows and its scan rows (format: src/kps/tuning/table.hpp).

The sweeps: the reduction's, the seed's method (reduce_sweep/<seed|capped|dynamic>/<type>/<N>/
team:T/items:I[/waves:W]), and the scan's (scan_tune/single_pass/<type>/<N>/team:T/items:I/delay:D/
poll:P/prefetch:F on a GPU's staged tiles, .../team:T/items:I/store:S on a host's cached tiles,
and scan_tune/kokkos/<type>/<N>, each point timed alone in rounds of its own call). The knobs'
names and an enumerated knob's values are kps-bench's (its context's kps_knobs: gbench.knobs).
What one study does its own way is its Family's (REDUCE, SCAN); every other step is the same:

1. Optimum per (type, N): the configuration with the smallest time of its point (Family.sweep_points):
   the reduction's (variant, team size, items per thread, waves), the scan's single-pass knobs or
   Kokkos' scan.
2. Ranges: sizes are walked upwards and kept in one range while some configuration stays within
   the merge tolerance (3 %; study.json may set its own) of every size's optimum ("similar
   optima"); the range's entry is the configuration whose worst ratio to the optimum over the
   range is smallest (a Kokkos row of the scan carries the single pass's best knobs there); rows
   that do not beat a neighbouring row's choice by more than the sweep's spread at their sizes are
   merged into it; then, in the reduction, dynamic teams (host backends) take a row where they are
   within the sweep's spread of its static entry at every size of it. A range reaches down to the
   geometric mean of its first size and the previous range's last size; the reduction's first row
   from 0 and its last to 'inf', the scan's rows from its first swept size to twice its last
   (elsewhere kps::impl::scan_rule decides: its defaults come from the 2^28 sweeps).
3. Rows, class plus (the sweeps time sums), for every swept type; a type that was not swept takes
   the rows of the swept type of the same element size (float from int32, int64 from double), and
   a type whose sweep stops below its size-mate's (int64 in a host's caches) takes that type's
   rows past its own last size.
4. Checks: the table's entry at each swept N within 5 % of that N's optimum; and from each
   verification run with the new table (Reduce.verify_checks, Scan.verify_checks) the tuned
   reduction, and the scan's `automatic`, within 5 % of the optimum re-measured in the same run
   and not slower than Kokkos (the reduction on CUDA also against the study's CUB and bandwidth
   targets). A verification is tied to the rows it verified by their fingerprint (Family.fingerprint).
Outputs (CSV, PNG, Markdown, the table) are derived from the JSON alone; nothing here needs the build.
"""
from __future__ import annotations

import csv
import hashlib
import math
import re
import statistics
from pathlib import Path

from kps_report import gbench, plots
from kps_report.analyses.common import (borrowed_note, median_cv, merge_within_spread, optimum_type, row_source,
                                        rows_by_type, similar_runs)
from kps_report.analyses.targets import READ_SIZES, READ_TARGET  # the study's bandwidth target
from kps_report.errors import die
from kps_report.text import fmt, markdown_table, pow2, slug

TOLERANCE = 0.03      # "similar optima": within 3 % of a size's best time (study.json may set its own)
TARGET_BEST = 1.05    # tuned (or the table's entry) within 5 % of the sweep's best
TYPE_SIZE = gbench.TYPE_SIZE
MAX_LEAGUE = 1 << 24  # kps::impl::max_league_size: a larger league loops
LARGE_N = 1 << 26     # from here the CUB and bandwidth targets apply
TARGET_CUB = 1.0
# One color per team size in every sweep figure (host and GPU sizes).
TEAM_COLORS = {1: "C0", 2: "C1", 4: "C2", 64: "C0", 128: "C1", 256: "C2", 512: "C3", 1024: "C4"}
# The table's format and the operator class of its rows: the sweeps time sums (kps::OperatorClass
# plus); the library serves other operators from them where no row of their own class exists.
FORMAT = "kps-tuning-table 2"
OP_CLASS = "plus"


def table_slug(ctx):
    """File name of a device's table: matches kps::reduce_table_slug (name + backend)."""
    return slug(f"{ctx.get('device', 'unknown')} {ctx.get('backend', 'unknown')}")


class Config(tuple):
    """The reduction's (variant, team, items, waves): waves 0 for the seed's league, W for a cap of
    W waves; variant `dynamic`: the seed's league with its teams taken by a host's threads as they
    free up."""

    def __new__(cls, variant, team, items, waves=0):
        return super().__new__(cls, (variant, int(team), int(items), int(waves)))

    variant = property(lambda s: s[0])
    team = property(lambda s: s[1])
    items = property(lambda s: s[2])
    waves = property(lambda s: s[3])

    def label(self):
        base = f"team {self.team}, {self.items} items"
        if self.variant == "dynamic":
            return base + ", seed league, dynamic teams"
        return base + (f", {self.waves} wave{'s' if self.waves > 1 else ''}" if self.waves else ", seed league")

    def schedule(self):
        """The table's SCHEDULE field: dynamic, or static (left out of the row)."""
        return "dynamic" if self.variant == "dynamic" else "static"

    def league(self, concurrency):
        """The table's league column: 0 for the seed's relation, else the cap in teams."""
        return max(1, concurrency // self.team) * self.waves if self.waves else 0


class Choice(tuple):
    """The scan's (algorithm, team, items, delay, poll, prefetch, load, store): the knobs of a
    table's scan row (load: staged tiles on GPUs, cached tiles on host backends; store: how the
    tiles write, ordinary or the backend's streaming stores)."""

    def __new__(cls, algorithm, team=0, items=0, delay=0, poll=0, prefetch=0, load="staged", store="cached"):
        return super().__new__(cls, (algorithm, int(team), int(items), int(delay), int(poll), int(prefetch), load,
                                     store))

    algorithm = property(lambda s: s[0])
    team = property(lambda s: s[1])
    items = property(lambda s: s[2])
    delay = property(lambda s: s[3])
    poll = property(lambda s: s[4])
    prefetch = property(lambda s: s[5])
    load = property(lambda s: s[6])
    store = property(lambda s: s[7])

    def key(self):
        """The sweep point it is timed by (a Kokkos row's single-pass knobs are not Kokkos')."""
        return KOKKOS if self.algorithm == "kokkos" else self

    def label(self):
        if self.algorithm == "kokkos":
            return "Kokkos' scan" + (f" (single pass: {self.with_algorithm('single_pass').label()})" if self.items else "")
        if self.load == "cached":
            return f"cached tiles {self.team} x {self.items}" + (", streaming stores" if self.store == "streaming" else "")
        parts = [f"{self.team} x {self.items}"]
        if self.delay:
            parts.append(f"sleep {self.delay} ns")
        if self.poll:
            parts.append(f"poll {self.poll} ns")
        if self.prefetch:
            parts.append(f"prefetch {self.prefetch}")
        if self.store == "streaming":
            parts.append("streaming stores")
        return ", ".join(parts)

    def with_algorithm(self, algorithm):
        return Choice(algorithm, *self[1:])


KOKKOS = Choice("kokkos")


def peer_wrong(r):
    """Whether a record is a peer's (Kokkos' scan) timed with a wrong result (wrong_<variant>:
    kps-bench times it and marks it, as a peer in the rounds): its time is no point of a sweep or
    a verification."""
    return bool(r.get(f"wrong_{r.get('variant')}"))


def knob_values(r, knobs):
    """The knobs a sweep point's name sets (its params: team:256/items:16/...) as {knob: value},
    an enumerated knob's value as its name (knobs: the family's [(knob, value names or None)],
    gbench.knobs)."""
    out = {}
    for name, names in knobs:
        if name in r["params"]:
            v = int(r["params"][name])
            if names is not None and not 0 <= v < len(names):
                die(f"{r['name']}: {name} {v} is none of kps_knobs' {'|'.join(names)}")
            out[name] = names[v] if names is not None else v
    return out


def knob_index(knobs, name, value):
    """The number of an enumerated knob's value (its benchmark argument)."""
    return dict(knobs)[name].index(value)


def optima(points):
    """{type: {n: (best configuration, its seconds)}}."""
    out = {}
    for t, by_n in points.items():
        for n, pts in by_n.items():
            best = min(pts, key=lambda c: (pts[c]["tune_seconds"], c))
            out.setdefault(t, {})[n] = (best, pts[best]["tune_seconds"])
    return out


def lookup(rows_t, n):
    """The entry of the row of rows_t that covers n, or None (n_max None: inf)."""
    for lo, hi, c, _, _ in rows_t:
        if lo <= n and (hi is None or n <= hi):
            return c
    return None


def launch(c, t, n, concurrency):
    """What the reduction's configuration c launches at (t, n): (team, league, vector width,
    dynamic). The kernel reads nothing else (ReduceKernel: each thread's share from the team, the
    league and the width): items per thread only set the seed's league and the width
    (kps/reduce/dispatch.hpp: validate, reduce_into), so two points of the sweep with the same
    launch are one configuration measured twice. A capped point launches its cap; a dynamic one
    its seed's league, taken dynamically only past one wave (reduce_into)."""
    v = min(4, 16 // TYPE_SIZE[t])
    while v > 1 and c.items % v:
        v //= 2
    seed = min(max(1, math.ceil(n / (c.team * c.items))), MAX_LEAGUE)
    league = c.league(concurrency) if c.waves else seed
    return (c.team, league, v, c.variant == "dynamic" and league > max(1, concurrency // c.team))


def pool_equivalent(points, concurrency):
    """The reduction's points (Family.sweep_points) with the points of one launch at each
    (type, N) (launch) timed as one: each keeps its own time as `own_seconds` and is tuned on the
    median of its launch's points (`tune_seconds`). In the 16-core node's sweep of 2026-11-29 the
    eight points of one launch at double 2^20 (one wave of 16 one-thread teams reading 16-byte
    vectors, 2 to 32768 items) read 22.1-36.0 us, each a median of three interleaved repetitions:
    the optimum of one size was the luckiest copy of a launch, and every size got a row of its
    own. Pooled, a size's optimum is a launch. Unchanged where the concurrency is unknown (0)."""
    if concurrency <= 0:
        return points
    out = {}
    for t, by_n in points.items():
        for n, pts in by_n.items():
            groups = {}
            for c in pts:
                groups.setdefault(launch(c, t, n, concurrency), []).append(c)
            pooled = {}
            for members in groups.values():
                median = statistics.median(pts[c]["tune_seconds"] for c in members)
                for c in members:
                    pooled[c] = dict(pts[c], tune_seconds=median, own_seconds=pts[c]["tune_seconds"])
            out.setdefault(t, {})[n] = pooled
    return out


def config_seconds(points_n, c, n, concurrency):
    """Time of the reduction's configuration c at n. A capped configuration whose cap does not
    bind at n was not run there (it launches exactly the seed's league): the seed point's time
    stands in."""
    if c in points_n:
        return points_n[c]["tune_seconds"]
    if c.variant == "dynamic":
        # Not run where the seed's league is one wave or less (it launches the seed's league
        # then): the seed point stands in there alone. Elsewhere a sweep without the point (one
        # run before the knob) has no time for it.
        if math.ceil(n / (c.team * c.items)) > max(1, concurrency // c.team):
            return None
        seed = Config("seed", c.team, c.items)
        return points_n[seed]["tune_seconds"] if seed in points_n else None
    if c.waves:
        tile = c.team * c.items
        if math.ceil(n / tile) <= c.league(concurrency):
            seed = Config("seed", c.team, c.items)
            if seed in points_n:
                return points_n[seed]["tune_seconds"]
    return None


def _format_1(text):
    """A table's lines as format 1 wrote them: a table of format 2 with `kps-tuning-table 1` for its
    format line and its rows of class plus without the CLASS field (the rows format 1 had, read as
    the sums'); rows of another class stay as they are (format 1 has no such row)."""
    lines = text.splitlines()
    first = next((l.strip() for l in lines if l.strip() and not l.lstrip().startswith("#")), "")
    if first != FORMAT:
        return lines
    out = []
    for line in lines:
        f = line.split(None, 2)
        if line.strip() == FORMAT:
            out.append("kps-tuning-table 1")
        elif line.startswith(("reduce ", "scan ")) and len(f) == 3 and f[1] == OP_CLASS:
            out.append(f"{f[0]} {f[2]}")
        else:
            out.append(line)
    return out


class Family:
    """One study's tuning: its sweep and what it does its own way; the steps both share are this
    class's methods. Each subclass (Reduce, Scan; one instance each, REDUCE and SCAN) names its
    sweep and the table's rows below and has its own
      config(record, knobs)        the configuration a sweep record times (None: no point);
      benchmark_name(t, n, c, knobs)  the sweep fixture's name of configuration c at (t, n);
      seconds(points_n, c, n, concurrency)  c's time at n (None where the sweep has none);
      row(t, lo, hi, c, concurrency)  a row's fields after its class;
      fingerprinted(line), fingerprint_form(line)  the lines (as format 1 wrote them) its
                                   verification is tied to, and the form its fingerprint takes;
    and, where it differs from the defaults here, tiebreak, entry and balance."""
    name = ""           # the sweep's benchmark family
    kind = ""           # the table rows' kind (their first field)
    knob_family = ""    # its knobs' family in kps_knobs (gbench.knobs)
    wall = False        # tuned on the rounds' wall times where every point has them
    whole = False       # rows cover [0, inf), not just the swept sizes

    def tiebreak(self, c):
        """What decides between candidates of the same ratios to the optima (before c itself)."""
        return ()

    def entry(self, points_t, ns, pick):
        """A range's entry made of its pick, before the merge."""
        return pick

    def balance(self, points_t, ns, pick, worst, r, spread):
        """A row's (entry, worst ratio) once the rows are merged."""
        return pick, worst

    def sweep_points(self, records, knobs=None):
        """{type: {n: {configuration: record}}} of the sweep's passed points (a peer's marked wrong
        is none), each record with the time it is tuned on as `tune_seconds` (and its key,
        `tune_key`): where `wall` is set and every point has it, the median wall time of the
        point's interleaved rounds (`wall_us`), else Google Benchmark's time (`seconds`).
        knobs: gbench.knobs of the sweep's context (None: the knobs of JSON without kps_knobs)."""
        family_knobs = (knobs or gbench.KNOBS)[self.knob_family]
        sel = []
        for r in records:
            if r.get("family") != self.name or "error" in r or not r.get("n") or not r.get("type") or peer_wrong(r):
                continue
            c = self.config(r, family_knobs)
            if c is not None:
                sel.append((c, r))
        wall = self.wall and bool(sel) and all(r.get("wall_us") for _, r in sel)
        out = {}
        for c, r in sel:
            rec = dict(r, tune_seconds=r["wall_us"] * 1e-6 if wall else r["seconds"],
                       tune_key="wall_us" if wall else "seconds")
            out.setdefault(r["type"], {}).setdefault(r["n"], {})[c] = rec
        return out

    def points(self, records, concurrency=0, pool=False, knobs=None):
        """sweep_points, each launch's points pooled where `pool` (the reduction's study.json tune
        block: pool_launches)."""
        points = self.sweep_points(records, knobs)
        return pool_equivalent(points, concurrency) if pool else points

    def ratio(self, points_t, c, n, best_s, concurrency=0):
        """c's time at n over n's best (inf where c has none there)."""
        s = self.seconds(points_t[n], c, n, concurrency)
        return s / best_s if s is not None and best_s > 0 else math.inf

    def group_sizes(self, points_t, best_t, concurrency=0, tolerance=TOLERANCE):
        """Greedy ranges over the sorted sizes (common.similar_runs), each range's entry, then the
        rows that do not beat a neighbour by more than the sweep's spread at their sizes merged
        into it (common.merge_within_spread: the repetitions' spread, at least the merge
        tolerance: run-to-run changes exceed a run's own), then `balance`: [(sizes, entry, worst
        ratio)]."""
        configs = sorted({c for n in points_t for c in points_t[n]})

        def r(c, n):
            return self.ratio(points_t, c, n, best_t[n][1], concurrency)

        def spread(n):
            """The repetitions' relative spread at n (median cv of its points)."""
            return median_cv(points_t[n].values(), next(iter(points_t[n].values()))["tune_key"])

        groups = similar_runs(points_t, lambda n: {c for c in configs if r(c, n) <= 1 + tolerance})
        out = []
        for ns, cands in groups:
            def score(c):
                rs = [r(c, n) for n in ns]
                return (max(rs), sum(rs) / len(rs), *self.tiebreak(c), c)
            pick = min(cands, key=score)
            out.append((ns, self.entry(points_t, ns, pick), score(pick)[0]))
        merged = merge_within_spread(out, r, lambda n: max(tolerance, spread(n)))
        return [(ns, *self.balance(points_t, ns, pick, worst, r, spread)) for ns, pick, worst in merged]

    def boundaries(self, groups):
        """[(n_min, n_max)] of the groups, split at the geometric mean of neighbouring groups'
        sizes: from 0 to inf (n_max None) where `whole`, else from the first swept size to twice
        the last."""
        out = []
        for i, (ns, _, _) in enumerate(groups):
            lo = (0 if self.whole else ns[0]) if i == 0 else out[-1][1] + 1
            if i + 1 < len(groups):
                nxt = groups[i + 1][0][0]
                hi = min(max(int(math.isqrt(ns[-1] * nxt)), ns[-1]), nxt - 1)
            else:
                hi = None if self.whole else 2 * ns[-1] - 1
            out.append((lo, hi))
        return out

    def build_rows(self, points, best, concurrency=0, tolerance=TOLERANCE):
        """({type: [(n_min, n_max, entry, worst ratio, sizes)]}, {type: source type}) for the swept
        types, plus same-size copies for the others (common.rows_by_type)."""
        return rows_by_type(points, lambda t: self.group_sizes(points[t], best[t], concurrency, tolerance),
                            self.boundaries)

    def row_line(self, t, lo, hi, c, concurrency=0):
        """A table row of entry c for type t and sizes lo..hi (hi None: inf), without its comment."""
        return f"{self.kind} {OP_CLASS} {self.row(t, lo, hi, c, concurrency)}"

    def row_lines(self, rows, source, concurrency=0):
        """The table's rows, each with a comment: the entry and its worst ratio over the swept
        sizes, or the type it was taken from."""
        lines = []
        for t in gbench.TYPES:
            for lo, hi, c, worst, ns in rows.get(t, []):
                src = row_source(t, ns, source)
                note = (f"# {c.label()}; worst {worst:.3f} x best at swept N {pow2(ns[0])}..{pow2(ns[-1])}"
                        if src == t else borrowed_note(t, src, source))
                lines.append(f"{self.row_line(t, lo, hi, c, concurrency)} {note}")
        return lines

    def verify_filter(self, records, base, concurrency=0, pool=False, knobs=None):
        """The verification run's benchmark filter: `base` plus each swept (type, N)'s optimum,
        re-measured in the same run so that the table's choice is compared with it under the
        same conditions (a machine's speed drifts between runs, a shared host's a lot)."""
        best = optima(self.points(records, concurrency, pool, knobs))  # the optima the analysis picks
        names = sorted(re.escape(self.benchmark_name(t, n, c, knobs)) for t in best for n, (c, _) in best[t].items())
        return base + ("|^(" + "|".join(names) + ")/" if names else "")

    def fingerprint(self, text):
        """Identifies the rows of a table this family's verification tested (`fingerprinted`);
        a table of format 2 has the fingerprint of the same table in format 1 (_format_1), so
        the verifications recorded against tables written before stay valid."""
        body = "\n".join(self.fingerprint_form(l) for l in _format_1(text) if self.fingerprinted(l))
        return hashlib.sha256(body.encode()).hexdigest()


def gbps(r, seconds):
    """The bytes a call of r reads (its GB/s counter x Google Benchmark's time) over `seconds`:
    the bandwidth of the time shown beside it."""
    if r.get("GB/s") and r.get("seconds") and seconds:
        return r["GB/s"] * r["seconds"] / seconds
    return None


def call_seconds(*records):
    """The time of one call of each record, compared with each other: the median wall time of
    the interleaved rounds (`wall_us`: every call after a cache flush) where every record has
    it, else Google Benchmark's time (the loop's calls back to back). At 10-30 us calls the
    loop's medians over a few repetitions scatter by as much as the differences checked here
    (studies/reduce/README.md: double 50000, tuned 32.3 us in the loop, 21.2 us in its rounds)."""
    if all(r.get("wall_us") for r in records):
        return [r["wall_us"] * 1e-6 for r in records]
    return [r["seconds"] for r in records]


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def plot_size(path: Path, t, n, pts, best, ctx) -> bool:
    """The seed's figure for one data size: time against load per thread, one curve per team
    size (the seed's league; dashed with dynamic teams; a capped league's points as markers), the
    optimum a star.
    The repetitions' spread (wall times of the rounds, or the loop's) as bands."""
    # A capped league gives every items count about the same load per thread: its points are
    # spread around that load by items (fewer to more, left to right) so none hides another.
    items_of = {}
    for c in pts:
        if c.waves:
            items_of.setdefault((c.team, c.waves), set()).add(c.items)

    def x_of(c, r):
        x = r.get("load_per_thread") or c.items
        if c.waves:
            its = sorted(items_of[(c.team, c.waves)])
            x *= 2.0 ** (0.3 * (its.index(c.items) - (len(its) - 1) / 2))
        return x

    curves = {}
    for c, r in pts.items():
        x = x_of(c, r)
        key = "wall_us" if r.get("tune_key") == "wall_us" else "seconds"
        b = gbench.bounds(r, key)
        scale = 1.0 if key == "wall_us" else 1e6
        spread = (b[0] * scale, b[1] * scale) if b and not c.waves else None
        own = r.get("own_seconds", r["tune_seconds"])  # the point's own time, not its launch's (pool_equivalent)
        curves.setdefault((c.team, c.waves, c.variant == "dynamic"), []).append((x, own * 1e6, spread))
    series = []
    for (team, waves, dynamic), xy in sorted(curves.items()):
        if dynamic:  # the seed's league with dynamic teams: a dashed curve beside the seed's
            series.append(plots.Series(f"team {team}, dynamic teams", xy, group=f"team {team}", linestyle="--",
                                       color=TEAM_COLORS.get(team), marker="x"))
            continue
        # a capped league runs every items count at nearly one load per thread: markers, no line;
        # color by team size, marker by league (the same in every figure): seed circles, one
        # wave triangles, more waves squares
        series.append(plots.Series(f"team {team}" + (f", capped at {waves} wave{'s' if waves > 1 else ''}"
                                                     if waves else ""),
                                   xy, group=f"team {team}", linestyle="-" if not waves else "none",
                                   color=TEAM_COLORS.get(team),
                                   marker="o" if not waves else ("^" if waves == 1 else "s")))
    c, s = best
    bx = x_of(c, pts[c])
    s = pts[c].get("own_seconds", s)  # the star on its point's own time (pooled: the launch's median is s)
    capped = "\ncapped leagues: points spread around their load by items, fewer to more" if items_of else ""
    fig = plots.Figure(f"reduce {t}, N = {n}: time against load per thread",
                       "load per thread (elements: N / (team size x league))" + capped, "time per call (µs, median)",
                       series, xscale="log2", yscale="log", marks=[plots.Mark(bx, s * 1e6, f"optimum: {c.label()}")])
    return plots.save(path, fig, ctx)


class Reduce(Family):
    """The reduction's tuning, the seed's method: the table's reduce rows from [0, inf).
    Its points are tuned on the median wall time of their interleaved rounds where every point
    has it, else on Google Benchmark's time (older JSON). The rounds time the call the tuned
    reduction makes, each after a cache flush on a GPU, and the verification compares tuned with
    the optimum by the same wall times; Google Benchmark's loop repeats the call back to back, so
    data up to the L2's size (12.5 million int32 on an H100) are read from the cache there, and
    another configuration wins (studies/reduce/README.md: int32 5·10^6, the loop's optimum 1.10 x
    the best wall time). The verification (reduce/tuned|kokkos|cub with the new table): the tuned
    reduction within 5 % of the sweep's optimum (swept types) and not slower than Kokkos'
    parallel_reduce, each a ratio of median wall times from the same interleaved rounds where the
    JSON has it (`ratio_to_tuned` of the re-measured optimum, `ratio_to_kokkos` of reduce/tuned),
    else across the two benchmarks (call_seconds); and on CUDA the study's targets: from 2^26 its
    ratio to CUB (>= 1.0), at 2^28 and 2^30 to a streaming read of the same bytes (>= 0.97; the
    copy's bandwidth, which a read need not reach at 2^26, is shown for information)."""
    name = "reduce_sweep"
    kind = "reduce"
    knob_family = "reduce"
    wall = True
    whole = True
    # Lines no verification of the reduce rows depends on: how and when the table was made, the
    # device's compute capability and memory (added to tables later), comments, the scan rows
    # (verified on their own: Scan.fingerprint).
    UNTIED = ("date =", "command =", "sweep =", "compute_capability =", "memory_bytes =", "#", "scan ")

    def config(self, r, knobs):
        v = knob_values(r, knobs)
        if "team" not in v or "items" not in v:
            return None
        return Config(r["variant"], v["team"], v["items"], r["params"].get("waves", 0))

    def benchmark_name(self, t, n, c, knobs=None):
        return (f"{self.name}/{c.variant}/{t}/{n}/team:{c.team}/items:{c.items}"
                + (f"/waves:{c.waves}" if c.waves else ""))

    def seconds(self, points_n, c, n, concurrency):
        return config_seconds(points_n, c, n, concurrency)

    def tiebreak(self, c):
        """Ties go to the static schedule: where the seed's league is one wave or less the seed's
        point stands in for the dynamic one (config_seconds), and a row labelled dynamic from that
        stand-in runs teams dynamically past the swept size (int32 1449..2896 on the 16-core node:
        17-23 teams taken dynamically, 276 us at 2^12 in the sweep against 6.2 static)."""
        return (c.waves, c.variant == "dynamic")

    def balance(self, points_t, ns, pick, worst, r, spread):
        """Where dynamic teams are within the sweep's spread of a row's static choice at every size
        of the row (each a league of more than one wave there, so the dynamic point itself was
        timed, not a stand-in), they take the row: the sweep times one cache state on quiet
        cores, and a static league waits for its slowest share. After the merge, so that a row's
        slower dynamic choice is no baseline a neighbour merges against. A tie at zero spread
        goes to the dynamic teams too. In the 16-core node's targets (2026-11-29) the static
        choice at int64 2^24 (four-thread teams, four waves: 240 GB/s in the sweep, 2 % ahead of
        one-thread teams of 8192 items taken dynamically, within the 10 % spread) read 112-178
        GB/s beside oneTBB's 137-195, 0.82-0.91 x; the dynamic teams 234 GB/s, 1.15 x (a run
        with a table made for it alone, not committed), and the table with this rule 1.01-1.15 x
        in three targets runs; beside other load the static rows lost most
        (results/h200-node-openmp16: reduce/runs/, experiments/reduce-balanced-2e24,
        experiments/reduce-targets-loaded)."""
        if pick.variant == "dynamic":
            return pick, worst
        configs = sorted({c for n in points_t for c in points_t[n]})
        balanced = [c for c in configs if c.variant == "dynamic" and all(c in points_t[n] for n in ns)
                    and all(r(c, n) <= r(pick, n) * (1 + spread(n)) for n in ns)]
        if not balanced:
            return pick, worst
        pick = min(balanced, key=lambda c: (max(r(c, n) for n in ns), sum(r(c, n) for n in ns), c))
        return pick, max(r(pick, n) for n in ns)

    def row(self, t, lo, hi, c, concurrency):
        """TYPE N_MIN N_MAX TEAM ITEMS LEAGUE VECTOR [SCHEDULE] (VECTOR 0: automatic)."""
        return (f"{t:<6} {lo:<11} {'inf' if hi is None else hi:<11} {c.team:<5} {c.items:<6} "
                f"{c.league(concurrency):<7} {0:<7}" + (f" {c.schedule():<8}" if c.schedule() == "dynamic" else ""))

    def fingerprinted(self, line):
        return not line.startswith(self.UNTIED)

    def fingerprint_form(self, line):
        """A line as the oldest format wrote it (`kps-reduce-table 1`, rows without `reduce`): the
        fingerprints of tables verified in it stay valid. Spacing and comments count."""
        if line.strip() == "kps-tuning-table 1":
            return "kps-reduce-table 1"
        if line.startswith("reduce "):
            t, rest = line[len("reduce "):].split(None, 1)
            return f"{t:<8} {rest}"
        return line

    def table_text(self, ctx, rows, source, concurrency, sweep="", command="", bench_commands=(), tolerance=TOLERANCE,
                   pool=False):
        """The table: its header (format, device, provenance) and its reduce rows."""
        head = [
            "# kps tuning table: the tuned kps::reduce_sum / kps::dot read its reduce rows, kps::exclusive_scan's",
            "# `automatic` its scan rows (format: src/kps/tuning/table.hpp). Written by `kps tune` from the sweep below;",
            "# the ranges merge sizes whose optima are within "
            f"{tolerance:.0%} of each other (studies/reduce/README.md)"
            + ("; the points of one launch (team, league, vector width,\n# schedule) are timed as one, "
               "their median." if pool else "."),
            FORMAT,
            f"device = {ctx.get('device', 'unknown')}",
            f"backend = {ctx.get('backend', 'unknown')}",
            f"concurrency = {concurrency}",
        ]
        if ctx.get("device_compute_units"):
            head.append(f"compute_units = {ctx['device_compute_units']}")
        # What a device without its own table is matched by (the nearest table of the same backend
        # and compute capability, by SM count and memory: src/kps/tuning/table.cpp).
        if ctx.get("device_compute_capability"):
            head.append(f"compute_capability = {ctx['device_compute_capability']}")
        if ctx.get("device_memory_bytes"):
            head.append(f"memory_bytes = {ctx['device_memory_bytes']}")
        head += [f"sweep = {sweep}" if sweep else "sweep = reduce_sweep fixtures",
                 f"command = {command}" if command else "command = kps tune",
                 f"date = {ctx.get('date', 'unknown')}",
                 f"kps_revision = {ctx.get('kps_git_revision', 'unknown')}"]
        head += [f"# kps-bench: {c}" for c in bench_commands]
        head.append("# reduce CLASS TYPE N_MIN       N_MAX       TEAM  ITEMS  LEAGUE  VECTOR [SCHEDULE]  # from the sweep")
        return "\n".join(head + self.row_lines(rows, source, concurrency)) + "\n"

    def verify_checks(self, records, best, rows, concurrency, knobs=None):
        """Rows of the verification table, the number of failed checks, and of sizes whose read
        target went unchecked (an older run timed no streaming read). `records`: the
        verification run (reduce/tuned, kokkos, cub and the re-measured optima)."""
        ok = [r for r in records if "error" not in r and r.get("n")]
        get = {(r["family"], r["variant"], r["type"], r["n"]): r for r in ok if r.get("family") == "reduce"}
        again = {gbench.base_name(r["name"]): r for r in ok if r.get("family") == self.name}
        out, failed, unread = [], 0, 0
        for t in gbench.TYPES:
            for n in sorted({k[3] for k in get if k[2] == t}):
                tuned = get.get(("reduce", "tuned", t, n))
                if not tuned:
                    continue
                marks = []
                kk = get.get(("reduce", "kokkos", t, n))
                vs_kokkos = tuned.get("ratio_to_kokkos")  # Kokkos timed in the tuned point's own rounds
                if vs_kokkos is None and kk:
                    kk_s, tuned_s = call_seconds(kk, tuned)
                    vs_kokkos = kk_s / tuned_s
                if vs_kokkos is not None and vs_kokkos < 1.0:
                    marks.append("slower than Kokkos")
                src = optimum_type(best, t, n)
                vs_text = "—"
                if src and n in best[src]:
                    c = best[src][n][0]
                    same_run = again.get(self.benchmark_name(src, n, c, knobs))
                    if same_run and same_run.get("ratio_to_tuned"):
                        vs_best = same_run["ratio_to_tuned"]  # tuned timed in the optimum's own rounds
                    elif same_run:
                        tuned_s, best_s = call_seconds(tuned, same_run)
                        vs_best = tuned_s / best_s
                    else:  # against the sweep's own time of its optimum (tune_seconds)
                        vs_best = call_seconds(tuned)[0] / best[src][n][1]
                    vs_text = fmt(vs_best) + ("" if same_run else " (sweep's)")
                    if src != t:  # not swept: a same-size type's optimum, for information
                        vs_text += f" ({src}'s)"
                    elif vs_best > TARGET_BEST:
                        marks.append(f"> {TARGET_BEST:.2f} x sweep best")
                cub, copy = tuned.get("ratio_to_cub"), tuned.get("ratio_to_copy")
                read = tuned.get("ratio_to_read") if n in READ_SIZES else None
                if n in READ_SIZES and cub is not None and read is None:
                    unread += 1  # a CUDA run of an older binary timed no streaming read: target unchecked
                if n >= LARGE_N and cub is not None and cub < TARGET_CUB:
                    marks.append(f"< {TARGET_CUB} x CUB")
                if cub is not None and read is not None and read < READ_TARGET:
                    marks.append(f"< {READ_TARGET} x read bandwidth")
                failed += bool(marks)
                c = lookup(rows[t], n) if t in rows else None
                out.append([t, pow2(n), c.label() if c else "fallback rule", fmt(gbps(tuned, call_seconds(tuned)[0])),
                            vs_text, fmt(vs_kokkos), fmt(cub), fmt(read), fmt(copy),
                            "ok" if not marks else "; ".join(marks)])
        return out, failed, unread

    def table_only(self, records, ctx, sweep="", command="", bench_commands=(), tolerance=TOLERANCE, pool=False):
        """The table text alone (no files written), or None without sweep results."""
        concurrency = int(ctx.get("kokkos_concurrency", 0) or 0)
        points = self.points(records, concurrency, pool, gbench.knobs(ctx))
        if not points:
            return None
        rows, source = self.build_rows(points, optima(points), concurrency, tolerance)
        return self.table_text(ctx, rows, source, concurrency, sweep, command, bench_commands, tolerance, pool)

    def check_counts(self, records, ctx, tolerance=TOLERANCE, verify=(), pool=False):
        """(sizes whose table entry is within TARGET_BEST of the optimum, swept sizes, verified sizes
        meeting every target, verified sizes), or None without sweep results: the summary's figures."""
        concurrency = int(ctx.get("kokkos_concurrency", 0) or 0)
        knobs = gbench.knobs(ctx)
        points = self.points(records, concurrency, pool, knobs)
        if not points:
            return None
        best = optima(points)
        rows, _ = self.build_rows(points, best, concurrency, tolerance)
        total = sum(len(points[t]) for t in points)
        failed = sum(self.ratio(points[t], lookup(rows[t], n), n, best[t][n][1], concurrency) > TARGET_BEST
                     for t in points for n in points[t])
        vrows, vfailed, _ = self.verify_checks(verify, best, rows, concurrency, knobs)
        return total - failed, total, len(vrows) - vfailed, len(vrows)

    def analyze(self, records, ctx, outdir, sweep="", command="", bench_commands=(), link_prefix="",
                figures_in_md=True, tolerance=TOLERANCE, verify=(), pool=False):
        """Records (gbench.records of the sweep JSON) and `verify` (those of the verification run
        of this table) -> Markdown; writes CSV and PNG under outdir (image links in the Markdown
        are link_prefix + file name). Returns (markdown, table text or None, number of failed checks)."""
        outdir = Path(outdir)
        concurrency = int(ctx.get("kokkos_concurrency", 0) or 0)
        knobs = gbench.knobs(ctx)
        failures, ok = gbench.split_failures(records)
        points = self.points(ok, concurrency, pool, knobs)
        md = ["### Tuning sweep: the seed's method\n"]  # (one level down where a report embeds it)
        if failures:
            md.append(failures)
        if not points:
            md.append("No sweep results (reduce_sweep/...) here.\n")
            return "\n".join(md), None, 0
        best = optima(points)
        rows, source = self.build_rows(points, best, concurrency, tolerance)
        outdir.mkdir(parents=True, exist_ok=True)

        write_csv(outdir / "sweep.csv",
                  ["type", "n", "variant", "team", "items", "waves", "league", "load_per_thread", "seconds", "GB/s",
                   "loop_seconds", "loop_GB/s", "ratio_to_copy", "ratio_to_cub", "launch_seconds"],
                  [[t, n, c.variant, c.team, c.items, c.waves, r.get("league"), r.get("load_per_thread"),
                    r.get("own_seconds", r["tune_seconds"]), gbps(r, r.get("own_seconds", r["tune_seconds"])),
                    r["seconds"], r.get("GB/s"), r.get("ratio_to_copy"), r.get("ratio_to_cub"), r["tune_seconds"]]
                   for t in sorted(points) for n in sorted(points[t]) for c, r in sorted(points[t][n].items())])

        # Optimum per size and the table's choice there.
        opt_rows, csv_rows, table_failed = [], [], 0
        figures = []
        for t in gbench.TYPES:
            if t not in points:
                continue
            for n in sorted(points[t]):
                c, s = best[t][n]
                chosen = lookup(rows[t], n)
                r = self.ratio(points[t], chosen, n, s, concurrency)
                table_failed += r > TARGET_BEST
                gbs = gbps(points[t][n][c], s)
                opt_rows.append([t, pow2(n), c.label(), fmt(s * 1e6), fmt(gbs),
                                 chosen.label(), fmt(r) + ("" if r <= TARGET_BEST else " (!)")])
                csv_rows.append([t, n, c.variant, c.team, c.items, c.waves, s, gbs, chosen.variant, chosen.team,
                                 chosen.items, chosen.waves, r])
                png = f"sweep_{t}_{n}.png"
                if figures_in_md and plot_size(outdir / png, t, n, points[t][n], best[t][n], ctx):
                    figures.append(f"![{t}, N = {n}]({link_prefix}{png})")
        write_csv(outdir / "optima.csv",
                  ["type", "n", "best_variant", "best_team", "best_items", "best_waves", "best_seconds", "best_GB/s",
                   "table_variant", "table_team", "table_items", "table_waves", "table_over_best"], csv_rows)

        md.append("Every (team size, items per thread) with N >= team x items and, in sweeps that have it, per team "
                  "size the smallest tile that covers N (a league of one team), league from the seed's relation "
                  "ceil(N / (team x items)) (`seed`) or capped at W waves of teams (`capped`, W x concurrency / team); "
                  "times: the median wall time of each point's interleaved rounds (on a GPU every call after a cache "
                  "flush), Google Benchmark's median where the JSON has none. "
                  f"Ranges merge sizes whose optima are within {tolerance:.0%}. "
                  "`table / best`: the table's configuration at that N over the optimum "
                  f"(target <= {TARGET_BEST}).\n")
        md.append("#### Optimum per size\n")
        md.append(markdown_table(["type", "N", "optimum", "µs", "GB/s", "table's entry", "table / best"], opt_rows))
        md.append("\n#### Lookup table\n")
        trows = []
        for t in gbench.TYPES:
            for lo, hi, c, worst, ns in rows.get(t, []):
                src = row_source(t, ns, source)
                trows.append([t, lo, "inf" if hi is None else hi, c.label(), c.league(concurrency),
                              f"{pow2(ns[0])}..{pow2(ns[-1])}" if src == t else f"from {src}",
                              fmt(worst) if src == t else "—"])
        md.append(markdown_table(["type", "n_min", "n_max", "configuration", "league column", "swept sizes",
                                  "worst / best"], trows))
        vrows, vfailed, no_read = self.verify_checks(verify, best, rows, concurrency, knobs)
        if vrows:
            cub = any(r[6] != "—" for r in vrows)  # CUB's peer: a CUDA run only
            head = ["type", "N", "table's entry", "GB/s", "tuned / best", "vs kokkos", "/ cub", "vs read", "vs copy",
                    "check"]
            if not cub:
                vrows = [r[:6] + r[8:] for r in vrows]
                head = head[:6] + head[8:]
            md.append("\n#### Verification: reduce/tuned with the new table\n")
            md.append(f"`tuned / best`: tuned time over the sweep's optimum configuration re-measured in the same run "
                      f"(<= {TARGET_BEST}; for a type not swept, the optimum of the swept type of its size, not "
                      "checked); `vs kokkos`: Kokkos' "
                      "time over tuned (>= 1); each ratio of median wall times from the same interleaved rounds where "
                      "the JSON has them (the optimum's `ratio_to_tuned`, tuned's `ratio_to_kokkos`), else across the "
                      "two benchmarks' rounds, else from Google Benchmark's times"
                      + (f"; from 2^26: `/ cub` >= {TARGET_CUB}; at 2^28 and 2^30: `vs read` (a streaming read of the "
                         f"same bytes, timed in the same rounds) >= {READ_TARGET}; `vs copy`: the copy's read "
                         "bandwidth over tuned's, for information (a read need not reach it at 2^26: fixed per-call "
                         "costs).\n" if cub else
                         "; `vs copy`: tuned's bandwidth over the copy's, for information.\n"))
            md.append(markdown_table(head, vrows))
        unread = (f" ({no_read} of them without the read target: their run timed no streaming read)"
                  if no_read else "")
        md.append(f"\nChecks: the table's entry is within {TARGET_BEST} x best at "
                  f"{sum(len(points[t]) for t in points) - table_failed} of {sum(len(points[t]) for t in points)} "
                  f"swept sizes" + (f"; verification: {len(vrows) - vfailed} of {len(vrows)} sizes meet every target"
                                    if vrows else "; no verification run") + unread + ".\n")
        if figures and figures_in_md:
            md.append("\n#### Time against load per thread (one figure per size; the star is the optimum)\n")
            md.append("\n".join(figures) + "\n")
        text = self.table_text(ctx, rows, source, concurrency, sweep, command, bench_commands, tolerance, pool)
        return "\n".join(md), text, table_failed + vfailed


class Scan(Family):
    """The scan's tuning (GPUs' staged tiles, host backends' cached tiles, and Kokkos' scan): the
    table's scan rows over the swept sizes; elsewhere kps::impl::scan_rule decides. Each point is
    timed alone, the median of its rounds (every call after a cache flush on a GPU). The
    verification run with the new table: scan_tune/automatic, Kokkos' scan and each optimum
    re-measured, all timed alone as the sweep's points are (scan/automatic with CUB in its rounds,
    for information): `automatic` within 5 % of the optimum (swept types) and not slower than
    Kokkos' scan by more than that."""
    name = "scan_tune"
    kind = "scan"
    knob_family = "single_pass"

    def config(self, r, knobs):
        if r.get("variant") == "kokkos":
            return KOKKOS
        if r.get("variant") != "single_pass":  # (automatic: the verification's)
            return None
        v = knob_values(r, knobs)
        if all(k in v for k in ("team", "items", "delay", "poll", "prefetch")):  # a GPU's staged tiles
            return Choice("single_pass", v["team"], v["items"], v["delay"], v["poll"], v["prefetch"],
                          store=v.get("store", "cached"))
        if all(k in v for k in ("team", "items", "store")):  # a host's cached tiles
            return Choice("single_pass", v["team"], v["items"], load="cached", store=v["store"])
        return None

    def benchmark_name(self, t, n, c, knobs=None):
        if c.algorithm == "kokkos":
            return f"{self.name}/kokkos/{t}/{n}"
        store = knob_index((knobs or gbench.KNOBS)[self.knob_family], "store", c.store)
        if c.load == "cached":
            return f"{self.name}/single_pass/{t}/{n}/team:{c.team}/items:{c.items}/store:{store}"
        return (f"{self.name}/single_pass/{t}/{n}/team:{c.team}/items:{c.items}/delay:{c.delay}/poll:{c.poll}"
                f"/prefetch:{c.prefetch}" + (f"/store:{store}" if c.store == "streaming" else ""))

    def seconds(self, points_n, c, n, concurrency):
        r = points_n.get(c.key())
        return r["tune_seconds"] if r else None

    def entry(self, points_t, ns, pick):
        """A Kokkos row's single-pass knobs: the single pass's best over the range, against its
        best at each size (what an explicit single_pass call there takes)."""
        if pick != KOKKOS:
            return pick
        sp = {c for n in ns for c in points_t[n] if c != KOKKOS}
        if not sp:
            return pick
        sp_best = {n: min((r["tune_seconds"] for c, r in points_t[n].items() if c != KOKKOS), default=math.inf)
                   for n in ns}

        def score(c):
            rs = [self.ratio(points_t, c, n, sp_best[n]) for n in ns]
            return (max(rs), sum(rs) / len(rs), c)
        return min(sp, key=score).with_algorithm("kokkos")

    def row(self, t, lo, hi, c, concurrency):
        """TYPE N_MIN N_MAX ALGORITHM TEAM ITEMS LOAD DELAY POLL PREFETCH [STORE]; a Kokkos row
        carries the single pass's best knobs for its range (what an explicit single_pass call
        there takes)."""
        items = c.items or (64 if TYPE_SIZE[t] <= 4 else 32)  # (a Kokkos row without single-pass points: the rule's)
        line = (f"{t:<6} {lo:<9} {'inf' if hi is None else hi:<9} {c.algorithm:<12} {c.team:<4} "
                f"{items:<5} {c.load:<6} {c.delay:<5} {c.poll:<4} {c.prefetch:<8}")
        return line + (f" {c.store:<9}" if c.load == "cached" or c.store == "streaming" else "")

    def fingerprinted(self, line):
        """The scan rows and the device: a verification run of the scan rows stays valid whatever
        the reduce rows (Reduce.fingerprint ignores the scan rows likewise)."""
        return line.startswith(("scan ", "device =", "backend ="))

    def fingerprint_form(self, line):
        """A line's fields, not their spacing or comments."""
        return " ".join(line.split("#")[0].split())

    def scan_lines(self, rows, source, tolerance=TOLERANCE):
        """The table's scan rows, with their heading."""
        if not rows:
            return []
        return [f"# Scan rows (kps::exclusive_scan's `automatic`), from the scan sweep: ranges merge sizes whose "
                f"optima are within {tolerance:.0%};",
                "# sizes no row covers use kps::impl::scan_rule.",
                "# scan CLASS TYPE N_MIN     N_MAX     ALGORITHM    TEAM ITEMS LOAD   DELAY POLL PREFETCH"
                ] + self.row_lines(rows, source)

    def table_lines(self, records, tolerance=TOLERANCE, knobs=None):
        """The table's scan rows made from the sweep's records (none without sweep results)."""
        points = self.sweep_points(records, knobs)
        return self.scan_lines(*self.build_rows(points, optima(points), 0, tolerance), tolerance) if points else []

    def verify_checks(self, records, best, rows, knobs=None):
        """Rows of the verification table and the number of sizes failing a check. `automatic /
        best` and `vs kokkos` compare times taken alike: scan_tune/automatic, the optimum and
        Kokkos' scan each timed alone in the same run (a run without scan_tune/automatic:
        scan/automatic's time and its ratio to Kokkos in its own rounds); CUB's ratios come from
        scan/automatic's rounds."""
        ok = [r for r in records if "error" not in r and r.get("n") and not peer_wrong(r)]
        kokkos_wrong = {gbench.base_name(r["name"]) for r in records if peer_wrong(r)}
        # automatic's own failed checks: each a failed size of the verification.
        auto_failed = {(r["type"], r["n"]): r["error"] for r in records
                       if "error" in r and r.get("n") and r.get("variant") == "automatic"
                       and r.get("family") in (self.name, "scan")}
        peers = {(r["type"], r["n"]): r for r in ok if r.get("family") == "scan" and r.get("variant") == "automatic"}
        alone = {(r["type"], r["n"]): r for r in ok if r.get("family") == self.name and r.get("variant") == "automatic"}
        again = {gbench.base_name(r["name"]): r for r in ok if r.get("family") == self.name}
        out, failed = [], 0
        for t in gbench.TYPES:
            for n in sorted({n for (tt, n) in list(peers) + list(alone) + list(auto_failed) if tt == t}):
                if (t, n) in auto_failed:
                    failed += 1
                    c = lookup(rows[t], n) if t in rows else None
                    out.append([t, pow2(n), c.label() if c else "rule", "—", "—", "—", "—", "—",
                                "check failed: " + auto_failed[(t, n)].replace("|", "/")])
                    continue
                a, p = alone.get((t, n)), peers.get((t, n))
                marks = []
                kokkos_name = self.benchmark_name(t, n, KOKKOS, knobs)
                kokkos = again.get(kokkos_name)
                vs_kokkos = (kokkos["seconds"] / a["seconds"] if a and kokkos else
                             (p.get("ratio_to_kokkos") if p else None))
                # Kokkos' result wrong (timed alone or in the rounds): no comparison with it.
                if kokkos_name in kokkos_wrong or (p and p.get("wrong_kokkos")):
                    vs_kokkos = "Kokkos wrong"
                if isinstance(vs_kokkos, float) and vs_kokkos < 1 / TARGET_BEST:
                    marks.append("slower than Kokkos")
                src = optimum_type(best, t, n)
                vs_text = "—"
                mine = a or p
                if src and n in best[src]:
                    c, best_s = best[src][n]
                    same_run = again.get(self.benchmark_name(src, n, c, knobs))
                    vs_best = mine["seconds"] / (same_run["seconds"] if same_run else best_s)
                    vs_text = fmt(vs_best) + ("" if same_run else " (sweep's)") + ("" if a else " (with peers)")
                    if src != t:
                        vs_text += f" ({src}'s)"
                    elif vs_best > TARGET_BEST:
                        marks.append(f"> {TARGET_BEST:.2f} x sweep best")
                failed += bool(marks)
                c = lookup(rows[t], n) if t in rows else None
                out.append([t, pow2(n), c.label() if c else "rule", fmt(mine["seconds"] * 1e6), vs_text,
                            vs_kokkos if isinstance(vs_kokkos, str) else fmt(vs_kokkos),
                            fmt(p.get("ratio_to_cub") if p else None), fmt(p.get("ratio_to_cub_cccl") if p else None),
                            "ok" if not marks else "; ".join(marks)])
        return out, failed

    def analyze(self, records, tolerance=TOLERANCE, verify=(), knobs=None):
        """(Markdown, table lines, failed checks) of the scan sweep, or None without one."""
        points = self.sweep_points(records, knobs)
        if not points:
            return None
        best = optima(points)
        rows, source = self.build_rows(points, best, 0, tolerance)
        host = any(c.load == "cached" for by_n in points.values() for pts in by_n.values() for c in pts)
        what = ("cached tiles (team x items per thread) with ordinary or streaming stores, and Kokkos' scan; each "
                "timed alone, the median of its rounds" if host else
                "staged tiles (team x items), the look-back's sleep before its first read and between polls, an L2 "
                "prefetch of the tile 64 ahead or none, and Kokkos' scan; each timed alone, the median of its rounds "
                "(every call after a cache flush)")
        md = ["### Scan rows: the single pass's knobs by size\n",
              f"Every point of `scan_tune`: {what}. Rows that do not beat a neighbouring row's choice by more than the "
              "sweep's spread at their sizes (the repetitions' median cv, at least the merge tolerance) are merged "
              f"into it. Ranges merge sizes whose optima are within {tolerance:.0%}; `table / best`: the table's "
              f"entry at that N over the optimum (target <= {TARGET_BEST}); `Kokkos / best`: Kokkos' scan over the "
              "optimum.\n"]
        opt_rows, table_failed = [], 0
        for t in gbench.TYPES:
            for n in sorted(points.get(t, {})):
                c, s = best[t][n]
                chosen = lookup(rows[t], n)
                r = self.ratio(points[t], chosen, n, s)
                table_failed += r > TARGET_BEST
                kk = points[t][n].get(KOKKOS)
                opt_rows.append([t, pow2(n), c.label(), fmt(s * 1e6), fmt(2.0 * n * TYPE_SIZE[t] / s / 1e9),
                                 chosen.label(), fmt(r) + ("" if r <= TARGET_BEST else " (!)"),
                                 fmt(kk["tune_seconds"] / s) if kk else "—"])
        md.append(markdown_table(["type", "N", "optimum", "µs", "GB/s", "table's entry", "table / best",
                                  "Kokkos / best"], opt_rows))
        trows = [[t, lo, hi, c.label(), f"{pow2(ns[0])}..{pow2(ns[-1])}" if src == t else f"from {src}",
                  fmt(worst) if src == t else "—"]
                 for t in gbench.TYPES for lo, hi, c, worst, ns in rows.get(t, []) for src in [row_source(t, ns, source)]]
        md.append("\n#### Scan rows of the table\n")
        md.append(markdown_table(["type", "n_min", "n_max", "entry", "swept sizes", "worst / best"], trows))
        vrows, vfailed = self.verify_checks(verify, best, rows, knobs)
        if vrows:
            # CUB's columns where a peer of the rounds is CUB (a GPU's), none on a host.
            cub = any(r[6] != "—" or r[7] != "—" for r in vrows)
            if not cub:
                vrows = [r[:6] + r[8:] for r in vrows]
            md.append("\n#### Verification: scan/automatic with the new table\n")
            md.append(f"`automatic / best`: automatic's time over the sweep's optimum re-measured in the same run, "
                      f"both timed alone as the sweep's points are (<= {TARGET_BEST}; for a type not swept, the "
                      "optimum of the swept type of its size, not checked; `(with peers)`: a run that timed automatic "
                      "only in scan/automatic's rounds, among its peers); "
                      f"`vs kokkos`: Kokkos' time over automatic's, likewise (>= {1 / TARGET_BEST:.2f}; with peers: "
                      "in the same rounds)" + ("; `/ cub`, `/ cub_cccl`: CUB's time over automatic's in the rounds of "
                                               "scan/automatic, for information (the study's targets table holds the "
                                               "targets)" if cub else "") + ".\n")
            md.append(markdown_table(["type", "N", "table's entry", "µs", "automatic / best", "vs kokkos"]
                                     + (["/ cub", "/ cub_cccl"] if cub else []) + ["check"], vrows))
        total = sum(len(points[t]) for t in points)
        md.append(f"\nScan checks: the table's entry is within {TARGET_BEST} x best at {total - table_failed} of "
                  f"{total} swept sizes" + (f"; verification: {len(vrows) - vfailed} of {len(vrows)} sizes pass"
                                            if vrows else "; no verification run of the scan rows") + ".\n")
        return "\n".join(md), self.scan_lines(rows, source, tolerance), table_failed + vfailed


REDUCE = Reduce()
SCAN = Scan()
