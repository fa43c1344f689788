"""Occupancy study analysis: Google Benchmark JSON -> the seed-004 tables on this GPU (blocks,
threads, time, measured and predicted waves, and the model's explanation), the sweeps across
each wave boundary with the model's steps, and the runtime's occupancy calculator against the
model; then seed 003's time against occupancy (occupancy_curve/...): per kernel a table of
blocks per SM, occupancy, warps per scheduler, measured and predicted time, the measured
plateau against the predicted one, and a plot. Reads only the JSON (the models' counters were
written by the benchmarks)."""
from __future__ import annotations

import re
import statistics

from kps_report import gbench, plots
from kps_report.analyses import Headline
from kps_report.analyses.common import NO_SPREAD_NOTE, SPREAD_NOTE, cv_cell, has_spread, point
from kps_report.text import fmt, join_parts, markdown_table, percent, pow2

NAME = re.compile(r"occupancy/(?P<impl>cuda|kokkos)/(?:regs:(?P<regs>\w+)/)?(?:bounds:(?P<bounds>\w+)/)?"
                  r"(?:desired:(?P<desired>\d+)/)?threads:(?P<threads>\d+)/blocks:(?P<blocks>[\w+-]+)/smem:(?P<smem>\w+)")
SEED_REGS = [("1", 1024, 905), ("sm", 1024, 1011), ("sm+1", 1024, 1841), ("sm+1", 641, 1829), ("sm+1", 640, 996),
             ("2sm", 640, 1000), ("2sm+1", 640, 1839), ("2sm+1", 417, 1834), ("2sm+1", 416, 996),
             ("3sm", 416, 1002), ("3sm+1", 416, 1832)]
SEED_SMEM = [("1", 1024, 902), ("2sm", 1024, 976), ("2sm+1", 1024, 1811), ("2sm+1", 1, 1735)]
SEED_BLOCKS = {"1": "1", "sm": "28", "sm+1": "29", "2sm": "56", "2sm+1": "57", "3sm": "84", "3sm+1": "85"}


def points(records):
    out = []
    for r in records:
        m = NAME.match(r["name"])
        if m and "error" not in r:
            out.append(dict(r, impl=m["impl"], regs=m["regs"], bounds=m["bounds"], desired=m["desired"],
                            threads=int(m["threads"]), blocks_name=m["blocks"], smem_name=m["smem"]))
    return out


def limiters(p):
    return ", ".join(k[len("limiter_"):] for k in sorted(p) if k.startswith("limiter_")) or "—"


def explanation(p, sms):
    bps = int(p["predicted_blocks_per_sm"])
    per_wave = bps * sms
    return (f"{limiters(p)} allow {bps} block{'s' if bps > 1 else ''}/SM -> {per_wave} per wave; "
            f"{int(p['blocks'])} blocks -> {int(p['predicted_waves'])} wave{'s' if p['predicted_waves'] > 1 else ''}")


def agrees(p):
    return round(p["measured_waves"]) == int(p["predicted_waves"])


def analyze(results, figures) -> str:
    records, ctx = results.records, results.context
    return join_parts([waves_section(records, ctx, figures), curve_section(records, ctx, figures)])


