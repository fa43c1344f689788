"""The targets tables of the scan and reduction studies: a ratio below its target is marked, the
count of targets met is right, the launch floor shows where a CUB target is missed."""
from kps_report.analyses import targets


def rec(family, variant, t, n, **counters):
    return dict(family=family, variant=variant, type=t, n=n, **counters)


def test_scan_targets_count_and_mark_misses():
    recs = [rec("scan", "automatic", "int32", 1 << 12, ratio_to_cub=0.62, ratio_to_cub_cccl=0.9, launch_floor_us=8.0,
                seconds=12e-6),
            rec("scan", "automatic", "int32", 1 << 28, ratio_to_cub=1.17, ratio_to_cub_cccl=1.08, seconds=1e-3),
            rec("scan", "single_pass", "int32", 1 << 28, ratio_to_cub=2.0)]
    md = targets.table(recs, "scan", "automatic", False, "cmd")
    assert "2 of 4 targets met" in md
    assert "| int32 | 2^12 | 0.62 ✗ | 0.9 ✗ | 12 / 8 |" in md
    assert "| int32 | 2^28 | 1.17 | 1.08 |  |" in md


def test_reduce_read_target_at_large_sizes_only():
    recs = [rec("reduce", "tuned", "double", 1 << 26, ratio_to_cub=1.02, ratio_to_read=0.9, wall_us=200,
                **{"GB/s": 2680.0}),
            rec("reduce", "tuned", "double", 1 << 30, ratio_to_cub=1.01, ratio_to_read=0.96, wall_us=3000, **{"GB/s": 2860.0},
                launch_floor_wall_us=8)]
    md = targets.table(recs, "reduce", "tuned", True, "cmd")
    assert "2 of 3 targets met" in md          # the read ratio at 2^26 is no target
    assert "| double | 2^26 | 1.02 | — |  |" in md
    assert "0.96 ✗" in md


def test_no_cub_no_table():
    assert targets.table([rec("scan", "automatic", "int32", 1024, ratio_to_kokkos=1.0)], "scan", "automatic", False,
                         "cmd") == ""


def test_a_miss_never_reads_as_the_target():
    recs = [rec("scan", "automatic", "int64", 1 << 25, ratio_to_cub=0.99963, ratio_to_cub_cccl=1.0004, seconds=1e-4)]
    md = targets.table(recs, "scan", "automatic", False, "cmd")
    assert "| int64 | 2^25 | 0.9996 ✗ | 1 |" in md


def test_the_scan_band_of_8_byte_types_needs_097_of_the_toolkits_cub():
    recs = [rec("scan", "automatic", "int64", 1 << 22, ratio_to_cub=0.972, ratio_to_cub_cccl=1.01, seconds=1e-4),
            rec("scan", "automatic", "double", 1 << 23, ratio_to_cub=0.964, ratio_to_cub_cccl=1.02, seconds=1e-4),
            rec("scan", "automatic", "int64", 1 << 25, ratio_to_cub=0.99, ratio_to_cub_cccl=1.01, seconds=1e-4),
            rec("scan", "automatic", "int32", 1 << 22, ratio_to_cub=0.98, ratio_to_cub_cccl=1.01, seconds=1e-4)]
    md = targets.table(recs, "scan", "automatic", False, "cmd")
    assert "5 of 8 targets met" in md
    assert "| int64 | 2^22 | 0.972 | 1.01 |  |" in md          # in the band: 0.97
    assert "| double | 2^23 | 0.964 ✗ | 1.02 |" in md
    assert "| int64 | 2^25 | 0.99 ✗ |" in md                   # past the band: 1.0
    assert "| int32 | 2^22 | 0.98 ✗ |" in md                   # 4-byte types: 1.0
    assert "automatic / cub (≥ 1.0; int64, double at 2^21..2^24: ≥ 0.97)" in md
    # The sum has no band.
    md = targets.table([rec("reduce", "tuned", "int64", 1 << 22, ratio_to_cub=0.98, seconds=1e-4)], "reduce", "tuned",
                       False, "cmd")
    assert "0.98 ✗" in md and "≥ 0.97" not in md


def test_cpu_targets_openmp_and_serial():
    recs = [rec("reduce", "tuned", "int64", 1 << 20, **{"GB/s": 90.0}, ratio_to_serial_loop=0.96, ratio_to_read=1.0),
            rec("reduce", "tuned", "int64", 1 << 28, **{"GB/s": 9.0}, ratio_to_serial_loop=1.2, ratio_to_read=0.5)]
    # On a parallel backend the peers' target is 1.0 and the read's 0.9 from 2^26: two misses.
    md = targets.cpu_table(recs, "reduce", "tuned", "cmd", "OpenMP")
    assert "1 of 3 targets met" in md
    assert "| int64 | 2^20 | 90 | 0.96 | — | — | 0.96 ✗ (serial_loop) | 1 |" in md
    # On Serial the one-thread loop's 0.95 is the one target; the bound is shown, not targeted.
    md = targets.cpu_table(recs, "reduce", "tuned", "cmd", "Serial")
    assert "2 of 2 targets met" in md
    assert "/ best CPU peer (≥ 0.95)" in md and "| int64 | 2^28 | 9 | 1.2 | — | — | 1.2 (serial_loop) | 0.5 |" in md


