"""The targets tables of the scan and reduction studies: a ratio below its target is marked, the
count of targets met is right, the launch floor shows where a CUB target is missed; each verdict is
kps_report.stats' rule over the repetitions (a tie is met), by medians only where the records keep
no repetitions, and then marked `(median)`."""
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
    assert "| int32 | 2^12 | 0.62 ✗ (median) | 0.9 ✗ (median) | 12 / 8 |" in md
    assert "| int32 | 2^28 | 1.17 (median) | 1.08 (median) |  |" in md


def test_reduce_read_target_at_large_sizes_only():
    recs = [rec("reduce", "tuned", "double", 1 << 26, ratio_to_cub=1.02, ratio_to_read=0.9, wall_us=200,
                **{"GB/s": 2680.0}),
            rec("reduce", "tuned", "double", 1 << 30, ratio_to_cub=1.01, ratio_to_read=0.96, wall_us=3000, **{"GB/s": 2860.0},
                launch_floor_wall_us=8)]
    md = targets.table(recs, "reduce", "tuned", True, "cmd")
    assert "2 of 3 targets met" in md          # the read ratio at 2^26 is no target
    assert "| double | 2^26 | 1.02 (median) | — |  |" in md
    assert "0.96 ✗ (median)" in md


def test_no_cub_no_table():
    assert targets.table([rec("scan", "automatic", "int32", 1024, ratio_to_kokkos=1.0)], "scan", "automatic", False,
                         "cmd") == ""


def test_a_miss_never_reads_as_the_target():
    recs = [rec("scan", "automatic", "int64", 1 << 25, ratio_to_cub=0.99963, ratio_to_cub_cccl=1.0004, seconds=1e-4)]
    md = targets.table(recs, "scan", "automatic", False, "cmd")
    assert "| int64 | 2^25 | 0.9996 ✗ (median) | 1 (median) |" in md


def test_the_scan_band_of_8_byte_types_needs_097_of_the_toolkits_cub():
    recs = [rec("scan", "automatic", "int64", 1 << 22, ratio_to_cub=0.972, ratio_to_cub_cccl=1.01, seconds=1e-4),
            rec("scan", "automatic", "double", 1 << 23, ratio_to_cub=0.964, ratio_to_cub_cccl=1.02, seconds=1e-4),
            rec("scan", "automatic", "int64", 1 << 25, ratio_to_cub=0.99, ratio_to_cub_cccl=1.01, seconds=1e-4),
            rec("scan", "automatic", "int32", 1 << 22, ratio_to_cub=0.98, ratio_to_cub_cccl=1.01, seconds=1e-4)]
    md = targets.table(recs, "scan", "automatic", False, "cmd")
    assert "5 of 8 targets met" in md
    assert "| int64 | 2^22 | 0.972 (median) | 1.01 (median) |  |" in md          # in the band: 0.97
    assert "| double | 2^23 | 0.964 ✗ (median) | 1.02 (median) |" in md
    assert "| int64 | 2^25 | 0.99 ✗ (median) |" in md                   # past the band: 1.0
    assert "| int32 | 2^22 | 0.98 ✗ (median) |" in md                   # 4-byte types: 1.0
    assert "automatic / cub (≥ 1.0; int64, double at 2^21..2^24: ≥ 0.97)" in md
    # The sum has no band.
    md = targets.table([rec("reduce", "tuned", "int64", 1 << 22, ratio_to_cub=0.98, seconds=1e-4)], "reduce", "tuned",
                       False, "cmd")
    assert "0.98 ✗ (median)" in md and "≥ 0.97" not in md