def waves_section(records, ctx, figures):
    pts = points(records)
    if not pts:  # the occupancy curve alone
        return join_parts(["## Occupancy study\n", gbench.failures_markdown(records, "occupancy")])
    gpu = any("predicted_waves" in p for p in pts)
    sms = int(float(ctx.get("device_compute_units", 0)) or 0)
    spread = SPREAD_NOTE if has_spread(pts) else NO_SPREAD_NOTE
    if not gpu:
        threads, cores = ctx.get("kokkos_concurrency", "?"), ctx.get("device_compute_units", "?")
        rows = [[p["blocks_name"], int(p["blocks"]), p["threads"], fmt(p["measured_ms"]),
                 fmt(p["measured_waves"])] + ([cv_cell([p], "measured_ms")] if has_spread(pts) else [])
                for p in sorted(pts, key=lambda p: p["blocks"])]
        return join_parts([
            "## Occupancy study\n",
            "Every team spins a fixed time (about 1 ms), so a launch takes waves x that time: `waves` measured = "
            f"time / one team's time. On a host backend a team is one OS thread and a wave is as many teams as the "
            f"backend runs at once ({threads}); `sm` = one team per core of the machine ({cores} teams), so with one "
            "thread per core `sm+1` teams take a second wave. There are no registers or shared memory to model, and "
            "no prediction. " + spread + "\n",
            gbench.failures_markdown(records, "occupancy"),
            "### Waves of teams (host backend)\n\n" +
            markdown_table(["blocks", "teams", "team size", "ms", "waves"] + (["cv"] if has_spread(pts) else []),
                           rows) + "\n"])
    md = ["## Occupancy study\n",
          "Every block spins a fixed number of clock cycles (`clock64()`, 2^21 = about 1 ms), so a launch takes "
          "waves x that time: `waves` measured = time / the same kernel's one-block time. `pred` is the occupancy "
          "model (`kps_models/occupancy.hpp`, `kps-occupancy`) with the registers and static shared memory that "
          "cudaFuncGetAttributes reports for the kernel that ran. Blocks are written relative to the SM count "
          f"(`sm` = {sms}, `sm+1` = {sms + 1} on this GPU). " + spread + "\n"]
    md.append(gbench.failures_markdown(records, "occupancy"))
    get = {(p["impl"], p["regs"], p["threads"], p["blocks_name"], p["smem_name"]): p for p in pts
           if not p["bounds"] and not p["desired"]}
    ok = [p for p in pts if "predicted_waves" in p]
    n_ok = sum(agrees(p) for p in ok)
    md.append(f"**Measured waves equal predicted waves at {n_ok} of {len(ok)} points.**")
    rt = [p for p in ok if "runtime_blocks_per_sm" in p]
    n_rt = sum(int(p["runtime_blocks_per_sm"]) == int(p["predicted_blocks_per_sm"]) for p in rt)
    md.append(f"The model's blocks per SM equal `cudaOccupancyMaxActiveBlocksPerMultiprocessor`'s at {n_rt} of "
              f"{len(rt)} native kernels.\n")
    bad = [p for p in ok if not agrees(p)]
    if bad:
        md.append("Points where they differ:\n\n" + "\n".join(
            f"- `{p['name']}`: measured {p['measured_waves']:.2f}, predicted {int(p['predicted_waves'])}" for p in bad) + "\n")

    def seed_rows(seed, key):
        rows = []
        for blocks, threads, seed_ms in seed:
            p = get.get(key(threads, blocks))
            if not p:
                continue
            rows.append([f"{int(p['blocks'])} ({SEED_BLOCKS[blocks]})", threads, fmt(p["measured_ms"]), seed_ms,
                         f"{p['measured_waves']:.2f}", int(p["predicted_waves"]), explanation(p, sms)])
        return markdown_table(["blocks (seed's)", "threads", "ms", "seed ms", "waves", "pred waves",
                                       "explanation"], rows)

    md.append("### The seed's register table on this GPU (48 registers per thread, native spin)\n")
    md.append(seed_rows(SEED_REGS, lambda t, b: ("cuda", "48", t, b, "0K")) + "\n")
    md.append("### The seed's shared-memory table on this GPU (100 KB per block: two fit in 228 KB, three do not)\n")
    md.append(seed_rows(SEED_SMEM, lambda t, b: ("cuda", "free", t, b, "100K")) + "\n")

    # sweeps
    for lg in ("2sm", "3sm"):
        ps = sorted((p for p in ok if p["impl"] == "cuda" and p["regs"] == "48" and p["blocks_name"] == lg
                     and p["smem_name"] == "0K"), key=lambda p: p["threads"])
        if ps:
            series = [plots.Series("measured", [point(p["threads"], p, "measured_waves") for p in ps]),
                      plots.Series("predicted", [(p["threads"], p["predicted_waves"]) for p in ps], predicted=True)]
            png = f"occupancy_threads_{lg}.png"
            title = f"{lg} blocks, 48 registers: waves against threads per block"
            if plots.save(figures.path(png), plots.Figure(title, "threads per block", "waves", series), ctx):
                md.append(figures.link(png, title))
    for lg in ("3sm", "6sm"):
        series = []
        rows = []
        for impl in ("cuda", "kokkos"):
            ps = sorted((p for p in ok if p["impl"] == impl and p["blocks_name"] == lg and p["threads"] == 32
                         and p["regs"] in (None, "free") and not p["bounds"] and not p["desired"]),
                        key=lambda p: p["smem_bytes"])
            if not ps:
                continue
            series.append(plots.Series(f"{impl} measured", [point(p["smem_bytes"] / 1024, p, "measured_waves")
                                                             for p in ps], group=impl))
            series.append(plots.Series(f"{impl} predicted", [(p["smem_bytes"] / 1024, p["predicted_waves"]) for p in ps],
                                       predicted=True, group=impl))
            rows += [[impl, p["smem_name"], int(p["static_smem_bytes"]), int(p["predicted_blocks_per_sm"]),
                      f"{p['measured_waves']:.2f}", int(p["predicted_waves"])] for p in ps]
        if rows:
            md.append(f"### Shared memory per block at {lg} blocks of one warp\n")
            md.append(markdown_table(["impl", "dynamic / scratch", "static bytes", "pred blocks/SM", "waves",
                                              "pred waves"], rows) + "\n")
            png = f"occupancy_smem_{lg}.png"
            title = f"{lg} blocks of 32 threads: waves against shared memory per block"
            if plots.save(figures.path(png), plots.Figure(title, "KB per block", "waves", series), ctx):
                md.append(figures.link(png, title))
    regs = sorted((p for p in ok if p["impl"] == "cuda" and p["blocks_name"] == "2sm" and p["smem_name"] == "0K"
                   and p["threads"] in (256, 384, 512, 640, 768, 1024)),
                  key=lambda p: (int(p["registers"]), p["threads"]))
    if regs:
        rows = [[int(p["registers"]), p["threads"], int(p["predicted_blocks_per_sm"]),
                 int(p.get("runtime_blocks_per_sm", -1)), f"{p['occupancy']:.3f}", f"{p['measured_waves']:.2f}",
                 int(p["predicted_waves"]), limiters(p)] for p in regs]
        md.append("### Registers per thread against threads per block (2 x SMs blocks)\n")
        md.append(markdown_table(["registers", "threads", "pred blocks/SM", "runtime blocks/SM", "occupancy",
                                          "waves", "pred waves", "limiters"], rows) + "\n")
    md.append(levers(ok))
    return join_parts(md)


