"""The latency-hiding model of src/kps_models/latency_model.hpp in Python, for what the benchmarks do
not write: re-predicting a point with the block placement the probe measured (the latency
study's misses table) and the scheduler simulation's placement rule (schedsim).

Same arithmetic as the C++ (read it for the why): C(n) by mean value analysis (queueing) or
max(Z + D, n D) (a sharp knee), the oldest-first arbitration between co-resident blocks, warps
round-robin over an SM's schedulers, waves one after the other. The test
python/tests/test_latency_model.py checks every committed prediction (predicted_ms) against this
code, so the two cannot drift apart silently.
"""
from __future__ import annotations

from dataclasses import dataclass

# Warp schedulers (sub-partitions) per SM: kps::models::LatencyDevice's default and the occupancy
# limits' sub_partitions of every compute capability kps knows (6.1 to 9.0). A JSON counter
# `schedulers_per_sm` overrides it where the benchmark writes one.
SCHEDULERS_PER_SM = 4
WARP_SIZE = 32


@dataclass(frozen=True)
class Model:
    latency: float  # Z (any time unit; the predictions come out in the same)
    issue: float    # D
    sharp: bool     # Saturation::bound (max(Z + D, n D)); else queueing (MVA)


@dataclass(frozen=True)
class Device:
    sms: int
    schedulers: int = SCHEDULERS_PER_SM
    warp_size: int = WARP_SIZE
    oldest_first: bool = False


def iteration_time(m: Model, n: int) -> float:
    """C(n): time per iteration of each of n warps sharing a scheduler (mva_iteration_time)."""
    if n < 1:
        raise ValueError("latency model: at least one warp")
    if m.sharp:
        return max(m.latency + m.issue, n * m.issue)
    queue = response = 0.0
    for k in range(1, n + 1):
        response = m.issue * (1 + queue)
        queue = k / (m.latency + response) * response
    return m.latency + response


def shadow_time(m: Model, n: int, capacity: float) -> float:
    """n warps of one block when the older blocks leave it `capacity` of the bottleneck."""
    if capacity >= 1:
        return iteration_time(m, n)
    if m.sharp:
        return max(m.latency + m.issue, n * m.issue / capacity)
    return iteration_time(Model(m.latency, m.issue / capacity, False), n)


def oldest_first_time(m: Model, block_warps) -> float:
    """Time per iteration until the last warp of a scheduler holding block_warps[k] warps of the
    k-th oldest block is done (oldest_first_iteration_time)."""
    warps = [w for w in block_warps if w > 0]
    left = [1.0] * len(warps)
    elapsed = 0.0
    while True:
        capacity, times, first = 1.0, [None] * len(warps), None
        for k, w in enumerate(warps):
            if left[k] <= 0 or capacity <= 1e-12:
                continue
            times[k] = shadow_time(m, w, capacity)
            capacity -= w * m.issue / times[k]
            if first is None or left[k] * times[k] < left[first] * times[first]:
                first = k
        if first is None:
            return elapsed
        dt = left[first] * times[first]
        elapsed += dt
        for k in range(len(warps)):
            if times[k] is not None and left[k] > 0:
                rest = left[k] - dt / times[k]
                left[k] = 0.0 if k == first or rest <= 1e-12 else rest


def warps_per_block(dev: Device, team_size: int) -> int:
    return -(-team_size // dev.warp_size)


def busiest_scheduler_warps(dev: Device, blocks: int, team_size: int) -> int:
    return -(-(blocks * warps_per_block(dev, team_size)) // dev.schedulers)


def scheduler_block_warps(dev: Device, blocks: int, team_size: int, scheduler: int) -> list:
    """Warps of each of `blocks` co-resident blocks on scheduler `scheduler`: an SM's warps,
    block after block, round-robin over its schedulers."""
    w = warps_per_block(dev, team_size)
    return [sum(1 for j in range(k * w, (k + 1) * w) if j % dev.schedulers == scheduler) for k in range(blocks)]


def sm_iteration_time(m: Model, dev: Device, blocks: int, team_size: int) -> float:
    if not dev.oldest_first or blocks == 1:
        return iteration_time(m, busiest_scheduler_warps(dev, blocks, team_size))
    return max(oldest_first_time(m, scheduler_block_warps(dev, blocks, team_size, s)) for s in range(dev.schedulers))


def predict(m: Model, dev: Device, league: int, team_size: int, iterations: float, blocks_per_sm: int) -> float:
    """The launch's time (predict_latency_seconds): waves one after the other, each as long as
    its busiest SM's slowest scheduler."""
    per_wave = dev.sms * blocks_per_sm
    total, left = 0.0, league
    while left > 0:
        in_wave = min(left, per_wave)
        total += iterations * sm_iteration_time(m, dev, -(-in_wave // dev.sms), team_size)
        left -= per_wave
    return total


def from_record(r: dict, sms: int):
    """(Model in ns, Device) of a latency or occupancy-curve benchmark record (its counters)."""
    model = Model(r["calibration_latency_ns"], r["calibration_issue_ns"], bool(r.get("model_sharp_knee")))
    dev = Device(sms, int(r.get("schedulers_per_sm", SCHEDULERS_PER_SM)), WARP_SIZE, bool(r.get("model_oldest_first")))
    return model, dev


def predicted_ms(r: dict, sms: int) -> float:
    """The model's prediction of a latency benchmark's point, from its counters."""
    model, dev = from_record(r, sms)
    ns = predict(model, dev, int(r["league"]), int(r.get("team_size", r.get("threads", 32))), r["loop_iterations"],
                 int(r["blocks_per_sm"]))
    return ns * 1e-6
