"""The performance targets of the scan and the reduction, each against its measured ratio, in one
table per study: `automatic` (scan) and `tuned` (sum returned to the host) at least 1.0 x each CUB
peer (the toolkit's, and a newer CCCL's where the run has one) at every N, except the scan of
8-byte types at 2^21..2^24 (BAND_TARGET: at least 0.97 x the toolkit's CUB, where its decoupled
look-back with 8-byte prefixes is at its best), and the sum at least 0.97 x a pure streaming read
of its bytes at 2^28 and 2^30. Every ratio comes from the kps
variant's own interleaved rounds (kps-bench's counters ratio_to_cub, ratio_to_cub_cccl,
ratio_to_read: a peer's time over the variant's). Where a size misses a CUB target the table shows
the launch floor beside the call (an empty launch and its fence, same rounds): the least any call
takes. GPU runs only (the peers are CUDA's).

On host backends (cpu_table) the targets are the CPU's: `automatic` and `tuned` at least 1.0 x the
best CPU peer at every N from 2^16 (a one-thread loop, OpenMP's and oneTBB's, timed in the same
rounds; a peer those rounds did not time, from its own run's GB/s, marked so), the scan at least 0.80 x the node's fastest copy and the sum 0.90 x its
streaming read at 2^26..2^30. Every `/ fastest copy` and `/ read` figure (and the GPU table's
`/ read`) is over kps_report.bounds.point_bound: the fastest copy or read measured at the point, in
kps' rounds or on its own. On Serial (one thread: no parallel peer runs beside it) the one
target is the one-thread loop's, at least 0.95 x; the bound is shown, not targeted."""
from __future__ import annotations

from kps_report import bounds, gbench
from kps_report.text import fmt, markdown_table, pow2

READ_TARGET = 0.97
READ_SIZES = (1 << 28, 1 << 30)
# The scan's one exception to >= 1.0 x CUB: 8-byte types at 2^21..2^24 against the toolkit's CUB.
BAND_TARGET = 0.97
BAND_TYPES = ("int64", "double")
BAND_SIZES = (1 << 21, 1 << 24)


def cub_target(family: str, peer: str, type_: str, n: int) -> float:
    """The target of family's ratio to `peer` at (type_, n): 1.0, or BAND_TARGET in the scan's band."""
    if (family == "scan" and peer == "cub" and type_ in BAND_TYPES
            and BAND_SIZES[0] <= n <= BAND_SIZES[1]):
        return BAND_TARGET
    return 1.0


def _cell(value, target: float) -> str:
    if value is None:
        return "—"
    if value >= target:
        return fmt(value)
    # A miss never reads as the target itself (0.9996 is not "1").
    digits = 3
    while digits < 6 and float(fmt(value, digits)) >= target:
        digits += 1
    return fmt(value, digits) + " ✗"


def _call_us(r: dict):
    return r.get("wall_us") or (r.get("seconds") * 1e6 if r.get("seconds") else None)


def table(records, family: str, variant: str, read: bool, command: str, runs=None) -> str:
    """The GPU targets of family/variant (module docstring), one row per (type, N). `runs`
    (gbench.Repeats, or {k: records}): the same jobs run again (`kps run --runs K`); each ratio is
    then the median over the runs that measured its row, the verdict the median's, the range beside it."""
    rs = [r for r in records if r.get("family") == family and r.get("variant") == variant and "error" not in r
          and r.get("ratio_to_cub") is not None]
    if not rs:
        return ""
    left_out = getattr(runs, "left_out", [])
    others = list((getattr(runs, "runs", runs) or {}).values())
    peers = [("cub", "ratio_to_cub")] + ([("cub_cccl", "ratio_to_cub_cccl")]
                                         if any(r.get("ratio_to_cub_cccl") is not None for r in rs) else [])
    floor_key = "launch_floor_wall_us" if any("launch_floor_wall_us" in r for r in rs) else "launch_floor_us"
    rows, met, total, counted = [], 0, 0, set()
    for t in gbench.TYPES:
        for r in sorted((r for r in rs if r["type"] == t), key=lambda r: r["n"]):
            mine = [(records, r)] + [(o, x) for o in others for x in [_same_row(o, family, variant, r)] if x]
            counted.add(len(mine))
            cells = [t, pow2(r["n"])]
            missed = False
            for p, key in peers:
                v, goal = _over_runs([x.get(key) for _, x in mine]), cub_target(family, p, t, r["n"])
                cells.append(_run_cell(v, goal))
                if v is not None:
                    total += 1
                    met += v[0] >= goal
                    missed |= v[0] < goal
            if read:
                v = (_over_runs([cpu_bound(recs, family, x, read_only=True) for recs, x in mine])
                     if r["n"] in READ_SIZES else None)
                cells.append(_run_cell(v, READ_TARGET))
                if v is not None:
                    total += 1
                    met += v[0] >= READ_TARGET
            call, floor = _call_us(r), r.get(floor_key)
            cells.append(f"{fmt(call)} / {fmt(floor)}" if missed and call and floor else "")
            rows.append(cells)
    band = family == "scan" and any(cub_target(family, "cub", r["type"], r["n"]) < 1.0 for r in rs)
    head = (["type", "N"] + [f"{variant} / {p} (≥ 1.0" + (f"; {', '.join(BAND_TYPES)} at {pow2(BAND_SIZES[0])}.."
                                                          f"{pow2(BAND_SIZES[1])}: ≥ {BAND_TARGET})"
                                                          if band and p == "cub" else ")") for p, _ in peers]
            + ([f"{variant} / read (≥ {READ_TARGET}, 2^28 and 2^30)"] if read else [])
            + ["where missed: call / launch floor, µs"])
    return (f"### Targets: {family}/{variant} against CUB" + (" and a streaming read" if read else "") + "\n\n"
            f"{met} of {total} targets met (✗: missed). Ratios are a peer's time over {variant}'s in the same "
            f"interleaved rounds (> 1: kps faster).{_runs_note(family, counted, left_out, False)} Reproduce: "
            f"`{command}{_runs_flag(counted)}` (the kps-bench commands: 'Produced by' below).\n\n"
            + markdown_table(head, rows) + "\n")


