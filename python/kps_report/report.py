"""Rendering reports from Google Benchmark JSON alone: one machine's folder
(<machine>/<study>/*.json, and reduce/tune) or a folder of machines (results/: the studies across
backends first, then every machine's report).

A report leads with the machine and the conditions of its runs (device, backend, threads,
Kokkos, the load other processes put on the machine), then a summary of each study's findings
beside the seed's, then the studies' details and the commands that reproduce every file. A
machine folder's sub-folders other than its studies' (experiments/<name>/, a study's s12/) are
not part of its report; `kps report <machine>/experiments/<name>` renders one on its own, with
study sub-folders or with the JSON directly in it (each file to the study whose sweep's filter
matches its benchmarks).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from kps_report import analyses, gbench, variability
from kps_report.commands import bench_command, kps_equivalent
from kps_report.errors import die
from kps_report.layout import EXPERIMENTS, Layout
from kps_report.machine import device_label, is_gpu, load_conditions
from kps_report.output import Figures, Staging
from kps_report.study import load_study, study_names
from kps_report.text import join_parts, markdown_table, slug


@dataclass
class Machine:
    """One machine's results: its studies' merged JSON."""
    folder: Path
    studies: dict = field(default_factory=dict)  # name -> gbench.StudyResults
    tune: bool = False                          # a reduce/tune sweep
    tune_docs: list = field(default_factory=list)
    variability_docs: list = field(default_factory=list)  # variability/gpu<index>/<study>/*.json

    @property
    def name(self) -> str:
        return self.folder.name

    @property
    def context(self) -> dict:
        ctx = {}
        for r in sorted(self.studies.values(), key=lambda r: r.context.get("date", "")):
            ctx.update(r.context)
        if not ctx:  # a node's variability runs alone
            for d in sorted(self.variability_docs, key=lambda d: d["context"].get("date", "")):
                ctx.update(d["context"])
        return ctx

    @property
    def docs(self) -> list:
        """Every JSON document of the machine's runs, the tuning sweep's included."""
        return [d for r in self.studies.values() for d in r.docs] + self.tune_docs + self.variability_docs


def _has_json(folder: Path) -> bool:
    return folder.is_dir() and any(folder.glob("*.json"))


def is_machine(folder: Path, names) -> bool:
    return (any(_has_json(folder / n) for n in names) or _has_json(folder / "reduce" / "tune")
            or variability.has_runs(folder))


def machine_folders(parent: Path, names, layout: Layout) -> list:
    """Sub-folders of parent that hold study results, in name order; the user's local runs and
    experiments are not among them."""
    if not parent.is_dir():
        return []
    out = []
    for d in sorted(p for p in parent.iterdir() if p.is_dir()):
        if d.name.startswith(".") or d.name == EXPERIMENTS:
            continue
        if d.resolve() == layout.local_results.resolve():
            continue
        if is_machine(d, names):
            out.append(d)
    return out


def load_machine(folder: Path, studies: list) -> Machine:
    m = Machine(folder)
    names = [s.name for s in studies]
    if is_machine(folder, names):
        for n in names:
            res = gbench.load_study(n, folder / n)
            if res or (n == "reduce" and _has_json(folder / n / "tune")):
                m.studies[n] = res
        m.tune = _has_json(folder / "reduce" / "tune")
        if m.tune:
            m.tune_docs = [gbench.load(f) for f in sorted((folder / "reduce" / "tune").glob("*.json"))]
        m.variability_docs = [d for g in variability.load(folder / variability.FOLDER) for _, d in g.docs]
        return m
    # a folder of JSON files: each to the study whose sweeps' filters match its benchmarks
    files = sorted(folder.glob("*.json"))
    groups = {}
    for f in files:
        doc = gbench.load(f)
        study = _study_of(doc, studies)
        if study is None:
            die(f"{f}: its benchmarks match no study's sweep ({', '.join(names)})")
        groups.setdefault(study, []).append(f)
    for n in names:
        if n in groups:
            res = gbench.StudyResults(n, folder)
            docs = [gbench.load(f) for f in groups[n]]
            order = sorted(range(len(docs)), key=lambda i: (docs[i]["context"].get("kps_incomplete") != "true",
                                                           docs[i]["context"].get("date", "")))
            res.files = [groups[n][i] for i in order]
            res.docs = [docs[i] for i in order]
            res.records = list({r["name"]: r for d in res.docs for r in gbench.records(d)}.values())
            for d in sorted(res.docs, key=lambda d: d["context"].get("date", "")):
                res.context.update(d["context"])
            m.studies[n] = res
    return m


def _study_of(doc: dict, studies: list):
    names = [b.get("run_name", b["name"]) for b in doc["benchmarks"]]
    for s in studies:
        for jobs in s.sweeps.values():
            for j in jobs:
                if names and all(re.search(j.filter, n) for n in names[:5]):
                    return s.name
    return None


# --- sections ---------------------------------------------------------------------------------

def conditions(machine: Machine) -> str:
    """The machine and the conditions of its runs, for the top of its report."""
    ctx = machine.context
    docs = machine.docs
    gpu = is_gpu(ctx)
    rows = [("device", ctx.get("device", "—")), ("backend", ctx.get("backend", "—"))]
    if gpu:
        rows.append(("SMs", ctx.get("device_compute_units", "—")))
        if ctx.get("device_compute_capability"):
            rows.append(("compute capability", ctx["device_compute_capability"]))
        clocks = sorted({f"{d['context'].get('nvidia_smi_sm_clock')} of {d['context'].get('nvidia_smi_sm_clock_max')}"
                         for d in docs if d["context"].get("nvidia_smi_sm_clock")})
        if clocks:
            rows.append(("SM clock at the end of each run (nvidia-smi)", "; ".join(clocks)))
        if ctx.get("device_driver"):
            rows.append(("driver", ctx["device_driver"]))
    else:
        rows.append(("threads (kokkos_concurrency)", ctx.get("kokkos_concurrency", "—")))
        rows.append(("logical CPUs of the machine", ctx.get("kps_cpus") or str(ctx.get("num_cpus", "—"))))
        binding = threads_binding(docs)
        if binding:
            rows.append(("threads' binding (host_threads_widest_cpus: the CPUs one thread may run on)", binding))
    rows.append(("Kokkos", f"{ctx.get('kokkos_version', '—')} ({ctx.get('kokkos_backends', '—')}), kps runs "
                           f"{ctx.get('kps_execution_space', ctx.get('backend', '—'))}"))
    rows.append(("compiler", ctx.get("compiler", "—")))
    revisions = sorted({d["context"].get("kps_git_revision", "?") for d in docs})
    rows.append(("kps revision" + ("s" if len(revisions) > 1 else ""), ", ".join(revisions)))
    dates = sorted(d["context"].get("date", "") for d in docs if d["context"].get("date"))
    if dates:
        rows.append(("dates of the runs", dates[0][:10] + ("" if dates[0][:10] == dates[-1][:10] else
                                                             f" to {dates[-1][:10]}")))
    line, warning = load_conditions(docs)
    warning = "\n".join(w for w in (threads_warning(docs), warning) if w)
    if line:
        rows.append(("load: other processes' CPU use during the runs (cores, average per run)", line))
    else:
        starts = [d["context"].get("load_avg") for d in docs if isinstance(d["context"].get("load_avg"), list)]
        if starts:
            rows.append(("load average at the start of the runs (1 min; includes kps' own previous runs)",
                         f"{min(s[0] for s in starts):.2f} to {max(s[0] for s in starts):.2f}"))
        rows.append(("load during the runs", "not recorded (JSON written before the runner recorded it)"))
    if ctx.get("library_build_type") == "debug":
        rows.append(("Google Benchmark", "a debug build of the library (Debian's package): it times the "
                                         "benchmarks' own timers, not its own code, so the results are unaffected"))
    return join_parts(["## Machine and conditions\n", warning, markdown_table(["", ""], rows) + "\n"])


def threads_binding(docs: list) -> str:
    """How the host's threads were bound in these runs (kps-bench's host_threads_widest_cpus, the
    most CPUs any one thread's affinity allowed), or '' where no run recorded it."""
    widest = [int(d["context"]["host_threads_widest_cpus"]) for d in docs
              if str(d["context"].get("host_threads_widest_cpus", "")).isdigit()]
    if not widest:
        return ""
    if max(widest) == 1:
        return "each thread on one CPU"
    if {d["context"].get("kokkos_concurrency") for d in docs} - {None} == {"1"}:
        return "one thread"
    floating = sum(w > 1 for w in widest)
    return (f"not bound: a thread may run on up to {max(widest)} CPUs"
            + (f" in {floating} of {len(docs)} runs" if floating < len(widest) else ""))


