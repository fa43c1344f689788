"""Reduction study: GB/s of the tuned kps reduction and its peers per size, the peers' ratios,
where a call's time goes (CUDA), the copy's unpaid write-back (GPU), and the tuning sweep's
summary where the machine's folder has one (reduce/tune). Reads only the JSON.

Every number of a row comes from one kind of measurement. Where the kps variant's benchmark
timed its peers in its own interleaved rounds (counters wall_us, <peer>_wall_us: the median wall
time of a call over the rounds), the row's GB/s are the bytes over those times, and every ratio
is one of the GB/s beside it. A variant that was not in those rounds (kokkos_kernels of reduce,
native of reduce_async) shows its own rounds' GB/s and enters no ratio. Older JSON without
rounds: Google Benchmark's GB/s, the ratios of them.
"""
from __future__ import annotations

import re

from kps_report import gbench, plots
from kps_report.analyses import Headline, operators, targets
from kps_report.analyses.common import NO_SPREAD_NOTE, SPREAD_NOTE, cv_cell, has_spread
from kps_report.machine import is_gpu
from kps_report.text import fmt, join_parts, markdown_table, pow2

ORDER = {"reduce": ["tuned", "cub", "cub_cccl", "kokkos", "kokkos_kernels"],
         "reduce_async": ["tuned", "cub", "cub_cccl", "kokkos", "native"],
         "dot": ["kps", "kokkos_kernels"]}
# Drawing order: the kps variant first (largest, solid), kokkos under kokkos_kernels (which calls it).
DRAW = ["tuned", "kps", "kokkos", "kokkos_kernels", "cub", "cub_cccl", "native", "read", "copy"]
# References timed in the kps variant's rounds: (column, counter, bytes a call moves as a share
# of the kps variant's): the copy reads and writes the input, the streaming read reads it.
REFERENCES = (("read", "read_wall_us"), ("copy", "copy_wall_us"))
TITLES = {"reduce": "sum returned to the host", "reduce_async": "sum left in device memory", "dot": "dot product"}


def bytes_per_call(r: dict):
    """The bytes a call reads, as kps-bench counts them for GB/s (GB/s x seconds per call)."""
    if r.get("GB/s") and r.get("seconds"):
        return r["GB/s"] * 1e9 * r["seconds"]
    return None


def row_values(family: str, t: str, n: int, get: dict, variants: list, rounds: bool) -> dict:
    """{column: (GB/s, record the value comes from, spread key)} of one row (see the module's doc)."""
    kps = variants[0]
    first = get.get((kps, n))
    out = {}
    if rounds and first and first.get("wall_us") and bytes_per_call(first):
        b = bytes_per_call(first)
        for v in variants:
            key = "wall_us" if v == kps else f"{v}_wall_us"
            if first.get(key):
                out[v] = (b / (first[key] * 1e-6) / 1e9, first, key)
            elif get.get((v, n)) and get[(v, n)].get("wall_us") and bytes_per_call(get[(v, n)]):
                r = get[(v, n)]
                out[v] = (bytes_per_call(r) / (r["wall_us"] * 1e-6) / 1e9, r, "wall_us")
        if first.get("read_wall_us"):  # a streaming read of the same bytes
            out["read"] = (b / (first["read_wall_us"] * 1e-6) / 1e9, first, "read_wall_us")
        if first.get("copy_wall_us"):
            copy_bytes = 2 * n * gbench.TYPE_SIZE[t]  # the copy reads and writes the input's bytes
            out["copy"] = (copy_bytes / (first["copy_wall_us"] * 1e-6) / 1e9, first, "copy_wall_us")
        return out
    for v in variants:
        r = get.get((v, n))
        if r and r.get("GB/s"):
            out[v] = (r["GB/s"], r, "seconds")
    return out


