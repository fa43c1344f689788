"""Latency-hiding study analysis: Google Benchmark JSON -> the seed-style table with the model's
prediction beside each measurement, the model's error over the whole sweep, Kokkos against its
native CUDA twin, instruction-level parallelism, and plots of time against threads per block
(one curve per league, measured and predicted). Reads only the JSON."""
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import kpsjson  # noqa: E402

NAME = re.compile(r"latency/(?P<impl>\w+)/(?P<math>\w+)/chains:(?P<chains>\d+)/threads:(?P<threads>\d+)/teams:(?P<teams>\w+)")
LEAGUES = ["1", "sm", "2sm", "3sm"]
# The seed (GTX 1080 Ti, 28 SMs, 10 x 2^20 iterations), ms: threads -> (1 block, 28 blocks, 56 blocks)
SEED = {128: (897, 899, 929), 256: (926, 928, 1093), 384: (968, 1005, 1293), 512: (1022, 1091, 1644),
        640: (1084, 1189, 2056), 768: (1171, 1295, 2441), 896: (1337, 1472, 2797), 1024: (1494, 1638, 3145)}
SEED_ITERATIONS = 10 * 2 ** 20


def points(records):
    out = []
    for r in records:
        m = NAME.match(r["name"])
        if m and "error" not in r:
            p = dict(r, impl=m["impl"], math=m["math"], chains=int(m["chains"]), threads=int(m["threads"]),
                     teams=m["teams"])
            p["ms"] = r.get("measured_ms", r["seconds"] * 1e3)
            out.append(p)
    return out


def analyze(records, ctx, outdir):
    md = ["## Latency-hiding study\n",
          "Every thread runs `f = cos(2f); c += int(f + 1)` (kps::cos_loop; `cuda` = its native twin). "
          "Times are medians; `pred` is the model of `kps/latency_model.hpp`, calibrated per (impl, math) on "
          "two named points — `threads:32/teams:1` (one warp alone) and `threads:1024/teams:1` (one saturated "
          "block) — and predicting everything else; where the JSON says `model_oldest_first`, co-resident blocks "
          "share a scheduler oldest first (the younger blocks get what the older ones leave of the bottleneck). "
          "`sm` = the device's SM count.\n"]
    md.append(kpsjson.failures_markdown(records, "latency"))
    pts = points(records)
    if not pts:
        return "\n".join(part for part in md if part)
    get = {(p["impl"], p["math"], p["chains"], p["threads"], p["teams"]): p for p in pts}
    gpu = any("predicted_ms" in p for p in pts)
    iters = int(pts[0].get("loop_iterations", 0))
    if gpu:
        md.append(seed_table(get, iters))
        md.append(error_summary(pts))
        md.append(misses(pts, placement(records)))
        md.append(kokkos_vs_native(get, pts))
        md.append(ilp_table(get))
    else:
        md.append(host_table(get, pts))
    md.append(plots(get, pts, outdir, ctx, gpu))
    return "\n".join(part for part in md if part)


def seed_table(get, iters):
    rows = []
    for t in sorted(SEED):
        row = [t]
        for lg in ["1", "sm", "2sm"]:
            p = get.get(("cuda", "cosf", 1, t, lg), {})
            row += [kpsjson.fmt(p.get("ms")), kpsjson.fmt(p.get("predicted_ms")),
                    kpsjson.fmt(100 * p["prediction_error"], 2) + " %" if "prediction_error" in p else "—"]
        s = SEED[t]
        row += [f"{s[0]} / {s[1]} / {s[2]}"]
        rows.append(row)
    head = ["threads", "1 block", "pred", "err", "sm blocks", "pred", "err", "2sm blocks", "pred", "err",
            "seed 1080 Ti: 1 / 28 / 56 blocks"]
    scale = SEED_ITERATIONS / iters if iters else 0
    return (f"### The seed's table on this GPU (native cosf, one chain, {iters} iterations; ms)\n\n"
            f"The seed ran {SEED_ITERATIONS} iterations; multiply our times by {scale:.0f} to compare absolute "
            "times. Its shape is the point: flat while latency is hidden, then linear in warps per scheduler; "
            "`2sm` blocks of t threads = `sm` blocks of 2t threads.\n\n"
            + kpsjson.markdown_table(head, rows) + "\n")