def _runs_note(family: str, counted: set, left_out: list, floors: bool) -> str:
    """The targets' sentence on repeated runs: how many a figure is the median of, what was left out."""
    most = max(counted) if counted else 1
    note = (f" Each figure is the median over the runs of its job ({most} at most: this folder's JSON and "
            f"`{family}/runs/`), the runs' range in brackets; the verdict is the median's"
            f"{'; the µs are those of the run in the folder itself' if floors else ''}.") if most > 1 else ""
    if left_out:
        note += (" Repeats left out (not measured as this folder's run was): "
                 + "; ".join(f"`{x.split(': ')[0]}` ({x.split(': ', 1)[1]})" for x in left_out) + ".")
    return note


def _runs_flag(counted: set) -> str:
    most = max(counted) if counted else 1
    return f" --runs {most}" if most > 1 else ""


CPU_PEER_FROM = 1 << 16
CPU_BOUND_SIZES = (1 << 26, 1 << 30)
CPU_BOUND_TARGET = {"scan": 0.80, "reduce": 0.90}
CPU_PEERS = ("serial_loop", "openmp", "tbb")
SERIAL_LOOP_TARGET = 0.95
# The host targets table's floors column (cpu_table): the call, OpenMP's reduction and the two
# runtimes' empty calls, in microseconds, up to this size.
FLOOR_KEYS = ("wall_us", "openmp_wall_us", "launch_floor_wall_us", "openmp_floor_wall_us")
FLOORS_TO = 1 << 20


def _gbps(r):
    v = (r or {}).get("GB/s")
    return v if isinstance(v, (int, float)) and v > 0 else None


def bound_of(records, family: str, r: dict):
    """The bound of r's point (kps_report.bounds.point_bound, r's own rounds counting): the fastest
    copy of the same bytes for scans, the fastest streaming read for sums (else a copy's); None
    without one."""
    if not _gbps(r):
        return None
    return bounds.point_bound("copy" if family == "scan" else "read", records, r["type"], r["n"], r)


def cpu_bound(records, family: str, r: dict, read_only: bool = False):
    """The variant's GB/s over its point's bound (bound_of); None without one, and with
    `read_only` where a sum's bound is a copy's (no read measured there)."""
    b = bound_of(records, family, r)
    if not b or (read_only and family != "scan" and b.kind != "read"):
        return None
    return _gbps(r) / b.gbps


def cpu_ratios(records, family: str, r: dict) -> dict:
    """{peer: the variant's speed over the peer's} at r's (type, N): from r's own rounds
    (ratio_to_<peer>), else, for a peer those rounds did not time, the ratio of the two records'
    GB/s (a separate run: keyed `<peer> (separate run)`)."""
    out = {}
    for p in CPU_PEERS:
        if r.get(f"ratio_to_{p}"):
            out[p] = r[f"ratio_to_{p}"]
            continue
        other = _gbps(_same_row(records, family, p, r))
        if other and _gbps(r):
            out[f"{p} (separate run)"] = _gbps(r) / other
    return out


def _same_row(records, family: str, variant: str, r: dict):
    """The record of family/variant at r's (type, N) among `records` (another run's), or None."""
    return next((o for o in records if o.get("family") == family and o.get("variant") == variant
                 and o.get("type") == r["type"] and o.get("n") == r["n"] and "error" not in o), None)


def _over_runs(values: list):
    """(median, min, max) of a row's values over the runs that have it (None: no run has it)."""
    v = sorted(x for x in values if x is not None)
    if not v:
        return None
    mid = len(v) // 2
    return (v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2), v[0], v[-1]


def _run_cell(stat, target=None) -> str:
    """A ratio's cell: the median over the runs (the verdict's value), with their range where several."""
    if stat is None:
        return "—"
    med, lo, hi = stat
    cell = _cell(med, target) if target is not None else fmt(med)
    return cell if lo == hi else f"{cell} ({fmt(lo)}–{fmt(hi)})"


