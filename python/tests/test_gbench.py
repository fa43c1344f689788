"""Reading kps-bench's Google Benchmark JSON (kps_report.gbench): bad files stop with one line
naming them; records hold the median and the repetitions' spread, from every repetition or from
the aggregates; slim keeps the aggregates and adds min/max; salvage keeps what an interrupted run
completed; a folder's newest complete run wins."""
import json

import pytest

from conftest import document, entries, kps, write_json
from kps_report import gbench
from kps_report.errors import KpsError


@pytest.mark.parametrize("text, says", [
    ("", "empty file"),
    ("   \n", "empty file"),
    ('{"context": {"backend": "OpenMP"}, "benchmarks": [{"name": "a", "real', "not valid JSON"),
    ("{}", "no list of 'benchmarks'"),
    ("[]", "no list of 'benchmarks'"),
    ('{"benchmarks": []}', "no kps-bench context"),
    ('{"context": {"date": "x"}, "benchmarks": []}', "no kps-bench context"),
    ('{"context": {"backend": "Cuda"}, "benchmarks": [{"real_time": 1}]}', "without a name"),
    ('{"context": {"backend": "Cuda"}, "benchmarks": [{"name": "scan/x"}]}', "has no real_time"),
])
def test_bad_files_are_named_in_one_line(tmp_path, text, says):
    path = write_json(tmp_path / "bad.json", text)
    with pytest.raises(KpsError) as e:
        gbench.load(path)
    assert str(path) in str(e.value) and says in str(e.value)
    assert "\n" not in str(e.value)
    assert e.value.status == 2


def test_records_from_repetitions_keep_the_spread():
    doc = document(entries("scan/single_pass/int32/1024", [1.0, 1.2, 0.9], unit="ms", aggregates=False,
                           **{"GB/s": [8.0, 6.0, 9.0]}))
    (r,) = gbench.records(doc)
    assert (r["family"], r["variant"], r["type"], r["n"]) == ("scan", "single_pass", "int32", 1024)
    assert r["seconds"] == pytest.approx(1.0e-3)
    assert r["GB/s"] == 8.0
    s = r["spread"]["seconds"]
    assert (s.lo, s.hi) == (pytest.approx(0.9e-3), pytest.approx(1.2e-3))
    assert s.cv == pytest.approx(0.15275 / 1.03333, rel=1e-3)  # stdev 0.15275 / mean 1.03333 ms
    assert gbench.bounds(r, "GB/s") == (6.0, 9.0)
    assert gbench.cv(r) == pytest.approx(s.cv)


def test_records_from_aggregates_and_slim_min_max():
    doc = document(entries("reduce/tuned/double/4096", [10.0, 12.0, 11.0], unit="us", wall_us=[5.0, 7.0, 6.0]))
    slim = gbench.slim(json.loads(json.dumps(doc)))
    kinds = sorted(b.get("aggregate_name", "rep") for b in slim["benchmarks"])
    assert kinds == ["cv", "max", "mean", "median", "min", "stddev"]
    assert "kps_slimmed" in slim["context"]
    (a,) = gbench.records(doc)
    (b,) = gbench.records(slim)
    assert b["seconds"] == pytest.approx(11e-6) == pytest.approx(a["seconds"])
    assert b["wall_us"] == pytest.approx(6.0)
    assert b["spread"]["seconds"].lo == pytest.approx(10e-6) and b["spread"]["seconds"].hi == pytest.approx(12e-6)
    assert b["spread"]["wall_us"].cv == pytest.approx(a["spread"]["wall_us"].cv)
    assert b["spread"]["seconds"].cv == pytest.approx(1.0 / 11.0)


def test_the_runners_slim_keeps_every_repetition_for_the_verdicts():
    doc = document(entries("reduce/tuned/double/4096", [10.0, 12.0, 11.0], unit="us", wall_us=[5.0, 7.0, 6.0]))
    kept = gbench.slim(json.loads(json.dumps(doc)), repetitions=True)
    assert "every repetition kept" in kept["context"]["kps_slimmed"]
    assert sum(b.get("run_type") != "aggregate" for b in kept["benchmarks"]) == 3
    (r,) = gbench.records(kept)
    assert r["samples"]["wall_us"] == [5.0, 7.0, 6.0]
    assert r["wall_us"] == pytest.approx(6.0)
    (thin,) = gbench.records(gbench.slim(kept, gbench.READ_AGGREGATES))  # `kps slim` drops them again
    assert "samples" not in thin and thin["wall_us"] == pytest.approx(6.0)