def levers(ok):
    md = []
    rows = [[p["bounds"], p["threads"], int(p["registers"]), int(p["predicted_blocks_per_sm"]),
             f"{p['measured_waves']:.2f}", int(p["predicted_waves"])]
            for p in sorted((p for p in ok if p["bounds"]), key=lambda p: (p["bounds"], p["threads"]))]
    if rows:
        md.append("### Kokkos::LaunchBounds<MaxThreads, MinBlocks> on a kernel that wants ~66 registers (2 x SMs teams)\n")
        md.append("Registers read from Kokkos' own launch layer (`bench/cuda/kokkos_launch.hpp`).\n")
        md.append(markdown_table(["bounds", "team size", "registers", "pred blocks/SM", "waves", "pred waves"],
                                         rows) + "\n")
    des = [p for p in ok if p["desired"]]
    if des:
        rows = []
        for pct in sorted({int(p["desired"]) for p in des}):
            ps = sorted((p for p in des if int(p["desired"]) == pct), key=lambda p: p["blocks"])
            one_wave = [p for p in ps if p["measured_waves"] < 1.5]
            measured_bps = max((int(p["blocks"]) for p in one_wave), default=0) // max(1, int(ps[0]["blocks"]))
            p0 = ps[0]
            rows.append([pct, int(p0["dynamic_smem_bytes"]), int(p0.get("carveout_percent", -1)),
                         int(p0["predicted_blocks_per_sm"]), measured_bps,
                         f"{100 * measured_bps * 8 / 64:.1f} %", round(pct * 64 / 100 / 8)])
        md.append("### Kokkos::Experimental::prefer(policy, DesiredOccupancy{N}): what it yields (256-thread teams)\n")
        md.append("Kokkos pads dynamic shared memory and sets a carveout (its arithmetic, "
                  "`Kokkos_Cuda_KernelLaunch.hpp`); the model takes both, plus the driver's reserved 1 KB per block "
                  "that Kokkos does not count. Measured blocks per SM: the largest league (in teams per SM) that "
                  "still runs in one wave.\n")
        md.append(markdown_table(["desired %", "dynamic smem Kokkos asks", "carveout %", "pred blocks/SM",
                                          "measured blocks/SM", "measured occupancy", "blocks/SM Kokkos aims at"],
                                         rows) + "\n")
    return join_parts(md)


