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
    small = section([chase(1 << 30, 140.0), copy(1 << 26, 20.0)], {"caches": [{"size": 1 << 20}], "kokkos_concurrency": "2"})
    assert "1.37 KiB of reads in flight" in small and "700 B per compute unit** (2 units)" in small


def loaded(b, ns, gbs):
    return dict(parse_name(f"memory_latency/loaded/{b}/manual_time"), latency_ns=ns, footprint_bytes=b, copy_GBps=gbs)


def test_the_latency_under_load_drives_littles_law_where_measured():
    recs = [chase(1 << 20, 30.0), chase(1 << 28, 350.0), loaded(1 << 28, 700.0, 3900.0), copy(1 << 30, 4000.0)]
    assert [b for b, _, _ in bif.latencies(recs)] == [1 << 20, 1 << 28]
    assert [b for b, _, _ in bif.latencies(recs, "loaded")] == [1 << 28]
    alone = dict(loaded(1 << 30, 400.0, 0.0), unloaded_calls=2)   # the copy never ran beside it
    assert [b for b, _, _ in bif.latencies(recs + [alone], "loaded")] == [1 << 28]
    md = section(recs, GPU)
    assert "| 256 MiB | 350 | 700 | 3900 | 5.12 |" in md and "| 1 MiB | 30 | — | — |" in md
    assert "at 700 ns under load (footprint 256 MiB; 350 ns idle: 684 KiB)" in md
    assert "1.34 MiB of reads in flight" in md        # 700 ns x 2 TB/s, as the idle 700 ns above


def test_a_loaded_point_whose_copy_did_not_load_memory_is_no_latency_under_load():
    # As in the H200's first run: the copy beside the chain at about 1 % of the device's copy.
    recs = [chase(1 << 20, 21.0), chase(1 << 28, 339.0), loaded(1 << 28, 44598.0, 55.0), copy(1 << 30, 4200.0)]
    kept, rejected = bif.loaded_split(recs)
    assert kept == [] and [b for b, _, _ in rejected] == [1 << 28]
    md = section(recs, GPU)
    assert "| 256 MiB | 339 | 44598 (not loaded) | 55 |" in md
    assert "Not loaded: at 1 footprint(s) the copy beside the chain moved 55-55 GB/s, less than 0.5 x" in md
    assert "at 339 ns (footprint 256 MiB)" in md      # the idle latency drives Little's law
    # Half the copy's pace is enough; without a copy in the folder nothing is judged.
    assert bif.loaded_split([loaded(1 << 28, 700.0, 2100.0), copy(1 << 30, 4200.0)])[1] == []
    assert bif.loaded_split([loaded(1 << 28, 700.0, 5.0)])[1] == []


def test_section_says_what_is_missing():
    assert section([copy(1 << 30, 4000.0)], GPU) == ""
    assert "did not reach memory" in section([chase(1 << 20, 30.0), copy(1 << 30, 4000.0)], GPU)
    assert "No copy" in section([chase(1 << 28, 700.0)], GPU)
    failed = dict(chase(1 << 28, 700.0), error="the chain stopped at word 3")
    assert section([failed], GPU) == ""


def tune_point(t, n, team, items, prefetch, seconds, delay=2400):
    name = f"scan_tune/single_pass/{t}/{n}/team:{team}/items:{items}/delay:{delay}/poll:0/prefetch:{prefetch}"
    return dict(parse_name(name + "/iterations:16/manual_time"), seconds=seconds)


def test_predicted_tile_is_the_smallest_whose_prefetch_holds_the_reads():
    kib = 1024
    assert bif.predicted_tile(1.4e6, 64, [16 * kib, 32 * kib, 40 * kib]) == 32 * kib   # 64 x 16 KiB = 1.05e6 < 1.4e6
    assert bif.predicted_tile(0.9e6, 64, [16 * kib, 32 * kib]) == 16 * kib
    assert bif.predicted_tile(9e6, 64, [16 * kib, 32 * kib]) is None


def test_model_rows_against_the_sweep():
    n = 1 << 28
    recs = [tune_point("int32", n, 128, 32, 64, 1.10), tune_point("int32", n, 128, 64, 64, 1.00),
            tune_point("int32", n, 256, 32, 64, 1.05), tune_point("double", n, 128, 16, 64, 1.2),
            tune_point("double", n, 224, 16, 64, 1.1), tune_point("double", n, 160, 32, 64, 1.0),
            tune_point("int32", 1 << 24, 128, 32, 64, 0.1)]          # below the model's sizes
    rows = {(t, m): (best, b, pred, steps) for t, m, best, b, pred, steps in bif.model_rows(1.4e6, recs)}
    assert set(rows) == {("int32", n), ("double", n)}
    best, b, pred, steps = rows[("int32", n)]
    assert (best.team, best.items, b, pred, steps) == (128, 64, 32768, 32768, 0)
    best, b, pred, steps = rows[("double", n)]
    assert (b, pred, steps) == (40960, 28672, 1)                       # 224 x 16 x 8 B: 64 x 28 KiB >= 1.4e6
    md = bif.model_section(1.4e6, recs)
    assert "Within one step at 2 of 2 sizes" in md
    assert "| double | 2^28 | 160 x 32, 64 ahead | 40 | 2.5 | 28 | 1 |" in md
    # A best point without the prefetch is not the model's.
    assert bif.model_rows(1.4e6, [tune_point("int32", n, 128, 64, 0, 1.0)]) == []
