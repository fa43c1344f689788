"""Memory latency and the bytes in flight it asks for (Little's law), from the scan study's JSON:
the memory-latency probe (memory_latency/chase/<bytes>: one thread's chain of dependent loads over
a footprint) and the copy of the same run's sweep (the device's streaming bandwidth). A stream of
reads at bandwidth B over a memory of latency L has L x B bytes requested and not yet returned at
any moment; a copy reads half of the bytes it moves (its writes are posted: nothing waits on
them), so the reads a scan must keep in flight to run at the copy's pace are L x B_copy / 2, per
compute unit (SM; a core on a CPU) that over their count. Reads only the JSON."""
from __future__ import annotations

from pathlib import Path

from kps_report import gbench
from kps_report.analyses import tune
from kps_report.text import fmt, markdown_table, pow2

# The probe's footprint counts as "memory" from this multiple of the last-level cache: the
# chain's lines are then almost never cached.
BEYOND_CACHE = 4
# The sizes where the tuning sweeps the L2 prefetch's points alone (studies/scan/study.json).
MODEL_FROM = 1 << 26
# A loaded point is a latency under load only where the copy beside the chain moved at least this
# share of the device's copy (the sweep's copy/kokkos at its largest N): below it the copy ran
# beside the chain but did not load the memory (the H200's first run of the probe: 52-63 GB/s against
# the copy's 3.8 TB/s, each load timed at 44 us), and the idle latency stays the model's.
LOADED_MIN_SHARE = 0.5


def last_level_cache(ctx: dict) -> int:
    """Bytes of the last-level cache: a GPU's L2 (device_l2_bytes), else the largest cache in
    Google Benchmark's list; 0 if neither is known."""
    if ctx.get("device_l2_bytes"):
        return int(float(ctx["device_l2_bytes"]))
    sizes = [int(c.get("size", 0)) for c in ctx.get("caches") or [] if isinstance(c, dict)]
    return max(sizes, default=0)


def compute_units(ctx: dict) -> int:
    for key in ("device_compute_units", "kokkos_concurrency"):
        try:
            if int(float(ctx.get(key) or 0)) > 0:
                return int(float(ctx[key]))
        except (TypeError, ValueError):
            pass
    return 0


def latencies(records, variant: str = "chase") -> list:
    """[(footprint bytes, latency ns, record)] of the probe (`chase`: the chain alone; `loaded`:
    beside the space's copy, where every call had the copy running: unloaded_calls 0), sorted by
    footprint."""
    out = []
    for r in records:
        if (r.get("family") == "memory_latency" and r.get("variant", "chase") == variant and "error" not in r
                and r.get("latency_ns") and not r.get("unloaded_calls")):
            out.append((int(r.get("footprint_bytes") or r["n"]), float(r["latency_ns"]), r))
    return sorted(out, key=lambda x: x[0])


def loaded_split(records):
    """(kept, rejected) loaded points, as latencies(records, "loaded"): rejected are those whose
    copy moved less than LOADED_MIN_SHARE of the device's copy (copy_bandwidth); with no copy in
    the records every point is kept."""
    points = latencies(records, "loaded")
    bw = copy_bandwidth(records)
    if bw is None:
        return points, []
    floor = LOADED_MIN_SHARE * bw[2]
    kept = [p for p in points if float(p[2].get("copy_GBps") or 0) >= floor]
    return kept, [p for p in points if float(p[2].get("copy_GBps") or 0) < floor]


def memory_latency(latency_points, cache_bytes: int):
    """(footprint, ns) of memory: the smallest footprint of at least BEYOND_CACHE x the
    last-level cache, else None (the probe did not reach memory)."""
    if not cache_bytes:
        return None
    far = [(b, ns) for b, ns, _ in latency_points if b >= BEYOND_CACHE * cache_bytes]
    return far[0] if far else None


