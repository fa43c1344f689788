#!/usr/bin/env python3
"""kps cross-backend comparison: the same studies run on several backends, one results folder
each (as `./kps run` or cluster/slurm/submit.sh wrote them), side by side in one Markdown table
per study, benchmarks matched by name.

  kps_compare.py DIR [DIR ...] [--out FILE] [--studies a,b] [--all]
      e.g. kps_compare.py results/h100-cuda results/host-openmp results/host-openmp-1thread

Benchmark names carry no backend (the backend and the device are in each JSON's context), so
`scan/single_pass/int32/1048576/manual_time` is the same benchmark on CUDA, OpenMP or Serial, as
Google Benchmark's own tools/compare.py also assumes. A cell holds the folder's median GB/s where
the benchmark reports a bandwidth, else its median time, and in brackets its speed relative to
the best folder of the row (1.00 = the best; GB/s: value / best, time: best / value, so 0.25
means a quarter of the best speed either way). Column headings come from the JSON context:
backend, device and, for host backends, the thread count (kokkos_concurrency). Rows that only one
folder has are left out unless --all. Reads only the JSON: no build, no GPU.
"""
import argparse
import json
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUDIES_DIR = os.path.join(ROOT, "studies")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import kpsjson  # noqa: E402

GPU_BACKENDS = ("cuda", "hip", "sycl", "openmptarget")
NAME_SUFFIXES = ("/manual_time", "/real_time")


def die(msg):
    print(f"kps compare: error: {msg}", file=sys.stderr)
    sys.exit(2)


study_names = kpsjson.study_names


def study_title(name):
    with open(os.path.join(STUDIES_DIR, name, "study.json")) as f:
        return json.load(f).get("title", name)


def load_folder(path, names):
    """{study: {benchmark name: record}} and the merged context of every JSON in the folder.
    A complete run's record of a benchmark wins over an interrupted run's (as in the report)."""
    studies, ctx = {}, {}
    for name in names:
        docs, records, study_ctx = kpsjson.load_results(os.path.join(path, name))
        if docs:
            ctx.update(study_ctx)
            studies[name] = {r["name"]: r for r in records}
    return studies, ctx


def short_device(device):
    for word in ("NVIDIA ", "(R)", "(TM)", " CPU", " Processor"):
        device = device.replace(word, "")
    return " ".join(device.split())


def column_label(ctx, folder):
    backend = ctx.get("backend")
    if not backend:
        return os.path.basename(os.path.normpath(folder))
    label = backend
    threads = ctx.get("kokkos_concurrency")
    if threads and backend.lower() not in GPU_BACKENDS + ("serial",):
        label += f" ×{threads} thread" + ("s" if threads != "1" else "")
    device = short_device(ctx.get("device", ""))
    return f"{label}, {device}" if device else label


def display_name(name):
    for s in NAME_SUFFIXES:
        if name.endswith(s):
            return name[: -len(s)]
    return name