def error_summary(pts):
    rows = []
    groups = sorted({(p["impl"], p["math"], p["chains"]) for p in pts if "prediction_error" in p})
    worst_all = None
    for g in groups:
        ps = [p for p in pts if (p["impl"], p["math"], p["chains"]) == g and "prediction_error" in p]
        errs = [abs(p["prediction_error"]) for p in ps]
        w = max(ps, key=lambda p: abs(p["prediction_error"]))
        if worst_all is None or abs(w["prediction_error"]) > abs(worst_all["prediction_error"]):
            worst_all = w
        within = sum(e <= 0.10 for e in errs)
        rows.append([g[0], g[1], g[2], len(ps), f"{100 * statistics.median(errs):.1f} %",
                     f"{100 * w['prediction_error']:+.1f} %", f"threads {w['threads']}, teams {w['teams']}",
                     f"{within}/{len(ps)}", "sharp (max)" if w.get("model_sharp_knee") else "smooth (MVA)"])
    head = ["impl", "math", "chains", "points", "median abs error", "worst error", "worst point", "within 10 %",
            "knee"]
    worst = (f"Worst point of the sweep: `{worst_all['name']}`: measured {kpsjson.fmt(worst_all['ms'])} ms, "
             f"predicted {kpsjson.fmt(worst_all['predicted_ms'])} ms ({100 * worst_all['prediction_error']:+.1f} %).\n"
             if worst_all else "")
    return ("### The model against the whole sweep (error = predicted / measured - 1)\n\n"
            + kpsjson.markdown_table(head, rows) + "\n\n" + worst)


PLACEMENT = re.compile(r"latency/cuda/placement/threads:(?P<threads>\d+)/teams:(?P<teams>\w+)")


def placement(records):
    """(threads, teams) -> the placement probe's record (blocks on the busiest SM, from %smid)."""
    out = {}
    for r in records:
        m = PLACEMENT.match(r["name"])
        if m and "error" not in r:
            out[(int(m["threads"]), m["teams"])] = r
    return out


def iteration_time(latency, issue, sharp, n):
    """kps/latency_model.hpp's C(n), from the constants the benchmark wrote."""
    if sharp:
        return max(latency + issue, n * issue)
    queue = response = 0.0
    for k in range(1, n + 1):
        response = issue * (1 + queue)
        queue = k / (latency + response) * response
    return latency + response


SCHEDULERS = 4  # warp schedulers per SM (sub-partitions), as the placement probe counts them


def shadow_time(latency, issue, sharp, n, capacity):
    """kps/latency_model.hpp's shadow_iteration_time: n warps of one block, the older blocks leaving
    it `capacity` of the bottleneck."""
    if capacity >= 1:
        return iteration_time(latency, issue, sharp, n)
    if sharp:
        return max(latency + issue, n * issue / capacity)
    return iteration_time(latency, issue / capacity, False, n)


def oldest_first_time(latency, issue, sharp, block_warps):
    """kps/latency_model.hpp's oldest_first_iteration_time: time per iteration until the last warp of
    a scheduler holding block_warps[k] warps of the k-th oldest block is done."""
    warps = [w for w in block_warps if w > 0]
    left = [1.0] * len(warps)
    elapsed = 0.0
    while True:
        capacity, times, first = 1.0, [None] * len(warps), None
        for k, w in enumerate(warps):
            if left[k] <= 0 or capacity <= 1e-12:
                continue
            times[k] = shadow_time(latency, issue, sharp, w, capacity)
            capacity -= w * issue / times[k]
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


def scheduler_block_warps(blocks, warps_per_block, scheduler):
    """The model's placement: an SM's warps, block after block, round-robin over its schedulers."""
    return [sum(1 for j in range(k * warps_per_block, (k + 1) * warps_per_block) if j % SCHEDULERS == scheduler)
            for k in range(blocks)]


def probe_block_warps(probe):
    """Warps of each block on each scheduler of the fullest SM, from the probe's warp slots (its label:
    slots of each block, separated by '|'; slot mod 4 = scheduler); None where the probe has no label."""
    label = probe.get("label") or ""
    if ":" not in label:
        return None
    blocks = [[int(x) for x in b.split(",")] for b in label.split(":", 1)[1].split("|")]
    return [[sum(1 for slot in b if slot % SCHEDULERS == s) for b in blocks] for s in range(SCHEDULERS)]


