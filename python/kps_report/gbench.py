"""Google Benchmark JSON written by kps-bench: reading it, checking it, one record per benchmark.

A benchmark's name reads family/variant/type/N[/key:value...]. Its record holds the median over
the repetitions of the time (`seconds`) and of every counter, and `spread`: for the time and each
counter, the standard deviation, coefficient of variation and the smallest and largest
repetition, where the JSON has them (every repetition, or the mean/stddev/cv aggregates Google
Benchmark writes plus the min/max ones `slim` adds). A file that is not kps-bench's JSON (empty,
cut off, `{}`, no context) stops the caller with one line naming it.
"""
from __future__ import annotations

import json
import math
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from kps_report import likwid
from kps_report.errors import die

# The value types and operators a benchmark's name may hold, with the types' sizes: what each
# document's kps-bench says it names (its context's kps_types, "int8:1,...", and kps_operators),
# added as documents are read (register_names); before any, the four types every kps-bench
# names, which documents written before kps_types existed name alone.
TYPE_SIZE = {"int32": 4, "int64": 8, "float": 4, "double": 8}  # bytes per element
TYPES = list(TYPE_SIZE)  # in the order the documents list them
OPERATORS: set = set()
TIME_UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
# Fields of a Google Benchmark entry that are not counters.
NOT_COUNTERS = {"real_time", "cpu_time", "iterations", "repetitions", "repetition_index", "threads",
                "family_index", "per_family_instance_index"}
# Above this coefficient of variation across repetitions a value is marked as noisy.
NOISY_CV = 0.05


@dataclass(frozen=True)
class Spread:
    """How the repetitions of one value scatter: stddev and cv (stddev / mean; None where the
    JSON has neither), and the smallest and largest repetition (None where it has not them)."""
    stddev: Optional[float] = None
    cv: Optional[float] = None
    lo: Optional[float] = None
    hi: Optional[float] = None


def load(path) -> dict:
    """One Google Benchmark JSON document, checked: an object with a `context` (kps-bench's:
    it names the backend) and a list of `benchmarks`, each with a name."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        die(f"{path}: cannot read it ({e.strerror})")
    except UnicodeDecodeError:
        die(f"{path}: not a text file (expected kps-bench's Google Benchmark JSON)")
    if not text.strip():
        die(f"{path}: empty file (an interrupted run? run the study again; `--force` re-runs it)")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        die(f"{path}: not valid JSON, cut off? ({e.msg} at line {e.lineno}); run the study again or keep its "
            f"completed benchmarks with `kps salvage`")
    if not isinstance(doc, dict) or not isinstance(doc.get("benchmarks"), list):
        die(f"{path}: not Google Benchmark JSON (no list of 'benchmarks')")
    ctx = doc.get("context")
    if not isinstance(ctx, dict) or not ctx.get("backend"):
        die(f"{path}: no kps-bench context (its 'context' names no backend): not written by kps-bench")
    for b in doc["benchmarks"]:
        if not isinstance(b, dict) or not isinstance(b.get("name"), str):
            die(f"{path}: a benchmark entry without a name")
        if not b.get("error_occurred") and not isinstance(b.get("real_time"), (int, float)):
            die(f"{path}: benchmark {b['name']} has no real_time")
    register_names(ctx)
    return doc


def register_names(ctx: dict) -> None:
    """Adds the value types (name and bytes) and operators a document's kps-bench names (its
    context's kps_types and kps_operators) to those parse_name knows."""
    for item in str(ctx.get("kps_types", "")).split(","):
        name, _, size = item.partition(":")
        if name and size.isdigit():
            if name not in TYPE_SIZE:
                TYPES.append(name)
            TYPE_SIZE[name] = int(size)
    OPERATORS.update(op for op in str(ctx.get("kps_operators", "")).split(",") if op)


# The knobs of kps-bench's sweeps by family (kps::knob_family: reduce, single_pass), as JSON
# without the context's kps_knobs (written before kps-bench listed them) names them: each knob's
# name (a benchmark argument's and a record's knob_<name>) and an enumerated knob's value names,
# in the order of the numbers that stand for them (None: a number).
KNOBS = {"reduce": [("team", None), ("items", None), ("league", None), ("vector", None),
                    ("schedule", ["static", "dynamic"])],
         "single_pass": [("team", None), ("items", None), ("load", ["direct", "staged", "cached"]), ("delay", None),
                         ("poll", None), ("prefetch", None), ("lanes", None), ("store", ["cached", "streaming"])]}


