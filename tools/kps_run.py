#!/usr/bin/env python3
"""kps study runner: runs the studies' sweeps with kps-bench, writes Google Benchmark JSON per
study under results/<machine>/<study>/, and renders one Markdown report with PNG plots.

  kps_run.py run    --bench BUILD/bench/kps-bench [--studies scan,reduce] [--out DIR]
                    [--force] [--scale small|full] [--repetitions R]
  kps_run.py report DIR        re-render the report of DIR from its JSON alone
  kps_run.py tune   --bench BUILD/bench/kps-bench [--scale small|full] [--out DIR]
                    [--tables DIR] [--only IDS] [--force] [--no-verify]
                    re-tune the reduction on the machine at hand: the seed's sweep
                    (studies/reduce/study.json "tune"), then the lookup table
                    (studies/reduce/tables/<device>-<backend>.table), CSV, seed-style plots and a
                    verification run of the tuned reduction with the new table
  kps_run.py slim JSON --out FILE   keep only the median aggregate of each benchmark (what `run`
                    itself keeps) of a JSON written by kps-bench directly
  kps_run.py tune-table DIR [--tables DIR]
                    the same analysis from the sweep JSON in DIR (results/<machine>/reduce/tune)

A study whose JSON exists is skipped unless --force (runs resume); JSON is written to a
temporary name and moved into place when complete, so an interrupted run loses nothing that
was already written. Progress lines say what runs, how far, and an estimate of what is left.
"""
import argparse
import importlib.util
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUDIES_DIR = os.path.join(ROOT, "studies")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import kpsjson  # noqa: E402


# OpenMP placement for the host backends (the user's settings win).
OMP_ENV = {"OMP_PROC_BIND": os.environ.get("OMP_PROC_BIND", "spread"),
           "OMP_PLACES": os.environ.get("OMP_PLACES", "threads")}


def die(msg):
    print(f"kps: error: {msg}", file=sys.stderr)
    sys.exit(2)


study_names = kpsjson.study_names


def load_study(name):
    path = os.path.join(STUDIES_DIR, name, "study.json")
    if not os.path.isfile(path):
        die(f"unknown study '{name}' (studies: {', '.join(study_names())})")
    with open(path) as f:
        s = json.load(f)
    s["dir"] = os.path.dirname(path)
    s["name"] = name
    return s


def load_analysis(study):
    path = os.path.join(study["dir"], "analyze.py")
    spec = importlib.util.spec_from_file_location(f"kps_study_{study['name']}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def bench_env(bench):
    """Asks the binary for its context (device, backend) with a run of no benchmarks."""
    try:
        p = subprocess.run([bench, "--kps_context"], capture_output=True, text=True, timeout=120,
                           env={**os.environ, **OMP_ENV})
    except OSError as e:
        die(f"cannot run {bench}: {e}")
    if p.returncode != 0:
        die(f"{bench} cannot run here:\n{p.stderr.strip()}")
    out = p.stdout
    return json.loads(out[out.index("{"):])  # Kokkos may print warnings before it


def machine_name(ctx):
    """results/<machine>: the GPU model and backend, or host-<backend> (the context's backend is
    the space kps-bench runs, so the serial preset's run of a CPU is host-serial, its OpenMP
    run host-openmp)."""
    backend = ctx.get("backend", "unknown")
    device = ctx.get("device", platform.node())
    if backend.lower() == "cuda":
        m = re.search(r"(H100|H200|A100|B200|GH200|L40S?|V100)", device)
        return (m.group(1).lower() if m else slug(device)) + "-cuda"
    return "host-" + backend.lower()


def gpu_state():
    """nvidia-smi's view of the GPU (driver, clocks) where there is one."""
    if not shutil.which("nvidia-smi"):
        return {}
    q = "name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,temperature.gpu"
    try:
        p = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"], capture_output=True,
                           text=True, timeout=30)
    except OSError:
        return {}
    if p.returncode != 0 or not p.stdout.strip():
        return {}
    vals = [v.strip() for v in p.stdout.strip().splitlines()[0].split(",")]
    return dict(zip(["gpu", "driver", "sm_clock", "sm_clock_max", "mem_clock", "mem_clock_max", "power_limit",
                     "temperature"], vals))


def run_study(bench, study, scale, outdir, force, repetitions, env_extra, only=()):
    sweep = study["sweeps"][scale]
    jobs = [j for j in sweep["runs"] if not only or j["id"] in only]
    return run_jobs(bench, study["name"], jobs, os.path.join(outdir, study["name"]), force, repetitions, env_extra)[0]