def test_cpu_sum_targets_show_the_runtimes_floors_where_timed():
    recs = [rec("reduce", "tuned", "int32", 1 << 16, **{"GB/s": 37.0}, ratio_to_openmp=0.85, ratio_to_read=0.85,
                wall_us=7.1, openmp_wall_us=6.1, launch_floor_wall_us=5.5, openmp_floor_wall_us=4.4),
            rec("reduce", "tuned", "int32", 1 << 26, **{"GB/s": 99.0}, ratio_to_openmp=1.1, ratio_to_read=1.1,
                wall_us=2700, openmp_wall_us=3000, launch_floor_wall_us=5.4, openmp_floor_wall_us=4.5)]
    md = targets.cpu_table(recs, "reduce", "tuned", "cmd", "OpenMP")
    assert "µs: call / openmp / Kokkos' empty launch / empty OpenMP region" in md
    assert "| 7.1 / 6.1 / 5.5 / 4.4 |" in md
    assert md.rstrip().endswith("| 1.1 |  |")      # past 2^20 the column stays empty
    # Without the OpenMP floor (older JSON, other backends) no such column.
    del recs[0]["openmp_floor_wall_us"], recs[1]["openmp_floor_wall_us"]
    assert "empty OpenMP region" not in targets.cpu_table(recs, "reduce", "tuned", "cmd", "OpenMP")


def test_cpu_targets_over_repeated_runs_take_the_median_and_show_the_range():
    """`kps run --runs K`: each figure the median over the runs that measured its row, the verdict
    the median's, the range beside it; a row only this folder's run has stays as it is."""
    def run(tbb, read):
        return [rec("reduce", "tuned", "int64", 1 << 24, **{"GB/s": 130.0}, ratio_to_openmp=1.1, ratio_to_tbb=tbb,
                    ratio_to_read=read)]
    first = run(0.85, 0.94) + [rec("reduce", "tuned", "int64", 1 << 28, **{"GB/s": 95.0}, ratio_to_tbb=1.04,
                                   ratio_to_read=1.09)]
    md = targets.cpu_table(first, "reduce", "tuned", "cmd", "OpenMP", {2: run(1.02, 0.95), 3: run(1.01, 0.9)})
    assert "| int64 | 2^24 | 130 | — | 1.1 | 1.01 (0.85–1.02) | 1.01 (0.85–1.02) (tbb) | 0.94 (0.9–0.95) |" in md
    assert "| int64 | 2^28 | 95 | — | — | 1.04 | 1.04 (tbb) | 1.09 |" in md
    assert "3 of 3 targets met" in md and "median over the runs of its job (3 at most" in md
    assert "`cmd --runs 3`" in md
    # repeats left out by gbench.repeated_runs are named, not counted
    from kps_report.gbench import Repeats
    md = targets.cpu_table(first, "reduce", "tuned", "cmd", "OpenMP",
                           Repeats({2: run(1.02, 0.95)}, ["runs/reduce-targets.run3.json: another tuning table"]))
    assert "| 0.935 ✗ (0.85–1.02) (tbb) |" in md
    assert "`runs/reduce-targets.run3.json` (another tuning table)" in md
    # one run alone: as before, no range, no note
    md = targets.cpu_table(first, "reduce", "tuned", "cmd", "OpenMP")
    assert "0.85 ✗ (tbb)" in md and "median over the runs" not in md and "`cmd`" in md


def test_gpu_targets_over_repeated_runs_take_the_median():
    def run(cub, read):
        return [rec("reduce", "tuned", "int32", 1 << 28, ratio_to_cub=cub, ratio_to_read=read, wall_us=100.0,
                    launch_floor_wall_us=2.0, **{"GB/s": 10.7})]
    md = targets.table(run(0.99, 0.98), "reduce", "tuned", True, "cmd", {2: run(1.02, 0.99), 3: run(1.01, 0.95)})
    assert "| int32 | 2^28 | 1.01 (0.99–1.02) | 0.98 (0.95–0.99) |  |" in md
    assert "2 of 2 targets met" in md and "`cmd --runs 3`" in md
    md = targets.table(run(0.99, 0.98), "reduce", "tuned", True, "cmd")
    assert "0.99 ✗" in md and "| 100 / 2 |" in md and "median over the runs" not in md