def analyze(results, figures) -> str:
    ctx, records = results.context, results.records
    gpu = is_gpu(ctx)
    failures, ok = gbench.split_failures(records)
    main = [r for r in ok if r["family"] in ORDER]
    rounds = any(r.get("wall_us") for r in main)
    if not main:  # the tuning sweep alone
        return join_parts(["## Reduction study\n", failures, tuning_section(results, figures),
                           operators.analyze(results.op_records, gpu, results.records) or ""])
    md = ["## Reduction study\n",
          "Sums (`reduce`: the sum returned to the host, the call waits for it; `reduce_async`: left in "
          + ("device memory" if gpu else "a Kokkos view") + ", nothing waits) and dot products; GB/s counts the "
          "bytes read once. "
          + ("GB/s from the median wall time of each benchmark's interleaved rounds: in a row the kps variant, "
             "its peers and the copy come from the kps variant's own rounds, and every ratio is one of the GB/s "
             "beside it (`tuned / kokkos` > 1: kps is faster); a variant those rounds did not time "
             "(kokkos_kernels of `reduce`, native of `reduce_async`) shows its own rounds' GB/s and enters no ratio. "
             if rounds else "GB/s from Google Benchmark's times (medians of the repetitions); the ratios are of the "
             "GB/s beside them. ")
          + "`copy`: a copy of the input's bytes " + ("on the device" if gpu else "by the same threads")
          + ", its GB/s counting the bytes read and written; `read` (where the JSON has it): a streaming read of "
          "the same bytes; `launch floor`: an empty launch and its fence, the least a call can take. "
          + (SPREAD_NOTE if has_spread(main) else NO_SPREAD_NOTE) + "\n", failures]
    for family, variants_all in ORDER.items():
        for t in gbench.TYPES:
            rs = [r for r in main if r["type"] == t and r["family"] == family]
            if not rs:
                continue
            variants = [v for v in variants_all if any(r["variant"] == v for r in rs)]
            kps = variants[0]
            if kps != variants_all[0]:
                continue  # no kps variant: nothing to compare
            get = {(r["variant"], r["n"]): r for r in rs}
            fam_rounds = any(r.get("wall_us") for r in rs if r["variant"] == kps)
            sizes = sorted({r["n"] for r in rs})
            rows_vals = {n: row_values(family, t, n, get, variants, fam_rounds) for n in sizes}
            peers = [v for v in variants[1:] if any(v in vals and vals[v][1] is get.get((kps, n))
                                                   for n, vals in rows_vals.items())] if fam_rounds else variants[1:]
            refs = [ref for ref, _ in REFERENCES if any(ref in vals for vals in rows_vals.values())]
            floor = any(get.get((kps, n), {}).get("launch_floor_wall_us") for n in sizes)
            spread = has_spread(rs)
            rows = []
            for n in sizes:
                vals = rows_vals[n]
                row = [pow2(n)] + [fmt(vals[v][0]) if v in vals else "—" for v in variants]
                row += [fmt(vals[ref][0]) if ref in vals else "—" for ref in refs]
                base = vals.get(kps, (None,))[0]
                for p in peers + refs:
                    other = vals.get(p, (None,))[0]
                    row.append(fmt(base / other) if base and other else "—")
                if floor:
                    row.append(fmt(get.get((kps, n), {}).get("launch_floor_wall_us")))
                if spread:
                    row.append(cv_cell([v[1] for v in vals.values()], "seconds") if not fam_rounds else
                               _rounds_cv(vals))
                rows.append(row)
            head = (["N"] + variants + refs + [f"{kps} / {p}" for p in peers] + [f"{kps} vs {ref}" for ref in refs]
                    + (["launch floor µs"] if floor else []) + (["cv"] if spread else []))
            md.append(f"### {family} ({TITLES[family]}), {t}: GB/s\n")
            md.append(markdown_table(head, rows) + "\n")
            series = []
            for v in [d for d in DRAW if d in variants or d in refs]:
                pts = []
                for n in sizes:
                    if v in rows_vals[n]:
                        g, r, key = rows_vals[n][v]
                        b = gbench.bounds(r, key)
                        spread_pts = (g * r[key] / b[1], g * r[key] / b[0]) if b and b[0] and b[1] else None
                        pts.append((n, g, spread_pts))
                series.append(plots.Series(v, pts, color={"copy": "0.45", "read": "0.65"}.get(v),
                                           linestyle=":" if v in ("copy", "read") else None))
            png = f"{family}_{t}.png"
            fig = plots.Figure(f"{family} ({TITLES[family]}), {t}: bandwidth against size", "N (elements)", "GB/s",
                               series, xscale="log2", yscale="log", legend_order=variants + refs,
                               relative_to=kps)
            if plots.save(figures.path(png), fig, ctx):
                md.append(figures.link(png, f"{family}, {t}"))
    repeats = gbench.repeated_runs(results.folder)  # `kps run --runs K`: the targets' medians
    md.append(targets.table(ok, "reduce", "tuned", True, "./kps run --preset cuda --scale full --studies reduce", repeats))
    md.append(targets.cpu_table(ok, "reduce", "tuned", "./kps run --scale full --studies reduce",
                                ctx.get("backend", ""), repeats))
    md.append(time_split(ok))
    md.append(writeback(ok))
    md.append(tuning_section(results, figures))
    md.append(operators.analyze(results.op_records, gpu, results.records) or "")
    return join_parts(md)


