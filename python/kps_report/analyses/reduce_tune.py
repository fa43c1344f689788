"""Reduction tuning analysis: the seed's method on Google Benchmark JSON of the sweep fixtures
(reduce_sweep/<seed|capped>/<type>/<N>/team:T/items:I[/waves:W]).

1. Optimum per (type, N): the configuration (variant, team size, items per thread, waves)
   with the smallest median wall time of its interleaved rounds (sweep_points, tune_seconds).
2. Ranges: sizes are walked upwards and kept in one range while some configuration stays
   within TOLERANCE (3 %) of every size's optimum ("similar optima"); the range's entry is
   the configuration whose worst ratio to the optimum over the range is smallest; once ranges
   are merged, dynamic teams (host backends) where they are within the sweep's spread of that
   static entry at every size of the range. A range
   reaches down to the geometric mean of its first size and the previous range's last size
   (0 for the first range) and up to the next boundary ('inf' for the last).
3. The lookup table (format: src/kps/tuning/table.hpp, `reduce` rows): rows for every swept type; a type
   that was not swept takes the rows of the swept type of the same element size (float from
   int32, int64 from double), and a type whose sweep stops below its size-mate's (int64 in a
   host's caches) takes that type's rows past its own last size.
4. Checks: the table's configuration at each swept N within 5 % of that N's optimum; and,
   from the verification run (reduce/tuned|kokkos|cub with the new table), the tuned
   reduction within 5 % of the sweep's optimum (swept types) and not slower than Kokkos'
   parallel_reduce, each a ratio of median wall times from the same interleaved rounds where the
   JSON has it (`ratio_to_tuned` of the re-measured optimum, `ratio_to_kokkos` of reduce/tuned),
   else across the two benchmarks (call_seconds); and on CUDA the study's targets: from 2^26
   its ratio to CUB (>= 1.0), at 2^28 and 2^30 to a streaming read of the same bytes (>= 0.97;
   the copy's bandwidth, which a read need not reach at 2^26, is shown for information).
Outputs (CSV, PNG, Markdown) are derived from the JSON alone; nothing here needs the build.
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
from kps_report.text import fmt, markdown_table, pow2, slug

TOLERANCE = 0.03      # "similar optima": within 3 % of a size's best time (study.json may set its own)
TARGET_BEST = 1.05    # tuned (or the table's entry) within 5 % of the sweep's best
TYPE_SIZE = gbench.TYPE_SIZE
MAX_LEAGUE = 1 << 24  # kps::impl::max_league_size: a larger league loops
LARGE_N = 1 << 26     # from here the CUB and bandwidth targets apply
TARGET_CUB = 1.0
# One color per team size in every sweep figure (host and GPU sizes).
TEAM_COLORS = {1: "C0", 2: "C1", 4: "C2", 64: "C0", 128: "C1", 256: "C2", 512: "C3", 1024: "C4"}


def table_slug(ctx):
    """File name of a device's table: matches kps::reduce_table_slug (name + backend)."""
    return slug(f"{ctx.get('device', 'unknown')} {ctx.get('backend', 'unknown')}")


class Config(tuple):
    """(variant, team, items, waves): waves 0 for the seed's league, W for a cap of W waves; variant
    `dynamic`: the seed's league with its teams taken by a host's threads as they free up."""

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


def sweep_points(records):
    """{type: {n: {Config: record}}} of the sweep's passed benchmarks, each record with the time
    it is tuned on as `tune_seconds`: the median wall time of the point's interleaved rounds
    (`wall_us`) where every point has it, else Google Benchmark's time for all of them (older
    JSON). The rounds time the call the tuned reduction makes, each after a cache flush on a
    GPU, and the verification compares tuned with the optimum by the same wall times; Google
    Benchmark's loop repeats the call back to back, so data up to the L2's size (12.5 million
    int32 on an H100) are read from the cache there, and another configuration wins (studies/reduce/README.md:
    int32 5·10^6, the loop's optimum 1.10 x the best wall time)."""
    sel = []
    for r in records:
        if r.get("family") != "reduce_sweep" or "error" in r or not r.get("n") or not r.get("type"):
            continue
        p = r["params"]
        if "team" not in p or "items" not in p:
            continue
        sel.append(r)
    wall = bool(sel) and all(r.get("wall_us") for r in sel)
    out = {}
    for r in sel:
        p = r["params"]
        c = Config(r["variant"], p["team"], p["items"], p.get("waves", 0))
        rec = dict(r, tune_seconds=r["wall_us"] * 1e-6 if wall else r["seconds"], tune_key="wall_us" if wall else "seconds")
        out.setdefault(r["type"], {}).setdefault(r["n"], {})[c] = rec
    return out


