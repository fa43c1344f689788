"""Helpers the studies' analyses share: the spread column of a table, plot points with
their spread, and the tunings' merging of sizes into table ranges."""
from __future__ import annotations

import math

from kps_report import gbench
from kps_report.text import percent

SPREAD_NOTE = (f"`cv`: the largest coefficient of variation of the row's times across repetitions; "
               f"**bold** above {gbench.NOISY_CV:.0%} (noisy: compare such rows with care).")
NO_SPREAD_NOTE = "This JSON kept medians only (no spread across repetitions)."


def has_spread(recs) -> bool:
    return any(r.get("spread") for r in recs)


def cv_cell(recs, key: str = "seconds") -> str:
    """The largest cv of `key` among the records of a table row; bold above the noise threshold."""
    cvs = [gbench.cv(r, key) for r in recs if r]
    cvs = [c for c in cvs if c is not None]
    if not cvs:
        return "—"
    worst = max(cvs)
    text = percent(worst, 1 if worst < 0.1 else 0)
    return f"**{text}**" if worst > gbench.NOISY_CV else text


def point(x, r: dict, key: str, scale: float = 1.0):
    """(x, value, (lo, hi)) of a record's value and its repetitions' range (None where unknown)."""
    if not r or r.get(key) is None:
        return (x, None)
    b = gbench.bounds(r, key)
    return (x, r[key] * scale, (b[0] * scale, b[1] * scale) if b else None)


def similar_runs(sizes, within):
    """The tunings' ranges: the sorted sizes walked upwards, kept in one run while some candidate
    stays acceptable at every size of it (`within(n)`: the set acceptable at n, e.g. within the
    merge tolerance of n's optimum). [(sizes, candidates acceptable at all of them)]."""
    groups, current, candidates = [], [], set()
    for n in sorted(sizes):
        ok = within(n)
        keep = candidates & ok
        if current and keep:
            current.append(n)
            candidates = keep
        else:
            if current:
                groups.append((current, candidates))
            current, candidates = [n], ok
    if current:
        groups.append((current, candidates))
    return groups


def merge_within_spread(groups, ratio, spread):
    """A table's rows kept only where they earn their place: a row (a run of sizes with its own
    choice) whose neighbour's choice is, at every size of the row, within the run's spread of the
    row's own (ratio(neighbour, n) <= ratio(own, n) x (1 + spread(n))) is merged into that
    neighbour, which then covers its sizes; the closest such pair first, until none is left.
    Otherwise a sweep's noise makes rows: the 2-core host's reduction table had a different
    configuration at every swept size, each "1.000 x best" at its own size alone.
    groups: [(sizes, choice, worst ratio)] in size order; ratio(choice, n): its time over the best
    at n (inf where not measured); spread(n): the run's relative spread at n (0 where unknown).
    Returns the groups after merging, each worst ratio recomputed."""
    groups = [(list(ns), c) for ns, c, _ in groups]
    while len(groups) > 1:
        best = None
        for i, (ns, own) in enumerate(groups):
            for j in (i - 1, i + 1):
                if not 0 <= j < len(groups):
                    continue
                other = groups[j][1]
                if other == own:
                    excess = 1.0
                else:
                    rs = [ratio(other, n) / ratio(own, n) for n in ns]
                    if any(r > 1 + spread(n) for r, n in zip(rs, ns)):
                        continue
                    excess = max(rs)
                if best is None or excess < best[0]:
                    best = (excess, i, j)
        if best is None:
            break
        _, i, j = best
        merged = sorted(groups[i][0] + groups[j][0])
        groups[min(i, j)] = (merged, groups[j][1])
        del groups[max(i, j)]
    return [(ns, c, max(ratio(c, n) for n in ns)) for ns, c in groups]


def median_cv(records, key="seconds"):
    """The median relative spread (cv) of `key` over records, 0 where none has one."""
    cvs = sorted(c for c in (gbench.cv(r, key) for r in records if r) if c is not None)
    return cvs[len(cvs) // 2] if cvs else 0.0


class BorrowedSizes(tuple):
    """The swept sizes of a table row that a type takes from another type of its element size
    past the end of its own sweep (`source`: that type)."""
    source = None


def row_source(t, sizes, source):
    """The type a row of t was measured on: its own, or the type it was taken from."""
    return getattr(sizes, "source", None) or source[t]


def borrowed_note(t, src, source):
    """The table comment of a row of t measured on another type, src."""
    return f"# from {src} (same element size; {t} {'not swept' if source[t] != t else 'past its sweep'})"


def optimum_type(best, t, n):
    """The type whose sweep optimum at n a verification compares t with: t's own; for a type not
    swept, or past its sweep, a swept type of its element size (for information, not checked)."""
    if n in best.get(t, {}):
        return t
    return next((s for s in best if gbench.TYPE_SIZE[s] == gbench.TYPE_SIZE[t] and n in best[s]), None)


BORROWING_TYPES = ("int32", "int64", "float", "double")


def rows_by_type(points, group, bounds):
    """A tuning table's rows: for each swept type t, group(t) -> [(sizes, entry, worst ratio)]
    and bounds(groups) -> [(n_min, n_max)]; a type not swept takes the rows of the swept type
    of its element size, and a type whose sweep stops below such a type's (an int64 sweep of the
    caches beside double's that reaches past them) takes that type's rows past its own last size,
    from the geometric mean of its last size and the other type's next (their sizes a
    BorrowedSizes naming the type: row_source). ({type: [(n_min, n_max, entry, worst ratio,
    sizes)]}, {type: source type})."""
    rows, source = {}, {}
    for t in gbench.TYPES:
        if t in points:
            gs = group(t)
            rows[t] = [(lo, hi, c, worst, ns) for (lo, hi), (ns, c, worst) in zip(bounds(gs), gs)]
            source[t] = t
    for t in list(rows):
        top = max(points[t])
        longer = [s for s in rows if s != t and gbench.TYPE_SIZE[s] == gbench.TYPE_SIZE[t] and max(points[s]) > top]
        if not longer or not rows[t]:
            continue
        s = longer[0]
        above = min(n for n in points[s] if n > top)
        cut = min(max(math.isqrt(top * above), top), above - 1)
        lo, _, c, worst, ns = rows[t][-1]
        tail = []
        for lo_s, hi_s, c_s, worst_s, ns_s in rows[s]:
            if hi_s is not None and hi_s <= cut:
                continue
            sizes = BorrowedSizes(ns_s)
            sizes.source = s
            tail.append((max(lo_s, cut + 1), hi_s, c_s, worst_s, sizes))
        rows[t] = rows[t][:-1] + [(lo, cut, c, worst, ns)] + tail
    # Only today's four types borrow: a table's other types (int8, uint32, ...) find a same-size
    # type's rows through the lookup's own chain (src/kps/tuning/table.hpp), so their rows need no copy.
    for t in BORROWING_TYPES:
        if t not in rows:
            same = [s for s in rows if gbench.TYPE_SIZE[s] == gbench.TYPE_SIZE[t] and source[s] == s]
            if same:
                rows[t], source[t] = rows[same[0]], same[0]
    return rows, source
