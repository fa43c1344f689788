"""The performance targets of the scan and the reduction, each against its measured ratio, in one
table per study: `automatic` (scan) and `tuned` (sum returned to the host) at least 1.0 x each CUB
peer (the toolkit's, and a newer CCCL's where the run has one) at every N, and the sum at least
0.97 x a pure streaming read of its bytes at 2^28 and 2^30. Every ratio comes from the kps
variant's own interleaved rounds (kps-bench's counters ratio_to_cub, ratio_to_cub_cccl,
ratio_to_read: a peer's time over the variant's). Where a size misses a CUB target the table shows
the launch floor beside the call (an empty launch and its fence, same rounds): the least any call
takes. GPU runs only (the peers are CUDA's)."""
from __future__ import annotations

from kps_report import gbench
from kps_report.text import fmt, markdown_table, pow2

READ_TARGET = 0.97
READ_SIZES = (1 << 28, 1 << 30)


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


def table(records, family: str, variant: str, read: bool, command: str) -> str:
    rs = [r for r in records if r.get("family") == family and r.get("variant") == variant and "error" not in r
          and r.get("ratio_to_cub") is not None]
    if not rs:
        return ""
    peers = [("cub", "ratio_to_cub")] + ([("cub_cccl", "ratio_to_cub_cccl")]
                                         if any(r.get("ratio_to_cub_cccl") is not None for r in rs) else [])
    floor_key = "launch_floor_wall_us" if any("launch_floor_wall_us" in r for r in rs) else "launch_floor_us"
    rows, met, total = [], 0, 0
    for t in gbench.TYPES:
        for r in sorted((r for r in rs if r["type"] == t), key=lambda r: r["n"]):
            cells = [t, pow2(r["n"])]
            missed = False
            for _, key in peers:
                v = r.get(key)
                cells.append(_cell(v, 1.0))
                if v is not None:
                    total += 1
                    met += v >= 1.0
                    missed |= v < 1.0
            if read:
                v = r.get("ratio_to_read") if r["n"] in READ_SIZES else None
                cells.append(_cell(v, READ_TARGET))
                if v is not None:
                    total += 1
                    met += v >= READ_TARGET
            call, floor = _call_us(r), r.get(floor_key)
            cells.append(f"{fmt(call)} / {fmt(floor)}" if missed and call and floor else "")
            rows.append(cells)
    head = (["type", "N"] + [f"{variant} / {p} (≥ 1.0)" for p, _ in peers]
            + ([f"{variant} / read (≥ {READ_TARGET}, 2^28 and 2^30)"] if read else [])
            + ["where missed: call / launch floor, µs"])
    return (f"### Targets: {family}/{variant} against CUB" + (" and a streaming read" if read else "") + "\n\n"
            f"{met} of {total} targets met (✗: missed). Ratios are a peer's time over {variant}'s in the same "
            f"interleaved rounds (> 1: kps faster). Reproduce: `{command}` (the kps-bench commands: "
            f"'Produced by' below).\n\n"
            + markdown_table(head, rows) + "\n")
