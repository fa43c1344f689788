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
rounds; a peer those rounds did not time, from its own run's GB/s, marked so), the scan at least 0.90 x the node's fastest copy and the sum 0.95 x its
fastest read at 2^26..2^30 (the bound check beside the table: no implementation above 1.03 x
the bound there, else the bound is not one). Every `/ fastest copy` and `/ read` figure (and the GPU table's
`/ read`) is over kps_report.bounds.point_bound: the fastest copy or read measured at the point, in
kps' rounds or on its own. On Serial (one thread: no parallel peer runs beside it) the one
target is the one-thread loop's, at least 0.95 x; the bound is shown, not targeted.

Every target's verdict (both tables) is kps_report.stats' rule over the repetitions of the
interleaved rounds, never a bare median: kps' times (wall_us of each repetition) against the
peer's (<peer>_wall_us, else its ratio_to_<peer> times kps' wall_us, repetition by repetition) or
the bound's (the counter of the kernel point_bound takes in the same rounds, scaled to kps'
bytes), those divided by the target (`verdict(..., scale=1 / target)`); a tie is met and reads
`met (tie)`. Over repeated runs the runs' repetitions are pooled. Where there are no repetitions to
test (JSON keeping aggregates or one repetition), the bound was run on its own or the peer in a
separate run, the verdict is the median ratio against the target, and the cell says `(median)`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from kps_report import bounds, gbench
from kps_report.stats import ALPHA, TIE_BAND, over_runs, verdict
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


# Bytes per element a call's GB/s counts, in units of N x sizeof(T) (a scan reads and writes).
FAMILY_BYTES = {"scan": 2, "reduce": 1}
# Why a verdict fell back to the median ratio (a `(median)` cell), as the table's note says it.
NO_REPETITIONS = "the JSON keeps fewer than two repetitions of the row (aggregates only, or one repetition)"
OWN_RUN_BOUND = "the bound is a copy or read run on its own, not timed in these rounds"
SEPARATE_PEER = "the best peer was timed in a separate run (s)"
RULE = (f"A target's verdict is kps_report.stats' rule over the repetitions of the interleaved rounds (the runs' "
        f"repetitions pooled): a one-sided Mann-Whitney U test of kps' times against the peer's or the bound's, "
        f"those divided by the target, gives `ahead` or `behind` at p < {ALPHA:g}, `met (tie)` where it cannot tell "
        f"them apart and the ratio is within {TIE_BAND * 100:g} % of the target, and `undecided` otherwise (met "
        f"where the ratio reaches the target).")


@dataclass(frozen=True)
class Judged:
    """A target's verdict: met or not, the rule's word (ahead, tie, behind, undecided), or `median`
    where there was nothing to test (`why`: NO_REPETITIONS, OWN_RUN_BOUND, SEPARATE_PEER)."""
    met: bool
    word: str
    why: str = ""

    def label(self) -> str:
        return {"tie": "met (tie)", "median": "(median)"}.get(self.word, self.word)


def _times(r: dict, key: str) -> Optional[list]:
    """Every repetition's value of a record's counter (gbench's `samples`), None without them."""
    s = (r.get("samples") or {}).get(key)
    return [float(x) for x in s if x is not None] if s else None


def _peer_pair(r: dict, peer: str):
    """(kps' times, the peer's) over r's repetitions: the peer's <peer>_wall_us, else its ratio
    times kps' wall time, repetition by repetition; NO_REPETITIONS without them."""
    kps, other = _times(r, "wall_us"), _times(r, f"{peer}_wall_us")
    if not other:
        ratio = _times(r, f"ratio_to_{peer}")
        other = [q * t for q, t in zip(ratio, kps)] if ratio and kps and len(ratio) == len(kps) else None
    return (kps, other) if kps and other else NO_REPETITIONS


