"""Scan tuning analysis: the tuning table's scan rows from `kps tune`'s scan sweep
(scan_tune/single_pass/<type>/<N>/team:T/items:I/delay:D/poll:P/prefetch:F and
scan_tune/kokkos/<type>/<N>, each point timed alone in rounds of its own call, every call after a
cache flush; GPUs only).

1. Optimum per (type, N): the single pass's configuration, or Kokkos' scan, with the smallest
   median time of its rounds.
2. Ranges: sizes are walked upwards and kept in one range while some choice stays within the
   merge tolerance (3 %) of every size's optimum; the range's entry is the choice whose worst
   ratio to the optimum over the range is smallest. Rows cover the swept sizes only: from the
   first swept N to twice the last, split at the geometric mean of neighbouring ranges' sizes;
   elsewhere the rule decides (kps::impl::scan_rule: its defaults come from the 2^28 sweeps).
3. Rows (format: src/kps/tuning/table.hpp, `scan` rows) for every swept type; a type that was not
   swept takes the rows of the swept type of its element size (float from int32, int64 from
   double), as the single pass's tiles and status words depend on the size alone.
4. Checks: the table's entry at each swept N within 5 % of that N's optimum; and, from the
   verification run with the new table (scan_tune/automatic, Kokkos' scan and each optimum
   re-measured, all timed alone as the sweep's points are; scan/automatic with CUB in its rounds,
   for information), `automatic` within 5 % of the optimum (swept types) and not slower than
   Kokkos' scan by more than that.
"""
from __future__ import annotations

import hashlib
import math
import re

from kps_report import gbench
from kps_report.analyses import reduce_tune
from kps_report.analyses.common import (borrowed_note, median_cv, merge_within_spread, optimum_type, row_source,
                                        rows_by_type, similar_runs)
from kps_report.text import fmt, markdown_table, pow2

TOLERANCE = reduce_tune.TOLERANCE
TARGET_BEST = reduce_tune.TARGET_BEST
TYPE_SIZE = gbench.TYPE_SIZE
FAMILY = "scan_tune"


class Choice(tuple):
    """(algorithm, team, items, delay, poll, prefetch, load, store): the knobs of a table's scan
    row (load: staged tiles on GPUs, cached tiles on host backends; store: how the tiles write,
    ordinary or the backend's streaming stores)."""

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

    def row(self, t, lo, hi):
        """The table line's fields (a Kokkos row carries the single pass's best knobs for its
        range: what an explicit single_pass call there takes)."""
        items = self.items or (64 if TYPE_SIZE[t] <= 4 else 32)  # (a Kokkos row without single-pass points: the rule's)
        line = (f"scan {t:<6} {lo:<9} {'inf' if hi is None else hi:<9} {self.algorithm:<12} {self.team:<4} "
                f"{items:<5} {self.load:<6} {self.delay:<5} {self.poll:<4} {self.prefetch:<8}")
        return line + (f" {self.store:<9}" if self.load == "cached" or self.store == "streaming" else "")


KOKKOS = Choice("kokkos")


def benchmark_name(t, n, c):
    if c.algorithm == "kokkos":
        return f"{FAMILY}/kokkos/{t}/{n}"
    if c.load == "cached":
        return f"{FAMILY}/single_pass/{t}/{n}/team:{c.team}/items:{c.items}/store:{int(c.store == 'streaming')}"
    return (f"{FAMILY}/single_pass/{t}/{n}/team:{c.team}/items:{c.items}/delay:{c.delay}/poll:{c.poll}"
            f"/prefetch:{c.prefetch}" + ("/store:1" if c.store == "streaming" else ""))


def peer_wrong(r):
    """Whether a record is a peer's (Kokkos' scan) timed with a wrong result (wrong_<variant>: kps-bench
    times it and marks it, as a peer in the rounds): its time is no point of the sweep or the
    verification."""
    return bool(r.get(f"wrong_{r.get('variant')}"))


