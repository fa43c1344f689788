"""The commands that reproduce a JSON file, as a reader types them: kps-bench as
build/<preset>/bench/kps-bench (or `kps-bench` of an installed kps) without the output file, and
the `kps run` that runs the same job where a study's sweep defines it."""
from __future__ import annotations

import shlex

from kps_report.machine import preset_of

OUTPUT_FLAGS = ("--benchmark_out=", "--benchmark_out_format=")
# Flags that change how Google Benchmark writes or prints, not what runs.
OUTPUT_ONLY = ("--benchmark_report_aggregates_only", "--benchmark_display_aggregates_only")


def bench_command(ctx: dict, installed: bool = False):
    """kps-bench's command line of a run, with the binary shown where a build puts it."""
    raw = ctx.get("kps_command", "")
    if not raw:
        return None
    words = raw.split()
    if not words:
        return None
    exe = "kps-bench" if installed else f"build/{preset_of(ctx)}/bench/kps-bench"
    args = [w for w in words[1:] if not w.startswith(OUTPUT_FLAGS)]
    return " ".join([exe] + [shlex.quote(a) for a in args])


def _job_key(args):
    keep = {}
    extra = []
    for a in args:
        name, _, value = a.partition("=")
        if name in ("--benchmark_filter", "--kps_sizes", "--kps_types"):
            keep[name] = value
        elif name in ("--benchmark_repetitions", "--benchmark_min_time") or name.startswith(OUTPUT_ONLY) \
                or a.startswith(OUTPUT_FLAGS):
            continue
        else:
            extra.append(a)
    return (keep.get("--benchmark_filter"), keep.get("--kps_sizes"), keep.get("--kps_types"), tuple(extra))


def kps_equivalent(ctx: dict, studies: list, prog: str = "kps"):
    """`kps run --studies S --scale X --only ID` where a study's sweep has a job running the same
    benchmarks on the same sizes and types as the JSON's command; None otherwise."""
    raw = ctx.get("kps_command", "")
    if not raw:
        return None
    key = _job_key(raw.split()[1:])
    for study in studies:
        for scale, jobs in study.sweeps.items():
            for job in jobs:
                if _job_key(job.bench_args()) == key:
                    only = f" --only {job.id}" if len(jobs) > 1 else ""
                    return f"{prog} run --studies {study.name} --scale {scale}{only}"
    return None