def _bound_pair(records, family: str, r: dict):
    """(kps' times, the bound's) over r's repetitions: the bound (bound_of) is a kernel timed in r's
    rounds; its counter's times (else its ratio_to_copy / ratio_to_read times kps' wall time) scaled to
    the bytes kps' GB/s counts; OWN_RUN_BOUND where the bound ran on its own; NO_REPETITIONS without times."""
    b = bound_of(records, family, r)
    if b is None:
        return NO_REPETITIONS
    if b.where != bounds.ROUNDS:
        return OWN_RUN_BOUND
    kps = _times(r, "wall_us")
    timed = [(key, per) for kernel, key, per in (bounds.COPY_COUNTERS if b.kind == "copy" else bounds.READ_COUNTERS)
             if kernel == b.kernel and isinstance(r.get(key), (int, float)) and r[key] > 0]
    other = None
    if timed:
        key, per = min(timed, key=lambda kp: r[kp[0]])  # the kernel's fastest counter: the bound's figure
        t = _times(r, key)
        other = [x * FAMILY_BYTES[family] / per for x in t] if t else None
    else:  # the bound's figure is kps' GB/s over the rounds' ratio: the same repetition by repetition
        ratio = _times(r, bounds.RATIO_KERNEL[b.kind][1])
        other = [q * t for q, t in zip(ratio, kps)] if ratio and kps and len(ratio) == len(kps) else None
    return (kps, other) if kps and other else NO_REPETITIONS


def judge(pairs: list, value: float, target: float) -> Judged:
    """The verdict of a target over the runs that measured a row: `pairs`, one per run, each (kps'
    times, the other's) or why it has none; `value`, the ratio's median over the runs (the fallback's)."""
    why = next((p for p in pairs if isinstance(p, str)), None) or ("" if pairs else NO_REPETITIONS)
    if not why:
        kps = [t for k, _ in pairs for t in k]
        other = [t for _, o in pairs for t in o]
        if min(len(kps), len(other)) >= 2:
            v = verdict(kps, other, scale=1.0 / target)
            return Judged(v.met(), v.word)
        why = NO_REPETITIONS
    return Judged(value >= target, "median", why)


def _value(value, target: float) -> str:
    """A ratio against its target: one below it never reads as the target itself (0.9996 is not "1")."""
    if value >= target:
        return fmt(value)
    digits = 3
    while digits < 6 and float(fmt(value, digits)) >= target:
        digits += 1
    return fmt(value, digits)


def _judged_cell(stat, target: float, j: Judged, name: str = "") -> str:
    """A target's cell: the ratio's median over the runs (✗: missed), their range where several, the
    best peer's name where given, the verdict."""
    med, lo, hi = stat
    cell = _value(med, target) + ("" if j.met else " ✗")
    cell += "" if lo == hi else f" ({fmt(lo)}–{fmt(hi)})"
    return cell + (f" ({name})" if name else "") + " " + j.label()


def _median_note(whys: set) -> str:
    """The tables' sentence on the verdicts by medians, with why each fell back."""
    order = (NO_REPETITIONS, OWN_RUN_BOUND, SEPARATE_PEER)
    whys = [w for w in order if w in whys]
    if not whys:
        return ""
    return (" `(median)`: nothing to test, the median ratio against the target instead, where "
            + "; where ".join(whys) + ".")


def _call_us(r: dict):
    return r.get("wall_us") or (r.get("seconds") * 1e6 if r.get("seconds") else None)


