#!/usr/bin/env python3
"""kps study runner: runs the studies' sweeps with kps-bench, writes Google Benchmark JSON per
study under results/<machine>/<study>/, and renders one Markdown report with PNG plots.

  kps_run.py run    --bench BUILD/bench/kps-bench [--studies scan,reduce] [--out DIR]
                    [--force] [--scale small|full] [--repetitions R]
  kps_run.py report DIR        re-render the report of DIR from its JSON alone

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


def study_names():
    return sorted(d for d in os.listdir(STUDIES_DIR)
                  if os.path.isfile(os.path.join(STUDIES_DIR, d, "study.json")))


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
    dest = os.path.join(outdir, study["name"])
    os.makedirs(dest, exist_ok=True)
    jobs = [j for j in sweep["runs"] if not only or j["id"] in only]
    done_before = 0
    t0 = time.time()
    for i, job in enumerate(jobs):
        out = os.path.join(dest, f"{job['id']}.json")
        if os.path.exists(out) and not force:
            print(f"[kps] {study['name']}: {job['id']}: results exist, skipped (--force re-runs)")
            done_before += 1
            continue
        reps = repetitions or job.get("repetitions", 3)
        cmd = [bench, f"--benchmark_filter={job['filter']}", f"--kps_sizes={job['sizes']}",
               f"--kps_types={job.get('types', 'int32,int64,float,double')}",
               f"--benchmark_repetitions={reps}", "--benchmark_report_aggregates_only=false",
               f"--benchmark_min_time={job.get('min_time', 0.05)}",
               f"--benchmark_out={out}.partial", "--benchmark_out_format=json"] + job.get("args", [])
        elapsed = time.time() - t0
        ran = i - done_before
        eta = f", about {elapsed / ran * (len(jobs) - i):.0f} s left" if ran else ""
        print(f"[kps] {study['name']}: run {i + 1}/{len(jobs)}: {job['id']}{eta}", flush=True)
        print("[kps]   " + " ".join(cmd), flush=True)
        p = subprocess.run(cmd, env={**os.environ, **env_extra})
        if p.returncode != 0:
            print(f"[kps] {study['name']}: {job['id']} FAILED (exit {p.returncode}); partial output kept in "
                  f"{out}.partial (`kps_run.py salvage` keeps its completed benchmarks)", file=sys.stderr)
            return False
        doc = kpsjson.load(out + ".partial")
        doc["context"]["kps_command"] = " ".join(cmd)
        doc["context"].update({f"nvidia_smi_{k}": v for k, v in gpu_state().items()})
        with open(out + ".partial", "w") as f:
            json.dump(doc, f, indent=1)
        os.replace(out + ".partial", out)
    return True


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
            "kokkos_default_execution_space", "kokkos_concurrency", "compiler", "kps_version", "kps_git_revision",
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
        files = sorted(f for f in os.listdir(d) if f.endswith(".json")) if os.path.isdir(d) else []
        if not files:
            continue
        study = load_study(name)
        loaded = [kpsjson.load(os.path.join(d, f)) for f in files]
        docs += loaded
        # One record per benchmark; a complete run's record wins over an interrupted one's.
        ordered = sorted(loaded, key=lambda doc: doc["context"].get("kps_incomplete") == "true", reverse=True)
        records = list({r["name"]: r for doc in ordered for r in kpsjson.medians(doc)}.values())
        ctx = {}
        for doc in loaded:
            ctx.update(kpsjson.context(doc))
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
    v = sub.add_parser("salvage", help="keep the completed benchmarks of an interrupted run's .partial JSON")
    v.add_argument("partial")
    v.add_argument("out")
    v.add_argument("--command", default="", help="the command that produced it, kept in the context")
    a = ap.parse_args(argv)

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
