"""The machine a run measures: kps-bench's context, the results folder's name, the GPU's clocks
and how loaded the machine was while a benchmark ran."""
from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from kps_report.errors import die
from kps_report.text import slug

GPU_BACKENDS = ("cuda", "hip", "sycl", "openmptarget")
# OpenMP placement for the host backends (the user's settings win).
OMP_ENV = {"OMP_PROC_BIND": os.environ.get("OMP_PROC_BIND", "spread"),
           "OMP_PLACES": os.environ.get("OMP_PLACES", "threads")}
# Cores' worth of CPU time other processes may use during a run before the run counts as
# loaded (system daemons take a few hundredths).
LOADED_CORES = 0.25
GPU_MODELS = r"(GH200|GB200|H100|H200|H800|A100|A800|B200|B100|L40S?|L4|V100|A10|A30|A40|MI\d+X?)"


def is_gpu(ctx: dict) -> bool:
    return ctx.get("backend", "").lower() in GPU_BACKENDS


def short_device(device: str) -> str:
    """'Intel(R) Xeon(R) Platinum 8480+ CPU @ 2.00GHz' -> 'Intel Xeon Platinum 8480+'."""
    device = device.split("@")[0]
    for word in ("NVIDIA ", "(R)", "(TM)", "(tm)", " CPU", " Processor", " processor"):
        device = device.replace(word, " ")
    return " ".join(device.split())


def machine_name(ctx: dict) -> str:
    """The results folder's name: the GPU model and backend (h100-cuda), or the CPU model, thread
    count and backend (amd-epyc-7b13-2t-openmp; serial runs say 1t-serial)."""
    backend = slug(ctx.get("backend", "unknown"))
    device = ctx.get("device", "") or "unknown device"
    if is_gpu(ctx):
        m = re.search(GPU_MODELS, device)
        return f"{m.group(1).lower() if m else slug(short_device(device))}-{backend}"
    threads = ctx.get("kokkos_concurrency", "") or "1"
    return f"{slug(short_device(device)) or 'cpu'}-{threads}t-{backend}"


def preset_of(ctx: dict) -> str:
    """The CMake preset whose kps-bench writes this context (CMakePresets.json)."""
    if is_gpu(ctx):
        return ctx.get("backend", "cuda").lower()
    space = (ctx.get("kps_execution_space") or ctx.get("backend", "")).lower()
    if space in ("serial", "threads"):
        return space
    return "host"


def device_label(ctx: dict) -> str:
    """'NVIDIA H100 80GB HBM3, Cuda, 132 SMs' or 'AMD EPYC, OpenMP, 2 threads': for titles."""
    parts = [ctx.get("device") or "unknown device", ctx.get("backend") or "unknown backend"]
    if is_gpu(ctx) and ctx.get("device_compute_units"):
        parts.append(f"{ctx['device_compute_units']} SMs")
    elif ctx.get("kokkos_concurrency"):
        n = ctx["kokkos_concurrency"]
        parts.append(f"{n} thread{'s' if str(n) != '1' else ''}")
    return ", ".join(parts)


def bench_context(bench: Path) -> dict:
    """Asks kps-bench for its context (device, backend, Kokkos) with a run of no benchmarks."""
    try:
        p = subprocess.run([str(bench), "--kps_context"], capture_output=True, text=True, timeout=300,
                           env={**os.environ, **OMP_ENV})
    except OSError as e:
        die(f"cannot run {bench}: {e.strerror}")
    except subprocess.TimeoutExpired:
        die(f"{bench} --kps_context did not answer in 5 minutes")
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]
        die(f"{bench} cannot run here: {last}", 3 if p.returncode == 3 else 2)
    out = p.stdout
    try:
        ctx = json.loads(out[out.index("{"):])  # Kokkos may print warnings before it
    except ValueError:
        die(f"{bench} --kps_context printed no JSON context: is it kps-bench?")
    if not isinstance(ctx, dict) or not ctx.get("backend"):
        die(f"{bench} --kps_context names no backend: is it kps-bench?")
    return ctx


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


def load_average() -> Optional[str]:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return None


def _busy_seconds() -> Optional[float]:
    """CPU time every process of the machine spent so far (Linux /proc/stat), in seconds."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()
    except (OSError, IndexError):
        return None
    if fields[0] != "cpu":
        return None
    ticks = [int(x) for x in fields[1:]]
    busy = sum(ticks[:3]) + sum(ticks[5:8])  # user nice system, irq softirq steal (not idle, iowait)
    return busy / os.sysconf("SC_CLK_TCK")


def _children_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def process_seconds(pid: int) -> float:
    """CPU time a running process (of this machine, Linux /proc) spent so far; 0 where it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def _no_live() -> list:
    return []


def _own_seconds(live: Callable[[], list]) -> float:
    """CPU time of this kps' kps-bench processes: those finished and those still running."""
    return _children_seconds() + sum(process_seconds(pid) for pid in live())


@dataclass
class LoadProbe:
    """The load around one benchmark run: the load average before and after, and the CPU time
    other processes took during it (the machine's busy time less kps-bench's own), in cores.
    `live` lists the PIDs of this kps' other kps-bench processes still running (runs on several
    GPUs at once): their time is kps' own, not another process' load."""
    before: Optional[str] = None
    busy0: Optional[float] = None
    child0: float = 0.0
    wall0: float = 0.0
    live: Callable[[], list] = _no_live
    gpu: object = None                                  # the GPU the run sees alone (kps_report.gpus.Gpu)
    gpu_before: dict = field(default_factory=dict)      # nvidia-smi's view of it before the run
    cpus: Optional[list] = None                         # the cores its host threads were bound to

    @classmethod
    def start(cls, live: Callable[[], list] = _no_live) -> "LoadProbe":
        return cls(load_average(), _busy_seconds(), _own_seconds(live), time.monotonic(), live)

    def context(self) -> dict:
        out = {"kps_cpus": str(os.cpu_count() or 0)}
        if self.before:
            out["kps_load_before"] = self.before
        after = load_average()
        if after:
            out["kps_load_after"] = after
        busy1, wall = _busy_seconds(), time.monotonic() - self.wall0
        if self.busy0 is not None and busy1 is not None and wall > 0:
            others = max(0.0, (busy1 - self.busy0) - (_own_seconds(self.live) - self.child0)) / wall
            out["kps_other_cpu_load"] = f"{others:.2f}"
        return out


def other_load(ctx: dict):
    """Cores' worth of CPU other processes used during the run of this context, or None."""
    try:
        return float(ctx["kps_other_cpu_load"])
    except (KeyError, ValueError):
        return None


def load_conditions(docs: list):
    """(a line on the load other processes put on the machine during these runs or None where
    the runner did not record it, a warning for the top of a report or '')."""
    measured = [(other_load(d["context"]), d) for d in docs if other_load(d["context"]) is not None]
    if not measured:
        return None, ""
    worst = max(x for x, _ in measured)
    line = f"{min(x for x, _ in measured):.2f} to {worst:.2f} over {len(measured)} runs"
    loaded = [d for x, d in measured if x > LOADED_CORES]
    if not loaded:
        return line, ""
    jobs = ", ".join(sorted({d["context"].get("kps_job_id", "?") for d in loaded}))
    return line, (f"**The machine was loaded:** other processes used up to {worst:.2f} cores on average during "
                  f"{len(loaded)} of {len(measured)} runs ({jobs}); their times are slower and noisier than this "
                  f"machine can do. Re-run them on a quiet machine (`--force`).\n")