def table(records, family: str, variant: str, read: bool, command: str, runs=None) -> str:
    """The GPU targets of family/variant (module docstring), one row per (type, N). `runs`
    (gbench.Repeats, or {k: records}): the same jobs run again (`kps run --runs K`); each ratio is
    then the median over the runs that measured its row, the range beside it, and the verdict pools
    their repetitions (module docstring)."""
    rs = [r for r in records if r.get("family") == family and r.get("variant") == variant and "error" not in r
          and r.get("ratio_to_cub") is not None]
    if not rs:
        return ""
    left_out = getattr(runs, "left_out", [])
    others = list((getattr(runs, "runs", runs) or {}).values())
    peers = [("cub", "ratio_to_cub")] + ([("cub_cccl", "ratio_to_cub_cccl")]
                                         if any(r.get("ratio_to_cub_cccl") is not None for r in rs) else [])
    floor_key = "launch_floor_wall_us" if any("launch_floor_wall_us" in r for r in rs) else "launch_floor_us"
    rows, met, total, counted, whys = [], 0, 0, set(), set()
    for t in gbench.TYPES:
        for r in sorted((r for r in rs if r["type"] == t), key=lambda r: r["n"]):
            mine = [(records, r)] + [(o, x) for o in others for x in [_same_row(o, family, variant, r)] if x]
            counted.add(len(mine))
            cells = [t, pow2(r["n"])]
            missed = False
            for p, key in peers:
                v, goal = over_runs([x.get(key) for _, x in mine]), cub_target(family, p, t, r["n"])
                if v is None:
                    cells.append("—")
                    continue
                j = judge([_peer_pair(x, p) for _, x in mine if x.get(key) is not None], v[0], goal)
                whys.add(j.why)
                cells.append(_judged_cell(v, goal, j))
                total += 1
                met += j.met
                missed |= not j.met
            if read:
                at = [(recs, x) for recs, x in mine if cpu_bound(recs, family, x, read_only=True) is not None]
                v = (over_runs([cpu_bound(recs, family, x, read_only=True) for recs, x in at])
                     if r["n"] in READ_SIZES else None)
                if v is None:
                    cells.append("—")
                else:
                    j = judge([_bound_pair(recs, family, x) for recs, x in at], v[0], READ_TARGET)
                    whys.add(j.why)
                    cells.append(_judged_cell(v, READ_TARGET, j))
                    total += 1
                    met += j.met
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
            f"interleaved rounds (> 1: kps faster). {RULE}{_median_note(whys)}"
            f"{_runs_note(family, counted, left_out, False)} Reproduce: "
            f"`{command}{_runs_flag(counted)}` (the kps-bench commands: 'Produced by' below).\n\n"
            + markdown_table(head, rows) + "\n")