def misses(pts, probes):
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
            z, d, sharp = p["calibration_latency_ns"], p["calibration_issue_ns"], p.get("model_sharp_knee")
            if p.get("model_oldest_first"):
                per_scheduler = probe_block_warps(probe) or [
                    scheduler_block_warps(int(probe["max_blocks_on_one_sm"]), -(-p["threads"] // 32), s)
                    for s in range(SCHEDULERS)]
                t = max(oldest_first_time(z, d, sharp, c) for c in per_scheduler)
            else:
                t = iteration_time(z, d, sharp, n)
            again = f"{100 * (t * p['loop_iterations'] * 1e-6 / p['ms'] - 1):+.1f} % (n = {n})"
        rows.append([f"{p['impl']} {p['math']} x{p['chains']}", p["threads"], p["teams"], kpsjson.fmt(p["ms"]),
                     kpsjson.fmt(p["predicted_ms"]), f"{100 * p['prediction_error']:+.1f} %",
                     int(p["warps_per_scheduler"]), int(probe["max_blocks_on_one_sm"]) if probe else "—",
                     int(measured) if measured is not None else "—", int(p["blocks_per_sm"]), again])
    head = ["kernel", "threads", "teams", "ms", "pred", "error", "model's warps/scheduler",
            "blocks on busiest SM (measured)", "busiest scheduler's warps (measured)", "blocks/SM allowed",
            "error with measured placement"]
    return ("### Where the model misses by more than 10 %\n\n"
            "The model assumes the block distributor spreads a one-wave grid evenly (ceil(blocks / SMs) per SM). "
            "The placement probe (`latency/cuda/placement/...`: blocks that spin together and record `%smid` "
            "and each warp's `%warpid`, whose value mod 4 is its scheduler) shows where it does not; the last "
            "column re-predicts with the measured busiest scheduler (with oldest-first arbitration: with each "
            "block's warps on each scheduler, from the probe's warp slots where it lists them).\n\n"
            + kpsjson.markdown_table(head, rows) + "\n")


def kokkos_vs_native(get, pts):
    rows = []
    for math in sorted({p["math"] for p in pts}):
        for chains in (1, 2, 4):
            ratios = []
            for p in pts:
                if p["impl"] == "kokkos" and p["math"] == math and p["chains"] == chains:
                    n = get.get(("cuda", math, chains, p["threads"], p["teams"]))
                    if n:
                        ratios.append((p["ms"] / n["ms"], p))
            if not ratios:
                continue
            worst = max(ratios, key=lambda rp: abs(rp[0] - 1))
            within = sum(abs(r - 1) <= 0.03 for r, _ in ratios)
            rows.append([math, chains, len(ratios), f"{statistics.median(r for r, _ in ratios):.3f}",
                         f"{worst[0]:.3f}", f"threads {worst[1]['threads']}, teams {worst[1]['teams']}",
                         f"{within}/{len(ratios)}", f"{worst[1].get('registers', 0):.0f} / "
                         f"{get[('cuda', math, chains, worst[1]['threads'], worst[1]['teams'])].get('registers', 0):.0f}"])
    head = ["math", "chains", "points", "median Kokkos / native", "worst", "worst point", "within 3 %",
            "registers Kokkos / native"]
    return "### Kokkos TeamPolicy against the native CUDA twin (time ratio, same run)\n\n" + kpsjson.markdown_table(head, rows) + "\n"


def ilp_table(get):
    rows = []
    for t in (32, 128, 256, 512, 1024):
        row = [t]
        for math in ("cosf", "fast_cosf"):
            for chains in (1, 2, 4):
                p = get.get(("cuda", math, chains, t, "sm"))
                row.append(kpsjson.fmt(p["ns_per_iteration"] / chains) if p else "—")
        rows.append(row)
    head = ["threads"] + [f"{m} x{c}" for m in ("cosf", "fast_cosf") for c in (1, 2, 4)]
    return ("### Instruction-level parallelism: ns per chain-iteration (native, one block per SM)\n\n"
            "k independent chains per thread hide latency like more warps would (seed 003) where the chains "
            "interleave (__cosf); cosf's per-call branch limits it. Each chain count is calibrated as its own "
            "kernel.\n\n" + kpsjson.markdown_table(head, rows) + "\n")


def host_table(get, pts):
    md = []
    for math in sorted({p["math"] for p in pts}):
        for chains in sorted({p["chains"] for p in pts}):
            threads = sorted({p["threads"] for p in pts if p["math"] == math and p["chains"] == chains})
            rows = [[t] + [kpsjson.fmt(get.get(("kokkos", math, chains, t, lg), {}).get("ms")) for lg in LEAGUES]
                    for t in threads]
            md.append(f"### {math}, {chains} chain(s): ms by team size and league (host backend, no model)\n\n"
                      + kpsjson.markdown_table(["team size"] + [f"teams {lg}" for lg in LEAGUES], rows) + "\n")
    return "\n".join(part for part in md if part)


def plots(get, pts, outdir, ctx, gpu):
    md = []
    combos = sorted({(p["impl"], p["math"]) for p in pts})
    for impl, math in combos:
        series = {}
        for lg in LEAGUES:
            ps = [p for p in pts if (p["impl"], p["math"], p["chains"], p["teams"]) == (impl, math, 1, lg)]
            series[f"teams {lg}"] = [(p["threads"], p["ms"]) for p in ps]
            if gpu:
                series[f"teams {lg} predicted"] = [(p["threads"], p.get("predicted_ms")) for p in ps]
        png = f"latency_{impl}_{math}.png"
        title = f"cos loop, {impl}, {math}, 1 chain ({ctx.get('device', '')})"
        if kpsjson.plot_lines(os.path.join(outdir, png), series, "threads per block", "ms", title, logx=False):
            md.append(f"![{title}]({os.path.basename(outdir)}/{png})\n")
    return "\n".join(part for part in md if part)