def threads_warning(docs: list) -> str:
    """The runs' notes on their threads (kps-bench's kps_threads_note: oversubscribed, confined to
    fewer CPUs than threads, OMP_PROC_BIND unset, unbound workers), for the top of a report."""
    notes = {}
    for d in docs:
        note = d["context"].get("kps_threads_note")
        if note:
            notes.setdefault(note, []).append(d["context"].get("kps_job_id", "?"))
    return "\n".join(f"**How the threads ran:** {note} ({len(jobs)} of {len(docs)} runs: "
                     f"{', '.join(sorted(set(jobs)))}); such runs are slower and noisier than this machine can do.\n"
                     for note, jobs in sorted(notes.items()))


def summary(machine: Machine) -> str:
    rows = []
    for name, res in machine.studies.items():
        mod = analyses.module(name)
        if mod is None or not hasattr(mod, "headlines"):
            continue
        for h in mod.headlines(res):
            rows.append([name, h.question, h.result, h.seed])
    if not rows:
        return ""
    return ("## Summary: the studies' findings beside the seeds'\n\n"
            + markdown_table(["study", "question", "this machine", "the seed"], rows) + "\n")


def produced_by(res: gbench.StudyResults, studies: list, layout: Layout, prog: str) -> str:
    lines = []
    for d in res.docs:
        ctx = d["context"]
        cmd = bench_command(ctx, layout.installed)
        if not cmd:
            continue
        eq = kps_equivalent(ctx, studies, prog)
        line = f"- `{cmd}`"
        if eq:
            line += f" (= `{eq}`)"
        if ctx.get("kps_incomplete") == "true":
            line += " — interrupted: the benchmarks completed before the cut"
        if line not in lines:
            lines.append(line)
    if not lines:
        return ""
    return "Produced by (JSON of this study, newest last):\n\n" + "\n".join(lines) + "\n"


