"""Latency-hiding study: the seed's table with the model's prediction beside each measurement
(GPU), the model's error over the whole sweep, the points it misses re-predicted with the block
placement the probe measured, Kokkos against its native CUDA twin, instruction-level parallelism;
on a host backend the time against teams per core. Reads only the JSON (the predictions are the
benchmarks' counters; latency_model re-predicts with measured placements)."""
from __future__ import annotations

import re
import statistics

from kps_report import gbench, plots
from kps_report.analyses import Headline
from kps_report.analyses import latency_model as lm
from kps_report.analyses.common import NO_SPREAD_NOTE, SPREAD_NOTE, cv_cell, has_spread, point
from kps_report.machine import is_gpu
from kps_report.text import fmt, join_parts, markdown_table

NAME = re.compile(r"latency/(?P<impl>\w+)/(?P<math>\w+)/chains:(?P<chains>\d+)/threads:(?P<threads>\d+)"
                  r"/teams:(?P<teams>\w+)")
LEAGUES = ["1", "sm", "2sm", "3sm"]
# The seed (GTX 1080 Ti, 28 SMs, 10 x 2^20 iterations), ms: threads -> (1 block, 28 blocks, 56 blocks)
SEED = {128: (897, 899, 929), 256: (926, 928, 1093), 384: (968, 1005, 1293), 512: (1022, 1091, 1644),
        640: (1084, 1189, 2056), 768: (1171, 1295, 2441), 896: (1337, 1472, 2797), 1024: (1494, 1638, 3145)}
SEED_ITERATIONS = 10 * 2 ** 20


def points(records) -> list:
    out = []
    for r in records:
        m = NAME.match(r["name"])
        if m and "error" not in r:
            p = dict(r, impl=m["impl"], math=m["math"], chains=int(m["chains"]), threads=int(m["threads"]),
                     teams=m["teams"])
            p["ms"] = r.get("measured_ms", r["seconds"] * 1e3)
            p["ms_key"] = "measured_ms" if "measured_ms" in r else "seconds"
            out.append(p)
    return out


def ms_point(x, p):
    return point(x, p, p["ms_key"], 1.0 if p["ms_key"] == "measured_ms" else 1e3)


def analyze(results, figures) -> str:
    ctx, records = results.context, results.records
    gpu = is_gpu(ctx)
    pts = points(records)
    if gpu:
        intro = ("Every thread runs `f = cos(2f); c += int(f + 1)` (kps::cos_loop; `cuda` = its native twin). "
                 "Times are medians; `pred` is the model of `kps_models/latency_model.hpp`, calibrated per (impl, math) on "
                 "two named points — `threads:32/teams:1` (one warp alone) and `threads:1024/teams:1` (one saturated "
                 "block) — and predicting everything else; where the JSON says `model_oldest_first`, co-resident "
                 "blocks share a scheduler oldest first. `sm` = the device's SM count "
                 f"({ctx.get('device_compute_units', '?')}).")
    else:
        intro = ("Every thread runs `f = cos(2f); c += int(f + 1)` (kps::cos_loop) in teams of one thread "
                 f"(a host team is one OS thread). `sm` = one team per core of the machine "
                 f"({ctx.get('device_compute_units', '?')} teams); the backend runs {ctx.get('kokkos_concurrency', '?')} "
                 "at a time. Times are medians. The GPU's model of warps sharing a scheduler does not apply: there is "
                 "no prediction here, only the staircase of time against teams.")
    md = ["## Latency-hiding study\n", intro + " " + (SPREAD_NOTE if has_spread(pts) else NO_SPREAD_NOTE) + "\n",
          gbench.failures_markdown(records, "latency")]
    if not pts:
        return join_parts(md)
    get = {(p["impl"], p["math"], p["chains"], p["threads"], p["teams"]): p for p in pts}
    if any("predicted_ms" in p for p in pts):
        iters = int(pts[0].get("loop_iterations", 0))
        md += [seed_table(get, iters), error_summary(pts),
               misses(pts, placement(records), int(float(ctx.get("device_compute_units", 0) or 0))),
               kokkos_vs_native(get, pts), ilp_table(get), gpu_plots(pts, figures, ctx)]
    else:
        md += [host_table(get, pts), host_plot(pts, figures, ctx)]
    return join_parts(md)


