"""The kps command line: `kps run|variability|report|compare|tune|tune-table|slim|salvage|headline
...`, and the analyses `kps schedsim ...` and `kps ncu-split ...` (their own options: `kps schedsim
--help`).

Every argument is checked before anything runs (`--check` checks and stops: the `kps` script
does it before its set-up and build). An expected failure prints one line, `kps: error: ...`,
and exits 2 (bad input) or 1 (a benchmark run failed); Ctrl-C prints one line saying what was
kept (the finished runs, and the benchmarks the interrupted run had completed) and how to resume,
and exits 130.
"""
from __future__ import annotations

import argparse
import functools
import os
import signal
import sys
from pathlib import Path

from kps_report import gbench, likwid, report
from kps_report.errors import KpsError, die, say, warn
from kps_report.layout import Layout, is_within, layout as find_layout
from kps_report.machine import OMP_ENV, bench_context, device_label, file_sha256, is_gpu, machine_name
from kps_report.runner import Interrupted, Runner, Task, write_json
from kps_report.study import SCALES, load_studies, parse_list, study_names


class Parser(argparse.ArgumentParser):
    """argparse with the one-line error of every other kps failure."""

    def error(self, message):
        raise KpsError(f"{message} (`{self.prog} --help` lists the options)")


def prog() -> str:
    return os.environ.get("KPS_PROG", "kps")


