"""The Python latency model (kps_report.analyses.latency_model) against the C++ model of
src/kps_models/latency_model.hpp: every prediction the benchmarks wrote into the committed JSON
(predicted_ms, from the same counters) must come out of the Python model too, and its pieces
behave as the C++ tests say (C(1) = Z + D, saturation n D, oldest-first shadows)."""
import math

import pytest

from conftest import ROOT
from kps_report import gbench
from kps_report.analyses import latency_model as lm
from kps_report.analyses.occupancy import curves

H100 = ROOT / "results" / "h100-cuda"


def committed(study):
    folder = H100 / study
    if not folder.is_dir():
        pytest.skip(f"no committed {folder}")
    return gbench.load_study(study, folder)


def test_every_committed_latency_prediction_is_reproduced():
    res = committed("latency")
    sms = int(res.context["device_compute_units"])
    pts = [r for r in res.records if "predicted_ms" in r and "calibration_latency_ns" in r]
    assert len(pts) > 1000
    oldest = sum(bool(r.get("model_oldest_first")) for r in pts)
    assert oldest > 0  # the arbitration is exercised, not only C(n)
    for r in pts:
        assert lm.predicted_ms(r, sms) == pytest.approx(r["predicted_ms"], rel=1e-9), r["name"]


def test_the_occupancy_curve_cos_predictions_are_reproduced():
    res = committed("occupancy")
    sms = int(res.context["device_compute_units"])
    n = 0
    for key, pts in curves(res.records).items():
        if key[0] != "cos":
            continue
        for p in pts:
            model, dev = lm.from_record(p, sms)
            ms = lm.predict(model, dev, int(p["league"]), key[2], p["iterations_per_team"],
                            int(p["blocks_per_sm_model"])) * 1e-6
            assert ms == pytest.approx(p["predicted_ms"], rel=1e-9), p["name"]
            n += 1
    assert n >= 16


def test_one_warp_takes_the_latency_and_many_saturate():
    for sharp in (False, True):
        m = lm.Model(latency=40.0, issue=10.0, sharp=sharp)
        assert lm.iteration_time(m, 1) == pytest.approx(50.0)
        assert lm.iteration_time(m, 64) == pytest.approx(640.0, rel=0.01)
    assert lm.iteration_time(lm.Model(40.0, 10.0, True), 5) == 50.0  # the sharp knee at (Z + D) / D
    assert lm.iteration_time(lm.Model(40.0, 10.0, False), 5) > 50.0  # the queueing knee is smooth


def test_placement_round_robin_over_schedulers():
    dev = lm.Device(sms=1)
    # 3 blocks of 5 warps: SM warps 0..14 round-robin over 4 schedulers
    assert [lm.scheduler_block_warps(dev, 3, 160, s) for s in range(4)] == [[2, 1, 1], [1, 2, 1], [1, 1, 2], [1, 1, 1]]
    assert lm.busiest_scheduler_warps(dev, 3, 160) == 4


def test_oldest_first_one_block_is_c_of_n_and_the_young_wait():
    m = lm.Model(20.0, 10.0, True)
    assert lm.oldest_first_time(m, [3]) == pytest.approx(lm.iteration_time(m, 3))
    # deep in saturation the same total work as one pool of 16 warps
    assert lm.oldest_first_time(m, [8, 8]) == pytest.approx(lm.iteration_time(m, 16))
    # just past the knee the younger block runs alone at the end, too few warps to hide the latency
    assert lm.oldest_first_time(m, [2, 2]) == pytest.approx(45.0)
    assert lm.iteration_time(m, 4) == pytest.approx(40.0)


def test_waves_add_up():
    m, dev = lm.Model(40.0, 10.0, False), lm.Device(sms=2)
    one = lm.predict(m, dev, league=2, team_size=32, iterations=100, blocks_per_sm=1)
    assert lm.predict(m, dev, league=4, team_size=32, iterations=100, blocks_per_sm=1) == pytest.approx(2 * one)
    assert one == pytest.approx(100 * 50.0)
    assert math.isclose(lm.predict(m, dev, 3, 32, 100, 1), 2 * one)  # 2 + 1 blocks: two waves
