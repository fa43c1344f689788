"""Occupancy study analysis: Google Benchmark JSON -> the seed-004 tables on this GPU (blocks,
threads, time, measured and predicted waves, and the model's explanation), the sweeps across
each wave boundary with the model's steps, and the runtime's occupancy calculator against the
model. Reads only the JSON (the model's counters were written by the benchmarks)."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import kpsjson  # noqa: E402

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


def analyze(records, ctx, outdir):
    md = ["## Occupancy study\n",
          "Every block spins a fixed number of clock cycles (`clock64()`, 2^21 = about 1 ms), so a launch takes "
          "waves x that time: `waves` measured = time / the same kernel's one-block time. `pred` is the occupancy "
          "model (`kps/occupancy.hpp`, `kps-occupancy`) with the registers and static shared memory that "
          "cudaFuncGetAttributes reports for the kernel that ran. Blocks are written relative to the SM count "
          "(`sm+1` = 133 on an H100).\n"]
    md.append(kpsjson.failures_markdown(records, "occupancy"))
    pts = points(records)
    if not pts:
        return "\n".join(part for part in md if part)
    gpu = any("predicted_waves" in p for p in pts)
    if not gpu:
        rows = [[p["blocks_name"], int(p["blocks"]), p["threads"], kpsjson.fmt(p["measured_ms"]),
                 kpsjson.fmt(p["measured_waves"])] for p in pts]
        md.append("### Host backend (teams are OS threads; no model claims)\n\n" +
                  kpsjson.markdown_table(["blocks", "teams", "team size", "ms", "waves"], rows) + "\n")
        return "\n".join(part for part in md if part)
    sms = int(float(ctx.get("device_compute_units", 0)) or 0)
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
            rows.append([f"{int(p['blocks'])} ({SEED_BLOCKS[blocks]})", threads, kpsjson.fmt(p["measured_ms"]), seed_ms,
                         f"{p['measured_waves']:.2f}", int(p["predicted_waves"]), explanation(p, sms)])
        return kpsjson.markdown_table(["blocks (seed's)", "threads", "ms", "seed ms", "waves", "pred waves",
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
            series = {"measured": [(p["threads"], p["measured_waves"]) for p in ps],
                      "predicted": [(p["threads"], p["predicted_waves"]) for p in ps]}
            png = f"occupancy_threads_{lg}.png"
            title = f"{lg} blocks, 48 registers: waves against threads per block"
            if kpsjson.plot_lines(os.path.join(outdir, png), series, "threads per block", "waves", title, logx=False):
                md.append(f"![{title}]({os.path.basename(outdir)}/{png})\n")
    for lg in ("3sm", "6sm"):
        series = {}
        rows = []
        for impl in ("cuda", "kokkos"):
            ps = sorted((p for p in ok if p["impl"] == impl and p["blocks_name"] == lg and p["threads"] == 32
                         and p["regs"] in (None, "free") and not p["bounds"] and not p["desired"]),
                        key=lambda p: p["smem_bytes"])
            if not ps:
                continue
            series[f"{impl} measured"] = [(p["smem_bytes"] / 1024, p["measured_waves"]) for p in ps]
            series[f"{impl} predicted"] = [(p["smem_bytes"] / 1024, p["predicted_waves"]) for p in ps]
            rows += [[impl, p["smem_name"], int(p["static_smem_bytes"]), int(p["predicted_blocks_per_sm"]),
                      f"{p['measured_waves']:.2f}", int(p["predicted_waves"])] for p in ps]
        if rows:
            md.append(f"### Shared memory per block at {lg} blocks of one warp\n")
            md.append(kpsjson.markdown_table(["impl", "dynamic / scratch", "static bytes", "pred blocks/SM", "waves",
                                              "pred waves"], rows) + "\n")
            png = f"occupancy_smem_{lg}.png"
            title = f"{lg} blocks of 32 threads: waves against shared memory per block"
            if kpsjson.plot_lines(os.path.join(outdir, png), series, "KB per block", "waves", title, logx=False):
                md.append(f"![{title}]({os.path.basename(outdir)}/{png})\n")
    regs = sorted((p for p in ok if p["impl"] == "cuda" and p["blocks_name"] == "2sm" and p["smem_name"] == "0K"
                   and p["threads"] in (256, 384, 512, 640, 768, 1024)),
                  key=lambda p: (int(p["registers"]), p["threads"]))
    if regs:
        rows = [[int(p["registers"]), p["threads"], int(p["predicted_blocks_per_sm"]),
                 int(p.get("runtime_blocks_per_sm", -1)), f"{p['occupancy']:.3f}", f"{p['measured_waves']:.2f}",
                 int(p["predicted_waves"]), limiters(p)] for p in regs]
        md.append("### Registers per thread against threads per block (2 x SMs blocks)\n")
        md.append(kpsjson.markdown_table(["registers", "threads", "pred blocks/SM", "runtime blocks/SM", "occupancy",
                                          "waves", "pred waves", "limiters"], rows) + "\n")
    md.append(levers(ok))
    return "\n".join(part for part in md if part)


def levers(ok):
    md = []
    rows = [[p["bounds"], p["threads"], int(p["registers"]), int(p["predicted_blocks_per_sm"]),
             f"{p['measured_waves']:.2f}", int(p["predicted_waves"])]
            for p in sorted((p for p in ok if p["bounds"]), key=lambda p: (p["bounds"], p["threads"]))]
    if rows:
        md.append("### Kokkos::LaunchBounds<MaxThreads, MinBlocks> on a kernel that wants ~66 registers (2 x SMs teams)\n")
        md.append("Registers read from Kokkos' own launch layer (`kps/cuda/kokkos_attributes.hpp`).\n")
        md.append(kpsjson.markdown_table(["bounds", "team size", "registers", "pred blocks/SM", "waves", "pred waves"],
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
        md.append(kpsjson.markdown_table(["desired %", "dynamic smem Kokkos asks", "carveout %", "pred blocks/SM",
                                          "measured blocks/SM", "measured occupancy", "blocks/SM Kokkos aims at"],
                                         rows) + "\n")
    return "\n".join(part for part in md if part)