# Seed 003: time against occupancy (bench/occupancy_curve_bench.cpp).
CURVE = re.compile(r"occupancy_curve/(?:(?P<cos>cos)/(?P<math>\w+)|(?P<reduce>reduce)/(?P<type>\w+)/(?P<n>\d+))"
                   r"/threads:(?P<threads>\d+)/blocks_per_sm:(?P<blocks>\d+)")
PLATEAU_TOLERANCE = 0.05  # the measured plateau: the lowest occupancy within 5 % of the best time


def curves(records):
    """{curve key: points sorted by blocks per SM}; key ('cos', math, threads) or ('reduce', type, n, threads)."""
    out = {}
    for r in records:
        m = CURVE.match(r["name"])
        if m and "error" not in r:
            key = ("cos", m["math"], int(m["threads"])) if m["cos"] else ("reduce", m["type"], int(m["n"]),
                                                                         int(m["threads"]))
            out.setdefault(key, []).append(dict(r, blocks=int(m["blocks"])))
    return {k: sorted(v, key=lambda p: p["blocks"]) for k, v in sorted(out.items())}


def curve_title(key):
    if key[0] == "cos":
        return f"cos loop, {key[1]}, {key[2]} threads per team"
    return f"reduction, {key[1]}, N = {pow2(key[2])}, {key[3]} threads per team"


def measured_plateau(points):
    """The point of lowest occupancy (blocks per SM where there is no occupancy) whose time is
    within PLATEAU_TOLERANCE of the curve's best."""
    best = min(p["measured_ms"] for p in points)
    within = [p for p in points if p["measured_ms"] <= best * (1 + PLATEAU_TOLERANCE)]
    return min(within, key=lambda p: (p.get("occupancy", p["blocks"]), p["blocks"]))


def shown_gbps(p):
    """GB/s of the time the table shows (measured_ms): the benchmark's bytes over that time."""
    if p.get("GB/s") and p.get("seconds") and p.get("measured_ms"):
        return p["GB/s"] * p["seconds"] / (p["measured_ms"] * 1e-3)
    return p.get("GB/s")


def by_occupancy(xy):
    """One point per occupancy: configurations that reach the same occupancy (the reduction's
    team sizes, items and leagues) drawn as their median, their range as the band around it."""
    groups = {}
    for x, y in xy:
        if y is not None:
            groups.setdefault(x, []).append(y)
    return [(x, statistics.median(ys), (min(ys), max(ys)) if len(ys) > 1 else None) for x, ys in sorted(groups.items())]