def sweep_points(records):
    """{type: {n: {Choice: seconds}}} of the sweep's passed points (the median of each point's
    rounds: gbench.records' `seconds`)."""
    out = {}
    for r in records:
        if r.get("family") != FAMILY or "error" in r or not r.get("n") or not r.get("type") or peer_wrong(r):
            continue
        if r.get("variant") == "kokkos":
            c = KOKKOS
        elif r.get("variant") != "single_pass":  # (automatic: the verification's)
            continue
        else:
            p = r.get("params", {})
            if all(k in p for k in ("team", "items", "delay", "poll", "prefetch")):  # a GPU's staged tiles
                c = Choice("single_pass", p["team"], p["items"], p["delay"], p["poll"], p["prefetch"],
                           store="streaming" if int(p.get("store", 0)) else "cached")
            elif all(k in p for k in ("team", "items", "store")):  # a host's cached tiles
                c = Choice("single_pass", p["team"], p["items"], load="cached",
                           store="streaming" if int(p["store"]) else "cached")
            else:
                continue
        out.setdefault(r["type"], {}).setdefault(r["n"], {})[c] = r["seconds"]
    return out


def sweep_spreads(records):
    """{type: {n: the median cv of the sweep's points at n}} (0 where the JSON kept no spread)."""
    by = {}
    for r in records:
        if r.get("family") == FAMILY and "error" not in r and r.get("n") and r.get("type") and not peer_wrong(r):
            by.setdefault(r["type"], {}).setdefault(r["n"], []).append(r)
    return {t: {n: median_cv(rs) for n, rs in by_n.items()} for t, by_n in by.items()}


def optima(points):
    """{type: {n: (best Choice, seconds)}}."""
    return {t: {n: min(pts.items(), key=lambda cs: (cs[1], cs[0])) for n, pts in by_n.items()}
            for t, by_n in points.items()}


def _ratio(pts, c, best_s):
    s = pts.get(c.key())
    return s / best_s if s is not None and best_s > 0 else math.inf


def group_sizes(points_t, best_t, tolerance=TOLERANCE, spread_t=None):
    """Greedy ranges over the sorted sizes, then the rows that do not beat a neighbour by more
    than the sweep's spread at their sizes merged into it (common.merge_within_spread; the spread
    is at least the merge tolerance): [(sizes, Choice, worst ratio)]."""
    groups = similar_runs(points_t, lambda n: {c for c in points_t[n]
                                               if _ratio(points_t[n], c, best_t[n][1]) <= 1 + tolerance})
    out = []
    for ns, cands in groups:
        def score(c, best=lambda n: best_t[n][1]):
            rs = [_ratio(points_t[n], c, best(n)) for n in ns]
            return (max(rs), sum(rs) / len(rs), c)
        pick = min(cands, key=score)
        worst = score(pick)[0]
        if pick == KOKKOS:
            # The row's single-pass knobs: the single pass's best over the range, against its
            # best at each size.
            sp = {c for n in ns for c in points_t[n] if c != KOKKOS}
            sp_best = {n: min((s for c, s in points_t[n].items() if c != KOKKOS), default=math.inf) for n in ns}
            if sp:
                pick = min(sp, key=lambda c: score(c, lambda n: sp_best[n])).with_algorithm("kokkos")
        out.append((ns, pick, worst))
    return merge_within_spread(out, lambda c, n: _ratio(points_t[n], c, best_t[n][1]),
                               lambda n: max(tolerance, (spread_t or {}).get(n, 0.0)))


def boundaries(groups):
    """[(n_min, n_max)]: from the first swept size to twice the last, split at geometric means."""
    out = []
    for i, (ns, _, _) in enumerate(groups):
        lo = ns[0] if i == 0 else out[-1][1] + 1
        if i + 1 < len(groups):
            nxt = groups[i + 1][0][0]
            hi = min(max(int(math.isqrt(ns[-1] * nxt)), ns[-1]), nxt - 1)
        else:
            hi = 2 * ns[-1] - 1
        out.append((lo, hi))
    return out


def build_rows(points, best, tolerance=TOLERANCE, spreads=None):
    """({type: [(n_min, n_max, Choice, worst ratio, sizes)]}, {type: source type})."""
    return rows_by_type(points, lambda t: group_sizes(points[t], best[t], tolerance, (spreads or {}).get(t)),
                        boundaries)


def lookup(rows_t, n):
    for lo, hi, c, _, _ in rows_t:
        if lo <= n <= hi:
            return c
    return None