def seed_table(get, iters) -> str:
    rows = []
    for t in sorted(SEED):
        row = [t]
        for lg in ["1", "sm", "2sm"]:
            p = get.get(("cuda", "cosf", 1, t, lg), {})
            row += [fmt(p.get("ms")), fmt(p.get("predicted_ms")),
                    f"{fmt(100 * p['prediction_error'], 2)} %" if "prediction_error" in p else "—"]
        s = SEED[t]
        row += [f"{s[0]} / {s[1]} / {s[2]}"]
        rows.append(row)
    head = ["threads", "1 block", "pred", "err", "sm blocks", "pred", "err", "2sm blocks", "pred", "err",
            "seed 1080 Ti: 1 / 28 / 56 blocks"]
    scale = SEED_ITERATIONS / iters if iters else 0
    return (f"### The seed's table on this GPU (native cosf, one chain, {iters} iterations; ms)\n\n"
            f"The seed ran {SEED_ITERATIONS} iterations; multiply these times by {scale:.0f} to compare absolute "
            "times. Its shape is the point: flat while latency is hidden, then linear in warps per scheduler; "
            "`2sm` blocks of t threads = `sm` blocks of 2t threads.\n\n" + markdown_table(head, rows) + "\n")


def error_summary(pts) -> str:
    rows = []
    groups = sorted({(p["impl"], p["math"], p["chains"]) for p in pts if "prediction_error" in p})
    worst_all = None
    for g in groups:
        ps = [p for p in pts if (p["impl"], p["math"], p["chains"]) == g and "prediction_error" in p]
        errs = [abs(p["prediction_error"]) for p in ps]
        w = max(ps, key=lambda p: abs(p["prediction_error"]))
        if worst_all is None or abs(w["prediction_error"]) > abs(worst_all["prediction_error"]):
            worst_all = w
        rows.append([g[0], g[1], g[2], len(ps), f"{100 * statistics.median(errs):.1f} %",
                     f"{100 * w['prediction_error']:+.1f} %", f"threads {w['threads']}, teams {w['teams']}",
                     f"{sum(e <= 0.10 for e in errs)}/{len(ps)}",
                     "sharp (max)" if w.get("model_sharp_knee") else "smooth (MVA)"])
    head = ["impl", "math", "chains", "points", "median abs error", "worst error", "worst point", "within 10 %", "knee"]
    worst = (f"Worst point of the sweep: `{worst_all['name']}`: measured {fmt(worst_all['ms'])} ms, "
             f"predicted {fmt(worst_all['predicted_ms'])} ms ({100 * worst_all['prediction_error']:+.1f} %).\n"
             if worst_all else "")
    return ("### The model against the whole sweep (error = predicted / measured - 1)\n\n"
            + markdown_table(head, rows) + "\n\n" + worst)


PLACEMENT = re.compile(r"latency/cuda/placement/threads:(?P<threads>\d+)/teams:(?P<teams>\w+)")


def placement(records) -> dict:
    """(threads, teams) -> the placement probe's record (blocks on the busiest SM, from %smid)."""
    out = {}
    for r in records:
        m = PLACEMENT.match(r["name"])
        if m and "error" not in r:
            out[(int(m["threads"]), m["teams"])] = r
    return out


def probe_block_warps(probe, schedulers):
    """Warps of each block on each scheduler of the fullest SM, from the probe's warp slots (its
    label: slots of each block, separated by '|'; slot mod schedulers = scheduler); None without."""
    label = probe.get("label") or ""
    if ":" not in label:
        return None
    blocks = [[int(x) for x in b.split(",")] for b in label.split(":", 1)[1].split("|")]
    return [[sum(1 for slot in b if slot % schedulers == s) for b in blocks] for s in range(schedulers)]


