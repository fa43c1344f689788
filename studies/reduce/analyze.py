"""Reduction study analysis: Google Benchmark JSON -> tables (GB/s of the tuned kps
reduction and its peers per size; dot products) and PNG plots. Reads only the JSON, plus the
tuning summary `tools/kps_run.py tune` wrote from its own JSON (tune/tune.md, see tune.py)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import kpsjson  # noqa: E402

ORDER = {"reduce": ["tuned", "cub", "kokkos", "kokkos_kernels"],
         "reduce_async": ["tuned", "cub", "kokkos", "native"],
         "dot": ["kps", "kokkos_kernels"]}
# The target's peer of each family's kps variant, timed in that variant's own rounds
# (bench/reduce_bench.cpp: ratio_to_<peer>, the peer's time over kps').
PEER = {"reduce": "kokkos", "reduce_async": "kokkos", "dot": "kokkos_kernels"}


def analyze(records, ctx, outdir):
    md = ["## Reduction study\n",
          "Sums (reduce) and dot products; GB/s counts the bytes read once. Medians of the repetitions. "
          "`vs copy` is the tuned reduction's read bandwidth over the read bandwidth implied by a "
          "device-to-device copy measured in the same run. `reduce` returns the sum to the host (the "
          "call waits for it); `reduce_async` leaves it in device memory (nothing waits), against "
          "CUB's own asynchronous form. `/ cub` and `/ kokkos` (`/ kokkos_kernels` for dot) are the peer's time "
          "over the kps variant's, both timed in the same interleaved rounds (> 1: kps is faster).\n"]
    failures, ok = kpsjson.split_failures(records)
    if failures:
        md.append(failures)
    for family, variants_all in ORDER.items():
        for t in kpsjson.TYPES:
            rs = [r for r in ok if r["type"] == t and r["family"] == family]
            if not rs:
                continue
            variants = [v for v in variants_all if any(r["variant"] == v for r in rs)]
            get = {(r["variant"], r["n"]): r for r in rs}
            peer = f"ratio_to_{PEER[family]}"
            same_rounds = any(r["variant"] == variants[0] and peer in r for r in rs)
            rows = []
            for n in sorted({r["n"] for r in rs}):
                row = [kpsjson.pow2(n)] + [kpsjson.fmt(get.get((v, n), {}).get("GB/s")) for v in variants]
                first = get.get((variants[0], n), {})
                row.append(kpsjson.fmt(first.get("ratio_to_copy")))
                if family != "dot":
                    row.append(kpsjson.fmt(first.get("ratio_to_cub")))
                if same_rounds:
                    row.append(kpsjson.fmt(first.get(peer)))
                rows.append(row)
            head = ["N"] + variants + [f"{variants[0]} vs copy"] + ([f"{variants[0]} / cub"] if family != "dot" else [])
            head += [f"{variants[0]} / {PEER[family]}, same rounds"] if same_rounds else []
            md.append(f"### {family}, {t}: GB/s\n")
            md.append(kpsjson.markdown_table(head, rows))
            series = {v: [(r["n"], r.get("GB/s")) for r in rs if r["variant"] == v] for v in variants}
            md.append(kpsjson.bandwidth_figure(outdir, f"{family}_{t}.png", series, f"{family}, {t}", ctx))
    md.append(time_split(ok))
    md.append(writeback(ok))
    md.append(tuning_section(outdir))
    return "\n".join(md)


def time_split(ok):
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
    for t in kpsjson.TYPES:
        for n in sorted({r["n"] for r in rs if r["type"] == t}):
            sync, asyn = key.get(("reduce", t, n), {}), key.get(("reduce_async", t, n), {})
            pair = lambda r, w, g: f"{kpsjson.fmt(r.get(w))} / {kpsjson.fmt(r.get(g))}" if r.get(w) else ""
            copy = asyn or sync
            rows.append([t, kpsjson.pow2(n), pair(sync, "wall_us", "gpu_us"), pair(sync, "cub_wall_us", "cub_gpu_us"),
                         pair(asyn, "wall_us", "gpu_us"), pair(asyn, "cub_wall_us", "cub_gpu_us"),
                         pair(copy, "copy_wall_us", "copy_gpu_us")])
    return ("### Where a call's time goes (wall / GPU microseconds, medians of 15 interleaved rounds each)\n\n"
            "Wall: host timer with fences around the call; GPU: CUDA events around it on the stream. A sum "
            "returned to the host waits for it inside the call, so its GPU time includes that round trip.\n\n"
            + kpsjson.markdown_table(head, rows))


def writeback(ok):
    """What the copy behind `vs copy` leaves unpaid (GPU runs only, reduce_copy/writeback): the
    time its dirty cache lines cost a bandwidth-bound read run right after it, per type and N."""
    rs = [r for r in ok if r["family"] == "reduce_copy" and r["variant"] == "writeback"]
    if not rs:
        return ""
    head = ["type", "N", "copy: wall / GPU us", "write-back after it: wall / GPU us", "copy GB/s (GPU)",
            "copy GB/s (GPU), write-back counted"]
    rows = []
    for r in sorted(rs, key=lambda r: (kpsjson.TYPES.index(r["type"]), r["n"])):
        pair = lambda w, g: f"{kpsjson.fmt(r.get(w))} / {kpsjson.fmt(r.get(g))}"
        moved = 2e-3 * r["n"] * kpsjson.TYPE_SIZE[r["type"]]  # bytes read and written, over us: GB/s
        rows.append([r["type"], kpsjson.pow2(r["n"]), pair("copy_wall_us", "copy_gpu_us"),
                     pair("writeback_wall_us", "writeback_gpu_us"),
                     kpsjson.fmt(moved / r["copy_gpu_us"]) if r.get("copy_gpu_us") else "",
                     kpsjson.fmt(r.get("copy_with_writeback_GB/s"))])
    return ("### The copy's unpaid write-back (reduce_copy/writeback)\n\n"
            "A copy ends with its last writes still in the last-level cache as dirty lines; the call after "
            "it writes them back. Write-back = t(copy, then a read) - t(copy) - t(read), medians of "
            "interleaved rounds, the read being kps::reduce_sum of 4x the cache (bandwidth-bound); wall "
            "times also save one fence in the joint call. Part of the write-back hides in the read's own "
            "start, so this is a lower bound of what the copy's time leaves out, and from 2^28 on it is "
            "within the rounds' noise (studies/reduce/README.md, session 15: Nsight Compute counts the bytes).\n\n"
            + kpsjson.markdown_table(head, rows))


def tuning_section(outdir):
    """The tuning summary that `tools/kps_run.py tune` rendered into outdir/tune/tune.md (tables
    and checks; its figures stay there), or nothing where no tuning ran on this machine."""
    path = os.path.join(outdir, "tune", "tune.md")
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        text = f.read()
    body = text.split("\n#### Time against load per thread")[0]
    body = body.split("\n", 1)[1] if body.startswith("# ") else body  # its own title
    link = f"{os.path.basename(outdir)}/tune/tune.md"
    return f"\n### Tuning (the seed's sweep; figures in [{link}]({link}))\n" + body
