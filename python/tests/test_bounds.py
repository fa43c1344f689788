"""A point's bound (kps_report.bounds.point_bound) is the fastest copy (scans) or read (sums) measured
at the point, in kps' rounds or on its own; a slower measurement never lowers it; the kernel taken
and where it ran are named; and the headline, the P table and the targets tables take that bound."""
import pytest

from kps_report import bounds, headline, portability
from kps_report.analyses import targets

N = 1 << 30


def rec(family, variant, t="int32", n=N, **counters):
    return dict(family=family, variant=variant, type=t, n=n, params={}, op=None,
                name=f"{family}/{variant}/{t}/{n}", **counters)


def gb(x):
    return {"GB/s": x}


def scan(gbps=3746.0, ratio=0.89):
    # the H200's int32 scan at 2^30: its rounds' copy ran at gbps / ratio (4209 GB/s)
    return rec("scan", "automatic", **gb(gbps), ratio_to_copy=ratio)


def test_fastest_of_in_round_and_standalone_is_taken():
    fast = rec("copy", "streaming", **gb(4500.0))
    b = bounds.point_bound("copy", [scan(), rec("copy", "kokkos", **gb(3800.0)), fast], "int32", N)
    assert b.gbps == 4500.0 and (b.kernel, b.where, b.record) == ("copy/streaming", bounds.STANDALONE, fast["name"])
    # every kernel measured, fastest first, beside the one taken
    assert [(m.kernel, m.where) for m in b.measured] == [("copy/streaming", bounds.STANDALONE),
                                                         ("copy/kokkos", bounds.ROUNDS),
                                                         ("copy/kokkos", bounds.STANDALONE)]
    assert b.measured[1].gbps == pytest.approx(3746.0 / 0.89)


def test_a_slower_standalone_copy_does_not_lower_the_bound():
    # the H200 case: the standalone copy/kokkos at 2^30 (3803 GB/s) below the rounds' copy (4209 GB/s)
    recs = [scan(), rec("copy", "kokkos", **gb(3803.0))]
    b = bounds.point_bound("copy", recs, "int32", N)
    assert b.gbps == pytest.approx(3746.0 / 0.89)
    assert (b.kernel, b.where) == ("copy/kokkos", bounds.ROUNDS) and b.label() == "copy/kokkos, kps' rounds"
    assert bounds.of_bound("copy", recs, recs[0]) == pytest.approx(0.89)
    # the same with the records keyed by name, as the P table and the headline hold them
    assert portability.bound_gbps(portability.BOUNDS["copy"], {r["name"]: r for r in recs}, "int32", N) \
        == pytest.approx(b.gbps)
    # a standalone copy faster than the rounds' is taken instead
    recs[1] = rec("copy", "kokkos", **gb(4300.0))
    assert bounds.point_bound("copy", recs, "int32", N).where == bounds.STANDALONE


def test_every_copy_counter_of_a_record_counts_and_the_faster_is_named():
    # an operator's rounds: two copies, ratio_to_copy being the faster's (copy_streaming's here)
    op = rec("scan", "automatic", **gb(1000.0), wall_us=8.0, copy_kokkos_wall_us=10.0,
             copy_streaming_wall_us=9.0, ratio_to_copy=9.0 / 8.0)
    b = bounds.point_bound("copy", [], "int32", N, op)
    assert (b.kernel, b.where) == ("copy/streaming", bounds.ROUNDS)
    assert b.gbps == pytest.approx(1000.0 * 8.0 / 9.0)
    assert [m.kernel for m in b.measured] == ["copy/streaming", "copy/kokkos"]
    assert b.measured[1].gbps == pytest.approx(1000.0 * 8.0 / 10.0)