def environment(machine: Machine) -> str:
    ctx = machine.context
    keys = ["backend", "device", "device_compute_capability", "device_compute_units", "device_clock_mhz",
            "device_memory_clock_mhz", "device_driver", "nvidia_smi_driver", "nvidia_smi_sm_clock",
            "nvidia_smi_sm_clock_max", "nvidia_smi_mem_clock", "kokkos_version", "kokkos_backends",
            "kokkos_default_execution_space", "kps_execution_space", "kokkos_concurrency", "compiler",
            "kps_version", "kps_git_revision", "host_name", "num_cpus", "mhz_per_cpu", "date", "library_version"]
    rows = [(k, ctx[k]) for k in keys if k in ctx]
    return "## Environment (the newest run's context)\n\n" + markdown_table(["", "value"], rows) + "\n"


# --- rendering --------------------------------------------------------------------------------

def render_machine(machine: Machine, staging: Staging, sub: str, layout: Layout, studies: list, prog: str,
                   source: str) -> str:
    """Writes <sub>/report.md (and its figures) through staging; returns the Markdown."""
    if not machine.studies and not variability.has_runs(machine.folder):
        die(f"no study results under {machine.folder} (expected {machine.folder}/<study>/*.json)")
    by_name = {s.name: s for s in studies}
    parts = [f"# kps report: {machine.name}\n",
             f"Rendered from the Google Benchmark JSON in `{source}` alone (`{prog} report {source}`); "
             f"{device_label(machine.context)}.\n",
             conditions(machine), summary(machine)]
    for name, res in machine.studies.items():
        mod = analyses.module(name)
        study_sub = f"{sub}/{name}" if sub else name
        figures = Figures(staging, study_sub)
        text = mod.analyze(res, figures) if mod else f"## {by_name[name].title}\n\n(no analysis)\n"
        if sub:  # links relative to <sub>/report.md
            text = text.replace(f"]({sub}/", "](")
        parts.append(text)
        parts.append(produced_by(res, studies, layout, prog))
    var_sub = f"{sub}/{variability.FOLDER}" if sub else variability.FOLDER
    text = variability.analyze(machine.folder, Figures(staging, var_sub))
    parts.append(text.replace(f"]({sub}/", "](") if sub else text)
    parts.append(environment(machine))
    text = join_parts(parts)
    staging.path(f"{sub}/report.md" if sub else "report.md").write_text(text, encoding="utf-8")
    return text