def knobs(ctx: dict) -> dict:
    """{family: [(knob, value names or None)]}: the knobs a document's kps-bench lists in its
    context (kps_knobs: "reduce:team,items,...,schedule=static|dynamic;single_pass:...", each family's
    knobs in order, an enumerated one's value names after '=' in the order of their numbers), a
    family it does not list (every family of JSON without the key) with KNOBS'."""
    out = dict(KNOBS)
    text = str(ctx.get("kps_knobs", ""))
    for part in filter(None, text.split(";")):
        family, sep, items = part.partition(":")
        if not sep or not family or not items:
            die(f"kps_knobs '{text}': '{part}' is not FAMILY:KNOB,...")
        entries = [(name, values.split("|") if eq else None)
                   for name, eq, values in (item.partition("=") for item in items.split(","))]
        if not all(name and (values is None or all(values)) for name, values in entries):
            die(f"kps_knobs '{text}': '{part}' has a knob or value without a name")
        out[family] = entries
    return out


# What Google Benchmark appends to a benchmark's name: an explicit iteration count (kps-bench's
# rounds), repetitions and minimum time set in code, and the timer.
GB_SEGMENT = re.compile(r"/(iterations:\d+|repeats:\d+|min_time:[^/]+|min_warmup_time:[^/]+|manual_time|real_time)(?=/|$)")


def base_name(name: str) -> str:
    """A benchmark's name without Google Benchmark's own segments: the same benchmark has the same
    base name whatever its iteration count or timer."""
    return GB_SEGMENT.sub("", name)


def parse_name(name: str) -> dict:
    """'scan/single_pass/int32/1024' -> dict(family, variant, op, type, n, params); the operators'
    families name their operator before the type ('scan/automatic/max/int8/1024': op 'max'; None:
    a sum, as today's families)."""
    parts = base_name(name).split("/")
    rec = {"family": parts[0], "variant": parts[1] if len(parts) > 1 else "", "op": None, "type": None, "n": None,
           "params": {}}
    for p in parts[2:]:
        if p in OPERATORS and rec["type"] is None and rec["op"] is None:
            rec["op"] = p
        elif p in TYPE_SIZE and rec["type"] is None:
            rec["type"] = p
        elif re.fullmatch(r"\d+", p) and rec["n"] is None:
            rec["n"] = int(p)
        elif ":" in p:
            k, v = p.split(":", 1)
            rec["params"][k] = v
    return rec


def _numeric(entry: dict) -> dict:
    return {k: v for k, v in entry.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in NOT_COUNTERS}


def records(doc: dict, operators: bool = False) -> list:
    """One record per benchmark of a document: median time and counters, their spread, or
    `error` (the message) for a benchmark whose check failed (a peer's benchmark marked
    wrong_<variant> too: its time is kept, its result is no measurement). `operators`: the
    operators' families' records too (an `op` of their own); without it today's families alone,
    as every report but the operators-and-types part reads them."""
    runs, aggregates, errors = defaultdict(list), defaultdict(dict), {}
    for b in doc.get("benchmarks", []):
        name = b.get("run_name", b["name"])
        if b.get("error_occurred"):
            errors[name] = b.get("error_message", "error")
        elif b.get("run_type") == "aggregate":
            aggregates[name][b.get("aggregate_name")] = b
        else:
            runs[name].append(b)
    out = []
    for name in list(runs) + [n for n in aggregates if n not in runs and "median" in aggregates[n]]:
        rec = parse_name(name)
        if rec["op"] is not None and not operators:
            continue
        rec["name"] = base_name(name)
        if name in runs:
            _from_repetitions(rec, runs[name])
        else:
            _from_aggregates(rec, aggregates[name])
        _time_of_rounds(rec)
        if rec.get(f"wrong_{rec.get('variant')}"):
            # A peer timed as a benchmark of its own with a wrong result (kps-bench marks it and goes
            # on): a failed check of that peer, wherever its records are read.
            label = next((b.get("label") for b in runs.get(name, []) + list(aggregates[name].values())
                          if b.get("label")), "")
            rec["error"] = label or f"{rec['variant']}: wrong result"
        out.append(rec)
    for name, msg in errors.items():
        rec = parse_name(name)
        if rec["op"] is not None and not operators:
            continue
        rec.update(name=base_name(name), error=msg)
        out.append(rec)
    # The machine's own limits the run recorded (likwid-bench: kps_report.likwid), with the
    # last-level cache past which they hold: every record of the run carries them (bounds.py).
    ctx = doc.get("context") or {}
    machine = likwid.from_context(ctx)
    if machine:
        llc = likwid.last_level_cache_bytes(ctx)
        for rec in out:
            rec["machine_bounds"], rec["llc_bytes"] = machine, llc
    return out


