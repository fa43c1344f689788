"""The memory-latency probe's section: memory is the first footprint of 4 x the last-level cache,
Little's law on the copy's reads gives the bytes in flight, and what is missing is said."""
from types import SimpleNamespace

import pytest

from kps_report.analyses import bytes_in_flight as bif
from kps_report.gbench import parse_name


def chase(b, ns):
    return dict(parse_name(f"memory_latency/chase/{b}/manual_time"), latency_ns=ns, footprint_bytes=b)


def copy(n, gbs, t="int32"):
    return dict(family="copy", variant="kokkos", type=t, n=n, **{"GB/s": gbs})


GPU = {"device_l2_bytes": str(50 << 20), "device_compute_units": "132"}


def test_names_parse_as_footprints():
    r = chase(1 << 30, 700.0)
    assert (r["family"], r["variant"], r["n"]) == ("memory_latency", "chase", 1 << 30)


def test_memory_is_four_times_the_last_level_cache():
    pts = bif.latencies([chase(1 << 20, 30.0), chase(1 << 28, 650.0), chase(1 << 30, 700.0), chase(1 << 24, 300.0)])
    assert [b for b, _, _ in pts] == [1 << 20, 1 << 24, 1 << 28, 1 << 30]
    assert bif.memory_latency(pts, 50 << 20) == (1 << 28, 650.0)      # 256 MiB >= 200 MiB
    assert bif.memory_latency(pts, 300 << 20) is None                 # 1 GiB < 1.2 GiB: not memory
    assert bif.memory_latency(pts, 0) is None


def test_little_on_the_copy_reads():
    lw = bif.little(700.0, 4000.0, 132)                # 4 TB/s copy: 2 TB/s of reads x 700 ns
    assert lw["device_bytes"] == pytest.approx(1.4e6)
    assert lw["per_unit_bytes"] == pytest.approx(1.4e6 / 132)
    assert bif.little(700.0, 4000.0, 0)["per_unit_bytes"] is None


def test_copy_bandwidth_at_the_largest_size():
    recs = [copy(1 << 20, 900.0), copy(1 << 30, 4000.0), copy(1 << 30, 4100.0, "double"),
            dict(copy(1 << 32, 1.0), error="wrong")]
    assert bif.copy_bandwidth(recs) == (1 << 30, "double", 4100.0)
    assert bif.copy_bandwidth([]) is None


def test_last_level_cache_on_gpu_and_host():
    assert bif.last_level_cache(GPU) == 50 << 20
    host = {"caches": [{"level": 2, "size": 2 << 20}, {"level": 3, "size": 300 << 20}]}
    assert bif.last_level_cache(host) == 300 << 20
    assert bif.last_level_cache({}) == 0
    assert bif.compute_units({"kokkos_concurrency": "16"}) == 16


def section(records, ctx):
    return bif.section(SimpleNamespace(context=ctx, records=records))


def test_section_says_the_bytes_in_flight():
    md = section([chase(1 << 20, 30.0), chase(1 << 28, 700.0), copy(1 << 30, 4000.0)], GPU)
    assert "| 256 MiB | 700 | 5.12 |" in md
    assert "1.34 MiB of reads in flight" in md        # 1.4e6 bytes
    assert "10.4 KiB per compute unit** (132 units)" in md


def test_section_says_what_is_missing():
    assert section([copy(1 << 30, 4000.0)], GPU) == ""
    assert "did not reach memory" in section([chase(1 << 20, 30.0), copy(1 << 30, 4000.0)], GPU)
    assert "No copy" in section([chase(1 << 28, 700.0)], GPU)
    failed = dict(chase(1 << 28, 700.0), error="the chain stopped at word 3")
    assert section([failed], GPU) == ""