def copy_bandwidth(records):
    """(N, type, GB/s) of the copy at the largest N of the sweep (the fastest type there), else None."""
    copies = [r for r in records if r.get("family") == "copy" and r.get("variant") == "kokkos"
              and "error" not in r and r.get("GB/s") and r.get("n")]
    if not copies:
        return None
    n = max(r["n"] for r in copies)
    best = max((r for r in copies if r["n"] == n), key=lambda r: r["GB/s"])
    return n, best["type"], float(best["GB/s"])


def little(latency_ns: float, copy_gbs: float, units: int) -> dict:
    """Little's law for the copy's reads: bytes in flight on the device and per compute unit."""
    device = latency_ns * 1e-9 * copy_gbs * 1e9 / 2
    return {"device_bytes": device, "per_unit_bytes": device / units if units else None}


def predicted_tile(required_bytes: float, prefetch: int, tile_bytes) -> int | None:
    """The smallest of the swept tile sizes (bytes) whose prefetch keeps the required reads in
    flight: `prefetch` tiles ahead of the tiles in progress, each tile's input requested from
    memory and not yet in L2, hold prefetch x tile bytes; None if no tile suffices."""
    fit = sorted(b for b in set(tile_bytes) if prefetch * b >= required_bytes)
    return fit[0] if fit else None


def model_rows(required_bytes: float, tune_records) -> list:
    """[(type, N, best Choice, its tile bytes, predicted tile bytes, steps apart)] for the
    tuning sweep's sizes from MODEL_FROM, where the best point prefetches: steps apart counts the
    distinct swept tile sizes between the prediction and the sweep's best (0: the same size)."""
    points = tune.SCAN.sweep_points(tune_records)
    best_of = tune.optima(points)
    out = []
    for t, by_n in sorted(points.items()):
        size = gbench.TYPE_SIZE.get(t)
        if not size:
            continue
        for n, pts in sorted(by_n.items()):
            if n < MODEL_FROM:
                continue
            best, _ = best_of[t][n]
            if best.algorithm != "single_pass" or not best.prefetch:
                continue
            sizes = sorted({c.team * c.items * size for c in pts if c.algorithm == "single_pass" and c.prefetch})
            best_bytes = best.team * best.items * size
            pred = predicted_tile(required_bytes, best.prefetch, sizes)
            steps = abs(sizes.index(pred) - sizes.index(best_bytes)) if pred is not None else None
            out.append((t, n, best, best_bytes, pred, steps))
    return out


def model_section(required_bytes: float, tune_records) -> str:
    rows = model_rows(required_bytes, tune_records)
    if not rows:
        return ""
    table = [[t, pow2(n), f"{best.team} x {best.items}, {best.prefetch} ahead", fmt(b / 1024),
              fmt(best.prefetch * b / 2**20), fmt(pred / 1024) if pred else "none",
              "—" if steps is None else str(steps)] for t, n, best, b, pred, steps in rows]
    within = sum(1 for *_, steps in rows if steps is not None and steps <= 1)
    return ("#### The prefetch's bytes in flight against the tuning sweep\n\n"
            "Model: the L2 prefetch keeps `prefetch` tiles' input requested ahead of the tiles in progress, "
            "so the smallest tile whose prefetch holds the reads in flight above is the one the sweep should "
            f"pick (the sweep's tile sizes; `steps`: swept tile sizes between the two). Within one step at "
            f"{within} of {len(rows)} sizes (the tuning folder `reduce/tune`, sizes from {pow2(MODEL_FROM)}).\n\n"
            + markdown_table(["type", "N", "sweep's best", "tile KiB", "prefetched MiB", "model's tile KiB",
                              "steps"], table) + "\n")


def tune_records(results) -> list:
    """The records of the tuning folder beside the scan study's (<machine>/reduce/tune), if any."""
    folder = getattr(results, "folder", None)
    tune = Path(folder).parent / "reduce" / "tune" if folder else None
    if tune is None or not tune.is_dir():
        return []
    return gbench.load_study("tune", tune).records