def _time_of_rounds(rec: dict) -> None:
    """A comparison timed in interleaved rounds (counters `rounds` and `wall_us`): its time is the
    median of its rounds, the time its ratios use, and its GB/s follows from it; Google
    Benchmark's own time (the mean over the loop, or an older binary's separate loop) is kept as
    `loop_seconds`. Every figure of a row then comes from the same measurements."""
    if not rec.get("rounds") or not rec.get("wall_us"):
        return
    loop = rec["seconds"]
    rec["loop_seconds"] = loop
    rec["seconds"] = rec["wall_us"] * 1e-6
    # Rates an older binary took from its loop: elements/s x time = N tells which time they used.
    n, rate = rec.get("N"), rec.get("elements/s")
    if n and rate:
        factor = n / (rate * rec["seconds"])
        if abs(factor - 1) > 1e-3:
            for key in ("GB/s", "elements/s"):
                if rec.get(key):
                    rec[key] *= factor
                    sp = rec["spread"].get(key)
                    if sp:  # the loop's spread, moved with its median
                        mul = lambda v: v * factor if v is not None else None  # noqa: E731
                        rec["spread"][key] = Spread(mul(sp.stddev), sp.cv, mul(sp.lo), mul(sp.hi))
    s = rec["spread"].get("wall_us")
    if s:
        scale = lambda v: v * 1e-6 if v is not None else None  # noqa: E731
        rec["spread"]["seconds"] = Spread(scale(s.stddev), s.cv, scale(s.lo), scale(s.hi))
    else:  # the loop's spread does not surround the rounds' median
        rec["spread"].pop("seconds", None)


def _from_repetitions(rec: dict, rs: list) -> None:
    unit = TIME_UNIT[rs[0].get("time_unit", "ns")]
    values = {"seconds": [r["real_time"] * unit for r in rs]}
    for r in rs:
        for k, v in _numeric(r).items():
            values.setdefault(k, []).append(v)
    rec["repetitions"] = len(rs)
    rec["spread"] = {}
    rec["samples"] = values  # every repetition's value (the verdicts' test: kps_report.stats)
    for k, vs in values.items():
        rec[k] = statistics.median(vs)
        if len(vs) > 1:
            mean = statistics.fmean(vs)
            sd = statistics.stdev(vs)
            rec["spread"][k] = Spread(sd, sd / mean if mean else None, min(vs), max(vs))


def _from_aggregates(rec: dict, agg: dict) -> None:
    med = agg["median"]
    unit = TIME_UNIT[med.get("time_unit", "ns")]
    rec["repetitions"] = med.get("repetitions", 1)
    rec["seconds"] = med["real_time"] * unit
    rec.update(_numeric(med))
    rec["spread"] = {}
    keys = ["seconds"] + list(_numeric(med))

    def value(kind, key, scale=1.0):
        a = agg.get(kind)
        if a is None:
            return None
        v = a.get("real_time") if key == "seconds" else a.get(key)
        return v * scale if isinstance(v, (int, float)) else None

    for k in keys:
        scale = unit if k == "seconds" else 1.0
        sd, cv = value("stddev", k, scale), value("cv", k)
        mean = value("mean", k, scale)
        if cv is None and sd is not None and mean:
            cv = sd / mean
        s = Spread(sd, cv, value("min", k, scale), value("max", k, scale))
        if any(v is not None for v in (s.stddev, s.cv, s.lo, s.hi)):
            rec["spread"][k] = s


def cv(rec: dict, key: str = "seconds") -> Optional[float]:
    s = rec.get("spread", {}).get(key)
    return s.cv if s else None


def bounds(rec: dict, key: str):
    """(smallest, largest) repetition of a value, else median -/+ stddev, else None."""
    s = rec.get("spread", {}).get(key)
    if not s:
        return None
    if s.lo is not None and s.hi is not None:
        return s.lo, s.hi
    if s.stddev is not None and key in rec:
        return rec[key] - s.stddev, rec[key] + s.stddev
    return None


# The aggregates a report reads: the median, and the spread as cv, min and max (mean and
# stddev add nothing to them and make long sweeps a third larger).
READ_AGGREGATES = ("median", "cv", "min", "max")
# Significant digits a slimmed document keeps of each number: more than any timer here resolves
# (a wall time of a few microseconds is read in nanoseconds), fewer than the float's 17.
SLIM_DIGITS = 7