def row_lines(rows, source, tolerance=TOLERANCE):
    """The table's scan rows, with their heading."""
    if not rows:
        return []
    lines = [f"# Scan rows (kps::exclusive_scan's `automatic`), from the scan sweep: ranges merge sizes whose optima "
             f"are within {tolerance:.0%};",
             "# sizes no row covers use kps::impl::scan_rule.",
             "# scan TYPE N_MIN     N_MAX     ALGORITHM    TEAM ITEMS LOAD   DELAY POLL PREFETCH"]
    for t in gbench.TYPES:
        for lo, hi, c, worst, ns in rows.get(t, []):
            src = row_source(t, ns, source)
            note = (f"# {c.label()}; worst {worst:.3f} x best at swept N {pow2(ns[0])}..{pow2(ns[-1])}" if src == t
                    else borrowed_note(t, src, source))
            lines.append(f"{c.row(t, lo, hi)} {note}")
    return lines


def fingerprint(text):
    """Identifies a table's scan rows (their fields, not their spacing or comments) and its device:
    a verification run of the scan rows stays valid whatever the reduce rows
    (reduce_tune.fingerprint ignores the scan rows likewise)."""
    body = "\n".join(" ".join(l.split("#")[0].split()) for l in text.splitlines()
                     if l.startswith("scan ") or l.startswith(("device =", "backend =")))
    return hashlib.sha256(body.encode()).hexdigest()


def verify_filter(records, base):
    """The verification run's filter: `base` (scan/automatic with its peers, and scan_tune/automatic
    and kokkos, timed alone as the sweep's points are) plus each swept (type, N)'s optimum,
    re-measured in the same run."""
    best = optima(sweep_points(records))
    names = sorted(re.escape(benchmark_name(t, n, c)) for t in best for n, (c, _) in best[t].items())
    return base + ("|^(" + "|".join(names) + ")/" if names else "")


def verify_checks(records, best, rows):
    """Rows of the verification table and the number of sizes failing a check. `automatic /
    best` and `vs kokkos` compare times taken alike: scan_tune/automatic, the optimum and Kokkos'
    scan each timed alone in the same run (a run without scan_tune/automatic: scan/automatic's
    time and its ratio to Kokkos in its own rounds); CUB's ratios come from scan/automatic's
    rounds."""
    ok = [r for r in records if "error" not in r and r.get("n") and not peer_wrong(r)]
    kokkos_wrong = {gbench.base_name(r["name"]) for r in records if peer_wrong(r)}
    # automatic's own failed checks: each a failed size of the verification.
    auto_failed = {(r["type"], r["n"]): r["error"] for r in records
                   if "error" in r and r.get("n") and r.get("variant") == "automatic"
                   and r.get("family") in (FAMILY, "scan")}
    peers = {(r["type"], r["n"]): r for r in ok if r.get("family") == "scan" and r.get("variant") == "automatic"}
    alone = {(r["type"], r["n"]): r for r in ok if r.get("family") == FAMILY and r.get("variant") == "automatic"}
    again = {gbench.base_name(r["name"]): r for r in ok if r.get("family") == FAMILY}
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
            kokkos = again.get(benchmark_name(t, n, KOKKOS))
            vs_kokkos = (kokkos["seconds"] / a["seconds"] if a and kokkos else
                         (p.get("ratio_to_kokkos") if p else None))
            # Kokkos' result wrong (timed alone or in the rounds): no comparison with it.
            if benchmark_name(t, n, KOKKOS) in kokkos_wrong or (p and p.get("wrong_kokkos")):
                vs_kokkos = "Kokkos wrong"
            if isinstance(vs_kokkos, float) and vs_kokkos < 1 / TARGET_BEST:
                marks.append("slower than Kokkos")
            src = optimum_type(best, t, n)
            vs_text = "—"
            mine = a or p
            if src and n in best[src]:
                c, best_s = best[src][n]
                same_run = again.get(benchmark_name(src, n, c))
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


def table_lines(records, tolerance=TOLERANCE):
    """The table's scan rows made from the sweep's records (none without sweep results)."""
    points = sweep_points(records)
    return row_lines(*build_rows(points, optima(points), tolerance, sweep_spreads(records)), tolerance) if points else []