def cpu_table(records, family: str, variant: str, command: str, backend: str = "", runs=None) -> str:
    """The host targets of family/variant (module docstring), one row per (type, N) from 2^16;
    `backend` Serial: the one-thread loop's target alone. `runs` (gbench.Repeats, or {k: records}):
    the same jobs run again (`kps run --runs K`); each ratio is then the median over the runs that
    measured its row, the verdict that median's, the runs' range beside it; the best peer named is
    the one of the run whose best ratio is that median (or nearest it)."""
    rs = [r for r in records if r.get("family") == family and r.get("variant") == variant and "error" not in r
          and (r.get("n") or 0) >= CPU_PEER_FROM]
    if not rs or not any(r.get(f"ratio_to_{p}") for r in rs for p in CPU_PEERS):
        return ""
    serial = backend.lower() == "serial"
    target = CPU_BOUND_TARGET[family]
    peer_target = SERIAL_LOOP_TARGET if serial else 1.0
    bound_name = "fastest copy" if family == "scan" else "read"
    # Where the rounds timed an empty OpenMP region (openmp_floor_wall_us) beside Kokkos' empty
    # launch: the calls' and the two runtimes' floors in microseconds, to the size where a call
    # stops being mostly its fork and join.
    floors = family == "reduce" and any(r.get("openmp_floor_wall_us") for r in rs)
    left_out = getattr(runs, "left_out", [])
    others = list((getattr(runs, "runs", runs) or {}).values())
    rows, met, total, separate, counted, copy_only = [], 0, 0, False, set(), False
    for t in gbench.TYPES:
        for r in sorted((r for r in rs if r["type"] == t), key=lambda r: r["n"]):
            # this run's row and the same row of each repeat: (records, row) per run
            mine = [(records, r)] + [(o, x) for o in others for x in [_same_row(o, family, variant, r)] if x]
            counted.add(len(mine))
            ratios = [cpu_ratios(recs, family, x) for recs, x in mine]
            separate |= any("separate" in k for rt in ratios for k in rt)
            cells = [t, pow2(r["n"]), _run_cell(_over_runs([_gbps(x) for _, x in mine]))]
            per_peer = {}
            for p in CPU_PEERS:
                key = next((k for k in (p, f"{p} (separate run)") if any(k in rt for rt in ratios)), None)
                per_peer[p] = _over_runs([rt.get(key) for rt in ratios]) if key else None
                cells.append(_run_cell(per_peer[p]) + (" (s)" if key and "separate" in key else "")
                             if per_peer[p] else "—")
            # the best peer of each run (its slowest ratio), then their median
            bests = [min(rt.items(), key=lambda kv: kv[1]) if rt else None for rt in ratios]
            best = _over_runs([b[1] if b else None for b in bests])
            if best:
                name = min((b for b in bests if b), key=lambda b: abs(b[1] - best[0]))[0].split(" ")[0]
                total += 1
                met += best[0] >= peer_target
                cells.append(_run_cell(best, peer_target) + (f" ({name})" if name else ""))
            else:
                cells.append("—")
            b = _over_runs([cpu_bound(recs, family, x) for recs, x in mine])
            # a sum's target is a read's: where no read was measured, its copy's figure is shown, not targeted
            copied = family != "scan" and b is not None and bound_of(records, family, r).kind != "read"
            copy_only |= copied
            if not serial and CPU_BOUND_SIZES[0] <= r["n"] <= CPU_BOUND_SIZES[1] and b is not None and not copied:
                total += 1
                met += b[0] >= target
                cells.append(_run_cell(b, target))
            else:
                cells.append(_run_cell(b) + (" (c)" if copied else ""))
            if floors:
                cells.append(" / ".join(fmt(r.get(k)) if r.get(k) else "—" for k in FLOOR_KEYS)
                             if r["n"] <= FLOORS_TO else "")
            rows.append(cells)
    head = (["type", "N", f"{variant} GB/s"] + [f"/ {p}" for p in CPU_PEERS]
            + [f"/ best CPU peer (≥ {peer_target})",
               f"/ {bound_name}" + ("" if serial else f" (≥ {target}, 2^26..2^30)")]
            + (["µs: call / openmp / Kokkos' empty launch / empty OpenMP region"] if floors else []))
    note = (" `(s)`: a peer those rounds did not time, the ratio of its own run's GB/s (an older run timed "
            "oneTBB alone in a process of its own: kps' rounds interleave calls that leave dirty or evicted lines "
            "behind, its own rounds did not, which favours it at sizes within the caches and by about 10 % at the "
            "largest).") if separate else ""
    if copy_only:
        note += (" `(c)`: no streaming read was measured at that point; the figure is over the fastest copy's "
                 "read bandwidth (2 x N x sizeof(T) over its time), shown, not targeted.")
    over = _runs_note(family, counted, left_out, floors)
    return (f"### Targets on this CPU: {family}/{variant} against the CPU peers and the node's bound\n\n"
            f"{met} of {total} targets met (✗: missed). `/ peer`: the peer's time over {variant}'s in the same "
            f"interleaved rounds (> 1: kps faster).{note}{over} Reproduce: `{command}{_runs_flag(counted)}`.\n\n"
            + markdown_table(head, rows) + "\n")