def _rounded(x, digits: int = SLIM_DIGITS):
    if isinstance(x, float) and math.isfinite(x):
        return float(f"{x:.{digits}g}")
    if isinstance(x, dict):
        return {k: _rounded(v, digits) for k, v in x.items()}
    if isinstance(x, list):
        return [_rounded(v, digits) for v in x]
    return x


def slim(doc: dict, keep: Optional[tuple] = None, repetitions: bool = False) -> dict:
    """Keeps the aggregates of each benchmark (mean, median, stddev, cv) and failed runs, and
    replaces the per-repetition entries by two aggregates of their own, `min` and `max`, so that
    long sweeps stay small and keep their spread; context kps_slimmed says so. `keep` (e.g.
    READ_AGGREGATES) names the aggregates kept, of a document slimmed before too, and rounds the
    benchmarks' numbers to SLIM_DIGITS significant digits (`kps slim`, for long sweeps to be
    committed). `repetitions`: every repetition's entry stays too, its numbers rounded likewise
    (what the runner writes: the verdicts' rank test, kps_report.stats, needs each repetition, not
    their median). A run without repetitions (no aggregates) is returned as it is."""
    if not any(b.get("aggregate_name") == "median" for b in doc["benchmarks"]):
        return doc
    reps = defaultdict(list)
    for b in doc["benchmarks"]:
        if b.get("run_type") != "aggregate" and not b.get("error_occurred"):
            reps[b.get("run_name", b["name"])].append(b)
    kept = []
    for b in doc["benchmarks"]:
        if b.get("error_occurred"):
            kept.append(b)
        elif b.get("run_type") != "aggregate":
            if repetitions:
                kept.append(_rounded(b))
        elif b.get("run_type") == "aggregate":
            kept.append(b)
            rs = reps.get(b.get("run_name", b["name"]))
            if b.get("aggregate_name") == "median" and rs:
                for kind, pick in (("min", min), ("max", max)):
                    e = dict(b, name=b["name"][: -len("_median")] + "_" + kind if b["name"].endswith("_median")
                             else b["name"] + "_" + kind, aggregate_name=kind)
                    for k in ["real_time", "cpu_time"] + list(_numeric(rs[0])):
                        vals = [r[k] for r in rs if isinstance(r.get(k), (int, float))]
                        if vals:
                            e[k] = pick(vals)
                    kept.append(e)
    if keep is not None:
        kept = [_rounded(b) for b in kept if b.get("run_type") != "aggregate" or b.get("aggregate_name") in keep]
    doc["benchmarks"] = kept
    doc["context"]["kps_slimmed"] = (("every repetition kept (numbers to "
                                      f"{SLIM_DIGITS} significant digits), with min and max aggregates (the "
                                      if repetitions and keep is None else
                                      "per-repetition entries replaced by min and max aggregates (the ")
                                     + (", ".join(keep) if keep is not None else "mean, median, stddev and cv")
                                     + " aggregates kept"
                                     + (f"; numbers to {SLIM_DIGITS} significant digits" if keep is not None else "")
                                     + ")")
    return doc


def salvage(path) -> dict:
    """Google Benchmark JSON cut off by a killed run -> the same document holding every
    benchmark completed before the cut, with context kps_incomplete = "true"."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        die(f"{path}: cannot read it ({e.strerror})")
    cut = text.rfind("\n    }")
    while cut > 0:
        try:
            doc = json.loads(text[:cut + 6] + "\n  ]\n}\n")
            break
        except json.JSONDecodeError:
            cut = text.rfind("\n    }", 0, cut)
    else:
        die(f"{path}: no complete benchmark in it")
    if not isinstance(doc.get("context"), dict):
        die(f"{path}: no context in it")
    doc["context"]["kps_incomplete"] = "true"
    return doc


@dataclass
class StudyResults:
    """Every JSON of one study's results folder (results/<machine>/<study>), merged."""
    name: str
    folder: Path
    files: list = field(default_factory=list)
    docs: list = field(default_factory=list)
    records: list = field(default_factory=list)
    context: dict = field(default_factory=dict)
    # The operators' families' records (an `op` of their own), merged as `records` are: the
    # operators-and-types part reads them, every other part `records` alone.
    op_records: list = field(default_factory=list)

    def __bool__(self):
        return bool(self.docs)


