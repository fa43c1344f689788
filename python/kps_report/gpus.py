"""A node's GPUs: which there are (nvidia-smi), which a run uses (`--gpus all|N`), how one process is
pinned to one of them, and what nvidia-smi says of one before and after a run.

A run on one GPU sees that GPU alone (CUDA_VISIBLE_DEVICES=<its UUID>): the CUDA runtime, Kokkos
and CUB then agree on device 0 whatever their device ordering, and the JSON names the GPU by
index and UUID. Where CUDA_VISIBLE_DEVICES is set already (a Slurm task given one GPU, a user's
choice), only those GPUs are the node's.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Optional

from kps_report.errors import die

# What nvidia-smi is asked of one GPU around each run, and the context keys they become.
STATE_QUERY = ("name", "driver_version", "clocks.sm", "clocks.max.sm", "clocks.mem", "clocks.max.mem",
               "power.limit", "temperature.gpu", "power.draw", "uuid", "index")
STATE_KEYS = ("gpu", "driver", "sm_clock", "sm_clock_max", "mem_clock", "mem_clock_max", "power_limit",
              "temperature", "power_draw", "uuid", "index")


@dataclass(frozen=True)
class Gpu:
    index: str   # nvidia-smi's index (PCI order)
    uuid: str
    name: str

    @property
    def label(self) -> str:
        return f"GPU {self.index} ({self.name}, {self.uuid})"

    def env(self) -> dict:
        """The environment that makes a process see this GPU alone."""
        return {"CUDA_VISIBLE_DEVICES": self.uuid}

    def context(self) -> dict:
        return {"kps_gpu_index": self.index, "kps_gpu_uuid": self.uuid}


def _smi(args: list) -> Optional[str]:
    if not shutil.which("nvidia-smi"):
        return None
    try:
        p = subprocess.run(["nvidia-smi", *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return p.stdout if p.returncode == 0 and p.stdout.strip() else None


def node_gpus() -> list:
    """The GPUs this process may use, in nvidia-smi's order: all of the node's, or those
    CUDA_VISIBLE_DEVICES names (by index or UUID). [] without nvidia-smi."""
    out = _smi(["--query-gpu=index,uuid,name", "--format=csv,noheader"])
    if out is None:
        return []
    gpus = []
    for line in out.strip().splitlines():
        fields = [f.strip() for f in line.split(",", 2)]
        if len(fields) == 3:
            gpus.append(Gpu(*fields))
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        return gpus
    picked = []
    for v in (v.strip() for v in visible.split(",") if v.strip()):
        match = [g for g in gpus if v in (g.index, g.uuid) or (v.startswith("GPU-") and g.uuid.startswith(v))]
        picked += [g for g in match if g not in picked]
    return picked


def parse_count(spec: str) -> Optional[int]:
    """`--gpus` as a count: None for 'all', else a positive integer (one line of error otherwise)."""
    if spec == "all":
        return None
    try:
        n = int(spec)
    except ValueError:
        n = 0
    if n < 1 or str(n) != spec.strip():
        die(f"--gpus {spec}: expected 'all' or a number of GPUs (1, 2, ...)")
    return n


def select(spec: str, gpus: list) -> list:
    """The GPUs `--gpus SPEC` picks from this node's (the first N, or all)."""
    n = parse_count(spec)
    if not gpus:
        die(f"--gpus {spec}: no GPU found (nvidia-smi lists none{' of CUDA_VISIBLE_DEVICES' if 'CUDA_VISIBLE_DEVICES' in os.environ else ''}); "
            "kps runs one process per NVIDIA GPU")
    if n is not None and n > len(gpus):
        listed = "; ".join(g.label for g in gpus)
        die(f"--gpus {n}: this node has {len(gpus)} GPU{'s' if len(gpus) != 1 else ''} ({listed})")
    return gpus if n is None else gpus[:n]


def gpu_state(gpu: Optional[Gpu] = None) -> dict:
    """nvidia-smi's view of one GPU (driver, clocks, power, temperature): `gpu`, else the first one
    CUDA_VISIBLE_DEVICES names, else the first; {} where there is no nvidia-smi."""
    target = gpu.uuid if gpu else (os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip() or None)
    query = [f"--query-gpu={','.join(STATE_QUERY)}", "--format=csv,noheader"]
    out = _smi(query + (["-i", target] if target else [])) or (_smi(query) if target and not gpu else None)
    if out is None:
        return {}
    vals = [v.strip() for v in out.strip().splitlines()[0].split(",")]
    return {k: v for k, v in zip(STATE_KEYS, vals) if v and v != "[N/A]"}
