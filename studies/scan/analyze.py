"""Scan study analysis: Google Benchmark JSON -> tables (GB/s per algorithm and size, ratios
to CUB, to Kokkos' parallel_scan and to the copy) and PNG plots. Reads only the JSON."""
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
        rs = [r for r in ok if r["type"] == t]
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