def curve_section(records, ctx, figures):
    md = [gbench.failures_markdown(records, "occupancy_curve")]
    all_curves = curves(records)
    if not all_curves:
        return join_parts(md)
    if not any("predicted_ms" in p for pts in all_curves.values() for p in pts):
        md.insert(0, "### Seed 003: time against teams per core\n\n"
                  "b teams per core of the machine (league b x cores), the same work at every b. A host thread "
                  "runs one team at a time: there is no occupancy to raise and no latency for more teams to hide, "
                  "so the question of seed 003 is only whether more, smaller teams change the time.\n")
    else:
        md.insert(0, "### Seed 003: time against occupancy\n\n"
                  "One wave of b teams per SM (league b x SMs, the same work at every b), the occupancy set "
                  "through Kokkos team scratch chosen with the occupancy model (`held` = the blocks per SM the "
                  "model, and the CUDA runtime for the kernel Kokkos launches, allow with that scratch; where "
                  "scratch cannot go that low, the league alone sets b: Kokkos asks for at most 48 KB per team, "
                  "which leaves 4 per SM on an H100). `pred`: the cos loop's latency model (calibrated on one "
                  "warp alone and one 1024-thread team) and the reduction's Little's law (calibrated on its "
                  "lowest and highest point). GB/s: the bytes read over the time beside it. Measured plateau: the "
                  f"lowest occupancy within {PLATEAU_TOLERANCE:.0%} of the best time. In the reduction's figures, "
                  "configurations of the same occupancy are drawn as their median, their range as a band.\n")
    figs = {}
    for key, points in all_curves.items():
        gpu = all("predicted_ms" in p for p in points)
        reduce_ = key[0] == "reduce"
        md.append(f"#### {curve_title(key)}\n")
        if not gpu:
            header = ["teams per core (b)", "teams", "ms"] + (["GB/s"] if reduce_ else []) + \
                (["cv"] if has_spread(points) else [])
            rows = [[p["blocks"], int(p["league"]) if p.get("league") else "—", fmt(p["measured_ms"])] +
                    ([fmt(shown_gbps(p))] if reduce_ else []) +
                    ([cv_cell([p], "measured_ms")] if has_spread(points) else []) for p in points]
            md.append("Host backend (teams are OS threads; no occupancy, no model claims). GB/s: the bytes read "
                      "over the time beside it.\n\n" + markdown_table(header, rows) + "\n")
            continue
        header = ["blocks/SM", "held (model / runtime)", "occupancy", "warps/scheduler", "ms"] + \
            (["GB/s", "pred GB/s"] if reduce_ else []) + ["pred ms", "err"]
        rows = []
        for p in points:
            runtime = int(p["blocks_per_sm_runtime"]) if "blocks_per_sm_runtime" in p else "—"
            rows.append([p["blocks"], f"{int(p['blocks_per_sm_model'])} / {runtime}", percent(p["occupancy"]),
                         int(p["warps_per_scheduler"]), fmt(p["measured_ms"])] +
                        ([fmt(shown_gbps(p)), fmt(p.get("predicted_GBps"))] if reduce_ else []) +
                        [fmt(p["predicted_ms"]), f"{100 * p['prediction_error']:+.1f} %"])
        md.append(markdown_table(header, rows) + "\n")
        plateau = measured_plateau(points)
        predicted = statistics.median(p["predicted_plateau_occupancy"] for p in points)
        predicted_warps = statistics.median(p["predicted_plateau_warps_per_scheduler"] for p in points)
        md.append(f"measured plateau: {percent(plateau['occupancy'])} ({plateau['blocks']} blocks per SM, "
                  f"{int(plateau['warps_per_scheduler'])} warps per scheduler); predicted plateau: "
                  f"{percent(predicted)} ({predicted_warps:.2f} warps per scheduler)\n")
        md.append(curve_constants(key, points) + "\n")
        if reduce_:
            group, y, ylabel = ("reduce", key[1], key[2]), "GB/s", "GB/s"
            predicted_y = "predicted_GBps"
        else:
            group, y, ylabel = ("cos", key[2]), "measured_ms", "ms"
            predicted_y = "predicted_ms"
        label = f"threads:{key[3]}" if reduce_ else key[1]
        figure = figs.setdefault(group, {"series": [], "ylabel": ylabel, "marks": []})
        measured = by_occupancy([(p["occupancy"], shown_gbps(p)) for p in points]) if reduce_ else \
            [point(p["occupancy"], p, "measured_ms") for p in points]
        figure["series"].append(plots.Series(f"{label} measured", measured, group=label))
        figure["series"].append(plots.Series(f"{label} predicted", [(p["occupancy"], p.get(predicted_y)) for p in points],
                                             predicted=True, group=label))
        figure["marks"].append(plots.Mark(plateau["occupancy"], shown_gbps(plateau) if reduce_ else plateau.get(y),
                                          f"{label}: measured plateau", group=label))
    for group, figure in figs.items():
        if group[0] == "reduce":
            png = f"occupancy_curve_reduce_{group[1]}_{group[2]}.png"
            title = f"Reduction ({group[1]}, N = {pow2(group[2])}): bandwidth against occupancy"
        else:
            png = f"occupancy_curve_cos_{group[1]}.png"
            title = f"Cos loop ({group[1]} threads per team, same work): time against occupancy"
        fig = plots.Figure(title, "occupancy (active warps / max warps)", figure["ylabel"], figure["series"],
                           marks=figure["marks"])
        if plots.save(figures.path(png), fig, ctx):
            md.append(figures.link(png, title))
    return join_parts(md)


