"""Scan study analysis: Google Benchmark JSON -> tables (GB/s per algorithm and size, ratios
to CUB, to Kokkos' parallel_scan and to the copy; team scans against the tile; many small scans
against the number of instances) and PNG plots. Reads only the JSON."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import kpsjson  # noqa: E402

ORDER = ["single_pass", "automatic", "cub", "kokkos", "kokkos_kernels", "blelloch", "hillis_steele"]


def analyze(records, ctx, outdir):
    md = ["## Scan study\n",
          "Exclusive sums; GB/s counts 2 x N x sizeof(T) (read once, write once). Medians of the repetitions. "
          "`copy` is a device-to-device copy of the same bytes.\n"]
    failures, ok = kpsjson.split_failures(records)
    if failures:
        md.append(failures)
    for t in kpsjson.TYPES:
        rs = [r for r in ok if r["type"] == t and r["family"] in ("scan", "copy")]
        if not rs:
            continue
        variants = [v for v in ORDER if any(r["variant"] == v and r["family"] == "scan" for r in rs)]
        sizes = sorted({r["n"] for r in rs})
        get = {(r["family"], r["variant"], r["n"]): r for r in rs}
        rows = []
        for n in sizes:
            row = [kpsjson.pow2(n)]
            for v in variants:
                row.append(kpsjson.fmt(get.get(("scan", v, n), {}).get("GB/s")))
            row.append(kpsjson.fmt(get.get(("copy", "kokkos", n), {}).get("GB/s")))
            sp, kk, cub = (get.get(("scan", v, n), {}).get("GB/s") for v in ("single_pass", "kokkos", "cub"))
            row.append(kpsjson.fmt(sp / cub) if sp and cub else "—")
            row.append(kpsjson.fmt(sp / kk) if sp and kk else "—")
            rows.append(row)
        md.append(f"### {t}: GB/s\n")
        md.append(kpsjson.markdown_table(["N"] + variants + ["copy", "single_pass / cub", "single_pass / kokkos"], rows))
        series = {v: [(r["n"], r.get("GB/s")) for r in rs if r["variant"] == v and r["family"] == "scan"]
                  for v in variants}
        series["copy"] = [(r["n"], r.get("GB/s")) for r in rs if r["family"] == "copy"]
        md.append(kpsjson.bandwidth_figure(outdir, f"scan_{t}.png", series, f"Exclusive scan, {t}", ctx))
    md.append(active_warps(records))
    md.append(tile_sizes(ok, outdir, ctx))
    md.append(streams(ok, outdir, ctx))
    return "\n".join(part for part in md if part)


SEED_WARPS = {"hillis_steele": 289, "blelloch": 71}  # the seed's counts at n = 1024, warps of 32


def active_warps(records):
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
            "`kps/cuda/warp_count.hpp`); the benchmark fails if the total differs from the analytic count.\n\n"
            + kpsjson.markdown_table(["algorithm", "tile", "steps", "measured", "analytic", "seed (n = 1024)"], rows)
            + "\n")


def tile_sizes(ok, outdir, ctx):
    rs = [r for r in ok if r["family"] == "scan_tile" and "tile" in r["params"]]
    if not rs:
        return ""
    md = []
    for n in sorted({r["n"] for r in rs}):
        series = {}
        for alg in ("hillis_steele", "blelloch"):
            pts = sorted((int(r["params"]["tile"]), r.get("GB/s")) for r in rs if r["n"] == n and r["variant"] == alg)
            if pts:
                series[alg] = pts
        rows = [[t] + [kpsjson.fmt(dict(series.get(a, [])).get(t)) for a in ("hillis_steele", "blelloch")]
                for t in sorted({t for pts in series.values() for t, _ in pts})]
        md.append(f"### Team scans against the tile size, int32, N = {kpsjson.pow2(n)}: GB/s\n\n"
                  + kpsjson.markdown_table(["tile", "hillis_steele", "blelloch"], rows) + "\n")
        png = f"scan_tile_{n}.png"
        if kpsjson.plot_lines(os.path.join(outdir, png), series, "tile (elements)", "GB/s",
                              f"Tile scans against the tile, int32, N = {kpsjson.pow2(n)} ({ctx.get('device', '')})"):
            md.append(f"![tile scans]({os.path.basename(outdir)}/{png})\n")
    return "\n".join(part for part in md if part)


STREAMS_ORDER = ["hillis_steele", "blelloch", "single_pass", "kokkos"]


def streams(ok, outdir, ctx):
    """scan_streams/<alg>/int32/<N>/streams:<S>: K independent scans of N elements, scan k on
    instance k % S; throughput of all K together against S, one table and one figure per N."""
    rs = [r for r in ok if r["family"] == "scan_streams" and "streams" in r["params"]]
    if not rs:
        return ""
    algs = [a for a in STREAMS_ORDER if any(r["variant"] == a for r in rs)]
    algs += sorted({r["variant"] for r in rs} - set(algs))
    md = []
    for n in sorted({r["n"] for r in rs}):
        at_n = [r for r in rs if r["n"] == n]
        series = {a: sorted((int(r["params"]["streams"]), r["elements/s"] / 1e9) for r in at_n
                            if r["variant"] == a and r.get("elements/s"))
                  for a in algs}
        series = {a: pts for a, pts in series.items() if pts}
        cols = [a for a in algs if a in series]
        rows = [[s] + [kpsjson.fmt(dict(series[a]).get(s)) for a in cols]
                for s in sorted({s for pts in series.values() for s, _ in pts})]
        scans = sorted({int(r["scans"]) for r in at_n if r.get("scans")})
        k = "/".join(str(x) for x in scans) or "K"
        md.append(f"### {k} independent scans at once against the instances (streams), int32, "
                  f"N = {kpsjson.pow2(n)}: G elements/s\n\n"
                  f"Scan k runs on instance k % streams; the time is from the first dispatch to the fence of "
                  f"every instance, the rate counts all {k} scans (GB/s = 8 x G elements/s).\n\n"
                  + kpsjson.markdown_table(["streams"] + cols, rows) + "\n")
        png = f"scan_streams_{n}.png"
        if kpsjson.plot_lines(os.path.join(outdir, png), series, "streams (execution space instances)",
                              "G elements/s",
                              f"{k} scans of int32, N = {kpsjson.pow2(n)}, on S streams ({ctx.get('device', '')})"):
            md.append(f"![scans on streams]({os.path.basename(outdir)}/{png})\n")
    return "\n".join(part for part in md if part)
