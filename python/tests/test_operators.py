"""The operators-and-types analysis (kps_report.analyses.operators) and the verdict rule
(kps_report.stats): the operator families' records are read by their context's types and
operators, each row's best peer is the fastest right one, and every target is decided by the
one-sided Mann-Whitney rule over the repetitions, not by medians."""
import pytest

from conftest import document, entries
from kps_report import gbench, stats
from kps_report.analyses import operators

CTX = {"kps_types": "int8:1,int32:4,double:8,bytes16:16", "kps_operators": "plus,min,max,segmented,argmin,argmax"}
N = 1 << 26


def op_doc(name, kps_us, **peers_us):
    """One operator benchmark of five repetitions: kps' wall times and each peer's (µs lists)."""
    counters = {"wall_us": kps_us, "rounds": 15, "GB/s": [N / t / 1e3 for t in kps_us]}
    for peer, ts in peers_us.items():
        counters[f"{peer}_wall_us"] = ts
        if not peer.startswith("copy_") and peer not in ("read", "sum", "launch_floor"):
            counters[f"ratio_to_{peer}"] = [p / k for p, k in zip(ts, kps_us)]
    counters["copy_kokkos_wall_us"] = [t * 1.02 for t in kps_us]
    counters["ratio_to_copy"] = 1 / 1.02
    return document(entries(name, kps_us, unit="us", aggregates=False, **counters), **CTX)


def records(doc):
    gbench.register_names(doc["context"])
    return gbench.records(doc, operators=True)


def test_operator_records_are_named_by_the_context():
    rs = records(op_doc(f"scan/automatic/max/int8/{N}", [10, 10.1, 9.9, 10, 10.2]))
    assert [(r["family"], r["op"], r["type"], r["n"]) for r in rs] == [("scan", "max", "int8", N)]
    assert gbench.records(op_doc(f"scan/automatic/max/int8/{N}", [10] * 3)) == []  # today's families alone


def test_a_clear_lead_over_every_peer_meets_the_targets():
    kps = [10.0, 10.1, 9.9, 10.0, 10.2]
    doc = op_doc(f"reduce/tuned/min/int32/{N}", kps, openmp=[13.0, 13.2, 12.9, 13.1, 13.0],
                 tbb=[12.0, 12.1, 11.9, 12.2, 12.0], sum=[10.0, 9.9, 10.1, 10.0, 10.0])
    (row,) = operators.rows(records(doc))
    assert row["best"] == "tbb"
    assert row["vs_best"].word == "ahead" and row["vs_best"].met()
    assert row["vs_sum"].met()  # within 10 % of the sum (a tie)
    assert row["targeted"] and not row["failed"]
    md = operators.analyze(records(doc))
    assert "1 of 1 rows met" in md and "ahead" in md


def test_behind_the_best_peer_fails_even_where_a_median_is_close():
    kps = [10.0, 10.4, 10.3, 10.5, 10.2]
    doc = op_doc(f"scan/automatic/segmented/bytes16/{N}", kps, openmp=[9.9, 9.8, 10.0, 9.9, 9.95],
                 sum=[10.0] * 5)
    (row,) = operators.rows(records(doc))
    assert row["vs_best"].word == "behind"
    assert row["failed"] and any("best peer" in m for m in row["marks"])


def test_slower_than_its_own_sum_by_more_than_ten_percent_fails():
    kps = [12.0, 12.1, 11.9, 12.2, 12.0]
    doc = op_doc(f"reduce/tuned/max/double/{N}", kps, openmp=[20.0] * 5, sum=[10.0, 10.1, 9.9, 10.0, 10.0])
    (row,) = operators.rows(records(doc))
    assert row["vs_best"].met() and not row["vs_sum"].met()
    assert row["failed"] and any("sum" in m for m in row["marks"])


def test_a_wrong_peer_is_no_best_peer_and_small_sizes_are_for_information():
    kps = [10.0] * 5
    doc = op_doc(f"argmin/tuned/int32/{N}", kps, openmp=[5.0] * 5, kokkos=[11.0] * 5)
    doc["benchmarks"] = [dict(b, wrong_openmp=1) for b in doc["benchmarks"]]
    (row,) = operators.rows(records(doc))
    assert row["best"] == "kokkos" and row["vs_best"].met()
    small = op_doc("argmax/tuned/int32/1024", kps, openmp=[5.0] * 5)
    (row,) = operators.rows(records(small))
    assert not row["targeted"] and row["best"] == "openmp"


@pytest.mark.parametrize("kps, other, scale, word", [
    ([1, 1, 1, 1, 1], [2, 2, 2, 2, 2], 1.0, "ahead"),
    ([2, 2.1, 2, 2.1, 2], [1, 1, 1, 1, 1], 1.0, "behind"),
    ([1.0, 1.01, 0.99, 1.0, 1.02], [1.0, 0.99, 1.01, 1.02, 1.0], 1.0, "tie"),
    ([1.1] * 5, [1.0] * 5, 1.0 / 0.9, "ahead"),  # within 10 %: met by the scaled rule
    ([1.0], [1.2], 1.0, "undecided"),           # one repetition: no test, the ratio off by 20 %
])
def test_verdicts(kps, other, scale, word):
    v = stats.verdict(kps, other, scale)
    assert v.word == word
    assert v.met() == (word in ("ahead", "tie") or (word == "undecided" and v.ratio >= 1))