def misses(pts, probes, sms) -> str:
    bad = sorted((p for p in pts if abs(p.get("prediction_error", 0)) > 0.10), key=lambda p: p["prediction_error"])
    if not bad:
        return "Every point is within 10 % of the model.\n"
    rows = []
    for p in bad:
        probe = probes.get((p["threads"], p["teams"]))
        again = "—"
        # the busiest scheduler's warps counted from the warps' slots (%warpid) where the probe
        # read them, else from the blocks on the busiest SM
        measured = probe.get("busiest_scheduler_warps_measured") if probe else None
        if probe and int(p.get("waves", 1)) == 1:
            n = int(measured if measured is not None else probe["busiest_scheduler_warps"])
            model, dev = lm.from_record(p, max(sms, 1))
            if dev.oldest_first:
                per_scheduler = probe_block_warps(probe, dev.schedulers) or [
                    lm.scheduler_block_warps(dev, int(probe["max_blocks_on_one_sm"]), p["threads"], s)
                    for s in range(dev.schedulers)]
                t = max(lm.oldest_first_time(model, c) for c in per_scheduler)
            else:
                t = lm.iteration_time(model, n)
            again = f"{100 * (t * p['loop_iterations'] * 1e-6 / p['ms'] - 1):+.1f} % (n = {n})"
        rows.append([f"{p['impl']} {p['math']} x{p['chains']}", p["threads"], p["teams"], fmt(p["ms"]),
                     fmt(p["predicted_ms"]), f"{100 * p['prediction_error']:+.1f} %",
                     int(p["warps_per_scheduler"]), int(probe["max_blocks_on_one_sm"]) if probe else "—",
                     int(measured) if measured is not None else "—", int(p["blocks_per_sm"]), again])
    head = ["kernel", "threads", "teams", "ms", "pred", "error", "model's warps/scheduler",
            "blocks on busiest SM (measured)", "busiest scheduler's warps (measured)", "blocks/SM allowed",
            "error with measured placement"]
    return ("### Where the model misses by more than 10 %\n\n"
            "The model assumes the block distributor spreads a one-wave grid evenly (ceil(blocks / SMs) per SM). "
            "The placement probe (`latency/cuda/placement/...`: blocks that spin together and record `%smid` "
            "and each warp's `%warpid`, whose value mod the schedulers is its scheduler) shows where it does not; "
            "the last column re-predicts with the measured busiest scheduler (with oldest-first arbitration: "
            "with each block's warps on each scheduler, from the probe's warp slots where it lists them).\n\n"
            + markdown_table(head, rows) + "\n")


def kokkos_vs_native(get, pts) -> str:
    rows = []
    for math in sorted({p["math"] for p in pts}):
        for chains in (1, 2, 4):
            ratios = []
            for p in pts:
                if p["impl"] == "kokkos" and p["math"] == math and p["chains"] == chains:
                    n = get.get(("cuda", math, chains, p["threads"], p["teams"]))
                    if n:
                        ratios.append((p["ms"] / n["ms"], p, n))
            if not ratios:
                continue
            worst = max(ratios, key=lambda rp: abs(rp[0] - 1))
            rows.append([math, chains, len(ratios), f"{statistics.median(r for r, _, _ in ratios):.3f}",
                         f"{worst[0]:.3f}", f"threads {worst[1]['threads']}, teams {worst[1]['teams']}",
                         f"{sum(abs(r - 1) <= 0.03 for r, _, _ in ratios)}/{len(ratios)}",
                         f"{worst[1].get('registers', 0):.0f} / {worst[2].get('registers', 0):.0f}"])
    if not rows:
        return ""
    head = ["math", "chains", "points", "median Kokkos / native", "worst", "worst point", "within 3 %",
            "registers Kokkos / native"]
    return ("### Kokkos TeamPolicy against the native CUDA twin (time ratio, same run)\n\n"
            + markdown_table(head, rows) + "\n")


def ilp_table(get) -> str:
    rows = []
    for t in (32, 128, 256, 512, 1024):
        row = [t]
        for math in ("cosf", "fast_cosf"):
            for chains in (1, 2, 4):
                p = get.get(("cuda", math, chains, t, "sm"))
                row.append(fmt(p["ns_per_iteration"] / chains) if p and p.get("ns_per_iteration") else "—")
        rows.append(row)
    if all(c == "—" for r in rows for c in r[1:]):
        return ""
    head = ["threads"] + [f"{m} x{c}" for m in ("cosf", "fast_cosf") for c in (1, 2, 4)]
    return ("### Instruction-level parallelism: ns per chain-iteration (native, one block per SM)\n\n"
            "k independent chains per thread hide latency like more warps would (seed 003) where the chains "
            "interleave (__cosf); cosf's per-call branch limits it. Each chain count is calibrated as its own "
            "kernel.\n\n" + markdown_table(head, rows) + "\n")


def host_table(get, pts) -> str:
    md = []
    for math in sorted({p["math"] for p in pts}):
        chains_all = sorted({p["chains"] for p in pts if p["math"] == math})
        threads = sorted({p["threads"] for p in pts if p["math"] == math})
        spread = has_spread(pts)
        rows = []
        for chains in chains_all:
            for t in threads:
                recs = [get.get(("kokkos", math, chains, t, lg)) for lg in LEAGUES]
                one = (recs[0] or {}).get("ms")
                row = [chains, t] + [fmt(r["ms"]) + (f" ({fmt(r['ms'] / one)}x)" if one and i else "")
                                     if r else "—" for i, r in enumerate(recs)]
                rows.append(row + ([cv_cell(recs, "seconds")] if spread else []))
        md.append(f"### {math}: ms by chains and league (teams of one thread; in brackets: time over one team alone)\n\n"
                  + markdown_table(["chains", "team size"] + [f"teams {lg}" for lg in LEAGUES]
                                   + (["cv"] if spread else []), rows) + "\n")
    return join_parts(md)


