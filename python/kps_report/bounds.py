"""A point's measured bandwidth bound: the one definition every "of a copy" and "/ bound" figure uses.

A point is an element type and N in one machine's results. Its bound is a rate, in GB/s:
- `copy` (the scans' bound): the fastest copy of the same bytes measured in that run, by any copy
  kernel, timed in kps' interleaved rounds (a record's copy counters: copy_kokkos_wall_us,
  copy_streaming_wall_us, copy_wall_us, or, where a record has only the ratio, its GB/s over
  ratio_to_copy) or on its own (the `copy/<variant>/<type>/<N>` records). A copy's GB/s counts the
  bytes it reads and writes, 2 x N x sizeof(T), as a scan's does.
- `read` (the sums' and dot products' bound): likewise the fastest streaming read of N elements
  (read_wall_us, or GB/s over ratio_to_read, in the rounds; `read/<variant>/<type>/<N>` records on
  their own); where no read was measured at the point, the fastest copy's, whose rate is the read
  bandwidth a copy implies (kps-bench's ratio_to_copy of a reduction, 2 x N x sizeof(T) over the
  copy's time).

- the machine's own limits where the run recorded them (likwid-bench's copy, stream and load
  kernels at working sets past the caches: kps_report.likwid, the context's kps_machine_bounds):
  a copy or stream kernel's rate joins the copy bound, a load's the read bound, at every point
  whose bytes (2 x N x sizeof(T) for a copy, N x sizeof(T) for a read) exceed the last-level
  cache; at a point that fits the cache, kps-bench's own kernels alone bound it.

Whose rounds count: the point's record where the caller names one (the call whose ratio is
printed), else kps' own call at the point (scan/automatic for a copy, reduce/tuned for a read), else
every record of that study at the point. A slower measurement never lowers the bound: an outlier
of one copy (the standalone copy/kokkos of the H200 at 2^30, for one) leaves the fastest in place.
Every kernel measured is kept beside the one taken (Bound.measured), so a report can list them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from kps_report.gbench import TYPE_SIZE

# The study whose rounds time each bound's kernels, and kps' own call in it.
ROUNDS_OF = {"copy": ("scan", "automatic"), "read": ("reduce", "tuned")}
# In-round counters: (kernel, counter of its wall time in µs, bytes per element it moves).
COPY_COUNTERS = (("copy/kokkos", "copy_kokkos_wall_us", 2), ("copy/streaming", "copy_streaming_wall_us", 2),
                 ("copy/kokkos", "copy_wall_us", 2))
READ_COUNTERS = (("read", "read_wall_us", 1),)
# kps-bench's copy in a scan's or a reduction's rounds is Kokkos::deep_copy.
RATIO_KERNEL = {"copy": ("copy/kokkos", "ratio_to_copy"), "read": ("read", "ratio_to_read")}
ROUNDS = "kps' rounds"
STANDALONE = "own run"
MACHINE = "likwid-bench"


@dataclass(frozen=True)
class Measured:
    """One bound kernel's figure at the point."""
    kernel: str   # copy/kokkos, copy/streaming, read, ...
    where: str    # ROUNDS (timed among kps' calls) or STANDALONE (a benchmark of its own)
    record: str   # the record it comes from
    gbps: float

    def label(self) -> str:
        return f"{self.kernel}, {self.where}"


@dataclass(frozen=True)
class Bound:
    """A point's bound: the fastest of `measured` (fastest first) of the bound's kind."""
    kind: str              # copy or read: the kernel taken ("read" may fall back to a copy)
    gbps: float
    kernel: str
    where: str
    record: str
    measured: tuple = field(default=())  # every Measured of the kind taken at the point, fastest first

    def label(self) -> str:
        return f"{self.kernel}, {self.where}"


def _gbps(rec) -> Optional[float]:
    v = rec.get("GB/s") if rec and "error" not in rec else None
    return v if isinstance(v, (int, float)) and v > 0 else None


def _num(v) -> Optional[float]:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def _name(rec: dict) -> str:
    return rec.get("name") or "/".join(str(rec.get(k)) for k in ("family", "variant", "type", "n"))