def launch(c, t, n, concurrency):
    """What configuration c launches at (t, n): (team, league, vector width, dynamic). The kernel
    reads nothing else (ReduceKernel: each thread's share from the team, the league and the
    width): items per thread only set the seed's league and the width (kps/reduce/dispatch.hpp:
    validate, reduce_into), so two points of the sweep with the same launch are one
    configuration measured twice. A capped point launches its cap; a dynamic one its seed's
    league, taken dynamically only past one wave (reduce_into)."""
    v = min(4, 16 // TYPE_SIZE[t])
    while v > 1 and c.items % v:
        v //= 2
    seed = min(max(1, math.ceil(n / (c.team * c.items))), MAX_LEAGUE)
    league = c.league(concurrency) if c.waves else seed
    return (c.team, league, v, c.variant == "dynamic" and league > max(1, concurrency // c.team))


def pool_equivalent(points, concurrency):
    """points (sweep_points) with the points of one launch at each (type, N) (launch) timed as
    one: each keeps its own time as `own_seconds` and is tuned on the median of its launch's
    points (`tune_seconds`). In the 16-core node's sweep of 2026-11-29 the eight points of one
    launch at double 2^20 (one wave of 16 one-thread teams reading 16-byte vectors, 2 to 32768
    items) read 22.1-36.0 us, each a median of three interleaved repetitions: the optimum of one
    size was the luckiest copy of a launch, and every size got a row of its own. Pooled, a size's
    optimum is a launch. Unchanged where the concurrency is unknown (0)."""
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


def _points(records, concurrency, pool):
    """sweep_points of the records without errors, each launch's points pooled where `pool`
    (study.json's tune block: pool_launches)."""
    points = sweep_points([r for r in records if "error" not in r])
    return pool_equivalent(points, concurrency) if pool else points


def gbps(r, seconds):
    """The bytes a call of r reads (its GB/s counter x Google Benchmark's time) over `seconds`:
    the bandwidth of the time shown beside it."""
    if r.get("GB/s") and r.get("seconds") and seconds:
        return r["GB/s"] * r["seconds"] / seconds
    return None


def config_seconds(points_n, c, n, concurrency):
    """Time of configuration c at n. A capped configuration whose cap does not bind at n was
    not run there (it launches exactly the seed's league): the seed point's time stands in."""
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


def optima(points, concurrency):
    """{type: {n: (best Config, best seconds)}}."""
    out = {}
    for t, by_n in points.items():
        for n, pts in by_n.items():
            best = min(pts, key=lambda c: (pts[c]["tune_seconds"], c))
            out.setdefault(t, {})[n] = (best, pts[best]["tune_seconds"])
    return out


def ratio(points_t, c, n, best_s, concurrency):
    s = config_seconds(points_t[n], c, n, concurrency)
    return s / best_s if s is not None and best_s > 0 else math.inf


def group_sizes(points_t, best_t, concurrency, tolerance=TOLERANCE):
    """Greedy ranges over the sorted sizes: [(sizes, Config, worst ratio)]."""
    configs = sorted({c for n in points_t for c in points_t[n]})

    def r(c, n):
        """c's time at n over n's best (inf where c has none there)."""
        return ratio(points_t, c, n, best_t[n][1], concurrency)

    def spread(n):
        """The repetitions' relative spread at n (median cv of its points)."""
        return median_cv(points_t[n].values(), next(iter(points_t[n].values()))["tune_key"])

    groups = similar_runs(points_t, lambda n: {c for c in configs if r(c, n) <= 1 + tolerance})
    out = []
    for ns, cands in groups:
        def score(c):
            rs = [r(c, n) for n in ns]
            # ties go to the static schedule: where the seed's league is one wave or less the seed's
            # point stands in for the dynamic one (config_seconds), and a row labelled dynamic from
            # that stand-in runs teams dynamically past the swept size (int32 1449..2896 on the
            # 16-core node: 17-23 teams taken dynamically, 276 us at 2^12 in the sweep against 6.2 static)
            return (max(rs), sum(rs) / len(rs), c.waves, c.variant == "dynamic", c)
        pick = min(cands, key=score)
        out.append((ns, pick, score(pick)[0]))
    # Rows that do not beat a neighbour by more than the sweep's spread at their sizes go (the
    # repetitions' spread, at least the merge tolerance: run-to-run changes exceed a run's own).
    merged = merge_within_spread(out, r, lambda n: max(tolerance, spread(n)))
    # Then, where dynamic teams are within the sweep's spread of a row's static choice at every
    # size of the row (each a league of more than one wave there, so the dynamic point itself was
    # timed, not a stand-in), they take the row: the sweep times one cache state on quiet cores,
    # and a static league waits for its slowest share. After the merge, so that a row's slower
    # dynamic choice is no baseline a neighbour merges against. A tie at zero spread goes to the
    # dynamic teams too. In the 16-core node's targets (2026-11-29) the static choice at int64 2^24
    # (four-thread teams, four waves: 240 GB/s in the sweep, 2 % ahead of one-thread teams of 8192
    # items taken dynamically, within the 10 % spread) read 112-178 GB/s beside oneTBB's 137-195,
    # 0.82-0.91 x; the dynamic teams 234 GB/s, 1.15 x (a run with a table made for it alone, not
    # committed), and the table with this rule 1.01-1.15 x in three targets runs; beside other load
    # the static rows lost most (results/h200-node-openmp16: reduce/runs/, experiments/
    # reduce-balanced-2e24, experiments/reduce-targets-loaded).
    final = []
    for ns, pick, worst in merged:
        if pick.variant != "dynamic":
            balanced = [c for c in configs if c.variant == "dynamic" and all(c in points_t[n] for n in ns)
                        and all(r(c, n) <= r(pick, n) * (1 + spread(n)) for n in ns)]
            if balanced:
                pick = min(balanced, key=lambda c: (max(r(c, n) for n in ns), sum(r(c, n) for n in ns), c))
                worst = max(r(pick, n) for n in ns)
        final.append((ns, pick, worst))
    return final


def boundaries(groups):
    """[(n_min, n_max)] covering [0, inf) for the groups (n_max None = inf)."""
    out = []
    for i, (ns, _, _) in enumerate(groups):
        lo = 0 if i == 0 else out[-1][1] + 1
        if i + 1 < len(groups):
            hi = int(math.isqrt(ns[-1] * groups[i + 1][0][0]))
            hi = max(hi, ns[-1])
            hi = min(hi, groups[i + 1][0][0] - 1)
        else:
            hi = None
        out.append((lo, hi))
    return out


def build_rows(points, best, concurrency, tolerance=TOLERANCE):
    """{type: [(n_min, n_max, Config, worst ratio, sizes)]} for the swept types, plus
    same-size copies for the others: ({type: rows}, {type: source type})."""
    return rows_by_type(points, lambda t: group_sizes(points[t], best[t], concurrency, tolerance), boundaries)


def lookup(rows_t, n):
    for lo, hi, c, _, _ in rows_t:
        if lo <= n and (hi is None or n <= hi):
            return c
    return None


def table_text(ctx, rows, source, concurrency, sweep="", command="", bench_commands=(), tolerance=TOLERANCE,
               pool=False):
    head = [
        "# kps tuning table: the tuned kps::reduce_sum / kps::dot read its reduce rows, kps::exclusive_scan's",
        "# `automatic` its scan rows (format: src/kps/tuning/table.hpp). Written by `kps tune` from the sweep below;",
        "# the ranges merge sizes whose optima are within "
        f"{tolerance:.0%} of each other (studies/reduce/README.md)"
        + ("; the points of one launch (team, league, vector width,\n# schedule) are timed as one, "
           "their median." if pool else "."),
        "kps-tuning-table 1",
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
    head.append("# reduce TYPE N_MIN       N_MAX       TEAM  ITEMS  LEAGUE  VECTOR [SCHEDULE]  # from the sweep")
    lines = []
    for t in gbench.TYPES:
        if t not in rows:
            continue
        for lo, hi, c, worst, ns in rows[t]:
            src = row_source(t, ns, source)
            note = (f"# {c.label()}; worst {worst:.3f} x best at swept N {pow2(ns[0])}..{pow2(ns[-1])}" if src == t
                    else borrowed_note(t, src, source))
            schedule = f"{c.schedule():<8} " if c.schedule() == "dynamic" else ""
            lines.append(f"reduce {t:<6} {lo:<11} {'inf' if hi is None else hi:<11} {c.team:<5} {c.items:<6} "
                         f"{c.league(concurrency):<7} {0:<7} {schedule}{note}")
    return "\n".join(head + lines) + "\n"


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


def benchmark_name(t, n, c):
    """The sweep fixture's name of configuration c at (t, n)."""
    return f"reduce_sweep/{c.variant}/{t}/{n}/team:{c.team}/items:{c.items}" + (f"/waves:{c.waves}" if c.waves else "")


def verify_filter(records, base, concurrency=0, pool=False):
    """The verification run's benchmark filter: `base` (reduce/tuned, kokkos, cub) plus each
    swept (type, N)'s optimum, re-measured in the same run so that tuned is compared with it
    under the same conditions (a machine's speed drifts between runs, a shared host's a lot)."""
    points = _points(records, concurrency, pool)  # the optima the analysis picks (pooled where the block pools)
    best = optima(points, 0)
    names = sorted(re.escape(benchmark_name(t, n, c)) for t in best for n, (c, _) in best[t].items())
    return base + ("|^(" + "|".join(names) + ")/" if names else "")


def call_seconds(*records):
    """The time of one call of each record, compared with each other: the median wall time of
    the interleaved rounds (`wall_us`: every call after a cache flush) where every record has
    it, else Google Benchmark's time (the loop's calls back to back). At 10-30 us calls the
    loop's medians over a few repetitions scatter by as much as the differences checked here
    (studies/reduce/README.md: double 50000, tuned 32.3 us in the loop, 21.2 us in its rounds)."""
    if all(r.get("wall_us") for r in records):
        return [r["wall_us"] * 1e-6 for r in records]
    return [r["seconds"] for r in records]


def verify_checks(records, best, rows, concurrency):
    """Rows of the verification table, the number of failed checks, and of sizes whose read
    target went unchecked (an older run timed no streaming read). `records`: the
    verification run (reduce/tuned, kokkos, cub and the re-measured optima)."""
    ok = [r for r in records if "error" not in r and r.get("n")]
    get = {(r["family"], r["variant"], r["type"], r["n"]): r for r in ok if r.get("family") == "reduce"}
    again = {gbench.base_name(r["name"]): r for r in ok if r.get("family") == "reduce_sweep"}
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
                same_run = again.get(benchmark_name(src, n, c))
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


def table_only(records, ctx, sweep="", command="", bench_commands=(), tolerance=TOLERANCE, pool=False):
    """The table text alone (no files written), or None without sweep results."""
    concurrency = int(ctx.get("kokkos_concurrency", 0) or 0)
    points = _points(records, concurrency, pool)
    if not points:
        return None
    rows, source = build_rows(points, optima(points, concurrency), concurrency, tolerance)
    return table_text(ctx, rows, source, concurrency, sweep, command, bench_commands, tolerance, pool)


def check_counts(records, ctx, tolerance=TOLERANCE, verify=(), pool=False):
    """(sizes whose table entry is within TARGET_BEST of the optimum, swept sizes, verified sizes
    meeting every target, verified sizes), or None without sweep results: the summary's figures."""
    concurrency = int(ctx.get("kokkos_concurrency", 0) or 0)
    points = _points(records, concurrency, pool)
    if not points:
        return None
    best = optima(points, concurrency)
    rows, _ = build_rows(points, best, concurrency, tolerance)
    total = sum(len(points[t]) for t in points)
    failed = sum(ratio(points[t], lookup(rows[t], n), n, best[t][n][1], concurrency) > TARGET_BEST
                 for t in points for n in points[t])
    vrows, vfailed, _ = verify_checks(verify, best, rows, concurrency)
    return total - failed, total, len(vrows) - vfailed, len(vrows)


def _older_form(line):
    """A line as the older format wrote it (the fingerprints of verified tables stay valid)."""
    if line.strip() == "kps-tuning-table 1":
        return "kps-reduce-table 1"
    if line.startswith("reduce "):
        t, rest = line[len("reduce "):].split(None, 1)
        return f"{t:<8} {rest}"
    return line


def fingerprint(text):
    """Identifies a table by its reduce rows and device name (not its scan rows, verified on their
    own: scan_tune.fingerprint; nor its date, command line or the device's
    compute capability and memory, added to tables later); a table of the
    older format (`kps-reduce-table 1`, rows without `reduce`) has its newer form's fingerprint."""
    body = "\n".join(_older_form(l) for l in text.splitlines()
                     if not l.startswith(("date =", "command =", "sweep =", "compute_capability =", "memory_bytes =",
                                          "#", "scan ")))
    return hashlib.sha256(body.encode()).hexdigest()


def analyze(records, ctx, outdir, sweep="", command="", bench_commands=(), link_prefix="", figures_in_md=True,
            tolerance=TOLERANCE, verify=(), pool=False):
    """Records (gbench.records of the sweep JSON) and `verify` (those of the verification run
    of this table) -> Markdown; writes CSV and PNG under outdir (image links in the Markdown
    are link_prefix + file name). Returns (markdown, table text or None, number of failed checks)."""
    outdir = Path(outdir)
    concurrency = int(ctx.get("kokkos_concurrency", 0) or 0)
    failures, ok = gbench.split_failures(records)
    points = _points(ok, concurrency, pool)
    md = ["### Tuning sweep: the seed's method\n"]  # (one level down where a report embeds it)
    if failures:
        md.append(failures)
    if not points:
        md.append("No sweep results (reduce_sweep/...) here.\n")
        return "\n".join(md), None, 0
    best = optima(points, concurrency)
    rows, source = build_rows(points, best, concurrency, tolerance)
    outdir.mkdir(parents=True, exist_ok=True)

    write_csv(outdir / "sweep.csv",
              ["type", "n", "variant", "team", "items", "waves", "league", "load_per_thread", "seconds", "GB/s",
               "loop_seconds", "loop_GB/s", "ratio_to_copy", "ratio_to_cub", "launch_seconds"],
              [[t, n, c.variant, c.team, c.items, c.waves, r.get("league"), r.get("load_per_thread"),
                r.get("own_seconds", r["tune_seconds"]), gbps(r, r.get("own_seconds", r["tune_seconds"])), r["seconds"],
                r.get("GB/s"), r.get("ratio_to_copy"), r.get("ratio_to_cub"), r["tune_seconds"]]
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
            r = ratio(points[t], chosen, n, s, concurrency)
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

    md.append("Every (team size, items per thread) with N >= team x items and, in sweeps that have it, per team size "
              "the smallest tile that covers N (a league of one team), league from the seed's relation "
              "ceil(N / (team x items)) (`seed`) or capped at W waves of teams (`capped`, W x concurrency / team); "
              "times: the median wall time of each point's interleaved rounds (on a GPU every call after a cache "
              "flush), Google Benchmark's median where the JSON has none. "
              f"Ranges merge sizes whose optima are within {tolerance:.0%}. "
              "`table / best`: the table's configuration at that N over the optimum "
              f"(target <= {TARGET_BEST}).\n")
    md.append("#### Optimum per size\n")
    md.append(markdown_table(["type", "N", "optimum", "µs", "GB/s", "table's entry", "table / best"],
                                     opt_rows))
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
    vrows, vfailed, no_read = verify_checks(verify, best, rows, concurrency)
    if vrows:
        cub = any(r[6] != "—" for r in vrows)  # CUB's peer: a CUDA run only
        head = ["type", "N", "table's entry", "GB/s", "tuned / best", "vs kokkos", "/ cub", "vs read", "vs copy",
                "check"]
        if not cub:
            vrows = [r[:6] + r[8:] for r in vrows]
            head = head[:6] + head[8:]
        md.append("\n#### Verification: reduce/tuned with the new table\n")
        md.append(f"`tuned / best`: tuned time over the sweep's optimum configuration re-measured in the same run "
                  f"(<= {TARGET_BEST}; for a type not swept, the optimum of the swept type of its size, not checked); "
                  "`vs kokkos`: Kokkos' "
                  "time over tuned (>= 1); each ratio of median wall times from the same interleaved rounds where the "
                  "JSON has them (the optimum's `ratio_to_tuned`, tuned's `ratio_to_kokkos`), else across the two "
                  "benchmarks' rounds, else from Google Benchmark's times"
                  + (f"; from 2^26: `/ cub` >= {TARGET_CUB}; at 2^28 and 2^30: `vs read` (a streaming read of the "
                     f"same bytes, timed in the same rounds) >= {READ_TARGET}; `vs copy`: the copy's read bandwidth "
                     "over tuned's, for information (a read need not reach it at 2^26: fixed per-call costs).\n" if cub else
                     "; `vs copy`: tuned's bandwidth over the copy's, for information.\n"))
        md.append(markdown_table(head, vrows))
    unread = (f" ({no_read} of them without the read target: their run timed no streaming read)"
              if no_read else "")
    md.append(f"\nChecks: the table's entry is within {TARGET_BEST} x best at "
              f"{sum(len(points[t]) for t in points) - table_failed} of {sum(len(points[t]) for t in points)} swept "
              f"sizes" + (f"; verification: {len(vrows) - vfailed} of {len(vrows)} sizes meet every target" if vrows
                          else "; no verification run") + unread + ".\n")
    if figures and figures_in_md:
        md.append("\n#### Time against load per thread (one figure per size; the star is the optimum)\n")
        md.append("\n".join(figures) + "\n")
    text = table_text(ctx, rows, source, concurrency, sweep, command, bench_commands, tolerance, pool)
    return "\n".join(md), text, table_failed + vfailed