def section(results) -> str:
    ctx, records = results.context, results.records
    points = latencies(records)
    if not points:
        return ""
    cache = last_level_cache(ctx)
    kept, rejected = loaded_split(records)
    loaded = {b: (ns, r) for b, ns, r in kept + rejected}
    not_loaded = {b for b, _, _ in rejected}
    md = ["### Memory latency and the bytes in flight it asks for\n",
          "`memory_latency/chase/<bytes>`: one thread follows a chain of dependent loads over a footprint of "
          "that many bytes (lines of 128 bytes in random order within 2 MiB blocks, "
          "`bench/kernels/pointer_chase.hpp`); the time per load is the latency of the level the footprint "
          f"lives in. Last-level cache: {fmt(cache / 2**20) + ' MiB' if cache else 'unknown'}."
          + (" `memory_latency/loaded/<bytes>`: the same chain while the space's other teams copy a buffer past "
             "the last-level cache (`under load`; `copy GB/s`: the copy's read + write meanwhile): the latency "
             "of a load queued behind a streaming memory, the one Little's law asks for at the copy's pace."
             if loaded else "") + "\n",
          markdown_table(["footprint", "latency ns"] + (["under load ns", "copy GB/s"] if loaded else [])
                         + ["x last-level cache"],
                         [[_bytes(b), fmt(ns)]
                          + ([fmt(loaded[b][0]) + (" (not loaded)" if b in not_loaded else ""),
                              fmt(loaded[b][1].get("copy_GBps"))] if b in loaded else
                             ["—", "—"] if loaded else [])
                          + [fmt(b / cache) if cache else "—"] for b, ns, _ in points]) + "\n"]
    if rejected:
        bw = copy_bandwidth(records)
        md.append(f"Not loaded: at {len(rejected)} footprint(s) the copy beside the chain moved "
                  f"{fmt(min(float(r.get('copy_GBps') or 0) for _, _, r in rejected))}-"
                  f"{fmt(max(float(r.get('copy_GBps') or 0) for _, _, r in rejected))} GB/s, less than "
                  f"{fmt(LOADED_MIN_SHARE)} x the copy's {fmt(bw[2])} GB/s ({pow2(bw[0])} {bw[1]}): the chain "
                  "did not wait behind a streaming memory there, so those times are no latency under load and "
                  "Little's law below takes the idle latency.\n")
    far = memory_latency(points, cache)
    far_loaded = memory_latency(kept, cache)
    idle = far
    if far_loaded is not None:
        far = far_loaded
    bw = copy_bandwidth(records)
    units = compute_units(ctx)
    if far is None:
        md.append(f"No footprint of {BEYOND_CACHE} x the last-level cache or more: the probe did not reach "
                  "memory, so no bytes-in-flight figure.\n")
    elif bw is None:
        md.append("No copy in this folder's sweep: no bandwidth for Little's law.\n")
    else:
        n, t, gbs = bw
        lw = little(far[1], gbs, units)
        per = lw["per_unit_bytes"]
        md.append(
            f"Little's law: the copy of {pow2(n)} {t} elements moves {fmt(gbs)} GB/s (read + write), so its "
            f"reads run at {fmt(gbs / 2)} GB/s; at {fmt(far[1])} ns "
            + (f"under load (footprint {_bytes(far[0])}; {fmt(idle[1])} ns idle: "
               f"{_bytes(little(idle[1], gbs, units)['device_bytes'])})"
               if far_loaded is not None and idle is not None else f"(footprint {_bytes(far[0])})")
            + " that is "
            f"**{_bytes(lw['device_bytes'])} of reads in flight** on the device"
            + (f", **{_bytes(per)} per compute unit** ({units} units)" if per else "")
            + ": what a scan's tiles in progress must have requested and not yet received, at every moment, "
            "to read at the copy's pace.\n")
        md.append(model_section(lw["device_bytes"], tune_records(results)))
    return "\n".join(md)


def _bytes(b: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if b >= size:
            return f"{fmt(b / size)} {unit}"
    return f"{fmt(b)} B"
