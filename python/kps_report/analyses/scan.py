"""Scan study: GB/s per algorithm and size with ratios to CUB, to Kokkos' parallel_scan and to the
copy; active warps counted on the GPU against the seed's; team scans against the tile; many small
scans against the number of instances. Reads only the JSON."""
from __future__ import annotations

from kps_report import gbench, plots
from kps_report.analyses import Headline, bytes_in_flight, operators, targets
from kps_report.analyses.common import NO_SPREAD_NOTE, SPREAD_NOTE, cv_cell, has_spread, point
from kps_report.machine import is_gpu
from kps_report.text import fmt, join_parts, markdown_table, pow2

ORDER = ["single_pass", "automatic", "cub", "cub_cccl", "kokkos", "kokkos_kernels", "blelloch", "hillis_steele"]
# Drawing order: a series that coincides with another is drawn first (larger, underneath):
# automatic picks single_pass, Kokkos Kernels' scan is Kokkos' own.
DRAW = ["automatic", "single_pass", "kokkos", "kokkos_kernels", "cub", "cub_cccl", "blelloch", "hillis_steele"]
SEED_WARPS = {"hillis_steele": 289, "blelloch": 71}  # the seed's counts at n = 1024, warps of 32


def analyze(results, figures) -> str:
    ctx, records = results.context, results.records
    gpu = is_gpu(ctx)
    failures, ok = gbench.split_failures(records)
    main = [r for r in ok if r["family"] in ("scan", "copy")]
    md = ["## Scan study\n",
          "Exclusive sums; GB/s counts 2 x N x sizeof(T) (read once, write once); medians of the repetitions. "
          + ("`copy` is a device-to-device copy of the same bytes. " if gpu else
             "`copy` is a Kokkos deep_copy of the same bytes on the same threads. ")
          + "Ratios are of the GB/s beside them. "
          + (SPREAD_NOTE if has_spread(main) else NO_SPREAD_NOTE) + "\n", failures]
    for t in gbench.TYPES:
        rs = [r for r in main if r["type"] == t]
        if not rs:
            continue
        variants = [v for v in ORDER if any(r["variant"] == v and r["family"] == "scan" for r in rs)]
        get = {(r["family"], r["variant"], r["n"]): r for r in rs}
        peers = [p for p in ("cub", "cub_cccl", "kokkos") if p in variants and "single_pass" in variants]
        spread = has_spread(rs)
        rows = []
        for n in sorted({r["n"] for r in rs}):
            row_recs = [get.get(("scan", v, n)) for v in variants] + [get.get(("copy", "kokkos", n))]
            row = [pow2(n)] + [fmt((r or {}).get("GB/s")) for r in row_recs]
            sp = (get.get(("scan", "single_pass", n)) or {}).get("GB/s")
            for p in peers:
                other = (get.get(("scan", p, n)) or {}).get("GB/s")
                row.append(fmt(sp / other) if sp and other else "—")
            if spread:
                row.append(cv_cell(row_recs))
            rows.append(row)
        head = ["N"] + variants + ["copy"] + [f"single_pass / {p}" for p in peers] + (["cv"] if spread else [])
        md.append(f"### {t}: GB/s\n")
        md.append(markdown_table(head, rows) + "\n")
        series = [plots.Series(v, [point(r["n"], r, "GB/s") for r in rs if r["variant"] == v and r["family"] == "scan"])
                  for v in DRAW if v in variants]
        series.append(plots.Series("copy", [point(r["n"], r, "GB/s") for r in rs if r["family"] == "copy"],
                                   color="0.45", linestyle=":"))
        derived = same_round_peers(rs, variants)
        series += derived
        png = f"scan_{t}.png"
        fig = plots.Figure(f"Exclusive scan, {t}: bandwidth against size", "N (elements)", "GB/s", series,
                           xscale="log2", yscale="log",
                           legend_order=variants + ["copy"] + [d.label for d in derived],
                           relative_to="single_pass" if "single_pass" in variants else
                           ("automatic" if derived else None))
        if plots.save(figures.path(png), fig, ctx):
            md.append(figures.link(png, f"Exclusive scan, {t}"))
            if derived:
                md.append(f"The {t} sweep ran `automatic` alone; its peers' curves (dashed, "
                          + ", ".join(f"`{d.label}`" for d in derived)
                          + ") are its GB/s over its `ratio_to_*` counters, the peers' times in the same rounds.\n")
    repeats = gbench.repeated_runs(results.folder)  # `kps run --runs K`: the targets' medians
    md.append(targets.table(ok, "scan", "automatic", False, "./kps run --preset cuda --scale full --studies scan", repeats))
    md.append(targets.cpu_table(ok, "scan", "automatic", "./kps run --scale full --studies scan",
                                ctx.get("backend", ""), repeats))
    md.append(bytes_in_flight.section(results))
    md.append(active_warps(records))
    md.append(tile_sizes(ok, figures, ctx))
    md.append(streams(ok, figures, ctx))
    md.append(operators.analyze(results.op_records, gpu, results.records) or "")
    return join_parts(md)


