"""Where a reduction's fixed cost sits, from Nsight Compute's per-kernel CSV (`ncu --csv
--metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum`, raw or gzipped):
each kernel kind's median duration and DRAM traffic, split by how much it read (one row per
input size) and by whether it wrote back more than 1 MB it never wrote itself (a kernel run
after a copy pays for the copy's dirty cache lines); then, for each kind timed at two input
sizes, the fit t = t0 + bytes / R through the two medians (t0: the kernel's own fixed cost,
launch excluded). Usage: `kps ncu-split FILE.csv[.gz] ...` (`./kps ncu-split` in a checkout):
Markdown on stdout."""
import collections
import csv
import gzip
import statistics
import sys

# Kernel kinds by a substring of their (demangled) names, first match wins.
KINDS = [("CacheFlush", "flush (Kokkos parallel_reduce)"),
         ("kokkos_sum", "Kokkos parallel_reduce"),
         ("cub::DeviceReduceSingleTileKernel", "CUB single tile"),
         ("cub::DeviceReduceKernel", "CUB DeviceReduceKernel"),
         ("impl::ReduceKernel", "kps::reduce_sum (TeamPolicy)"),
         ("reduce_kernel", "native twin"),
         ("run_copy_writeback", "copy check"),
         ("random_view", "input init")]
DIRTY_BYTES = 1e6  # written back by a kernel that only reads: its predecessor's dirty lines


def kind(name):
    return next((k for s, k in KINDS if s in name), name.split("(")[0][:40])


def kernels(path):
    """One dict per profiled kernel: kind, grid, block and the metrics (ns, bytes)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        rows = csv.DictReader(line for line in f if line.startswith('"'))
        out = collections.OrderedDict()
        for r in rows:
            k = out.setdefault(r["ID"], {"kind": kind(r["Kernel Name"]), "launch": f'{r["Grid Size"]} x {r["Block Size"]}'})
            k[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return list(out.values())


def split(ks):
    """(kind, launch, read MB, after a copy) -> list of kernels."""
    groups = collections.defaultdict(list)
    for k in ks:
        read_mb = round(k.get("dram__bytes_read.sum", 0) / 1e6)
        dirty = k.get("dram__bytes_write.sum", 0) > DIRTY_BYTES and not k["kind"].startswith("input")
        groups[(k["kind"], k["launch"], read_mb, dirty)].append(k)
    return groups


def fits(groups):
    """t0 (us) and R (TB/s) of each kind measured clean at exactly two read sizes (its launch
    may differ between them: CUB sizes its grid to the input)."""
    by = collections.defaultdict(dict)
    for (kd, launch, mb, dirty), ks in groups.items():
        if not dirty and mb > 1:
            by[kd][mb] = statistics.median(k["gpu__time_duration.sum"] for k in ks) / 1e3
    out = {}
    for key, pts in by.items():
        if len(pts) == 2:
            (b1, t1), (b2, t2) = sorted(pts.items())
            r = (b2 - b1) / (t2 - t1)  # MB / us = TB/s
            out[key] = (t1 - b1 / r, r)
    return out


def report(path):
    groups = split(kernels(path))
    lines = [f"### {path}\n", "| kernel | launch | DRAM read MB | after a copy | kernels | median us | "
             "median DRAM written MB |", "|---|---|---|---|---|---|---|"]
    for (kd, launch, mb, dirty), ks in sorted(groups.items(), key=lambda g: (g[0][0], g[0][2], g[0][3])):
        t = statistics.median(k["gpu__time_duration.sum"] for k in ks) / 1e3
        w = statistics.median(k.get("dram__bytes_write.sum", 0) for k in ks) / 1e6
        lines.append(f"| {kd} | {launch} | {mb} | {'yes' if dirty else 'no'} | {len(ks)} | {t:.2f} | {w:.2f} |")
    fitted = fits(groups)
    if fitted:
        lines += ["", "| kernel | t0 us (in the kernel) | R TB/s |", "|---|---|---|"]
        lines += [f"| {kd} | {t0:.2f} | {r:.3f} |" for kd, (t0, r) in sorted(fitted.items())]
    return "\n".join(lines) + "\n"


def main(argv=None, prog="kps ncu-split"):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("-h", "--help"):
        print(f"usage: {prog} FILE.csv[.gz] ...\n\n{__doc__}")
        return 0
    try:
        if not argv:
            raise ValueError(f"no Nsight Compute CSV given (`{prog} --help`)")
        print("\n".join(report(p) for p in argv))
    except (OSError, KeyError, ValueError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
