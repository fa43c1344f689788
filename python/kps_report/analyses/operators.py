"""The operators-and-types part of the scan and reduction studies: kps-bench's operator families
(scan/automatic/<op>/<type>/<N>, reduce/tuned/<op>/<type>/<N>, argmin|argmax/tuned/<type>/<N>:
bench/operator_bench.cpp), each timed in interleaved rounds with the peers of its problem (Kokkos
with the operator or its reducer, the kps_op_peers of the JSON context: the one-thread loop,
OpenMP's declare reduction / inscan, oneTBB, the standard's parallel algorithms, CUB), kps' own sum
of the same value size, and the copy (scans) or a streaming read (reductions) of the same bytes.

Every verdict is the stated rule of kps_report.stats over the repetitions of those rounds (each
repetition's median round of each call), never a bare median:
- vs the best peer (the peer with the smallest median time, its result checked): `met` where kps is
  ahead of it or tied (a target ">= 1.0 x the best peer");
- vs kps' sum of the same value size: `met` where kps' time is within 10 % of the sum's by the same
  rule (the sum's times scaled by 1 / 0.9 before the test: an operator that costs no more than a sum
  must move bytes as fast).
The targets (issue "operators and types"): at N from 2^26 to 2^28, the minimum's and maximum's
scans and reductions of every type and the segmented pair's scan meet both; argmin and argmax the
first. Other rows are shown for information.
"""
from __future__ import annotations

from typing import Optional

from kps_report import bounds, gbench
from kps_report.stats import verdict
from kps_report.text import fmt, markdown_table, pow2

TARGET_SIZES = (1 << 26, 1 << 28)  # inclusive: the range the targets apply to
SUM_WITHIN = 0.10                   # "within 10 % of kps' own sum of the same value size"
TARGET_OPS = ("max", "min", "segmented")
# Counters that are no peer's time (bounds, kps' own sum, the launch floor).
NOT_PEERS = {"copy_kokkos", "copy_streaming", "read", "sum", "launch_floor"}


def is_op_record(r: dict) -> bool:
    """Whether a record is one of the operator families'."""
    return (r.get("family") in ("scan", "reduce") and r.get("op") is not None) or r.get("family") in ("argmin",
                                                                                                        "argmax")


def operation(r: dict) -> str:
    """The row's operation: 'scan', 'reduce', 'argmin' or 'argmax'."""
    return r["family"]


def op_name(r: dict) -> str:
    return r["op"] if r.get("op") else r["family"]


def _samples(r: dict, key: str) -> Optional[list]:
    """Every repetition's value of a counter (its median alone where the JSON kept aggregates)."""
    s = (r.get("samples") or {}).get(key)
    if s:
        return list(s)
    return [r[key]] if r.get(key) is not None else None


def peers_of(r: dict) -> list:
    """The peers timed in the record's rounds with a right result: [(name, median wall µs)]."""
    out = []
    for k, v in r.items():
        if not (isinstance(k, str) and k.endswith("_wall_us")) or k == "wall_us":
            continue
        name = k[: -len("_wall_us")]
        if name in NOT_PEERS or r.get(f"wrong_{name}") or r.get(f"ratio_to_{name}") is None:
            continue
        out.append((name, v))
    return sorted(out, key=lambda p: p[1])


def in_targets(r: dict) -> bool:
    return TARGET_SIZES[0] <= (r.get("n") or 0) <= TARGET_SIZES[1]


def targeted(r: dict) -> tuple:
    """(peer target applies, sum target applies) for a record."""
    if not in_targets(r):
        return False, False
    if r["family"] in ("argmin", "argmax"):
        return True, False
    return op_name(r) in TARGET_OPS, op_name(r) in TARGET_OPS and r.get("sum_wall_us") is not None