def test_read_bound_is_the_fastest_read_else_the_copy():
    tuned = rec("reduce", "tuned", **gb(4410.0), ratio_to_read=0.994, read_wall_us=969.0, ratio_to_copy=1.04,
                copy_wall_us=2030.0)
    b = bounds.point_bound("read", [tuned, rec("read", "streaming", **gb(4000.0))], "int32", N)
    assert (b.kind, b.kernel, b.where) == ("read", "read", bounds.ROUNDS)
    assert b.gbps == pytest.approx(4410.0 / 0.994)
    # a standalone read faster than the rounds' is taken
    b = bounds.point_bound("read", [tuned, rec("read", "streaming", **gb(4600.0))], "int32", N)
    assert (b.kernel, b.where, b.gbps) == ("read/streaming", bounds.STANDALONE, 4600.0)
    # no read at the point: the copy's (its read bandwidth, the ratio_to_copy of a reduction)
    host = rec("reduce", "tuned", **gb(261.0), ratio_to_copy=0.681, copy_wall_us=100.0)
    b = bounds.point_bound("read", [host], "int32", N)
    assert (b.kind, b.kernel) == ("copy", "copy/kokkos") and b.gbps == pytest.approx(261.0 / 0.681)
    assert bounds.point_bound("read", [rec("reduce", "tuned", **gb(1.0))], "int32", N) is None