def in_rounds(kind: str, rec: dict) -> list:
    """The bound kernels of `kind` (copy or read) timed in a record's rounds, as Measured. A
    kernel's figure is the record's GB/s over the record's own ratio (ratio_to_copy, ratio_to_read:
    timed in the same repetitions as the call, whatever their spread over repetitions); where the
    rounds timed several kernels of the kind (an operator's copy_kokkos and copy_streaming, whose
    ratio is the faster's), each one's is scaled from it by their wall times; without a ratio, from
    its wall time and the bytes it moves."""
    if not rec or "error" in rec or not rec.get("n"):
        return []
    timed = [(kernel, key, per) for kernel, key, per in (COPY_COUNTERS if kind == "copy" else READ_COUNTERS)
             if _num(rec.get(key))]
    default, ratio_key = RATIO_KERNEL[kind]
    g, ratio = _gbps(rec), _num(rec.get(ratio_key))
    if g and ratio:
        if not timed:
            return [Measured(default, ROUNDS, _name(rec), g / ratio)]
        fastest = min(rec[key] for _, key, _ in timed)
        return [Measured(kernel, ROUNDS, _name(rec), g / ratio * fastest / rec[key]) for kernel, key, _ in timed]
    if rec.get("type") not in TYPE_SIZE:
        return []
    size = rec["n"] * TYPE_SIZE[rec["type"]]
    return [Measured(kernel, ROUNDS, _name(rec), per * size / (rec[key] * 1e3)) for kernel, key, per in timed]


def standalone(kind: str, records, dtype: str, n: int) -> list:
    """The bound kernels of `kind` run as benchmarks of their own at (dtype, n): <kind>/<variant>/<dtype>/<n>."""
    out = []
    for r in records:
        if r.get("family") == kind and r.get("type") == dtype and r.get("n") == n and not r.get("params") \
                and _gbps(r):
            out.append(Measured(f"{kind}/{r['variant']}", STANDALONE, _name(r), _gbps(r)))
    return out


def machine(kind: str, recs: list, dtype: str, n: int) -> list:
    """The machine's limits of `kind` (likwid-bench rows a record of the run carries: gbench.records)
    where the point's bytes exceed the last-level cache, as Measured."""
    rec = next((r for r in recs if r and r.get("machine_bounds")), None)
    if rec is None or dtype not in TYPE_SIZE:
        return []
    llc = rec.get("llc_bytes")
    footprint = (2 if kind == "copy" else 1) * n * TYPE_SIZE[dtype]
    if not llc or footprint <= llc:
        return []
    return [Measured(f"{m['kernel']} {m.get('bytes', 0) / 2**30:g} GiB", MACHINE, "kps_machine_bounds", m["gbps"])
            for m in rec["machine_bounds"] if m.get("kind") == kind and m.get("gbps", 0) > 0]


def _rounds_records(kind: str, records: list, dtype: str, n: int) -> list:
    study, anchor = ROUNDS_OF[kind]
    at = [r for r in records if r.get("family") == study and r.get("type") == dtype and r.get("n") == n
          and not r.get("params") and "error" not in r]
    mine = [r for r in at if r.get("variant") == anchor]
    return mine or at


def measured(kind: str, records, dtype: str, n: int, record: Optional[dict] = None, rounds_of: str = "") -> list:
    """Every kernel of `kind` measured at (dtype, n), fastest first: in `record`'s rounds (else in
    those of the records ROUNDS_OF[rounds_of or kind] names, module docstring) and on their own."""
    records = list(records.values()) if isinstance(records, dict) else list(records)
    rounds = [record] if record is not None else _rounds_records(rounds_of or kind, records, dtype, n)
    out = [m for r in rounds for m in in_rounds(kind, r)] + standalone(kind, records, dtype, n)
    out += machine(kind, rounds + records, dtype, n)
    return sorted(out, key=lambda m: -m.gbps)


def point_bound(kind: str, records, dtype: str, n: int, record: Optional[dict] = None) -> Optional[Bound]:
    """The bound of kind `copy` (scans) or `read` (sums, dot products) at (dtype, n) in one run's
    `records` (a list, or {name: record}): the fastest of its kernels measured there (measured());
    a read bound without any read falls back to the fastest copy, in the same rounds or on its own.
    `record`: the call whose rounds count (default: kps' own call at the point). None where nothing
    was measured."""
    for k in (kind, "copy") if kind == "read" else (kind,):
        ms = measured(k, records, dtype, n, record, kind)
        if ms:
            top = ms[0]
            return Bound(k, top.gbps, top.kernel, top.where, top.record, tuple(ms))
    return None


def of_bound(kind: str, records, rec: dict, own_rounds: bool = True) -> Optional[float]:
    """A record's GB/s over its point's bound (point_bound), the record's own rounds counting where
    `own_rounds`; None without a bandwidth or a bound."""
    g = _gbps(rec)
    if not g:
        return None
    b = point_bound(kind, records, rec["type"], rec["n"], rec if own_rounds else None)
    return g / b.gbps if b else None
