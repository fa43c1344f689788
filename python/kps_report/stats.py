"""The verdicts of the reports: whether kps is ahead of a peer, behind it, or a tie, decided by a
stated rule over the repetitions of a comparison (Google Benchmark's compare.py decides the
same way), not by bare medians.

The rule (`verdict`): a one-sided Mann-Whitney U test (scipy.stats.mannwhitneyu) of kps' times
against the peer's, over the repetitions of the same interleaved rounds (each repetition's median
round of each call): `ahead` where kps' times are smaller at p < 0.05, `behind` where the peer's
are, `tie` where neither is and the median ratio (the peer's time over kps') is within 3 % of 1,
and `undecided` where neither is and the ratio is further off (too few repetitions to tell). A
target ">= 1.0 x" is met by `ahead`, by `tie`, and by `undecided` with a ratio of at least 1; so is
"within 10 %" of a reference by the same rule, the reference's times scaled by 1 / 0.9.

Where a job was run several times (`kps run --runs K`), a figure is the median over the runs with
their range (`over_runs`), and a verdict pools the runs' repetitions.
"""
from __future__ import annotations

from dataclasses import dataclass
from statistics import median
from typing import Optional, Sequence

ALPHA = 0.05
TIE_BAND = 0.03


@dataclass(frozen=True)
class Verdict:
    """A comparison's verdict: `ahead`, `behind`, `tie` or `undecided` (kps_report.stats), the
    median ratio (the other's time over kps': above 1, kps is faster), the one-sided p-values
    (kps faster, the other faster; None where there were too few repetitions) and the repetitions."""
    word: str
    ratio: float
    p_faster: Optional[float]
    p_slower: Optional[float]
    n: int

    def met(self) -> bool:
        """Whether a target "kps >= 1.0 x the other" (after `scale`) is met by the rule."""
        return self.word in ("ahead", "tie") or (self.word == "undecided" and self.ratio >= 1.0)

    def text(self) -> str:
        p = f", p = {min(self.p_faster, self.p_slower):.3g}" if self.p_faster is not None else ""
        return f"{self.word} ({self.ratio:.3g}x{p}, {self.n} repetitions)"


def verdict(kps: Sequence[float], other: Sequence[float], scale: float = 1.0) -> Verdict:
    """The verdict of kps' times against another call's over the same repetitions (`scale`: the
    other's times are compared as other x scale: 1 / 0.9 asks whether kps' time is within 10 % of
    the other's, its ratio at least 0.9)."""
    kps = [float(x) for x in kps if x is not None]
    other = [float(x) * scale for x in other if x is not None]
    if not kps or not other:
        raise ValueError("a verdict needs times of both calls")
    ratio = median(other) / median(kps)
    p_faster = p_slower = None
    if min(len(kps), len(other)) >= 2:
        from scipy.stats import mannwhitneyu  # the one statistics library the reports take

        p_faster = float(mannwhitneyu(kps, other, alternative="less").pvalue)
        p_slower = float(mannwhitneyu(kps, other, alternative="greater").pvalue)
    if p_faster is not None and p_faster < ALPHA:
        word = "ahead"
    elif p_slower is not None and p_slower < ALPHA:
        word = "behind"
    elif abs(ratio - 1.0) <= TIE_BAND:
        word = "tie"
    else:
        word = "undecided"
    return Verdict(word, ratio, p_faster, p_slower, min(len(kps), len(other)))


def over_runs(values) -> Optional[tuple]:
    """(median, min, max) of one figure over the runs that have it (None values: runs without it);
    None where no run has it."""
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    return median(v), v[0], v[-1]