def parser() -> Parser:
    p = Parser(prog=prog(), description="Runs the kps studies with kps-bench and renders their reports.",
               formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=Parser, metavar="COMMAND")
    r = sub.add_parser("run", help="run studies, then render their report",
                       description="Runs the studies' sweeps with kps-bench into a folder named after the machine "
                                   "(results/local/<machine> in a checkout, ./kps-results/<machine> when installed), "
                                   "then renders its report. Up-to-date runs are skipped; an interrupted study "
                                   "resumes at the run it stopped in.")
    r.add_argument("--bench", default="", help="path of kps-bench (default: the installed one, or `kps` builds it)")
    r.add_argument("--studies", default="", help="comma-separated subset (default: all)")
    r.add_argument("--scale", default="small", choices=SCALES,
                   help="small: CI-sized sweeps (default); full: the studies' full sweeps")
    r.add_argument("--out", default="", help="results folder (default: named after the machine)")
    r.add_argument("--force", action="store_true", help="re-run runs that are up to date")
    r.add_argument("--repetitions", type=int, default=0, help="override the repetitions of every run")
    r.add_argument("--only", default="", help="comma-separated run ids of the studies' sweeps (default: all)")
    r.add_argument("--runs", type=int, default=1, metavar="K",
                   help="run each job K times, one after another (run k >= 2 into <study>/runs/<id>.run<k>.json); "
                        "the report's targets tables take the medians over a job's runs, with their range")
    r.add_argument("--update-committed", action="store_true",
                   help="allow --out to name a committed results folder (results/<machine>): re-measure it on purpose")
    r.add_argument("--gpus", default="", metavar="all|N",
                   help="on a node of several NVIDIA GPUs: run on N of them (all: every one) at once, one kps-bench "
                        "per GPU, each seeing its GPU alone; each JSON names its GPU")
    r.add_argument("--check", action="store_true", help="check the arguments and stop")
    va = sub.add_parser("variability", help="the same runs on every GPU of the node at once, and how far the GPUs differ",
                        description="Runs the studies' sweeps (as `run` does) --runs times on each GPU of the node, "
                                    "all GPUs at once, into <results>/<machine>/variability/gpu<index>[-run<k>]/<study>/, "
                                    "then renders the machine's report, whose GPU-to-GPU section compares, per "
                                    "benchmark, the spread across the GPUs with one GPU's own noise (its repetitions' "
                                    "and its runs' spread).")
    va.add_argument("--bench", default="", help="path of kps-bench (a GPU build)")
    va.add_argument("--studies", default="", help="comma-separated subset (default: all)")
    va.add_argument("--scale", default="small", choices=SCALES, help="small (default) or full: the studies' sweeps")
    va.add_argument("--only", default="", help="comma-separated run ids of the studies' sweeps (default: all)")
    va.add_argument("--gpus", default="all", metavar="all|N", help="how many of the node's GPUs (default: all; at least 2)")
    va.add_argument("--runs", type=int, default=2,
                    help="runs of the set on each GPU (default 2: the run-to-run noise of one GPU is the yardstick)")
    va.add_argument("--out", default="", help="results folder (default: named after the machine)")
    va.add_argument("--force", action="store_true", help="re-run runs that are up to date")
    va.add_argument("--repetitions", type=int, default=0, help="override the repetitions of every run")
    va.add_argument("--update-committed", action="store_true", help="allow --out to name a committed results folder")
    va.add_argument("--check", action="store_true", help="check the arguments and stop")
    p_ = sub.add_parser("report", help="render a report from JSON alone",
                        description="Renders DIR's report (a machine's folder, or a folder of machines such as "
                                    "results/) from its JSON alone. A committed folder renders into "
                                    "results/local/report/... unless --in-place; any other folder renders in place.")
    p_.add_argument("dir", help="results folder")
    p_.add_argument("--out", default="", help="write the report (and its figures) here")
    p_.add_argument("--in-place", action="store_true", help="re-render a committed folder's own report.md and figures")
    c = sub.add_parser("compare", help="the studies of several results folders side by side")
    c.add_argument("dirs", nargs="+", help="results folders (one per machine), one column each")
    c.add_argument("--out", default="", help="Markdown file to write (default: compare.md in the local results)")
    c.add_argument("--studies", default="", help="comma-separated subset (default: every study with results)")
    c.add_argument("--all", action="store_true", help="also show benchmarks that ran in one folder only")
    t = sub.add_parser("tune", help="re-tune the reduction (and on a GPU the scan) on this machine: sweeps, table, "
                                    "figures, verification",
                       description="Runs the seed's sweep of the reduction (studies/reduce/study.json `tune`) and, "
                                   "on a GPU, the scan sweep (studies/scan/study.json `tune`) into "
                                   "<results>/<machine>/reduce/tune, writes the lookup table there (reduce and scan "
                                   "rows) with its figures and checks, verifies it, and says how to install it.")
    t.add_argument("--bench", default="", help="path of kps-bench")
    t.add_argument("--scale", default="small", choices=SCALES,
                   help="small: the seed's sizes (host); full: plus 2^24..2^30 and finer timing, and on a GPU the scan rows")
    t.add_argument("--out", default="", help="results folder (default: named after the machine); JSON in OUT/reduce/tune")
    t.add_argument("--only", default="", help="comma-separated run ids of the tune sweeps, and/or 'verify', 'verify-scan'")
    t.add_argument("--force", action="store_true", help="re-run sweep runs that are up to date")
    t.add_argument("--repetitions", type=int, default=0, help="override the repetitions of every run")
    t.add_argument("--no-verify", action="store_true", help="skip the verification run of the new table")
    t.add_argument("--install", action="store_true",
                   help="copy the verified table to the folder the tuned reduction reads tables from")
    t.add_argument("--update-committed", action="store_true", help="allow --out to name a committed results folder")
    t.add_argument("--check", action="store_true", help="check the arguments and stop")
    tt = sub.add_parser("tune-table", help="the tuning analysis and table from existing sweep JSON")
    tt.add_argument("dir", help="folder of the sweep JSON (<results>/<machine>/reduce/tune)")
    tt.add_argument("--out", default="", help="write the table, CSV, figures and tune.md here")
    tt.add_argument("--in-place", action="store_true", help="re-render a committed folder in place")
    sl = sub.add_parser("slim", help="keep the aggregates a report reads (median, cv, min, max) of a JSON written with every repetition, or slimmed before")
    sl.add_argument("json")
    sl.add_argument("--out", required=True)
    v = sub.add_parser("salvage", help="keep the completed benchmarks of an interrupted run's .partial JSON")
    v.add_argument("partial")
    v.add_argument("out")
    v.add_argument("--command", default="", help="the command that produced it, kept in the context")
    b = sub.add_parser("bounds", help="measure this host's memory limits with likwid-bench into a results folder",
                       description="Runs likwid-bench's copy, load and stream kernels (copy_avx, copy_mem_avx, "
                                   "load_avx, load_mem, stream_avx, ... where the CPU has them) on THREADS threads "
                                   "of the node at working sets past the caches and writes <out>/machine-bounds.json; "
                                   "`kps run --out` the same folder records it in every JSON's context and the "
                                   "report takes it into each point's bound (kps_report.likwid).")
    b.add_argument("--out", required=True, help="the results folder (its machine-bounds.json)")
    b.add_argument("--threads", type=int, default=0,
                   help="threads (default: OMP_NUM_THREADS, else every CPU of this process)")
    b.add_argument("--sizes", default="1,4,8,16", help="working sets in GiB (default 1,4,8,16)")
    b.add_argument("--seconds", type=float, default=1.0, help="likwid-bench's minimum time per kernel (-s)")
    b.add_argument("--likwid", default="likwid-bench", help="the likwid-bench to run")
    b.add_argument("--update-committed", action="store_true", help="allow --out to name a committed results folder")
    b.add_argument("--check", action="store_true", help="check the arguments and stop")
    h = sub.add_parser("headline", help="the README's headline table from the committed results",
                       description="Prints the headline table (kps' scan and sum on every machine of RESULTS at its "
                                   "largest int32 size: GB/s, share of the bound, over the fastest peer and over "
                                   "Kokkos); --write FILE replaces the table between FILE's headline markers.")
    h.add_argument("results", nargs="?", default="", help="folder of machine folders (default: the committed results/)")
    h.add_argument("--write", default="", metavar="FILE", help="replace the table in FILE (the README)")
    for name, (_, about) in ANALYSES.items():
        sub.add_parser(name, help=about, add_help=False)  # listed here; its arguments are its own (main)
    return p


