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
    return "\n".join(md)