def curve_constants(key, points):
    """The calibrated constants the predictions come from (the same on every point of a curve)."""
    p = points[0]
    if key[0] == "reduce":
        return (f"Little's law: {p['calibration_per_block_GBps']:.0f} GB/s per block per SM (b = 1), ceiling "
                f"{p['calibration_ceiling_GBps']:.0f} GB/s -> plateau at "
                f"{p['predicted_plateau_blocks_per_sm']:.2f} blocks per SM.")
    shape = "sharp knee: max(Z + D, n D)" if p.get("model_sharp_knee") else "queueing (mean value analysis)"
    return (f"Latency model ({shape}): Z + D = {p['calibration_latency_ns'] + p['calibration_issue_ns']:.1f} ns, "
            f"D = {p['calibration_issue_ns']:.2f} ns per iteration -> knee at (Z + D) / D = "
            f"{p['predicted_plateau_warps_per_scheduler']:.2f} warps per scheduler.")


def headlines(results) -> list:
    pts = points(results.records)
    out = []
    gpu = any("predicted_waves" in p for p in pts)
    if gpu:
        ok = [p for p in pts if "predicted_waves" in p]
        out.append(Headline("Occupancy model: measured waves equal predicted waves",
                            f"{sum(agrees(p) for p in ok)} of {len(ok)} points",
                            "most rows explained; 29 x 641 and 57 x 417 left to 'a minimum unit'"))
        get = {(p["impl"], p["regs"], p["threads"], p["blocks_name"], p["smem_name"]): p for p in pts}
        a, b = get.get(("cuda", "48", 1024, "sm", "0K")), get.get(("cuda", "48", 1024, "sm+1", "0K"))
        if a and b:
            out.append(Headline("One block more than a wave holds (sm+1 against sm blocks, 1024 threads, 48 registers): "
                                "time ratio", fmt(b["measured_ms"] / a["measured_ms"]), "1.82 (1841 / 1011 ms)"))
    else:
        get = {p["blocks_name"]: p for p in pts if p["impl"] == "kokkos"}
        a, b = get.get("sm"), get.get("sm+1")
        if a and b:
            out.append(Headline("One team more than the cores (sm+1 against sm teams): time ratio",
                                fmt(b["measured_ms"] / a["measured_ms"]), "1.82 (one block past a wave, 1841 / 1011 ms)"))
    for key, cpts in curves(results.records).items():
        if key[0] == "cos" and all("predicted_ms" in p for p in cpts):
            plateau = measured_plateau(cpts)
            out.append(Headline(f"Cos loop ({key[1]}, {key[2]} threads): lowest occupancy within "
                                f"{PLATEAU_TOLERANCE:.0%} of the best time", f"{percent(plateau['occupancy'])} "
                                f"({int(plateau['warps_per_scheduler'])} warps per scheduler)",
                                "37.5 % (6 warps per scheduler hide a 6-cycle latency, Maxwell/Pascal)"))
    return out