def test_failed_checks_are_records_with_their_message():
    doc = document([{"name": "scan/kokkos/int32/7/manual_time", "run_name": "scan/kokkos/int32/7/manual_time",
                     "run_type": "iteration", "error_occurred": True, "error_message": "wrong sum at 3"}])
    (r,) = gbench.records(doc)
    assert r["error"] == "wrong sum at 3"
    md, ok = gbench.split_failures([r])
    assert "wrong sum at 3" in md and ok == []


def test_salvage_keeps_the_completed_benchmarks(tmp_path):
    doc = document(entries("scan/kokkos/int32/1024", [1.0, 1.1], aggregates=False)
                   + entries("scan/kokkos/int32/4096", [2.0, 2.1], aggregates=False))
    text = json.dumps(doc, indent=2)
    cut = text.index('"scan/kokkos/int32/4096') + 10
    path = write_json(tmp_path / "x.json.partial", text[:cut])
    got = gbench.salvage(path)
    assert got["context"]["kps_incomplete"] == "true"
    assert {b["name"] for b in got["benchmarks"]} == {"scan/kokkos/int32/1024/manual_time"}
    with pytest.raises(KpsError, match="no complete benchmark"):
        gbench.salvage(write_json(tmp_path / "y.partial", text[:40]))


def test_a_folder_merges_runs_newest_complete_first(tmp_path):
    old = document(entries("scan/kokkos/int32/1024", [1.0]), date="2025-01-01")
    new = document(entries("scan/kokkos/int32/1024", [2.0]), date="2025-02-01")
    cut = document(entries("scan/kokkos/int32/1024", [3.0]), date="2025-03-01", kps_incomplete="true")
    for name, doc in (("a", old), ("b", new), ("c", cut)):
        write_json(tmp_path / f"{name}.json", doc)
    (tmp_path / "d.json.partial").write_text("{", encoding="utf-8")  # never read
    res = gbench.load_study("scan", tmp_path)
    (r,) = res.records
    assert r["seconds"] == pytest.approx(2e-3)  # the newest complete run, not the interrupted one
    assert res.context["date"] == "2025-03-01"
    assert len(res.files) == 3


def test_slim_keeps_the_aggregates_a_report_reads():
    doc = document(entries("reduce/tuned/double/4096", [10.0, 12.0, 11.0], unit="us", wall_us=[5.0, 7.0, 6.0]))
    full = gbench.records(gbench.slim(json.loads(json.dumps(doc))))[0]
    thin = gbench.slim(gbench.slim(json.loads(json.dumps(doc))), gbench.READ_AGGREGATES)  # slimmed twice
    kinds = sorted(b.get("aggregate_name", "rep") for b in thin["benchmarks"])
    assert kinds == ["cv", "max", "median", "min"]
    (r,) = gbench.records(thin)
    assert r["seconds"] == pytest.approx(full["seconds"])
    for key in ("seconds", "wall_us"):
        assert r["spread"][key].cv == pytest.approx(full["spread"][key].cv)
        assert (r["spread"][key].lo, r["spread"][key].hi) == (full["spread"][key].lo, full["spread"][key].hi)


def test_slim_for_committing_rounds_and_writes_compact(tmp_path):
    doc = document(entries("reduce/tuned/double/4096", [10.123456789, 12.0, 11.0], unit="us",
                           wall_us=[5.123456789, 7.0, 6.0]))
    full = gbench.records(gbench.slim(json.loads(json.dumps(doc))))[0]
    thin = gbench.slim(json.loads(json.dumps(doc)), gbench.READ_AGGREGATES)
    assert "7 significant digits" in thin["context"]["kps_slimmed"]
    lo = next(b for b in thin["benchmarks"] if b.get("aggregate_name") == "min")
    assert lo["real_time"] == 10.12346 and lo["wall_us"] == 5.123457
    (r,) = gbench.records(thin)
    assert r["seconds"] == pytest.approx(full["seconds"], rel=1e-6)
    assert r["spread"]["wall_us"].lo == pytest.approx(full["spread"]["wall_us"].lo, rel=1e-6)
    src, out = tmp_path / "in.json", tmp_path / "out.json"
    src.write_text(json.dumps(doc))
    rc, _, err = kps("slim", src, "--out", out)
    assert rc == 0, err
    text = out.read_text()
    assert "\n" not in text.strip() and '": ' not in text
    assert gbench.records(json.loads(text))[0]["seconds"] == pytest.approx(r["seconds"])