def row_of(r: dict, gpu: bool, standalone=()) -> dict:
    """One record's figures and verdicts; `standalone`: the run's other records (its copies of their
    own, which the bound counts beside the copies of r's rounds)."""
    kps = _samples(r, "wall_us")
    peers = peers_of(r)
    best = peers[0][0] if peers else None
    vs_best = verdict(kps, _samples(r, f"{best}_wall_us")) if best and kps else None
    vs_sum = (verdict(kps, _samples(r, "sum_wall_us"), scale=1.0 / (1.0 - SUM_WITHIN))
              if kps and r.get("sum_wall_us") is not None else None)
    sum_ratio = r["sum_wall_us"] / r["wall_us"] if r.get("sum_wall_us") and r.get("wall_us") else None
    bound = bounds.of_bound("copy" if r["family"] == "scan" else "read", list(standalone), r)
    want_peer, want_sum = targeted(r)
    marks = []
    if want_peer and (vs_best is None or not vs_best.met()):
        marks.append(f"< best peer ({best})" if best else "no peer")
    if want_sum and (vs_sum is None or not vs_sum.met()):
        marks.append(f"> {1 + SUM_WITHIN:.1f} x kps' sum")
    return {"rec": r, "best": best, "vs_best": vs_best, "vs_sum": vs_sum, "sum_ratio": sum_ratio, "bound": bound,
            "targeted": want_peer or want_sum, "failed": bool(marks), "marks": marks}


def rows(records: list, gpu: bool = False, standalone=()) -> list:
    """The rows of every operator record without an error, in the order operation, operator, type, N."""
    order = {t: i for i, t in enumerate(gbench.TYPES)}
    ok = [r for r in records if is_op_record(r) and "error" not in r and r.get("n") and r.get("wall_us")]
    ok.sort(key=lambda r: (r["family"], op_name(r), order.get(r.get("type"), 99), r["n"]))
    return [row_of(r, gpu, standalone) for r in ok]


def analyze(records: list, gpu: bool = False, standalone=()) -> Optional[str]:
    """The Markdown of the operators-and-types part, or None where the records have none of it."""
    failures = [r for r in records if is_op_record(r) and "error" in r]
    rs = rows(records, gpu, standalone)
    if not rs and not failures:
        return None
    bound_name = "copy or read"
    md = ["### Operators and types\n",
          "Each row is one problem timed in interleaved rounds with its peers, kps' own sum of the same value size "
          "and the bounds: GB/s counts 2 x N x sizeof(T) for a scan and N x sizeof(T) for a reduction (kps' median "
          f"round); `/ bound`: kps' bandwidth over the {bound_name}'s of the same bytes (kps_report.bounds: the "
          "fastest copy for a scan, the fastest streaming read for a reduction, timed in these rounds or on its own); `best peer`: the peer of the smallest median time; "
          "`vs best peer` and `vs sum`: the verdicts of a one-sided Mann-Whitney U test over the repetitions "
          "(kps_report.stats: ahead / behind at p < 0.05, tie within 3 %; the ratio is the other's time over kps'); "
          f"`vs sum` asks whether kps is within {SUM_WITHIN:.0%} of its own sum. Targets at N = "
          f"{pow2(TARGET_SIZES[0])}..{pow2(TARGET_SIZES[1])}: the minimum's, maximum's and segmented pair's rows "
          "meet both verdicts, argmin's and argmax's the first.\n"]
    if failures:
        md.append("Failed checks: " + "; ".join(f"`{r['name']}`: {r['error']}" for r in failures) + "\n")
    table = []
    for x in rs:
        r = x["rec"]
        table.append([operation(r), op_name(r), r.get("type") or "—", pow2(r["n"]), fmt(r.get("GB/s")),
                      fmt(x["bound"]), x["best"] or "—", x["vs_best"].text() if x["vs_best"] else "—",
                      fmt(x["sum_ratio"]), x["vs_sum"].text() if x["vs_sum"] else "—",
                      ("met" if not x["failed"] else "; ".join(x["marks"])) if x["targeted"] else ""])
    md.append(markdown_table(["operation", "operator", "type", "N", "GB/s", "/ bound", "best peer", "vs best peer",
                              "sum / kps", "vs sum", "target"], table))
    target = [x for x in rs if x["targeted"]]
    met = sum(not x["failed"] for x in target)
    md.append(f"\nTargets: {met} of {len(target)} rows met" + (f"; {len(failures)} failed checks" if failures else "")
              + ".\n")
    return "\n".join(md)


def summary(records: list) -> Optional[tuple]:
    """(targeted rows met, targeted rows, failed checks) or None without operator records."""
    failures = [r for r in records if is_op_record(r) and "error" in r]
    rs = rows(records)
    if not rs and not failures:
        return None
    target = [x for x in rs if x["targeted"]]
    return sum(not x["failed"] for x in target), len(target), len(failures)