def run_jobs(bench, label, jobs, dest, force, repetitions, env_extra, extra_context=None):
    """Runs each job (one kps-bench command) into dest/<id>.json unless it exists (or --force).
    Returns (all succeeded, ids that ran)."""
    os.makedirs(dest, exist_ok=True)
    done_before = 0
    ran = []
    t0 = time.time()
    for i, job in enumerate(jobs):
        out = os.path.join(dest, f"{job['id']}.json")
        if os.path.exists(out) and not force:
            print(f"[kps] {label}: {job['id']}: results exist, skipped (--force re-runs)")
            done_before += 1
            continue
        reps = repetitions or job.get("repetitions", 3)
        cmd = [bench, f"--benchmark_filter={job['filter']}", f"--kps_sizes={job['sizes']}",
               f"--kps_types={job.get('types', 'int32,int64,float,double')}",
               f"--benchmark_repetitions={reps}", "--benchmark_report_aggregates_only=true",
               f"--benchmark_min_time={job.get('min_time', 0.05)}",
               f"--benchmark_out={out}.partial", "--benchmark_out_format=json"] + job.get("args", [])
        elapsed = time.time() - t0
        n_ran = i - done_before
        eta = f", about {elapsed / n_ran * (len(jobs) - i):.0f} s left" if n_ran else ""
        print(f"[kps] {label}: run {i + 1}/{len(jobs)}: {job['id']}{eta}", flush=True)
        print("[kps]   " + " ".join(cmd), flush=True)
        p = subprocess.run(cmd, env={**os.environ, **env_extra})
        ran.append(job["id"])
        if p.returncode != 0:
            print(f"[kps] {label}: {job['id']} FAILED (exit {p.returncode}); partial output kept in "
                  f"{out}.partial (`kps_run.py salvage` keeps its completed benchmarks)", file=sys.stderr)
            return False, ran
        doc = slim(kpsjson.load(out + ".partial"))
        doc["context"]["kps_command"] = " ".join(cmd)
        doc["context"].update({f"nvidia_smi_{k}": v for k, v in gpu_state().items()})
        doc["context"].update(extra_context or {})
        with open(out + ".partial", "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(out + ".partial", out)
    return True, ran


def slim(doc):
    """Keeps only the median aggregate of each benchmark (what every analysis reads, see
    kpsjson.medians) and failed runs, so that long sweeps stay small; context kps_slimmed says
    so. A run without repetitions (no aggregates) is returned as it is."""
    if not any(b.get("aggregate_name") == "median" for b in doc["benchmarks"]):
        return doc
    doc["benchmarks"] = [b for b in doc["benchmarks"] if b.get("error_occurred") or b.get("aggregate_name") == "median"]
    doc["context"]["kps_slimmed"] = "per-repetition entries and other aggregates dropped by kps_run.py slim"
    return doc


def salvage(partial):
    """Google Benchmark JSON cut off by a killed run -> the same document holding every
    benchmark completed before the cut, with context kps_incomplete = "true"."""
    with open(partial) as f:
        text = f.read()
    cut = text.rfind("\n    }")
    while cut > 0:
        try:
            doc = json.loads(text[:cut + 6] + "\n  ]\n}\n")
            break
        except json.JSONDecodeError:
            cut = text.rfind("\n    }", 0, cut)
    else:
        die(f"{partial}: no complete benchmark in it")
    doc["context"]["kps_incomplete"] = "true"
    return doc


def environment_section(docs):
    ctx = {}
    for d in docs:
        ctx.update(kpsjson.context(d))
    keys = ["backend", "device", "device_compute_capability", "device_compute_units", "device_clock_mhz",
            "device_memory_clock_mhz", "device_driver", "nvidia_smi_driver", "nvidia_smi_sm_clock",
            "nvidia_smi_sm_clock_max", "nvidia_smi_mem_clock", "kokkos_version", "kokkos_backends",
            "kokkos_default_execution_space", "kps_execution_space", "kokkos_concurrency", "compiler", "kps_version", "kps_git_revision",
            "host_name", "num_cpus", "mhz_per_cpu", "date", "library_version"]
    rows = [(k, ctx[k]) for k in keys if k in ctx]
    return "## Environment\n\n" + kpsjson.markdown_table(["", "value"], rows) + "\n"


def render(outdir, names):
    parts = [f"# kps report: {os.path.basename(os.path.abspath(outdir))}\n",
             "Rendered from the Google Benchmark JSON in this folder alone "
             "(`tools/kps_run.py report " + os.path.relpath(outdir, ROOT) + "`).\n"]
    docs = []
    for name in names:
        d = os.path.join(outdir, name)
        loaded, records, ctx = kpsjson.load_results(d)
        if not loaded:
            continue
        study = load_study(name)
        docs += loaded
        md = load_analysis(study).analyze(records, ctx, d)
        parts.append(md)
        cmds = sorted({doc["context"].get("kps_command", "") for doc in loaded} - {""})
        if cmds:
            parts.append("Produced by:\n\n" + "\n".join(f"    {c}" for c in cmds) + "\n")
    if not docs:
        die(f"no study results under {outdir}")
    parts.append(environment_section(docs))
    path = os.path.join(outdir, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(parts))
    return path


def machine_folders(parent):
    """Subfolders of parent that hold study results (results/<machine>/<study>/*.json)."""
    if not os.path.isdir(parent):
        return []
    out = []
    for m in sorted(os.listdir(parent)):
        d = os.path.join(parent, m)
        if os.path.isdir(d) and any(os.path.isdir(os.path.join(d, n)) and
                                    any(f.endswith(".json") for f in os.listdir(os.path.join(d, n)))
                                    for n in study_names()):
            out.append(d)
    return out


def render_all(parent):
    """One report of every machine under parent (results/): each machine's report rendered
    from its JSON and inlined (headings one level down, images relative to parent), preceded by
    the cross-backend tables of tools/kps_compare.py."""
    machines = machine_folders(parent)
    import kps_compare  # tools/, on the path like kpsjson
    compare_md = os.path.join(parent, "compare.md")
    kps_compare.main(machines + ["--out", compare_md])
    parts = [f"# kps report: every machine under {display_path(parent)}\n",
             "Rendered from the committed Google Benchmark JSON alone (`./kps report " + display_path(parent) +
             "`): first the studies across backends, then each machine's full report.\n",
             "Machines: " + ", ".join(f"[{os.path.basename(m)}](#kps-report-{slug(os.path.basename(m))})"
                                      for m in machines) + "\n"]
    with open(compare_md) as f:
        parts.append(demote(f.read()))
    for m in machines:
        names = [n for n in study_names() if os.path.isdir(os.path.join(m, n))]
        with open(render(m, names)) as f:
            text = f.read()
        rel = os.path.relpath(m, parent)
        text = re.sub(r"(!\[[^\]]*\]\()(?!https?:)", lambda mm: mm.group(1) + rel + "/", text)
        parts.append(demote(text))
    path = os.path.join(parent, "report.md")
    with open(path, "w") as f:
        f.write("\n".join(parts))
    return path


def demote(markdown):
    """Every heading one level down (to nest a document in another)."""
    return re.sub(r"^(#+) ", r"#\1 ", markdown, flags=re.M)


def display_path(path):
    """A path relative to the repository where it lies inside it."""
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    return path if rel.startswith("..") else rel


def load_tune_module():
    path = os.path.join(STUDIES_DIR, "reduce", "tune.py")
    spec = importlib.util.spec_from_file_location("kps_reduce_tune", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tune_analysis(dest, tables, sweep_ids, command, sweep_text, tolerance):
    """Analyses dest/<sweep id>.json (+ verify.json when it tested this very table): writes the
    table into `tables` (and a copy in dest), sweep.csv, optima.csv, the figures and tune.md.
    Returns (table path, table fingerprint, failed checks, verification included)."""
    tune = load_tune_module()
    docs = [kpsjson.load(os.path.join(dest, f"{i}.json")) for i in sweep_ids]
    ctx = {}
    for d in docs:
        ctx.update(kpsjson.context(d))
    records = [r for d in docs for r in kpsjson.medians(d)]
    # each sweep run's command with the binary and date that ran it: a table may come from runs of
    # different sessions (the header's date and kps_revision are those of the last run)
    bench_cmds = sorted({f"{d['context']['kps_command']}  [revision {d['context'].get('kps_git_revision', '?')}, "
                         f"{d['context'].get('date', '?')}]" for d in docs if d["context"].get("kps_command")})
    text = tune.table_only(records, ctx, sweep_text, command, bench_cmds, tolerance)
    if text is None:
        die(f"no sweep results in {dest}")
    sha = tune.fingerprint(text)
    vpath = os.path.join(dest, "verify.json")
    verified = os.path.exists(vpath) and kpsjson.load(vpath)["context"].get("kps_tune_table_sha256") == sha
    verify = kpsjson.medians(kpsjson.load(vpath)) if verified else []
    md, text, failed = tune.analyze(records, ctx, dest, sweep_text, command, bench_cmds, tolerance=tolerance,
                                    verify=verify)
    name = tune.table_slug(ctx) + ".table"
    os.makedirs(tables, exist_ok=True)
    path = os.path.join(tables, name)
    for p in (path, os.path.join(dest, name)):
        with open(p, "w") as f:
            f.write(text)
    with open(os.path.join(dest, "tune.md"), "w") as f:
        f.write(f"# Reduction tuning: {ctx.get('device', '')} ({ctx.get('backend', '')})\n\n"
                f"Table: `{name}` (written to {display_path(tables)}). Rendered from the JSON in this folder "
                f"(`tools/kps_run.py tune-table DIR`).\n\n" + md)
    return path, sha, failed, verified


def tune_sweep_text(scale, spec):
    return f"study.json tune.{scale}: " + "; ".join(
        f"{j['id']}: sizes {j['sizes']}, types {j.get('types')}, {j.get('repetitions', 3)} repetitions"
        for j in spec["runs"])


def tune_main(a):
    study = load_study("reduce")
    if a.cmd == "tune-table":  # the sweep whose runs are all in DIR
        a.scale = next((k for k, v in study.get("tune", {}).items() if isinstance(v, dict) and v.get("runs") and all(
            os.path.exists(os.path.join(a.dir, f"{j['id']}.json")) for j in v["runs"])), None)
        if a.scale is None:
            die(f"{a.dir} does not hold every run of a tune sweep of studies/reduce/study.json")
    if a.scale not in study.get("tune", {}):
        die(f"studies/reduce/study.json has no tune sweep '{a.scale}'")
    spec = study["tune"][a.scale]
    sweep_ids = [j["id"] for j in spec["runs"]]
    tables = a.tables or os.path.join(STUDIES_DIR, "reduce", "tables")
    # What reproduces the table (not this invocation's --only/--force/--out flags).
    command = (f"tools/kps_run.py tune --bench {display_path(a.bench)} --scale {a.scale}" if a.cmd == "tune" else
               f"tools/kps_run.py tune --scale {a.scale}, then tools/kps_run.py tune-table {display_path(a.dir)}")
    sweep_text = tune_sweep_text(a.scale, spec)
    tolerance = float(spec.get("merge_tolerance", 0.03))
    if a.cmd == "tune-table":
        path, _, failed, verified = tune_analysis(a.dir, tables, sweep_ids, command, sweep_text, tolerance)
        print(f"[kps] tune: table {path}; {failed} failed checks"
              f"{'' if verified else ' (no verification run of this table)'}; summary {os.path.join(a.dir, 'tune.md')}")
        return 0
    if not os.access(a.bench, os.X_OK):
        die(f"{a.bench} is not an executable kps-bench (build first)")
    ctx = bench_env(a.bench)
    outdir = a.out or os.path.join(ROOT, "results", machine_name(ctx))
    dest = os.path.join(outdir, "reduce", "tune")
    print(f"[kps] tune: device {ctx.get('device')} ({ctx.get('backend')}), sweep '{a.scale}'; results in {dest}, "
          f"table in {tables}")
    only = tuple(x for x in a.only.split(",") if x)
    unknown = set(only) - set(sweep_ids) - {"verify"}
    if unknown:
        die(f"unknown run ids {', '.join(sorted(unknown))} (tune.{a.scale}: {', '.join(sweep_ids)}, verify)")
    jobs = [j for j in spec["runs"] if not only or j["id"] in only]
    ok, _ = run_jobs(a.bench, "tune", jobs, dest, a.force, a.repetitions, OMP_ENV)
    if not ok:
        return 1
    missing = [i for i in sweep_ids if not os.path.exists(os.path.join(dest, f"{i}.json"))]
    if missing:
        print(f"[kps] tune: sweep runs still to do: {', '.join(missing)}; the table is written once every run is "
              f"done (run the command again, with --only for a subset)")
        return 0
    path, sha, failed, verified = tune_analysis(dest, tables, sweep_ids, command, sweep_text, tolerance)
    print(f"[kps] tune: wrote {path}")
    if not a.no_verify and (not only or "verify" in only) and (not verified or a.force):
        docs = [kpsjson.load(os.path.join(dest, f"{i}.json")) for i in sweep_ids]
        vjob = dict(spec["verify"], id="verify")
        vjob["filter"] = load_tune_module().verify_filter([r for d in docs for r in kpsjson.medians(d)],
                                                          vjob["filter"])
        ok, _ = run_jobs(a.bench, "tune", [vjob], dest, True, a.repetitions,
                         {**OMP_ENV, "KPS_REDUCE_TABLE": os.path.abspath(path)},
                         {"kps_tune_table_sha256": sha, "kps_tune_table": os.path.basename(path)})
        if not ok:
            return 1
        path, sha, failed, verified = tune_analysis(dest, tables, sweep_ids, command, sweep_text, tolerance)
    if verified:
        print(f"[kps] tune: verification of the table: {failed} failed checks")
    else:
        print("[kps] tune: the table is not verified yet (run with --only verify)")
    print(f"[kps] tune: summary {os.path.join(dest, 'tune.md')}")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="kps", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run studies and render the report")
    r.add_argument("--bench", required=True, help="path of kps-bench")
    r.add_argument("--studies", default="", help="comma-separated subset (default: all)")
    r.add_argument("--out", default="", help="results folder (default: results/<machine>)")
    r.add_argument("--scale", default="small", choices=["small", "full"],
                   help="small: CI-sized sweeps (default); full: the studies' full sweeps")
    r.add_argument("--force", action="store_true", help="re-run studies whose results exist")
    r.add_argument("--repetitions", type=int, default=0, help="override the repetitions of every run")
    r.add_argument("--only", default="", help="comma-separated run ids of the studies' sweeps (default: all)")
    p = sub.add_parser("report", help="re-render a report from JSON")
    p.add_argument("dir")
    sl = sub.add_parser("slim", help="keep only the median aggregates of a JSON written with every repetition")
    sl.add_argument("json")
    sl.add_argument("--out", required=True)
    v = sub.add_parser("salvage", help="keep the completed benchmarks of an interrupted run's .partial JSON")
    v.add_argument("partial")
    v.add_argument("out")
    v.add_argument("--command", default="", help="the command that produced it, kept in the context")
    t = sub.add_parser("tune", help="re-tune the reduction here: sweep, lookup table, plots, verification")
    t.add_argument("--bench", required=True, help="path of kps-bench")
    t.add_argument("--scale", default="small", choices=["small", "full"],
                   help="small: the seed's sizes (host); full: plus 2^24..2^30 and finer timing (GPU)")
    t.add_argument("--out", default="", help="results folder (default: results/<machine>); JSON in OUT/reduce/tune")
    t.add_argument("--tables", default="", help="where the table is written (default: studies/reduce/tables)")
    t.add_argument("--only", default="", help="comma-separated run ids of the tune sweep, and/or 'verify'")
    t.add_argument("--force", action="store_true", help="re-run sweep runs whose results exist")
    t.add_argument("--repetitions", type=int, default=0, help="override the repetitions of every run")
    t.add_argument("--no-verify", action="store_true", help="skip the verification run of the new table")
    tt = sub.add_parser("tune-table", help="the tuning analysis and table from existing sweep JSON")
    tt.add_argument("dir", help="folder of the sweep JSON (results/<machine>/reduce/tune)")
    tt.add_argument("--tables", default="", help="where the table is written (default: studies/reduce/tables)")
    a = ap.parse_args(argv)

    if a.cmd in ("tune", "tune-table"):
        return tune_main(a)

    if a.cmd == "slim":
        doc = slim(kpsjson.load(a.json))
        with open(a.out, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"[kps] slimmed {a.json} into {a.out}: {len(doc['benchmarks'])} entries")
        return 0

    if a.cmd == "salvage":
        doc = salvage(a.partial)
        if a.command:
            doc["context"]["kps_command"] = a.command
        with open(a.out, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"[kps] salvaged {len(doc['benchmarks'])} entries of {a.partial} into {a.out}")
        return 0

    if a.cmd == "report":
        names = [n for n in study_names() if os.path.isdir(os.path.join(a.dir, n))]
        if not names and machine_folders(a.dir):
            print(f"[kps] report: {render_all(a.dir)}")
            return 0
        print(f"[kps] report: {render(a.dir, names)}")
        return 0

    names = [s for s in a.studies.split(",") if s] or study_names()
    studies = [load_study(n) for n in names]
    if not os.access(a.bench, os.X_OK):
        die(f"{a.bench} is not an executable kps-bench (build first)")
    ctx = bench_env(a.bench)
    outdir = a.out or os.path.join(ROOT, "results", machine_name(ctx))
    print(f"[kps] device: {ctx.get('device')} ({ctx.get('backend')}), Kokkos {ctx.get('kokkos_version')}; "
          f"results in {outdir}")
    env_extra = OMP_ENV
    ok = True
    for s in studies:
        if a.scale not in s["sweeps"]:
            die(f"study {s['name']} has no '{a.scale}' sweep")
        only = tuple(x for x in a.only.split(",") if x)
        ok = run_study(a.bench, s, a.scale, outdir, a.force, a.repetitions, env_extra, only) and ok
    path = render(outdir, names)
    print(f"[kps] report: {path}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