def host_plot(pts, figures, ctx) -> str:
    """Time against the league (teams of one thread or a few): one curve per team size with one
    chain, or per chain count where there is one team size."""
    md = []
    for impl, math in sorted({(p["impl"], p["math"]) for p in pts}):
        mine = [p for p in pts if (p["impl"], p["math"]) == (impl, math) and p.get("league")]
        sizes = sorted({p["threads"] for p in mine})
        if len(sizes) > 1:
            groups = [(f"teams of {t}", [p for p in mine if p["threads"] == t and p["chains"] == 1]) for t in sizes]
            what = "one chain"
        else:
            groups = [(f"{c} chain{'s' if c > 1 else ''}", [p for p in mine if p["chains"] == c])
                      for c in sorted({p["chains"] for p in mine})]
            what = f"teams of {sizes[0]}" if sizes else ""
        series = [plots.Series(label, [ms_point(int(p["league"]), p) for p in ps]) for label, ps in groups if ps]
        png = f"latency_{impl}_{math}.png"
        fig = plots.Figure(f"cos loop, {impl}, {math}, {what}: time against teams", "teams (league)", "ms", series)
        if plots.save(figures.path(png), fig, ctx):
            md.append(figures.link(png, f"cos loop, {impl}, {math}"))
    return join_parts(md)


def gpu_plots(pts, figures, ctx) -> str:
    md = []
    for impl, math in sorted({(p["impl"], p["math"]) for p in pts}):
        series = []
        for lg in LEAGUES:
            ps = sorted((p for p in pts if (p["impl"], p["math"], p["chains"], p["teams"]) == (impl, math, 1, lg)),
                        key=lambda p: p["threads"])
            if not ps:
                continue
            series.append(plots.Series(f"teams {lg}", [ms_point(p["threads"], p) for p in ps], group=lg))
            series.append(plots.Series(f"teams {lg} predicted", [(p["threads"], p.get("predicted_ms")) for p in ps],
                                       predicted=True, group=lg))
        png = f"latency_{impl}_{math}.png"
        fig = plots.Figure(f"cos loop, {impl}, {math}, 1 chain: time against threads per block", "threads per block",
                           "ms", series)
        if plots.save(figures.path(png), fig, ctx):
            md.append(figures.link(png, f"cos loop, {impl}, {math}"))
    return join_parts(md)


def headlines(results) -> list:
    pts = points(results.records)
    get = {(p["impl"], p["math"], p["chains"], p["threads"], p["teams"]): p for p in pts}
    out = []
    if any("predicted_ms" in p for p in pts):
        a, b = get.get(("cuda", "cosf", 1, 128, "1")), get.get(("cuda", "cosf", 1, 128, "sm"))
        if a and b:
            out.append(Headline("One block per SM against one block alone (native cosf, 128 threads): time ratio",
                                fmt(b["ms"] / a["ms"]), "1.00 (899 / 897 ms)"))
        a, b = get.get(("cuda", "cosf", 1, 1024, "1")), get.get(("cuda", "cosf", 1, 1024, "2sm"))
        if a and b:
            out.append(Headline("Two blocks per SM against one block alone (native cosf, 1024 threads): time ratio",
                                fmt(b["ms"] / a["ms"]), "2.11 (3145 / 1494 ms)"))
        errs = [abs(p["prediction_error"]) for p in pts if "prediction_error" in p]
        if errs:
            out.append(Headline("Latency model from two calibration points: points within 10 %",
                                f"{sum(e <= 0.1 for e in errs)} of {len(errs)} (median error "
                                f"{100 * statistics.median(errs):.1f} %)", "— (explained in words: 4 schedulers)"))
        return out
    a, b, c = (get.get(("kokkos", "cosf", 1, 1, lg)) for lg in ("1", "sm", "2sm"))
    if a and b:
        out.append(Headline("One team per core (sm teams) against one team alone (cosf): time ratio", fmt(b["ms"] / a["ms"]),
                            "1.00: 28 blocks as fast as 1 (899 / 897 ms)"))
    if b and c:
        out.append(Headline("Two teams per core (2sm) against one per core (sm) (cosf): time ratio", fmt(c["ms"] / b["ms"]),
                            "1.03 (128 threads) to 1.92 (1024): a GPU hides a second block until its schedulers "
                            "saturate"))
    return out