def _runs_note(family: str, counted: set, left_out: list, floors: bool) -> str:
    """The targets' sentence on repeated runs: how many a figure is the median of, what was left out."""
    most = max(counted) if counted else 1
    note = (f" Each figure is the median over the runs of its job ({most} at most: this folder's JSON and "
            f"`{family}/runs/`), the runs' range in brackets; the verdict pools their repetitions"
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
CPU_BOUND_TARGET = {"scan": 0.90, "reduce": 0.95}
# No implementation may run faster than this share of a point's bound past the caches: else the
# bound is not the node's limit (the bound check under each host targets table).
BOUND_CHECK_LIMIT = 1.03
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


def bound_check(records, family: str, rs: list) -> str:
    """The bound check of a host targets table: at CPU_BOUND_SIZES, the fastest implementation in
    kps' rounds (kps' call, and each CPU peer at the call's GB/s over its ratio_to_<peer>) over the
    point's bound; a sentence naming the highest, ✗ where it passes BOUND_CHECK_LIMIT."""
    worst = None
    for r in rs:
        if not (CPU_BOUND_SIZES[0] <= r["n"] <= CPU_BOUND_SIZES[1]) or not _gbps(r):
            continue
        b = bound_of(records, family, r)
        if not b:
            continue
        impls = [(r.get("variant"), _gbps(r))] + [(p, _gbps(r) / r[f"ratio_to_{p}"]) for p in CPU_PEERS
                                                  if isinstance(r.get(f"ratio_to_{p}"), (int, float))
                                                  and r[f"ratio_to_{p}"] > 0]
        for name, g in impls:
            share = g / b.gbps
            if worst is None or share > worst[0]:
                worst = (share, name, r["type"], r["n"], b)
    if worst is None:
        return ""
    share, name, t, n, b = worst
    mark = "✓" if share <= BOUND_CHECK_LIMIT else "✗ (the bound is not the node's limit there)"
    return (f" Bound check at 2^26..2^30: the fastest implementation reaches {fmt(share)} of its point's bound "
            f"({name}, {t} {pow2(n)}; bound {b.gbps:.1f} GB/s, {b.label()}); rule: at most {BOUND_CHECK_LIMIT:g} "
            f"{mark}.")


def _run_cell(stat) -> str:
    """A figure's cell (no target): the median over the runs, with their range where several."""
    if stat is None:
        return "—"
    med, lo, hi = stat
    return fmt(med) if lo == hi else f"{fmt(med)} ({fmt(lo)}–{fmt(hi)})"


def cpu_table(records, family: str, variant: str, command: str, backend: str = "", runs=None) -> str:
    """The host targets of family/variant (module docstring), one row per (type, N) from 2^16;
    `backend` Serial: the one-thread loop's target alone. `runs` (gbench.Repeats, or {k: records}):
    the same jobs run again (`kps run --runs K`); each ratio is then the median over the runs that
    measured its row, the runs' range beside it, and the verdict pools their repetitions against each
    run's best peer (module docstring); the best peer named is the one of the run whose best ratio is
    that median (or nearest it)."""
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
    rows, met, total, separate, counted, copy_only, whys = [], 0, 0, False, set(), False, set()
    for t in gbench.TYPES:
        for r in sorted((r for r in rs if r["type"] == t), key=lambda r: r["n"]):
            # this run's row and the same row of each repeat: (records, row) per run
            mine = [(records, r)] + [(o, x) for o in others for x in [_same_row(o, family, variant, r)] if x]
            counted.add(len(mine))
            ratios = [cpu_ratios(recs, family, x) for recs, x in mine]
            separate |= any("separate" in k for rt in ratios for k in rt)
            cells = [t, pow2(r["n"]), _run_cell(over_runs([_gbps(x) for _, x in mine]))]
            per_peer = {}
            for p in CPU_PEERS:
                key = next((k for k in (p, f"{p} (separate run)") if any(k in rt for rt in ratios)), None)
                per_peer[p] = over_runs([rt.get(key) for rt in ratios]) if key else None
                cells.append(_run_cell(per_peer[p]) + (" (s)" if key and "separate" in key else "")
                             if per_peer[p] else "—")
            # the best peer of each run (its slowest ratio), then their median
            bests = [min(rt.items(), key=lambda kv: kv[1]) if rt else None for rt in ratios]
            best = over_runs([b[1] if b else None for b in bests])
            if best:
                name = min((b for b in bests if b), key=lambda b: abs(b[1] - best[0]))[0].split(" ")[0]
                j = judge([SEPARATE_PEER if "separate" in b[0] else _peer_pair(x, b[0])
                           for b, (_, x) in zip(bests, mine) if b], best[0], peer_target)
                whys.add(j.why)
                total += 1
                met += j.met
                cells.append(_judged_cell(best, peer_target, j, name))
            else:
                cells.append("—")
            b = over_runs([cpu_bound(recs, family, x) for recs, x in mine])
            # a sum's target is a read's: where no read was measured, its copy's figure is shown, not targeted
            copied = family != "scan" and b is not None and bound_of(records, family, r).kind != "read"
            copy_only |= copied
            if not serial and CPU_BOUND_SIZES[0] <= r["n"] <= CPU_BOUND_SIZES[1] and b is not None and not copied:
                j = judge([_bound_pair(recs, family, x) for recs, x in mine if cpu_bound(recs, family, x) is not None],
                          b[0], target)
                whys.add(j.why)
                total += 1
                met += j.met
                cells.append(_judged_cell(b, target, j))
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
    checked = bound_check(records, family, rs)
    return (f"### Targets on this CPU: {family}/{variant} against the CPU peers and the node's bound\n\n"
            f"{met} of {total} targets met (✗: missed). `/ peer`: the peer's time over {variant}'s in the same "
            f"interleaved rounds (> 1: kps faster). {RULE}{_median_note(whys)}{note}{over}{checked} Reproduce: "
            f"`{command}{_runs_flag(counted)}`.\n\n"
            + markdown_table(head, rows) + "\n")
