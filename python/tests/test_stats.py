"""kps_report.stats: the verdicts' rule (a one-sided Mann-Whitney U test over the repetitions, a
tie within 3 % where it cannot tell) and the medians over repeated runs."""
from kps_report.stats import over_runs, verdict

KPS = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1]
NOISE = [100.4, 99.6, 100.9, 99.2, 100.0, 101.1, 99.4, 100.3]


def test_within_noise_is_a_tie_and_met():
    v = verdict(KPS, [x * 0.995 for x in NOISE])
    assert v.word == "tie" and v.met() and v.n == 8


def test_clearly_slower_is_behind_and_faster_ahead():
    assert verdict(KPS, [x * 0.9 for x in NOISE]).word == "behind"
    assert not verdict(KPS, [x * 0.9 for x in NOISE]).met()
    assert verdict(KPS, [x * 1.1 for x in NOISE]).word == "ahead"


def test_scale_asks_for_a_fraction_of_the_other():
    # kps at 0.9 of the other's speed: behind it, but within 10 % by the same rule
    assert verdict(KPS, [x * 0.9 for x in NOISE], scale=1 / 0.9).met()


def test_too_few_repetitions_to_tell():
    v = verdict([100.0, 101.0], [90.0, 91.0])
    assert v.word == "undecided" and not v.met() and v.p_faster is not None
    assert verdict([100.0], [110.0]).word == "undecided" and verdict([100.0], [110.0]).met()
    assert verdict([100.0], [101.0]).word == "tie"


def test_over_runs_is_the_median_and_the_range():
    assert over_runs([1.01, None, 0.978, 0.998]) == (0.998, 0.978, 1.01)
    assert over_runs([1.0, 3.0]) == (2.0, 1.0, 3.0)
    assert over_runs([None]) is None