def test_cpu_targets_openmp_and_serial():
    recs = [rec("reduce", "tuned", "int64", 1 << 20, **{"GB/s": 90.0}, ratio_to_serial_loop=0.96, ratio_to_read=1.0),
            rec("reduce", "tuned", "int64", 1 << 28, **{"GB/s": 9.0}, ratio_to_serial_loop=1.2, ratio_to_read=0.5)]
    # On a parallel backend the peers' target is 1.0 and the read's 0.9 from 2^26: two misses.
    md = targets.cpu_table(recs, "reduce", "tuned", "cmd", "OpenMP")
    assert "1 of 3 targets met" in md
    assert "| int64 | 2^20 | 90 | 0.96 | — | — | 0.96 ✗ (serial_loop) (median) | 1 |" in md
    # On Serial the one-thread loop's 0.95 is the one target; the bound is shown, not targeted.
    md = targets.cpu_table(recs, "reduce", "tuned", "cmd", "Serial")
    assert "2 of 2 targets met" in md
    assert "/ best CPU peer (≥ 0.95)" in md
    assert "| int64 | 2^28 | 9 | 1.2 | — | — | 1.2 (serial_loop) (median) | 0.5 |" in md


def test_cpu_sum_targets_show_the_runtimes_floors_where_timed():
    recs = [rec("reduce", "tuned", "int32", 1 << 16, **{"GB/s": 37.0}, ratio_to_openmp=0.85, ratio_to_read=0.85,
                wall_us=7.1, openmp_wall_us=6.1, launch_floor_wall_us=5.5, openmp_floor_wall_us=4.4),
            rec("reduce", "tuned", "int32", 1 << 26, **{"GB/s": 99.0}, ratio_to_openmp=1.1, ratio_to_read=1.1,
                wall_us=2700, openmp_wall_us=3000, launch_floor_wall_us=5.4, openmp_floor_wall_us=4.5)]
    md = targets.cpu_table(recs, "reduce", "tuned", "cmd", "OpenMP")
    assert "µs: call / openmp / Kokkos' empty launch / empty OpenMP region" in md
    assert "| 7.1 / 6.1 / 5.5 / 4.4 |" in md
    assert md.rstrip().endswith("| 1.1 (median) |  |")      # past 2^20 the column stays empty
    # Without the OpenMP floor (older JSON, other backends) no such column.
    del recs[0]["openmp_floor_wall_us"], recs[1]["openmp_floor_wall_us"]
    assert "empty OpenMP region" not in targets.cpu_table(recs, "reduce", "tuned", "cmd", "OpenMP")


def test_cpu_targets_over_repeated_runs_take_the_median_and_show_the_range():
    """`kps run --runs K`: each figure the median over the runs that measured its row, the range
    beside it, the verdict the median's where the records keep no repetitions; a row only this
    folder's run has stays as it is."""
    def run(tbb, read):
        return [rec("reduce", "tuned", "int64", 1 << 24, **{"GB/s": 130.0}, ratio_to_openmp=1.1, ratio_to_tbb=tbb,
                    ratio_to_read=read)]
    first = run(0.85, 0.94) + [rec("reduce", "tuned", "int64", 1 << 28, **{"GB/s": 95.0}, ratio_to_tbb=1.04,
                                   ratio_to_read=1.09)]
    md = targets.cpu_table(first, "reduce", "tuned", "cmd", "OpenMP", {2: run(1.02, 0.95), 3: run(1.01, 0.9)})
    assert ("| int64 | 2^24 | 130 | — | 1.1 | 1.01 (0.85–1.02) | 1.01 (0.85–1.02) (tbb) (median) "
            "| 0.94 (0.9–0.95) |") in md
    assert "| int64 | 2^28 | 95 | — | — | 1.04 | 1.04 (tbb) (median) | 1.09 (median) |" in md
    assert "3 of 3 targets met" in md and "median over the runs of its job (3 at most" in md
    assert "`cmd --runs 3`" in md
    # repeats left out by gbench.repeated_runs are named, not counted
    from kps_report.gbench import Repeats
    md = targets.cpu_table(first, "reduce", "tuned", "cmd", "OpenMP",
                           Repeats({2: run(1.02, 0.95)}, ["runs/reduce-targets.run3.json: another tuning table"]))
    assert "| 0.935 ✗ (0.85–1.02) (tbb) (median) |" in md
    assert "`runs/reduce-targets.run3.json` (another tuning table)" in md
    # one run alone: as before, no range, no note
    md = targets.cpu_table(first, "reduce", "tuned", "cmd", "OpenMP")
    assert "0.85 ✗ (tbb) (median)" in md and "median over the runs" not in md and "`cmd`" in md