def _rounds_cv(vals: dict) -> str:
    recs = []
    for g, r, key in vals.values():
        recs.append({"spread": {"seconds": r.get("spread", {}).get(key)}} if r.get("spread", {}).get(key) else {})
    return cv_cell(recs)


def time_split(ok) -> str:
    """Where the time of one call goes (CUDA runs only): the median wall time of a call timed
    with fences around it, and the GPU's time between two events around it, for the tuned sum
    (returned to the host, or left in device memory), CUB and the device copy, per type and N."""
    rs = [r for r in ok if r["family"] in ("reduce", "reduce_async") and r["variant"] == "tuned" and "gpu_us" in r]
    if not rs:
        return ""
    head = ["type", "N", "sum to host: wall / GPU us", "CUB to host", "sum in device memory", "CUB async",
            "copy (same bytes x 2)"]
    rows = []
    key = {(r["family"], r["type"], r["n"]): r for r in rs}

    def pair(r, w, g):
        return f"{fmt(r.get(w))} / {fmt(r.get(g))}" if r.get(w) else ""

    for t in gbench.TYPES:
        for n in sorted({r["n"] for r in rs if r["type"] == t}):
            sync, asyn = key.get(("reduce", t, n), {}), key.get(("reduce_async", t, n), {})
            copy = asyn or sync
            rows.append([t, pow2(n), pair(sync, "wall_us", "gpu_us"), pair(sync, "cub_wall_us", "cub_gpu_us"),
                         pair(asyn, "wall_us", "gpu_us"), pair(asyn, "cub_wall_us", "cub_gpu_us"),
                         pair(copy, "copy_wall_us", "copy_gpu_us")])
    return ("### Where a call's time goes (wall / GPU microseconds, medians of interleaved rounds)\n\n"
            "Wall: host timer with fences around the call; GPU: CUDA events around it on the stream. A sum "
            "returned to the host waits for it inside the call, so its GPU time includes that round trip.\n\n"
            + markdown_table(head, rows) + "\n")