def analyze(records, tolerance=TOLERANCE, verify=()):
    """(Markdown, table lines, failed checks) of the scan sweep, or None without one."""
    points = sweep_points(records)
    if not points:
        return None
    best = optima(points)
    rows, source = build_rows(points, best, tolerance, sweep_spreads(records))
    host = any(c.load == "cached" for by_n in points.values() for pts in by_n.values() for c in pts)
    what = ("cached tiles (team x items per thread) with ordinary or streaming stores, and Kokkos' scan; each timed "
            "alone, the median of its rounds" if host else
            "staged tiles (team x items), the look-back's sleep before its first read and between polls, an L2 "
            "prefetch of the tile 64 ahead or none, and Kokkos' scan; each timed alone, the median of its rounds "
            "(every call after a cache flush)")
    md = ["### Scan rows: the single pass's knobs by size\n",
          f"Every point of `scan_tune`: {what}. Rows that do not beat a neighbouring row's choice by more than the "
          "sweep's spread at their sizes (the repetitions' median cv, at least the merge tolerance) are merged into it. "
          f"Ranges merge sizes whose optima are within {tolerance:.0%}; `table / best`: the table's entry at that N "
          f"over the optimum (target <= {TARGET_BEST}); `Kokkos / best`: Kokkos' scan over the optimum.\n"]
    opt_rows, table_failed = [], 0
    for t in gbench.TYPES:
        for n in sorted(points.get(t, {})):
            c, s = best[t][n]
            chosen = lookup(rows[t], n)
            r = _ratio(points[t][n], chosen, s)
            table_failed += r > TARGET_BEST
            kk = points[t][n].get(KOKKOS)
            opt_rows.append([t, pow2(n), c.label(), fmt(s * 1e6), fmt(2.0 * n * TYPE_SIZE[t] / s / 1e9),
                             chosen.label(), fmt(r) + ("" if r <= TARGET_BEST else " (!)"),
                             fmt(kk / s) if kk else "—"])
    md.append(markdown_table(["type", "N", "optimum", "µs", "GB/s", "table's entry", "table / best", "Kokkos / best"],
                             opt_rows))
    trows = [[t, lo, hi, c.label(), f"{pow2(ns[0])}..{pow2(ns[-1])}" if src == t else f"from {src}",
              fmt(worst) if src == t else "—"]
             for t in gbench.TYPES for lo, hi, c, worst, ns in rows.get(t, []) for src in [row_source(t, ns, source)]]
    md.append("\n#### Scan rows of the table\n")
    md.append(markdown_table(["type", "n_min", "n_max", "entry", "swept sizes", "worst / best"], trows))
    vrows, vfailed = verify_checks(verify, best, rows)
    if vrows:
        # CUB's columns where a peer of the rounds is CUB (a GPU's), none on a host.
        cub = any(r[6] != "—" or r[7] != "—" for r in vrows)
        if not cub:
            vrows = [r[:6] + r[8:] for r in vrows]
        md.append("\n#### Verification: scan/automatic with the new table\n")
        md.append(f"`automatic / best`: automatic's time over the sweep's optimum re-measured in the same run, both "
                  f"timed alone as the sweep's points are (<= {TARGET_BEST}; for a type not swept, the optimum of the "
                  "swept type of its size, not checked; `(with peers)`: a run that timed automatic only in "
                  "scan/automatic's rounds, among its peers); "
                  f"`vs kokkos`: Kokkos' time over automatic's, likewise (>= {1 / TARGET_BEST:.2f}; with peers: in "
                  "the same rounds)" + ("; `/ cub`, `/ cub_cccl`: CUB's time over automatic's in the rounds of "
                                        "scan/automatic, for information (the study's targets table holds the targets)"
                                        if cub else "") + ".\n")
        md.append(markdown_table(["type", "N", "table's entry", "µs", "automatic / best", "vs kokkos"]
                                 + (["/ cub", "/ cub_cccl"] if cub else []) + ["check"], vrows))
    total = sum(len(points[t]) for t in points)
    md.append(f"\nScan checks: the table's entry is within {TARGET_BEST} x best at {total - table_failed} of {total} "
              f"swept sizes" + (f"; verification: {len(vrows) - vfailed} of {len(vrows)} sizes pass" if vrows
                                else "; no verification run of the scan rows") + ".\n")
    return "\n".join(md), row_lines(rows, source, tolerance), table_failed + vfailed