# Analyses with command lines of their own: `kps NAME ARGS` runs the module's main(ARGS).
ANALYSES = {
    "schedsim": ("kps_report.analyses.schedsim", "the latency study's warp-scheduler simulation (fit, scan)"),
    "ncu-split": ("kps_report.analyses.ncu_split", "where a reduction's fixed cost sits, from Nsight Compute CSV"),
}


def run() -> None:
    """The `kps` command's entry point (python/pyproject.toml's [project.scripts])."""
    sys.exit(main())


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    signal.signal(signal.SIGTERM, _terminate)
    try:
        if argv and argv[0] in ANALYSES:
            import importlib
            return importlib.import_module(ANALYSES[argv[0]][0]).main(argv[1:], prog=f"{prog()} {argv[0]}") or 0
        a = parser().parse_args(argv)
        return COMMANDS[a.cmd](a, find_layout(), argv)
    except KpsError as e:
        print(f"kps: error: {e}", file=sys.stderr)
        return e.status
    except Interrupted as e:
        print(_interrupted_message(e, argv, find_layout()), file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("kps: interrupted; nothing half-written was kept (files already complete are unchanged)",
              file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 1
    except OSError as e:  # a folder that cannot be written, a disk full: the file and the reason
        where = f"{e.filename}: " if e.filename else ""
        print(f"kps: error: {where}{e.strerror or e}", file=sys.stderr)
        return 2


def _terminate(signum, frame):
    raise KeyboardInterrupt


def _kept_of(task, salvaged: int, salvaged_to, lay: Layout) -> str:
    """What was kept of one run Ctrl-C stopped."""
    job = task.job.id
    if salvaged and salvaged_to is not None:
        marked = ("marked incomplete: the next run re-measures it" if salvaged_to == task.out else
                  f"marked incomplete; the complete {lay.display(task.out)} of an earlier run kept")
        return (f"the {salvaged} completed benchmark{'s' if salvaged != 1 else ''} of {job} in "
                f"{lay.display(salvaged_to)} ({marked})")
    return f"no benchmark of {job} had completed: its partial output deleted"


def _interrupted_message(e: Interrupted, argv, lay: Layout) -> str:
    args = [a for a in argv if a != "--force"]
    kept, job = len(e.kept), e.task.job.id
    runs = f"kept {kept} finished run{'s' if kept != 1 else ''}"
    if e.salvaged and e.salvaged_to is not None:
        what = f"{runs} and {_kept_of(e.task, e.salvaged, e.salvaged_to, lay)}"
    else:
        what = f"{runs} in {lay.display(e.task.dest)} ({_kept_of(e.task, 0, None, lay)})"
    also = "".join(f"; also stopped: {t.label} run {t.job.id}, {_kept_of(t, n, where, lay)}" for t, n, where in e.others)
    return (f"kps: interrupted during {e.task.label} run {job}; {what}{also}; "
            f"`{prog()} {' '.join(args)}` resumes at {job}")


# --- run ----------------------------------------------------------------------------------------

def _check_out(a, lay: Layout):
    if a.out:
        out = Path(a.out)
        if out.exists() and not out.is_dir():
            die(f"--out {a.out} is a file, not a folder")
        if lay.is_committed(out) and not a.update_committed:
            die(f"--out {a.out} is a committed results folder: committed results change only on purpose "
                f"(--update-committed); by default a run writes to {lay.display(lay.local_results)}/<machine>")
    if lay.prefix and is_within((Path(a.out) if a.out else lay.local_results).resolve(), lay.prefix.resolve()):
        die(f"results go outside the installation ({lay.prefix}): pass --out DIR or run from another folder")


def _bench(a, lay: Layout) -> Path:
    bench = Path(a.bench) if a.bench else lay.default_bench
    if bench is None:
        die("no kps-bench: pass --bench PATH (`./kps run` builds it and passes it)")
    if not bench.is_file() or not os.access(bench, os.X_OK):
        die(f"{bench} is not an executable kps-bench (build it first: `./kps build`, or pass --bench PATH)")
    return bench


def _display_bench(bench: Path, lay: Layout) -> str:
    if lay.installed:
        return "kps-bench" if lay.default_bench and bench.resolve() == lay.default_bench.resolve() else str(bench)
    return lay.display(bench)


def _mark_local(out: Path, lay: Layout) -> None:
    """results/local/ ignores itself: a fresh clone's git status stays clean whatever runs there."""
    local = lay.local_results
    if lay.source_root and is_within(out.resolve(), local.resolve()):
        local.mkdir(parents=True, exist_ok=True)
        ignore = local / ".gitignore"
        if not ignore.exists():
            ignore.write_text("# the user's own runs: never committed (written by kps run)\n*\n", encoding="utf-8")


def _only(a, jobs_by_label: dict, extra=()) -> tuple:
    only = tuple(parse_list(a.only))
    known = {j.id for jobs in jobs_by_label.values() for j in jobs} | set(extra)
    unknown = sorted(set(only) - known)
    if unknown:
        die(f"unknown run id{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} for --scale {a.scale} "
            f"(runs: {', '.join(sorted(known))})")
    return only


def _node_gpus(a, ctx: dict, bench: Path, at_least: int = 1) -> list:
    """The GPUs `--gpus` picks on this node, after checking that kps-bench runs on NVIDIA GPUs."""
    from kps_report import gpus
    backend = ctx.get("backend", "?")
    what = "variability" if a.cmd == "variability" else f"--gpus {a.gpus}"
    if not is_gpu(ctx):
        die(f"{what}: {bench} is a host build ({backend}); {what.split()[0]} is for a GPU build")
    if backend.lower() != "cuda":
        die(f"{what}: kps pins one process to one GPU on NVIDIA GPUs (CUDA_VISIBLE_DEVICES); "
            f"this kps-bench runs on {backend}")
    picked = gpus.select(a.gpus, gpus.node_gpus())
    if len(picked) < at_least:
        die(f"--gpus {a.gpus}: {len(picked)} GPU{'s' if len(picked) != 1 else ''}; comparing GPUs needs at least {at_least}")
    say("GPUs: " + "; ".join(g.label for g in picked))
    return picked


def _study_tasks(a, studies: list, jobs: dict, only: tuple, gpu: bool, out: Path, runs: int = 1) -> list:
    skipped = sorted(j.id for s in studies for j in jobs[s.name] if (not only or j.id in only) and not j.runs_on(gpu))
    if skipped:
        say(f"runs for {'host backends' if gpu else 'GPUs'} left out on this {'GPU' if gpu else 'host'}: {', '.join(skipped)}")
    # The host's limits measured by `kps bounds` into the same folder, in every JSON's context.
    bounds = likwid.load(out) if not gpu else None
    extra = {"kps_machine_bounds": likwid.context_value(bounds)} if bounds else {}
    return [Task(s.name, j, out / s.name, {**OMP_ENV, **dict(j.env)},
                 {"kps_study": s.name, "kps_scale": a.scale, **({"kps_run": str(k)} if runs > 1 else {}), **extra},
                 a.force, run=k)
            for k in range(1, runs + 1)
            for s in studies for j in jobs[s.name] if (not only or j.id in only) and j.runs_on(gpu)]


def _prepare_run(a, lay: Layout):
    """The studies, their jobs and --only, checked; None after --check."""
    names = parse_list(a.studies) or study_names(lay.studies_dir)
    studies = load_studies(names, lay.studies_dir)
    jobs = {s.name: s.jobs(a.scale) for s in studies}
    only = _only(a, jobs)
    if a.repetitions < 0:
        die("--repetitions must be at least 1")
    if a.cmd == "run" and a.runs < 1:
        die("--runs must be at least 1")
    if a.cmd == "run" and a.runs > 1 and a.gpus:
        die("--runs with --gpus: run the repeats on one GPU (without --gpus), or compare GPUs with `kps variability --runs`")
    if a.gpus:
        from kps_report.gpus import parse_count
        parse_count(a.gpus)
    _check_out(a, lay)
    return None if a.check else (studies, jobs, only)


def cmd_run(a, lay: Layout, argv) -> int:
    prepared = _prepare_run(a, lay)
    if prepared is None:
        return 0
    studies, jobs, only = prepared
    bench = _bench(a, lay)
    ctx = bench_context(bench)
    picked = _node_gpus(a, ctx, bench) if a.gpus else None
    out = Path(a.out) if a.out else lay.local_results / machine_name(ctx)
    say(f"device: {device_label(ctx)}, Kokkos {ctx.get('kokkos_version')}; results in {lay.display(out)}")
    _mark_local(out, lay)
    runner = Runner(bench, file_sha256(bench), _display_bench(bench, lay), a.repetitions or None, lay.display,
                    lay.source_root, lay.tables_dir)
    tasks = _study_tasks(a, studies, jobs, only, is_gpu(ctx), out, a.runs)
    return _report_and_status(runner.run(tasks, picked), out, lay)


def _report_and_status(outcome, out: Path, lay: Layout, what: str = "") -> int:
    """After the runs: the folder's report (where it holds results), the failed runs; the exit status."""
    if report.is_machine(out, study_names(lay.studies_dir)):
        path = report.render(out, out, lay, lay.command)
        say(f"report: {lay.display(path)}{what}")
    else:
        warn(f"no results in {lay.display(out)}: no report")
    if outcome.failed:
        warn(f"{len(outcome.failed)} run(s) failed: {', '.join(t.label + '/' + t.job.id for t in outcome.failed)}")
        return 1
    return 0


def cmd_variability(a, lay: Layout, argv) -> int:
    from kps_report import variability
    if a.runs < 1:
        die("--runs must be at least 1")
    prepared = _prepare_run(a, lay)
    if prepared is None:
        return 0
    studies, jobs, only = prepared
    bench = _bench(a, lay)
    ctx = bench_context(bench)
    picked = _node_gpus(a, ctx, bench, at_least=2)
    out = Path(a.out) if a.out else lay.local_results / machine_name(ctx)
    dest = out / variability.FOLDER
    say(f"variability: device {device_label(ctx)}, Kokkos {ctx.get('kokkos_version')}; results in {lay.display(dest)}")
    _mark_local(out, lay)
    runner = Runner(bench, file_sha256(bench), _display_bench(bench, lay), a.repetitions or None, lay.display,
                    lay.source_root, lay.tables_dir)
    tasks = []
    for k in range(1, a.runs + 1):
        for g in picked:
            folder = f"gpu{g.index}" + (f"-run{k}" if k > 1 else "")
            for t in _study_tasks(a, studies, jobs, only, True, dest / folder):
                t.gpu, t.label = g, f"{folder}/{t.label}"
                tasks.append(t)
    return _report_and_status(runner.run(tasks, picked), out, lay, " (its section 'GPU-to-GPU variability')")


# --- report, compare ----------------------------------------------------------------------------

def _render_out(src: Path, a, lay: Layout) -> Path:
    if a.out:
        return Path(a.out)
    if lay.is_committed(src) and not a.in_place:
        return lay.local_results / "report" / src.resolve().relative_to(lay.committed_results.resolve())
    return src


def cmd_report(a, lay: Layout, argv) -> int:
    src = Path(a.dir)
    out = _render_out(src, a, lay)
    if lay.is_committed(src) and not a.in_place and not a.out:
        _mark_local(out, lay)
    path = report.render(src, out, lay, lay.command)
    say(f"report: {lay.display(path)}")
    return 0


def cmd_compare(a, lay: Layout, argv) -> int:
    from kps_report import compare
    from kps_report.output import Figures, Staging
    all_studies = report.all_studies(lay)
    known = [s.name for s in all_studies]
    names = parse_list(a.studies) or known
    for n in names:
        if n not in known:
            die(f"unknown study '{n}' (studies: {', '.join(known)})")
    studies = [s for s in all_studies if s.name in names]
    machines = []
    for d in a.dirs:
        folder = Path(d)
        if not folder.is_dir():
            die(f"no results folder {d}")
        m = report.load_machine(folder, all_studies)
        m.studies = {k: v for k, v in m.studies.items() if k in names and v}
        if not m.studies:
            die(f"no study results under {d} (expected {d}/<study>/*.json)")
        machines.append(m)
    out = Path(a.out) if a.out else lay.local_results / "compare.md"
    _mark_local(out.parent, lay)
    # The Markdown and its figures (beside it, named after it) move into place together.
    with Staging(out.parent) as staging:
        text = compare.markdown(machines, studies,
                                f"{lay.command} compare " + " ".join(lay.display(m.folder) for m in machines),
                                a.all, out.parent, Figures(staging, ""), f"{out.stem}_")
        staging.path(out.name).write_text(text, encoding="utf-8")
    say(f"compare: {lay.display(out)}")
    return 0


# --- tune ---------------------------------------------------------------------------------------

def cmd_tune(a, lay: Layout, argv) -> int:
    from kps_report import tuning
    from kps_report.analyses import tune
    from kps_report.output import Figures, Staging
    study, scan_study = load_studies(["reduce", "scan"], lay.studies_dir)

    def blocks(gpu):  # the reduction's and the scan's tune blocks of this scale on one kind of backend
        key, scan_key = tuning.tune_key(study, a.scale, gpu), tuning.tune_key(scan_study, a.scale, gpu)
        return key, scan_key, tuning.sweep_jobs(study, key), tuning.scan_jobs(scan_study, scan_key)

    either = [blocks(g) for g in (True, False)]
    only = _only(a, {"tune": [j for b in either for j in b[2] + b[3]]},
                 extra=[tuning.VERIFY] + ([tuning.VERIFY_SCAN] if any(b[3] for b in either) else []))
    if a.repetitions < 0:
        die("--repetitions must be at least 1")
    _check_out(a, lay)
    if a.check:
        return 0
    bench = _bench(a, lay)
    ctx = bench_context(bench)
    key, scan_key, jobs, scan_jobs = blocks(is_gpu(ctx))
    spec = tuning.sweep_spec(study, key)
    out = Path(a.out) if a.out else lay.local_results / machine_name(ctx)
    dest = out / "reduce" / "tune"
    _mark_local(out, lay)
    say(f"tune: device {device_label(ctx)}, sweep '{key}'"
        f"{' (reduction and scan)' if scan_jobs else ''}; results and table in {lay.display(dest)}")
    runner = Runner(bench, file_sha256(bench), _display_bench(bench, lay), a.repetitions or None, lay.display,
                    lay.source_root, lay.tables_dir)
    tasks = [Task("tune", j, dest, {**OMP_ENV, **dict(j.env)}, {"kps_study": "reduce-tune", "kps_scale": key}, a.force)
             for j in jobs if not only or j.id in only]
    tasks += [Task("tune", j, dest, {**OMP_ENV, **dict(j.env)}, {"kps_study": "scan-tune", "kps_scale": scan_key},
                   a.force) for j in scan_jobs if not only or j.id in only]
    outcome = runner.run(tasks)
    if outcome.failed:
        return 1
    missing = [j.id for j in jobs if not (dest / f"{j.id}.json").exists()]
    if missing:
        say(f"tune: sweep runs still to do: {', '.join(missing)}; the table is written once every run is done "
            f"(run the command again, with --only for a subset)")
        return 0
    scan_missing = [j.id for j in scan_jobs if not (dest / f"{j.id}.json").exists()]
    if scan_missing:
        say(f"tune: scan sweep runs still to do: {', '.join(scan_missing)}; the table gets its scan rows once they "
            f"are done (run the command again, with --only for a subset)")
    elif not scan_jobs:
        say(f"tune: no scan sweep in --scale {a.scale} on this backend: the rule decides the scan (kps::impl::scan_rule)")

    def render():
        with Staging(dest) as staging:
            return tuning.render_folder(dest, Figures(staging, ""), study, lay.command, lay.installed, scan_study)

    rendered = render()
    if rendered is None:
        die(f"the sweep in {lay.display(dest)} holds no reduction results (reduce_sweep/...): "
            f"is {lay.display(Path(bench))} a kps-bench with the reduction study?")
    table = dest / rendered.table_name
    say(f"tune: wrote {lay.display(table)}")
    if not a.no_verify and (not only or tuning.VERIFY in only):
        vtask = tuning.verify_task(tuning.VERIFY, spec["verify"], "study.json tune verify",
                                   [gbench.load(dest / f"{j.id}.json") for j in jobs],
                                   functools.partial(tune.REDUCE.verify_filter,
                                                     concurrency=int(ctx.get("kokkos_concurrency", 0) or 0),
                                                     pool=bool(spec.get("pool_launches", False))),
                                   tune.REDUCE.fingerprint(rendered.table_text), table,
                                   a.force or not rendered.verified, dest,
                                   {**OMP_ENV, "KPS_REDUCE_TABLE": str(table.resolve())})  # (older kps-bench)
        if runner.run([vtask]).failed:
            return 1
        rendered = render()
    if scan_jobs and not scan_missing and not a.no_verify and (not only or tuning.VERIFY_SCAN in only):
        vtask = tuning.verify_task(tuning.VERIFY_SCAN, tuning.scan_spec(scan_study, scan_key)["verify"],
                                   "studies/scan/study.json tune verify",
                                   [gbench.load(dest / f"{j.id}.json") for j in scan_jobs], tune.SCAN.verify_filter,
                                   tune.SCAN.fingerprint(rendered.table_text), table,
                                   a.force or not rendered.scan_verified, dest, dict(OMP_ENV))
        if runner.run([vtask]).failed:
            return 1
        rendered = render()
    to_verify = tuning.unverified(rendered)
    if not to_verify:
        say(f"tune: verification of the table: {rendered.failed} failed checks")
    else:
        say(f"tune: the table is not verified yet (run with --only {','.join(to_verify)})")
    say(f"tune: summary {lay.display(dest / 'tune.md')}")
    say(f"report: {lay.display(report.render(out, out, lay, lay.command))}")
    if a.install:
        if to_verify:
            die(f"--install installs a verified table only: run the verification first (--only {','.join(to_verify)})")
        say(f"tune: installed {lay.display(tuning.install(table, lay.tables_dir))}")
    else:
        say("tune: " + tuning.install_hint(Path(lay.display(table)), Path(lay.display(lay.tables_dir))))
    return 0


def cmd_tune_table(a, lay: Layout, argv) -> int:
    from kps_report import tuning
    from kps_report.output import Figures, Staging
    src = Path(a.dir)
    if not src.is_dir():
        die(f"no folder {a.dir}")
    study, scan_study = load_studies(["reduce", "scan"], lay.studies_dir)
    out = _render_out(src, a, lay)
    if out != src:
        _mark_local(out, lay)
    with Staging(out) as staging:
        rendered = tuning.render_folder(src, Figures(staging, ""), study, lay.command, lay.installed, scan_study)
        if rendered is None:
            die(f"{a.dir} holds no reduction sweep (reduce_sweep/... JSON)")
    to_verify = tuning.unverified(rendered)
    say(f"tune: table {lay.display(out / rendered.table_name)}; {rendered.failed} failed checks"
        f"{' (no verification run of its ' + ' and '.join(('reduce' if v == tuning.VERIFY else 'scan') + ' rows' for v in to_verify) + ')' if to_verify else ''}"
        f"; summary {lay.display(out / 'tune.md')}")
    return 0


# --- slim, salvage ------------------------------------------------------------------------------

def cmd_slim(a, lay: Layout, argv) -> int:
    doc = gbench.slim(gbench.load(a.json), gbench.READ_AGGREGATES)
    write_json(doc, Path(a.out), compact=True)
    say(f"slimmed {a.json} into {a.out}: {len(doc['benchmarks'])} entries")
    return 0


def cmd_salvage(a, lay: Layout, argv) -> int:
    doc = gbench.salvage(a.partial)
    if a.command:
        doc["context"]["kps_command"] = a.command
    write_json(doc, Path(a.out))
    say(f"salvaged {len(doc['benchmarks'])} entries of {a.partial} into {a.out}")
    return 0


# --- bounds -------------------------------------------------------------------------------------

def cmd_bounds(a, lay: Layout, argv) -> int:
    _check_out(a, lay)
    try:
        sizes = [float(x) for x in a.sizes.split(",") if x.strip()]
    except ValueError:
        die(f"--sizes {a.sizes}: comma-separated GiB, e.g. 1,4,8,16")
    if not sizes or any(x <= 0 for x in sizes):
        die(f"--sizes {a.sizes}: every size must be a positive number of GiB")
    threads = a.threads or int(os.environ.get("OMP_NUM_THREADS", "0") or 0) or len(os.sched_getaffinity(0))
    if threads < 1:
        die("--threads must be at least 1")
    if a.seconds <= 0:
        die("--seconds must be positive")
    if a.check:
        return 0
    out = Path(a.out)
    say(f"likwid-bench on {threads} threads at {', '.join(f'{x:g}' for x in sizes)} GiB into {lay.display(out / likwid.FILE)}")
    try:
        doc, stopped = likwid.measure(threads, sizes, a.likwid, a.seconds), False
    except likwid.Stopped as e:
        doc, stopped = e.doc, True
    out.mkdir(parents=True, exist_ok=True)
    write_json(doc, out / likwid.FILE)
    if stopped:
        print(f"kps: interrupted after {doc['measured']} of {doc['asked']} likwid-bench runs; those kept in "
              f"{lay.display(out / likwid.FILE)} (marked incomplete); the same command measures them all again",
              file=sys.stderr)
        return 130
    best = {}
    for r in doc["rows"]:
        best[r["kind"]] = max(best.get(r["kind"], 0), r["gbps"])
    say("best: " + ", ".join(f"{k} {v:.1f} GB/s" for k, v in sorted(best.items())))
    return 0


# --- headline -----------------------------------------------------------------------------------

def cmd_headline(a, lay: Layout, argv) -> int:
    from kps_report import headline
    if a.results:
        results = Path(a.results)
    elif lay.committed_results:
        results = lay.committed_results
    else:
        die("an installed kps has no committed results: pass the folder (kps headline RESULTS)")
    text = headline.table(results, lay)
    if not a.write:
        print(text)
    elif headline.write(Path(a.write), text):
        say(f"headline: rewrote the table in {a.write}")
    else:
        say(f"headline: the table in {a.write} is up to date")
    return 0


COMMANDS = {"run": cmd_run, "variability": cmd_variability, "report": cmd_report, "compare": cmd_compare, "tune": cmd_tune,
            "tune-table": cmd_tune_table, "slim": cmd_slim, "salvage": cmd_salvage, "headline": cmd_headline,
            "bounds": cmd_bounds}