def test_no_bound_and_other_points_ignored():
    recs = [scan(), rec("copy", "kokkos", n=N // 2, **gb(9999.0)), rec("copy", "kokkos", t="int64", **gb(9999.0)),
            dict(rec("copy", "streaming", **gb(9999.0)), error="wrong result")]
    assert bounds.point_bound("copy", recs, "int32", N).where == bounds.ROUNDS
    assert bounds.point_bound("copy", recs, "float", N) is None


def test_headline_and_targets_take_the_one_bound():
    recs = {r["name"]: r for r in [scan(), rec("copy", "kokkos", **gb(3803.0))]}
    row = headline._row("h200", "Cuda, H200", headline.CALLS[0], recs)
    assert row.of_bound == pytest.approx(0.89) and row.bound.where == bounds.ROUNDS
    assert "0.89 of a copy (copy/kokkos, kps' rounds)" in headline.markdown([row])
    assert targets.cpu_bound(list(recs.values()), "scan", recs[scan()["name"]]) == pytest.approx(0.89)


# --- the machine's own limits (likwid-bench: kps_report.likwid) --------------------------------

LIKWID_OUT = """Cycles:\t\t\t4873767598
Size (Byte):\t\t256000000
MByte/s:\t\t8740.12
Cycles per update:\t4.759539
"""


def machine_rows(copy=300.0, load=250.0):
    return [{"kernel": "copy_mem_avx", "kind": "copy", "bytes": 1 << 34, "threads": 16, "gbps": copy, "command": "x"},
            {"kernel": "load_avx", "kind": "read", "bytes": 1 << 34, "threads": 16, "gbps": load, "command": "y"}]


def test_likwid_output_and_context_are_read():
    from kps_report import likwid
    assert likwid.parse(LIKWID_OUT) == pytest.approx(8.74012)
    assert likwid.parse("no rate here") is None
    ctx = {"kps_machine_bounds": likwid.context_value({"rows": machine_rows()}), "num_cpus": 16,
           "caches": [{"type": "Unified", "level": 3, "size": 32 << 20, "num_sharing": 8},
                      {"type": "Data", "level": 1, "size": 48 << 10, "num_sharing": 1}]}
    assert [r["kind"] for r in likwid.from_context(ctx)] == ["copy", "read"]
    assert likwid.last_level_cache_bytes(ctx) == 64 << 20  # two L3s of 32 MiB, 8 CPUs each
    assert likwid.from_context({}) == [] and likwid.from_context({"kps_machine_bounds": "{cut"}) == []


def test_the_machines_limits_bound_only_points_past_the_last_level_cache():
    llc = 300 << 20
    def host(r):
        return dict(r, machine_bounds=machine_rows(), llc_bytes=llc)
    big = host(rec("scan", "automatic", **gb(200.0), ratio_to_copy=1.3))  # Kokkos' copy: 153.8 GB/s
    b = bounds.point_bound("copy", [big], "int32", N)
    assert b.gbps == 300.0 and b.where == bounds.MACHINE and b.kernel == "copy_mem_avx 16 GiB"
    assert bounds.of_bound("copy", [big], big) == pytest.approx(200.0 / 300.0)
    # a read point past the cache takes the load kernel, not the copy
    s = host(rec("reduce", "tuned", **gb(240.0), ratio_to_read=1.1))
    assert bounds.point_bound("read", [s], "int32", N).gbps == 250.0
    # 2^24 int32 (64 MiB, 128 MiB copied) fits the 300 MiB cache: kps-bench's own kernels alone
    small = host(rec("scan", "automatic", n=1 << 24, **gb(400.0), ratio_to_copy=0.8))
    b = bounds.point_bound("copy", [small], "int32", 1 << 24)
    assert b.where == bounds.ROUNDS and b.gbps == pytest.approx(500.0)


def test_kps_bounds_writes_the_machines_limits_and_run_records_them(tmp_path, monkeypatch):
    from kps_report import cli, likwid
    fake = tmp_path / "likwid-bench"
    fake.write_text("#!/bin/sh\n"
                    "case \"$1\" in -a) printf 'copy_avx - copy\\nload_avx - load\\nstream_avx - triad\\n';;\n"
                    " -h) echo 'Threaded Memory Hierarchy Benchmark --  Version  5.2';;\n"
                    " *) printf 'MByte/s:\\t\\t%s\\n' 123456.0;; esac\n")
    fake.chmod(0o755)
    monkeypatch.setattr(likwid, "cpu_flags", lambda: {"avx"})
    out = tmp_path / "res"
    assert cli.main(["bounds", "--out", str(out), "--threads", "4", "--sizes", "1,2", "--likwid", str(fake)]) == 0
    doc = likwid.load(out)
    assert doc["tool"] == "likwid-bench 5.2" and doc["threads"] == 4
    assert [(r["kernel"], r["kind"], r["bytes"]) for r in doc["rows"]][:3] == [
        ("copy_avx", "copy", 1 << 30), ("load_avx", "read", 1 << 30), ("stream_avx", "copy", 1 << 30)]
    assert all(r["gbps"] == 123.456 and "-W N:" in r["command"] for r in doc["rows"])
    assert cli.main(["bounds", "--out", str(out), "--sizes", "0,x"]) == 2
    assert cli.main(["bounds", "--out", str(out), "--sizes", "0"]) == 2
    assert cli.main(["bounds", "--out", str(out), "--likwid", str(tmp_path / "none")]) == 2


def test_kps_bounds_stopped_keeps_the_kernels_it_measured(tmp_path, monkeypatch, capsys):
    # a job's time limit (SIGINT) during the third likwid-bench run: the two measured rows are
    # written, marked incomplete, and kps exits 130 with one line saying so
    from kps_report import cli, likwid
    fake = tmp_path / "likwid-bench"
    fake.write_text("#!/bin/sh\n"
                    "case \"$1\" in -a) printf 'copy_avx - copy\\nload_avx - load\\n';;\n"
                    " -h) echo 'Threaded Memory Hierarchy Benchmark --  Version  5.2';;\n"
                    " *) printf 'MByte/s:\\t\\t%s\\n' 1000.0;; esac\n")
    fake.chmod(0o755)
    monkeypatch.setattr(likwid, "cpu_flags", lambda: {"avx"})
    real_run, calls = likwid.subprocess.run, []

    def run(cmd, **kw):
        if "-t" in cmd:
            calls.append(cmd)
            if len(calls) == 3:
                raise KeyboardInterrupt
        return real_run(cmd, **kw)
    monkeypatch.setattr(likwid.subprocess, "run", run)
    out = tmp_path / "res"
    assert cli.main(["bounds", "--out", str(out), "--threads", "2", "--sizes", "1,2", "--likwid", str(fake)]) == 130
    doc = likwid.load(out)
    assert doc["incomplete"] is True and (doc["measured"], doc["asked"]) == (2, 4)
    assert [(r["kernel"], r["bytes"]) for r in doc["rows"]] == [("copy_avx", 1 << 30), ("load_avx", 1 << 30)]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("kps: interrupted after 2 of 4 likwid-bench runs")


def test_the_bound_check_names_an_implementation_faster_than_the_bound():
    # kps' scan at 2^26 at 1.3 x Kokkos' copy of its rounds, OpenMP's at 1.2 x: the check flags it
    r = rec("scan", "automatic", n=1 << 26, **gb(130.0), ratio_to_copy=1.3, ratio_to_openmp=130.0 / 120.0)
    line = targets.bound_check([r], "scan", [r])
    assert "reaches 1.3 of its point's bound (automatic, int32 2^26" in line and "✗" in line
    # the machine's copy past the cache puts the bound above both: ✓
    r2 = dict(r, machine_bounds=machine_rows(copy=140.0), llc_bytes=300 << 20)
    line = targets.bound_check([r2], "scan", [r2])
    assert "0.929" in line and "✓" in line and "likwid-bench" in line
