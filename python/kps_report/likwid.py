"""A host's memory limits measured by likwid-bench: the copy, load and stream kernels past the caches.

`kps bounds` runs likwid-bench (likwid's threaded memory benchmark: hand-written assembly loops, the
CPU bandwidth reference of the field) with the pinning of the host runs: one thread per core of the
node's memory domain (`-W N:<size>:<threads>`: each thread touches its own chunk first, as Kokkos'
parallel initialization does), at working sets far past the last-level cache (default 1, 4, 8 and
16 GiB). Its MByte/s count the bytes each kernel reads and writes (a copy's 2 x 8 bytes per element,
as kps-bench's copy and a scan count theirs; a load's 8), without the write-allocate reads of
ordinary stores. The rows go to <results>/machine-bounds.json; `kps run` puts them into every
benchmark JSON's context (kps_machine_bounds), and kps_report.bounds takes them into the bound of
every point whose bytes do not fit the last-level cache: a copy kernel's (copy_*, stream_*) into the
scans' copy bound, a load's (load_*) into the sums' read bound, beside kps-bench's own copy and read
in the same run.
"""
from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from kps_report.errors import KpsError, die, say

FILE = "machine-bounds.json"
# The kernels asked for, by the instruction set they need (a kernel the CPU lacks is left out).
KERNELS = {"copy": ("copy_avx", "copy_mem_avx", "copy_avx512", "copy_mem_avx512"),
           "load": ("load_avx", "load_mem", "load_avx512"),
           "stream": ("stream_avx", "stream_mem_avx", "stream_avx512", "stream_mem_avx512")}
NEEDS = {"avx512": "avx512f", "avx": "avx"}
SIZES_GIB = (1, 4, 8, 16)
# Which bound a kernel's bandwidth is: a copy (reads and writes: copy, stream triad) or a read.
KIND = {"copy": "copy", "stream": "copy", "load": "read"}


@dataclass(frozen=True)
class Row:
    kernel: str
    kind: str        # copy or read (KIND)
    bytes: int       # the working set: every stream of the kernel together
    threads: int
    gbps: float      # likwid-bench's MByte/s / 1000
    command: str

    def as_dict(self) -> dict:
        return {"kernel": self.kernel, "kind": self.kind, "bytes": self.bytes, "threads": self.threads,
                "gbps": round(self.gbps, 3), "command": self.command}


def cpu_flags() -> set:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return set()
    m = re.search(r"^flags\s*:(.*)$", text, re.M)
    return set(m.group(1).split()) if m else set()


def kernels_for(flags: set, available: set) -> list:
    """The kernels of KERNELS that this likwid-bench has and this CPU can run."""
    out = []
    for family in KERNELS.values():
        for k in family:
            need = NEEDS["avx512"] if "avx512" in k else NEEDS["avx"]
            if k in available and need in flags:
                out.append(k)
    return out


def available_kernels(binary: str) -> set:
    p = subprocess.run([binary, "-a"], capture_output=True, text=True, check=False)
    return {line.split(" - ")[0].strip() for line in p.stdout.splitlines() if " - " in line}


def parse(text: str) -> Optional[float]:
    """likwid-bench's MByte/s line as GB/s, None where it printed none."""
    m = re.search(r"^MByte/s:\s*([0-9.eE+]+)", text, re.M)
    return float(m.group(1)) / 1000.0 if m else None


def version(binary: str) -> str:
    p = subprocess.run([binary, "-h"], capture_output=True, text=True, check=False)
    m = re.search(r"Version\s+([0-9.]+)", p.stdout + p.stderr)
    return f"likwid-bench {m.group(1)}" if m else "likwid-bench"