def writeback(ok) -> str:
    """What the copy behind `vs copy` leaves unpaid (GPU runs only, reduce_copy/writeback)."""
    rs = [r for r in ok if r["family"] == "reduce_copy" and r["variant"] == "writeback"]
    if not rs:
        return ""
    head = ["type", "N", "copy: wall / GPU us", "write-back after it: wall / GPU us", "copy GB/s (GPU)",
            "copy GB/s (GPU), write-back counted"]
    rows = []
    for r in sorted(rs, key=lambda r: (gbench.TYPES.index(r["type"]), r["n"])):
        moved = 2e-3 * r["n"] * gbench.TYPE_SIZE[r["type"]]  # bytes read and written, over us: GB/s
        rows.append([r["type"], pow2(r["n"]), f"{fmt(r.get('copy_wall_us'))} / {fmt(r.get('copy_gpu_us'))}",
                     f"{fmt(r.get('writeback_wall_us'))} / {fmt(r.get('writeback_gpu_us'))}",
                     fmt(moved / r["copy_gpu_us"]) if r.get("copy_gpu_us") else "",
                     fmt(r.get("copy_with_writeback_GB/s"))])
    return ("### The copy's unpaid write-back (reduce_copy/writeback)\n\n"
            "A copy ends with its last writes still in the last-level cache as dirty lines; the call after "
            "it writes them back. Write-back = t(copy, then a read) - t(copy) - t(read), medians of "
            "interleaved rounds, the read being kps::reduce_sum of 4x the cache (bandwidth-bound); wall "
            "times also save one fence in the joint call. Part of the write-back hides in the read's own "
            "start, so this is a lower bound of what the copy's time leaves out, and from 2^28 on it is "
            "within the rounds' noise (studies/reduce/README.md: Nsight Compute counts the bytes).\n\n"
            + markdown_table(head, rows) + "\n")


def tuning_section(results, figures) -> str:
    """The tuning sweep of this machine (reduce/tune beside the study's JSON), rendered from its
    JSON into tune/ (tune.md, CSV, figures, the table); its summary here."""
    from kps_report import tuning  # the tuning driver renders the sweep the same way `kps tune` does
    from kps_report.layout import layout
    from kps_report.study import load_study
    tune_dir = results.folder / "tune"
    if not any(tune_dir.glob("*.json")):
        return ""
    lay = layout()
    rendered = tuning.render_folder(tune_dir, figures.child("tune"), load_study("reduce", lay.studies_dir),
                                    lay.command, lay.installed, load_study("scan", lay.studies_dir))
    if rendered is None:
        return ""
    link = f"{figures.sub}/tune/tune.md" if figures.sub else "tune/tune.md"
    what = "the seed's sweep and the scan's" if rendered.scan_rows else "the seed's sweep"
    return (f"### Tuning ({what}; its table, figures and CSV in [tune/tune.md]({link}))\n\n"
            + re.sub(r"^(#+) ", r"#\1 ", rendered.summary, flags=re.M))


def headlines(results) -> list:
    ok = [r for r in results.records if "error" not in r and r.get("n")]
    out = []
    for family, label in (("reduce", "Tuned sum returned to the host"), ("dot", "kps::dot")):
        kps = ORDER[family][0]
        for t in ("int32", "double", "float"):
            rs = [r for r in ok if r["family"] == family and r["type"] == t]
            get = {(r["variant"], r["n"]): r for r in rs}
            ns = sorted(n for v, n in get if v == kps)
            if not ns:
                continue
            n = ns[-1]
            variants = [v for v in ORDER[family] if (v, n) in get]
            vals = row_values(family, t, n, get, variants, any(r.get("wall_us") for r in rs))
            base = vals.get(kps, (None,))[0]
            parts = [f"{fmt(base)} GB/s"]
            for p in [v for v in variants[1:] if v in vals and vals[v][1] is get.get((kps, n))] + ["read", "copy"]:
                if p in vals and base:
                    parts.append(f"{fmt(base / vals[p][0])} x {p}")
            out.append(Headline(f"{label}, {t}, N = {pow2(n)}: GB/s and against its peers (same rounds)",
                                "; ".join(parts), "— (the seed tunes an OpenCL reduction; no peers)"))
            break
    tune_dir = results.folder / "tune"
    if any(tune_dir.glob("*.json")):
        from kps_report import tuning
        from kps_report.layout import layout
        from kps_report.study import load_study
        counts = tuning.check_counts(tune_dir, load_study("reduce", layout().studies_dir))
        if counts:
            ok_n, total, v_ok, v_total = counts
            out.append(Headline("The seed's tuning method: sizes where the lookup table's entry is within 5 % of the "
                                "sweep's best time", f"{ok_n} of {total}" + (
                                    f"; verification run: every target met at {v_ok} of {v_total} sizes" if v_total
                                    else "; no verification run of this table"),
                                "one table entry per range of similar optima (seed 002: sizes 10^3..8·10^6)"))
    return out