def test_gpu_targets_over_repeated_runs_take_the_median():
    def run(cub, read):
        return [rec("reduce", "tuned", "int32", 1 << 28, ratio_to_cub=cub, ratio_to_read=read, wall_us=100.0,
                    launch_floor_wall_us=2.0, **{"GB/s": 10.7})]
    md = targets.table(run(0.99, 0.98), "reduce", "tuned", True, "cmd", {2: run(1.02, 0.99), 3: run(1.01, 0.95)})
    assert "| int32 | 2^28 | 1.01 (0.99–1.02) (median) | 0.98 (0.95–0.99) (median) |  |" in md
    assert "2 of 2 targets met" in md and "`cmd --runs 3`" in md
    md = targets.table(run(0.99, 0.98), "reduce", "tuned", True, "cmd")
    assert "0.99 ✗ (median)" in md and "| 100 / 2 |" in md and "median over the runs" not in md


# Repetitions as gbench keeps them (`samples`: every repetition's value of a counter), medians beside.
KPS = [100.0, 101.0, 99.0, 100.5, 99.5, 100.2, 99.8, 100.1]
NOISE = [100.4, 99.6, 100.9, 99.2, 100.0, 101.1, 99.4, 100.3]  # the same call within noise


def sampled(family, variant, t, n, **series):
    """A record whose counters each have one value per repetition (lists), their medians as the counters."""
    from statistics import median
    r = rec(family, variant, t, n, **{k: median(v) if isinstance(v, list) else v for k, v in series.items()})
    r["samples"] = {k: v for k, v in series.items() if isinstance(v, list)}
    r["repetitions"] = len(next(v for v in series.values() if isinstance(v, list)))
    return r


def test_a_peer_within_noise_is_a_tie_and_counts_as_met():
    cub = [x * 0.995 for x in NOISE]             # CUB 0.5 % faster by the medians: no target missed by a tie
    r = sampled("scan", "automatic", "int32", 1 << 28, wall_us=KPS, cub_wall_us=cub,
                ratio_to_cub=[c / k for c, k in zip(cub, KPS)], launch_floor_us=5.0)
    md = targets.table([r], "scan", "automatic", False, "cmd")
    assert "1 of 1 targets met" in md
    assert "| int32 | 2^28 | 0.998 met (tie) |  |" in md      # below 1.0 by the median, met by the rule
    assert targets.RULE in md and "`met (tie)`" in md and "p < 0.05" in md and "(median)" not in md


def test_a_clearly_slower_point_is_behind_and_missed():
    cub = [x * 0.9 for x in NOISE]                # CUB 10 % faster in every repetition
    r = sampled("scan", "automatic", "int32", 1 << 28, wall_us=KPS, cub_wall_us=cub,
                ratio_to_cub=[c / k for c, k in zip(cub, KPS)], launch_floor_us=5.0)
    md = targets.table([r], "scan", "automatic", False, "cmd")
    assert "0 of 1 targets met" in md and "| 0.903 ✗ behind | 100 / 5 |" in md
    # and one clearly faster is ahead
    cub = [x * 1.1 for x in NOISE]
    r = sampled("scan", "automatic", "int32", 1 << 28, wall_us=KPS, cub_wall_us=cub,
                ratio_to_cub=[c / k for c, k in zip(cub, KPS)])
    assert "| 1.1 ahead |  |" in targets.table([r], "scan", "automatic", False, "cmd")


def test_a_peer_timed_by_its_ratio_alone_is_tested_repetition_by_repetition():
    """Without <peer>_wall_us the peer's times are its ratio times kps' (the same repetitions)."""
    r = sampled("scan", "automatic", "int64", 1 << 22, wall_us=KPS, ratio_to_cub=[0.9] * 8)
    md = targets.table([r], "scan", "automatic", False, "cmd")
    assert "0.9 ✗ behind" in md                  # the band's 0.97 missed, by the test