PEER_COUNTERS = {"cub": "ratio_to_cub", "cub_cccl": "ratio_to_cub_cccl", "kokkos": "ratio_to_kokkos",
                 "copy": "ratio_to_copy"}


def same_round_peers(rs, variants) -> list:
    """Where a type's sweep ran only `automatic` (the targets' run), its peers' GB/s from the same
    rounds: automatic's GB/s over ratio_to_<peer> (the peer's time over automatic's)."""
    if variants != ["automatic"]:
        return []
    auto = sorted((r for r in rs if r["family"] == "scan" and r["variant"] == "automatic"), key=lambda r: r["n"])
    has_copy = any(r["family"] == "copy" for r in rs)
    out = []
    for peer, key in PEER_COUNTERS.items():
        if peer == "copy" and has_copy:
            continue
        pts = [(r["n"], r["GB/s"] / r[key]) for r in auto if r.get("GB/s") and r.get(key)]
        if pts:
            out.append(plots.Series(f"{peer} (same rounds)", pts, linestyle="--",
                                    color="0.45" if peer == "copy" else None))
    return out


def active_warps(records) -> str:
    rs = sorted((r for r in records if r["family"] == "scan_warps" and "error" not in r and "tile" in r["params"]
                 and "measured_active_warp_iterations" in r),
                key=lambda r: (r["variant"], int(r["params"]["tile"])))
    if not rs:
        return ""
    rows = [[r["variant"], r["params"]["tile"], int(r["steps"]), int(r["measured_active_warp_iterations"]),
             int(r["analytic_active_warp_iterations"]),
             SEED_WARPS.get(r["variant"], "—") if r["params"]["tile"] == "1024" else ""] for r in rs]
    return ("### Active warps, counted by the GPU (one tile, one thread per lane, warps of 32)\n\n"
            "Every step's active branch adds one per warp that runs it (`__activemask()`, "
            "`bench/cuda/warp_count.hpp`); the benchmark fails if the total differs from the analytic count.\n\n"
            + markdown_table(["algorithm", "tile", "steps", "measured", "analytic", "seed (n = 1024)"], rows) + "\n")


def tile_sizes(ok, figures, ctx) -> str:
    rs = [r for r in ok if r["family"] == "scan_tile" and "tile" in r["params"]]
    if not rs:
        return ""
    md = []
    for n in sorted({r["n"] for r in rs}):
        at = {(r["variant"], int(r["params"]["tile"])): r for r in rs if r["n"] == n}
        algs = [a for a in ("hillis_steele", "blelloch") if any(k[0] == a for k in at)]
        tiles = sorted({k[1] for k in at})
        spread = has_spread(at.values())
        rows = [[t] + [fmt((at.get((a, t)) or {}).get("GB/s")) for a in algs] +
                ([cv_cell([at.get((a, t)) for a in algs])] if spread else []) for t in tiles]
        md.append(f"### Team scans against the tile size, int32, N = {pow2(n)}: GB/s\n\n"
                  + markdown_table(["tile"] + algs + (["cv"] if spread else []), rows) + "\n")
        series = [plots.Series(a, [point(t, at[(a, t)], "GB/s") for t in tiles if (a, t) in at]) for a in algs]
        png = f"scan_tile_{n}.png"
        fig = plots.Figure(f"Team scans against the tile, int32, N = {pow2(n)}", "tile (elements)", "GB/s", series,
                           xscale="log2")
        if plots.save(figures.path(png), fig, ctx):
            md.append(figures.link(png, f"Team scans against the tile, N = {pow2(n)}"))
    return join_parts(md)


STREAMS_ORDER = ["hillis_steele", "blelloch", "single_pass", "kokkos"]