def sort_key(name):
    """family, variant, element type, N, then the rest with numbers in numeric order."""
    rec = kpsjson.parse_name(name)
    t = kpsjson.TYPES.index(rec["type"]) if rec["type"] in kpsjson.TYPES else len(kpsjson.TYPES)
    natural = [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", name)]
    return (rec["family"], rec["variant"], t, rec["n"] or 0, natural)


def fmt_time(seconds):
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{kpsjson.fmt(seconds / scale)} {unit}"
    return f"{kpsjson.fmt(seconds / 1e-9)} ns"


def row_values(name, columns):
    """(metric, [value or None or 'failed' per column], [relative speed or None per column])."""
    recs = [c.get(name) for c in columns]
    ok = [r if r and "error" not in r else None for r in recs]
    bandwidth = any(r and isinstance(r.get("GB/s"), (int, float)) and r["GB/s"] > 0 for r in ok)
    if bandwidth:
        vals = [r.get("GB/s") if r and r.get("GB/s", 0) > 0 else None for r in ok]
        best = max(v for v in vals if v is not None)
        rel = [v / best if v is not None else None for v in vals]
    else:
        vals = [r["seconds"] if r and r.get("seconds", 0) > 0 else None for r in ok]
        present = [v for v in vals if v is not None]
        best = min(present) if present else None
        rel = [best / v if v is not None else None for v in vals]
    vals = ["failed" if r and "error" in r else v for r, v in zip(recs, vals)]
    return ("GB/s" if bandwidth else "time"), vals, rel


def cell(metric, value, rel):
    if value is None:
        return "—"
    if value == "failed":
        return "check failed"
    text = kpsjson.fmt(value) if metric == "GB/s" else fmt_time(value)
    return f"{text} ({rel:.2f})" if rel is not None else text


def study_section(name, labels, columns, show_all):
    names = sorted(set().union(*[set(c) for c in columns]), key=sort_key)
    present = {n: sum(n in c for c in columns) for n in names}
    shown = [n for n in names if show_all or len(columns) == 1 or present[n] >= 2]
    md = [f"## {name}: {study_title(name)}\n"]
    if not shown:
        md.append(f"No benchmark of this study ran in more than one folder ({len(names)} ran in one; "
                  "`--all` shows them).\n")
        return "\n".join(md)
    tables = {"GB/s": [], "time": []}
    common = {lbl: [] for lbl in labels}
    for n in shown:
        metric, vals, rel = row_values(n, columns)
        if len(columns) == 1:  # nothing to compare with
            rel = [None]
        tables[metric].append(["`" + display_name(n) + "`"] + [cell(metric, v, r) for v, r in zip(vals, rel)])
        if all(r is not None for r in rel):
            for lbl, r in zip(labels, rel):
                common[lbl].append(r)
    for metric, rows in tables.items():
        if rows:
            what = "median GB/s" if metric == "GB/s" else "median time"
            md.append(f"### {what} (relative speed to the best of the row)\n")
            md.append(kpsjson.markdown_table(["benchmark"] + labels, rows) + "\n")
    k = len(next(iter(common.values())))
    if k and len(columns) > 1:
        md.append(f"Geometric mean of the relative speed over the {k} benchmarks every folder ran: " +
                  "; ".join(f"{lbl}: {math.exp(sum(map(math.log, rs)) / k):.3g}" for lbl, rs in common.items()) +
                  ".\n")
    left = len(names) - len(shown)
    if left:
        md.append(f"{left} benchmarks that ran in one folder only are not shown (`--all` shows them).\n")
    return "\n".join(md)


def legend(folders, labels, contexts, out):
    keys = ["backend", "device", "kokkos_concurrency", "kokkos_version", "kokkos_backends", "compiler",
            "device_driver", "kps_git_revision", "date"]
    rows = [[lbl, f"`{os.path.relpath(os.path.abspath(f), os.path.dirname(os.path.abspath(out)))}`"] +
            [str(ctx.get(k, "—")) for k in keys] for f, lbl, ctx in zip(folders, labels, contexts)]
    return kpsjson.markdown_table(["column", "folder"] + keys, rows) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="kps_compare.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", help="results folders (results/<machine>), one column each")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "compare.md"),
                    help="Markdown file to write (default: results/compare.md)")
    ap.add_argument("--studies", default="", help="comma-separated subset (default: every study with results)")
    ap.add_argument("--all", action="store_true", help="also show benchmarks that ran in one folder only")
    a = ap.parse_args(argv)

    known = study_names()
    names = [s for s in a.studies.split(",") if s] or known
    for s in names:
        if s not in known:
            die(f"unknown study '{s}' (studies: {', '.join(known)})")
    folders, loaded, contexts = [], [], []
    for d in a.dirs:
        if not os.path.isdir(d):
            die(f"no results folder {d}")
        studies, ctx = load_folder(d, names)
        if not studies:
            die(f"no study results under {d} (expected {d}/<study>/*.json)")
        folders.append(d)
        loaded.append(studies)
        contexts.append(ctx)
    labels = [column_label(ctx, d) for ctx, d in zip(contexts, folders)]
    for i, lbl in enumerate(labels):  # two runs on one backend and device: the folder tells them apart
        if labels.count(lbl) > 1:
            labels[i] = f"{lbl} ({os.path.basename(os.path.normpath(folders[i]))})"

    parts = ["# kps: the studies across backends\n",
             "Rendered from the Google Benchmark JSON of the folders below alone (`tools/kps_compare.py " +
             " ".join(os.path.relpath(os.path.abspath(d), ROOT) if not os.path.relpath(os.path.abspath(d), ROOT)
                      .startswith("..") else d for d in folders) + "`). Benchmarks are matched by name; each "
             "cell is the median over repetitions and, in brackets, the speed relative to the best folder of "
             "the row (1.00 = the best; for GB/s value / best, for times best / value). `—`: not run there.\n",
             legend(folders, labels, contexts, a.out)]
    for name in names:
        columns = [s.get(name, {}) for s in loaded]
        if any(columns):
            parts.append(study_section(name, labels, columns, a.all))
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w", encoding="utf-8") as f:
        f.write("\n".join(parts))
    print(f"[kps] compare: {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
