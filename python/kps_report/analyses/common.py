"""Helpers the studies' analyses share: the spread column of a table and plot points with
their spread."""
from __future__ import annotations

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