def streams(ok, figures, ctx) -> str:
    """scan_streams/<alg>/int32/<N>/streams:<S>: K independent scans of N elements, scan k on
    instance k % S; throughput of all K together against S, one table and one figure per N."""
    rs = [r for r in ok if r["family"] == "scan_streams" and "streams" in r["params"]]
    if not rs:
        return ""
    algs = [a for a in STREAMS_ORDER if any(r["variant"] == a for r in rs)]
    algs += sorted({r["variant"] for r in rs} - set(algs))
    md = []
    for n in sorted({r["n"] for r in rs}):
        at = {(r["variant"], int(r["params"]["streams"])): r for r in rs if r["n"] == n and r.get("elements/s")}
        cols = [a for a in algs if any(k[0] == a for k in at)]
        counts = sorted({k[1] for k in at})
        spread = has_spread(at.values())
        rows = [[s] + [fmt(at[(a, s)]["elements/s"] / 1e9) if (a, s) in at else "—" for a in cols] +
                ([cv_cell([at.get((a, s)) for a in cols])] if spread else []) for s in counts]
        scans = sorted({int(r["scans"]) for r in rs if r["n"] == n and r.get("scans")})
        k = "/".join(str(x) for x in scans) or "K"
        md.append(f"### {k} independent scans at once against the instances (streams), int32, "
                  f"N = {pow2(n)}: G elements/s\n\n"
                  f"Scan k runs on instance k % streams; the time is from the first dispatch to the fence of "
                  f"every instance, the rate counts all {k} scans (GB/s = 8 x G elements/s).\n\n"
                  + markdown_table(["streams"] + cols + (["cv"] if spread else []), rows) + "\n")
        series = [plots.Series(a, [point(s, at[(a, s)], "elements/s", 1e-9) for s in counts if (a, s) in at])
                  for a in cols]
        png = f"scan_streams_{n}.png"
        fig = plots.Figure(f"{k} scans of int32, N = {pow2(n)}, on S instances", "streams (execution space instances)",
                           "G elements/s", series, xscale="log2")
        if plots.save(figures.path(png), fig, ctx):
            md.append(figures.link(png, f"{k} scans on streams, N = {pow2(n)}"))
    return join_parts(md)


def headlines(results) -> list:
    ok = [r for r in results.records if "error" not in r and r.get("n")]
    out = []
    warps = {(r["variant"], r["params"].get("tile")): r for r in results.records
             if r["family"] == "scan_warps" and "measured_active_warp_iterations" in r}
    hs, bl = warps.get(("hillis_steele", "1024")), warps.get(("blelloch", "1024"))
    if hs and bl:
        out.append(Headline("Active warp-iterations of one 1024-element scan, Hillis–Steele / Blelloch",
                            f"{int(hs['measured_active_warp_iterations'])} / {int(bl['measured_active_warp_iterations'])}"
                            " (counted on the GPU)", "289 / 71 (counted by hand, seed 000)"))
    for t in ("int32", "double"):
        rs = {(r["family"], r["variant"], r["n"]): r for r in ok if r["type"] == t}
        ns = sorted({k[2] for k in rs if k[:2] == ("scan", "single_pass")})
        if not ns:
            continue
        n = ns[-1]
        sp = rs[("scan", "single_pass", n)].get("GB/s")
        parts = [f"{fmt(sp)} GB/s"]
        for fam, v, name in (("copy", "kokkos", "copy"), ("scan", "cub", "CUB"), ("scan", "kokkos", "Kokkos")):
            other = (rs.get((fam, v, n)) or {}).get("GB/s")
            if sp and other:
                parts.append(f"{fmt(sp / other)} x {name}")
        out.append(Headline(f"Single-pass scan, {t}, N = {pow2(n)}: GB/s and against the peers",
                            "; ".join(parts), "— (the seed scans one block)"))
        break
    tiles = {}
    for r in ok:
        if r["family"] == "scan_tile" and "tile" in r["params"]:
            tiles.setdefault((r["n"], int(r["params"]["tile"])), {})[r["variant"]] = r.get("GB/s")
    if tiles:
        (n, tile), v = max(tiles.items(), key=lambda kv: (kv[0][0], kv[0][1] == 1024, kv[0][1]))
        if v.get("blelloch") and v.get("hillis_steele"):
            out.append(Headline(f"Team scan of tiles of {tile}, N = {pow2(n)}: Blelloch over Hillis–Steele (GB/s)",
                                fmt(v["blelloch"] / v["hillis_steele"]),
                                "Blelloch keeps about 1/4 of the warps active (71 of 289)"))
    return out