def measure(threads: int, sizes_gib=SIZES_GIB, binary: str = "likwid-bench", seconds: float = 1.0,
            kernels: Optional[list] = None) -> dict:
    """Runs every kernel at every size on `threads` threads of the node's domain; the document
    machine-bounds.json holds."""
    path = shutil.which(binary) if os.sep not in binary else (binary if Path(binary).is_file() else None)
    if not path:
        die(f"{binary}: not found (Debian: apt-get install likwid; or --likwid PATH)")
    picked = kernels or kernels_for(cpu_flags(), available_kernels(path))
    if not picked:
        die(f"{binary}: none of the kernels {', '.join(k for f in KERNELS.values() for k in f)} runs on this CPU")
    rows = []
    doc = {"tool": version(path), "threads": threads, "domain": "N (the node)",
           "placement": "-W: each thread allocates and first touches its own chunk",
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "sizes_gib": list(sizes_gib), "rows": []}
    try:
        for size in sizes_gib:
            kib = int(size * 1024 * 1024)
            for k in picked:
                cmd = [path, "-t", k, "-s", f"{seconds:g}", "-W", f"N:{kib}kB:{threads}"]
                shown = " ".join(["likwid-bench"] + cmd[1:])
                p = subprocess.run(cmd, capture_output=True, text=True, check=False)
                g = parse(p.stdout)
                if p.returncode != 0 or g is None:
                    last = (p.stderr.strip() or p.stdout.strip()).splitlines()[-1:] or ["no output"]
                    die(f"{shown}: exit {p.returncode}: {last[0]}")
                family = k.split("_")[0]
                rows.append(Row(k, KIND[family], kib * 1024, threads, g, shown))
                say(f"  {shown}: {g:.1f} GB/s")
    except KeyboardInterrupt:
        # Ctrl-C or the job's time limit: the kernels measured so far are real limits; keep them.
        if not rows:
            raise
        raise Stopped({**doc, "rows": [r.as_dict() for r in rows], "incomplete": True,
                       "measured": len(rows), "asked": len(picked) * len(sizes_gib)}) from None
    return {**doc, "rows": [r.as_dict() for r in rows]}


class Stopped(Exception):
    """measure() stopped by Ctrl-C (SIGINT, SIGTERM) after some kernels: `doc` holds them."""

    def __init__(self, doc: dict):
        super().__init__("stopped")
        self.doc = doc


def load(folder: Path) -> Optional[dict]:
    """<folder>/machine-bounds.json, checked; None where the folder has none."""
    f = Path(folder) / FILE
    if not f.is_file():
        return None
    try:
        doc = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise KpsError(f"{f}: not a machine-bounds file ({e})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("rows"), list):
        raise KpsError(f"{f}: not a machine-bounds file (no rows)")
    return doc


def context_value(doc: dict) -> str:
    """The JSON context's kps_machine_bounds: the document, compact."""
    return json.dumps(doc, separators=(",", ":"), sort_keys=True)


def from_context(ctx: dict) -> list:
    """The rows a benchmark JSON's context carries (kps_machine_bounds), [] without them."""
    text = ctx.get("kps_machine_bounds") if isinstance(ctx, dict) else None
    if not text:
        return []
    try:
        doc = json.loads(text)
    except (TypeError, json.JSONDecodeError):
        return []
    return [r for r in doc.get("rows", []) if isinstance(r, dict) and isinstance(r.get("gbps"), (int, float))
            and r.get("kind") in ("copy", "read")]


def last_level_cache_bytes(ctx: dict) -> Optional[int]:
    """The last-level cache of the whole machine from Google Benchmark's context (`caches`: one
    entry per cache of a level, size per instance, num_sharing CPUs share one): None without it."""
    caches = ctx.get("caches") if isinstance(ctx, dict) else None
    if not isinstance(caches, list) or not caches:
        return None
    top = max(c.get("level", 0) for c in caches if isinstance(c, dict))
    cpus = ctx.get("num_cpus") or 0
    total = 0
    for c in caches:
        if isinstance(c, dict) and c.get("level") == top and c.get("type") in ("Unified", "Data"):
            share = c.get("num_sharing") or 0
            total = max(total, c.get("size", 0) * (max(1, cpus // share) if share and cpus else 1))
    return total or None
