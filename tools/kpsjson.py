"""Reading Google Benchmark JSON written by kps-bench, shared by every study's analysis.

Benchmark names read family/variant/type/N (plus /key:value parts for sweeps); the median
aggregate of repeated runs is used where present, the single run otherwise. Nothing here
needs a GPU or the build: a report can be rebuilt from committed JSON alone.
"""
import json
import math
import os
import re
import statistics
from collections import defaultdict

TYPES = ("int32", "int64", "float", "double")
TYPE_SIZE = {"int32": 4, "int64": 8, "float": 4, "double": 8}  # bytes per element
STUDIES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "studies")


def study_names():
    """Every study: the folders of studies/ that hold a study.json."""
    return sorted(d for d in os.listdir(STUDIES_DIR) if os.path.isfile(os.path.join(STUDIES_DIR, d, "study.json")))


def load_results(folder):
    """(docs, records, context) of every JSON in one study's results folder
    (results/<machine>/<study>): one record per benchmark (see medians), a complete run's record
    winning over an interrupted run's and, among those, the newest run's (Google Benchmark's
    context date) over older ones; the contexts merged. Empty lists where there is none."""
    files = sorted(f for f in os.listdir(folder) if f.endswith(".json")) if os.path.isdir(folder) else []
    docs = [load(os.path.join(folder, f)) for f in files]
    ordered = sorted(docs, key=lambda doc: (doc.get("context", {}).get("kps_incomplete") != "true",
                                            doc.get("context", {}).get("date", "")))
    records = list({r["name"]: r for doc in ordered for r in medians(doc)}.values())
    ctx = {}
    for doc in docs:
        ctx.update(context(doc))
    return docs, records, ctx


def load(path):
    with open(path) as f:
        return json.load(f)


def parse_name(name):
    """'scan/single_pass/int32/1024' -> dict(family, variant, type, n, params)."""
    base = name.split("_mean")[0]
    parts = base.split("/")
    rec = {"family": parts[0], "variant": parts[1] if len(parts) > 1 else "", "type": None, "n": None,
           "params": {}}
    for p in parts[2:]:
        if p in TYPES:
            rec["type"] = p
        elif re.fullmatch(r"\d+", p) and rec["n"] is None:
            rec["n"] = int(p)
        elif ":" in p:
            k, v = p.split(":", 1)
            rec["params"][k] = v
    return rec


def medians(doc):
    """One record per benchmark: the median over repetitions of each counter and time.

    Reads both forms Google Benchmark writes: every repetition (the median is taken here) or
    aggregates only (`--benchmark_report_aggregates_only=true`, what kps_run.py asks for; the
    `median` aggregate is used). Returns a list of dicts with name fields plus 'seconds',
    counters, and 'error' (a message) for runs that failed their check."""
    runs = defaultdict(list)
    median_aggregates = {}
    errors = {}
    for b in doc.get("benchmarks", []):
        name = b.get("run_name", b["name"])
        if b.get("error_occurred"):
            errors[name] = b.get("error_message", "error")
        elif b.get("run_type") != "aggregate":
            runs[name].append(b)
        elif b.get("aggregate_name") == "median":
            median_aggregates[name] = b
    for name, b in median_aggregates.items():
        runs.setdefault(name, [b])  # aggregates only: the median stands for the repetitions
    unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    out = []
    for name, rs in runs.items():
        rec = parse_name(name)
        rec["name"] = name
        rec["repetitions"] = rs[0].get("repetitions", 1) if rs[0].get("run_type") == "aggregate" else len(rs)
        rec["seconds"] = statistics.median(r["real_time"] * unit[r.get("time_unit", "ns")] for r in rs)
        keys = set().union(*[set(r) for r in rs])
        for k in keys:
            vals = [r[k] for r in rs if isinstance(r.get(k), (int, float)) and not isinstance(r.get(k), bool)]
            if vals and k not in ("real_time", "cpu_time", "iterations", "repetitions", "repetition_index",
                                  "threads", "family_index", "per_family_instance_index"):
                rec[k] = statistics.median(vals)
        out.append(rec)
    for name, msg in errors.items():
        rec = parse_name(name)
        rec.update(name=name, error=msg)
        out.append(rec)
    return out


def split_failures(records):
    """(Markdown listing the benchmarks whose result check failed, records that passed)."""
    return failures_markdown(records), [r for r in records if "error" not in r and r.get("n")]


# kps' message when a backend cannot launch a requested configuration (a team larger than the
# kernel's limit there): the benchmark did not run, no result was wrong.
REFUSED = "exceeds the backend's limit"


def failures_markdown(records, family=None):
    """Markdown listing the records (of one family, if given) whose result check failed, and
    apart from them the configurations the backend refused to launch; '' if none."""
    errors = [r for r in records if "error" in r and (family is None or r["family"] == family)]
    failed = [r for r in errors if REFUSED not in r["error"]]
    refused = [r for r in errors if REFUSED in r["error"]]
    md = ""
    if failed:
        md += "**Failed checks:**\n\n" + "\n".join(f"- `{r['name']}`: {r['error']}" for r in failed) + "\n"
    if refused:
        md += ("\n" if md else "") + "**Configurations the backend refused (not run):**\n\n" + \
            "\n".join(f"- `{r['name']}`: {r['error']}" for r in refused) + "\n"
    return md


def context(doc):
    return doc.get("context", {})


def fmt(x, digits=3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if isinstance(x, int):
        return str(x)
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def pow2(n):
    if n and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return str(n)


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        lines.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(lines)


def plot_lines(path, series, xlabel, ylabel, title, logx=True, logy=False, marks=None):
    """series: {label: [(x, y), ...]}. Writes a PNG; returns False where matplotlib is absent."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        if not getattr(plot_lines, "warned", False):
            print("kps: warning: matplotlib is not importable by this python; the report has tables only "
                  "(./kps report uses the python that scripts/setup.sh found)", file=__import__("sys").stderr)
            plot_lines.warned = True
        return False
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label, pts in sorted(series.items()):
        pts = sorted(p for p in pts if p[1] is not None)
        if pts:  # a series named '... predicted' is a model's line: dashed, no markers
            style = dict(linestyle="--", marker=None) if "predicted" in label else dict(marker="o", ms=3)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=label, **style)
    for (x, y, text) in (marks or []):
        ax.plot([x], [y], marker="*", ms=12, color="black")
        ax.annotate(text, (x, y), textcoords="offset points", xytext=(5, 5), fontsize=8)
    if logx:
        ax.set_xscale("log", base=2)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def bandwidth_figure(outdir, png, series, title, ctx):
    """Plots GB/s against N into outdir/png; returns the Markdown image link ('' without plots)."""
    full = f"{title} ({ctx.get('device', '')}, {ctx.get('backend', '')})"
    if plot_lines(os.path.join(outdir, png), series, "N (elements)", "GB/s", full):
        return f"\n![{title}]({os.path.basename(outdir)}/{png})\n"
    return ""