def test_the_bound_target_tests_the_bounds_times_scaled_by_the_target():
    read = [x * 0.965 for x in NOISE]             # 0.968 of the read by the medians: a tie with 0.97
    r = sampled("reduce", "tuned", "int32", 1 << 28, wall_us=KPS, read_wall_us=read, cub_wall_us=NOISE,
                ratio_to_cub=[c / k for c, k in zip(NOISE, KPS)], ratio_to_read=[q / k for q, k in zip(read, KPS)],
                **{"GB/s": 10.7})
    md = targets.table([r], "reduce", "tuned", True, "cmd")
    assert "2 of 2 targets met" in md and "| 1 met (tie) | 0.968 met (tie) |" in md
    # 1 % further off, and the same noise: the test tells them apart
    read = [x * 0.96 for x in NOISE]
    r = sampled("reduce", "tuned", "int32", 1 << 28, wall_us=KPS, read_wall_us=read, cub_wall_us=NOISE,
                ratio_to_cub=1.0, ratio_to_read=[q / k for q, k in zip(read, KPS)], **{"GB/s": 10.7})
    assert "| 0.963 ✗ behind |" in targets.table([r], "reduce", "tuned", True, "cmd")
    r = sampled("reduce", "tuned", "int32", 1 << 28, wall_us=KPS, read_wall_us=[x * 0.9 for x in NOISE],
                cub_wall_us=NOISE, ratio_to_cub=1.0, ratio_to_read=0.9, **{"GB/s": 10.7})
    assert "| 0.9 ✗ behind |" in targets.table([r], "reduce", "tuned", True, "cmd")


def test_a_bound_run_on_its_own_falls_back_to_medians_and_the_note_says_so():
    r = sampled("scan", "automatic", "int32", 1 << 26, wall_us=KPS, openmp_wall_us=[x * 0.9 for x in NOISE],
                ratio_to_openmp=0.9, ratio_to_copy=0.95, **{"GB/s": 80.0})
    faster_copy = rec("copy", "streaming", "int32", 1 << 26, params=None, **{"GB/s": 100.0})
    md = targets.cpu_table([r, faster_copy], "scan", "automatic", "cmd", "OpenMP")
    assert "| 0.9 ✗ (openmp) behind | 0.8 ✗ (median) |" in md   # the copy of its own run: 80 / 100, under 0.90
    assert targets.OWN_RUN_BOUND in md and targets.NO_REPETITIONS not in md
    # the copy of kps' rounds (its ratio, repetition by repetition) is tested
    r = sampled("scan", "automatic", "int32", 1 << 26, wall_us=KPS, openmp_wall_us=[x * 0.9 for x in NOISE],
                ratio_to_openmp=0.9, ratio_to_copy=[0.9] * 8, **{"GB/s": 80.0})
    assert "| 0.9 ✗ (openmp) behind | 0.9 met (tie) |" in targets.cpu_table([r], "scan", "automatic", "cmd", "OpenMP")


def test_a_record_without_repetitions_falls_back_to_medians_and_is_marked():
    r = rec("scan", "automatic", "int32", 1 << 28, ratio_to_cub=0.99, wall_us=100.0, launch_floor_us=5.0)
    md = targets.table([r], "scan", "automatic", False, "cmd")
    assert "| 0.99 ✗ (median) | 100 / 5 |" in md
    assert ("`(median)`: nothing to test, the median ratio against the target instead, where "
            f"{targets.NO_REPETITIONS}.") in md
    # one repetition is no more to test than none
    r = sampled("scan", "automatic", "int32", 1 << 28, wall_us=[100.0], cub_wall_us=[101.0], ratio_to_cub=[1.01])
    assert "| 1.01 (median) |" in targets.table([r], "scan", "automatic", False, "cmd")


def test_repeated_runs_pool_their_repetitions():
    """Three runs of one repetition each: the test runs over the three (a tie), not the median alone."""
    def run(k, c):
        return [sampled("reduce", "tuned", "int64", 1 << 24, wall_us=[k], tbb_wall_us=[c], ratio_to_tbb=[c / k],
                        **{"GB/s": 130.0})]
    md = targets.cpu_table(run(100.0, 99.0), "reduce", "tuned", "cmd", "OpenMP",
                           {2: run(101.0, 100.5), 3: run(99.0, 99.5)})
    assert "| 0.995 (0.99–1.01) (tbb) met (tie) |" in md and "1 of 1 targets met" in md