def load_study(name: str, folder: Path) -> StudyResults:
    """The study's JSON in `folder` (not its sub-folders): one record per benchmark, a complete
    run's record winning over an interrupted run's and, among those, the newest run's (Google
    Benchmark's context date) over older ones; the contexts merged, the newest last."""
    folder = Path(folder)
    files = sorted(folder.glob("*.json")) if folder.is_dir() else []
    docs = [load(f) for f in files]
    order = sorted(range(len(docs)), key=lambda i: (docs[i]["context"].get("kps_incomplete") != "true",
                                                   docs[i]["context"].get("date", "")))
    merged = {r["name"]: r for i in order for r in records(docs[i])}
    ops = {r["name"]: r for i in order for r in records(docs[i], operators=True) if r["op"] is not None
           or r["family"] in ("argmin", "argmax")}
    ctx = {}
    for i in sorted(range(len(docs)), key=lambda i: docs[i]["context"].get("date", "")):
        ctx.update(docs[i]["context"])
    return StudyResults(name, folder, [files[i] for i in order], [docs[i] for i in order], list(merged.values()), ctx,
                        list(ops.values()))


@dataclass
class Repeats:
    """The repeats of a study's jobs (`kps run --runs K`): {k: records of the k-th runs}, and the
    files left out, each with why."""
    runs: dict = field(default_factory=dict)
    left_out: list = field(default_factory=list)


def _measured_alike(repeat: dict, first: dict) -> Optional[str]:
    """Why a repeat's context does not repeat the first run's (another kps-bench, job definition
    or tuning table), else None."""
    if repeat.get("kps_bench_sha256") != first.get("kps_bench_sha256"):
        return "another kps-bench"
    if repeat.get("kps_job") != first.get("kps_job"):
        return "another definition of the job"
    key = "kps_tuning_rows_sha256" if repeat.get("kps_tuning_rows_sha256") and first.get("kps_tuning_rows_sha256") \
        else "kps_tuning_table_sha256"
    if repeat.get(key) != first.get(key):
        return "another tuning table"
    return None


def repeated_runs(folder: Path) -> Repeats:
    """The repeats in <folder>/runs/<id>.run<k>.json (`kps run --runs K`; run 1 is the folder's
    own <id>.json), each k's files merged as load_study merges a folder's. A repeat counts only
    beside its job's own JSON, measured alike (the same kps-bench, job definition and tuning
    table): one left from before the job was measured again is left out, saying why."""
    folder = Path(folder)
    out = Repeats()
    runs = {}
    for f in sorted((folder / "runs").glob("*.run*.json")) if (folder / "runs").is_dir() else []:
        job, k = f.name[:-len(".json")].rsplit(".run", 1)
        if not k.isdigit():
            continue
        doc = load(f)
        first = folder / f"{job}.json"
        why = _measured_alike(doc["context"], load(first)["context"]) if first.is_file() else f"no {first.name}"
        if why:
            out.left_out.append(f"{f.parent.name}/{f.name}: {why}")
            continue
        runs.setdefault(int(k), []).append(doc)
    for k, docs in sorted(runs.items()):
        docs.sort(key=lambda d: (d["context"].get("kps_incomplete") != "true", d["context"].get("date", "")))
        out.runs[k] = list({r["name"]: r for d in docs for r in records(d)}.values())
    return out


def split_failures(recs: list):
    """(Markdown listing the benchmarks whose result check failed, records that passed)."""
    return failures_markdown(recs), [r for r in recs if "error" not in r and r.get("n")]


# kps' message when a backend cannot launch a requested configuration (a team larger than the
# kernel's limit there): the benchmark did not run, no result was wrong.
REFUSED = "exceeds the backend's limit"


def failures_markdown(recs: list, family: Optional[str] = None) -> str:
    """Markdown listing the records (of one family, if given) whose result check failed, and
    apart from them the configurations the backend refused to launch; '' if none."""
    errors = [r for r in recs if "error" in r and (family is None or r["family"] == family)]
    failed = [r for r in errors if REFUSED not in r["error"]]
    refused = [r for r in errors if REFUSED in r["error"]]
    md = ""
    if failed:
        md += "**Failed checks:**\n\n" + "\n".join(f"- `{r['name']}`: {r['error']}" for r in failed) + "\n"
    if refused:
        md += ("\n" if md else "") + "**Configurations the backend refused (not run):**\n\n" + \
            "\n".join(f"- `{r['name']}`: {r['error']}" for r in refused) + "\n"
    return md