def demote(markdown: str) -> str:
    """Every heading one level down (to nest a document in another)."""
    return re.sub(r"^(#+) ", r"#\1 ", markdown, flags=re.M)


def render_tree(parent: Path, machines: list, staging: Staging, layout: Layout, studies: list, prog: str,
                source: str) -> None:
    from kps_report import compare  # the cross-backend tables
    compared = [m for m in machines if any(r.records for r in m.studies.values())]
    cmp_md = compare.markdown(compared, studies, f"{prog} compare " + " ".join(
        f"{source}/{m.name}" for m in compared)) if len(compared) > 1 else ""
    if cmp_md:
        staging.path("compare.md").write_text(cmp_md, encoding="utf-8")
    parts = [f"# kps report: every machine under {source}\n",
             f"Rendered from the committed Google Benchmark JSON alone (`{prog} report {source}`): first the "
             "studies across backends, then each machine's full report. The user's own runs (local/) and "
             "experiments (<machine>/experiments/) are not part of it.\n",
             "Machines: " + ", ".join(f"[{m.name}](#kps-report-{slug(m.name)}) ({device_label(m.context)})"
                                      for m in machines) + "\n"]
    if cmp_md:
        parts.append(demote(cmp_md))
    for m in machines:
        text = render_machine(m, staging, m.name, layout, studies, prog, f"{source}/{m.name}")
        text = re.sub(r"(!\[[^\]]*\]\()(?!https?:)", lambda mm: mm.group(1) + m.name + "/", text)
        text = re.sub(r"(\]\()(?!https?:|#|" + re.escape(m.name) + r"/)([^)]+\.md\))",
                      lambda mm: mm.group(1) + m.name + "/" + mm.group(2), text)
        parts.append(demote(text))
    staging.path("report.md").write_text(join_parts(parts), encoding="utf-8")


def all_studies(layout: Layout) -> list:
    return [load_study(n, layout.studies_dir) for n in study_names(layout.studies_dir)]


def render(src: Path, out: Path, layout: Layout, prog: str = "kps") -> Path:
    """Renders the report of src (a machine's folder or a folder of machines) into out; returns
    the report's path. Nothing in out changes unless the whole rendering succeeds."""
    if not src.is_dir():
        die(f"no results folder {src}")
    studies = all_studies(layout)
    names = [s.name for s in studies]
    source = layout.display(src)
    if is_machine(src, names):
        machine = load_machine(src, studies)
        with Staging(out) as staging:
            render_machine(machine, staging, "", layout, studies, prog, source)
        return out / "report.md"
    machines = machine_folders(src, names, layout)
    if machines:
        loaded = [load_machine(m, studies) for m in machines]
        with Staging(out) as staging:
            render_tree(src, loaded, staging, layout, studies, prog, source)
        return out / "report.md"
    if any(src.glob("*.json")):
        machine = load_machine(src, studies)
        with Staging(out) as staging:
            render_machine(machine, staging, "", layout, studies, prog, source)
        return out / "report.md"
    die(f"no study results under {src} (expected {src}/<study>/*.json, or folders of machines holding them)")
