"""Unit tests of the scan tuning analysis (kps_report.analyses.scan_tune) on canned Google Benchmark JSON: the optimum
per size among the single pass's knobs and Kokkos' scan, the merging of sizes into rows and their boundaries, a Kokkos
row's single-pass knobs, same-size type copies, the row format of src/kps/tuning/table.hpp, the verification checks,
and a tune folder rendered with both sweeps: the scan rows follow the reduce rows, each part's verification tied to its
own rows. Run by ctest (kps.scan.tune_analysis) with pytest."""
import json
import re

from kps_report import gbench, tuning
from kps_report.analyses import reduce_tune, scan_tune as tune
from kps_report.output import Figures, Staging

from test_tune import CTX, bench, sweep_doc

A = ("single_pass", 128, 32, 0, 0, 0)
B = ("single_pass", 256, 32, 2400, 0, 64)
K = ("kokkos", 0, 0, 0, 0, 0)
SIZES = [1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20]


def name(t, n, c):
    return tune.benchmark_name(t, n, tune.Choice(*c))


def scan_doc(times):
    """times: {(type, n, choice tuple): µs} -> a document of scan_tune points (timed in rounds)."""
    entries = []
    for (t, n, c), us in times.items():
        entries += bench(name(t, n, c), us, reps=1, rounds=15, wall_us=us)
    return {"context": dict(CTX), "benchmarks": entries}


def canned():
    times = {}
    for n in SIZES:
        times[("int32", n, K)] = 10.0 if n == SIZES[0] else 40.0 * n / SIZES[-1] + 30
        times[("int32", n, A)] = 12.0 if n == SIZES[0] else 10.0 + 20.0 * n / SIZES[-1]
        times[("int32", n, B)] = 30.0 if n < SIZES[-1] else 25.0
    return times


def analyse(times):
    points = tune.sweep_points(gbench.records(scan_doc(times)))
    best = tune.optima(points)
    rows, source = tune.build_rows(points, best)
    return points, best, rows, source


def test_optimum_per_size_among_knobs_and_kokkos():
    _, best, _, _ = analyse(canned())
    assert best["int32"][SIZES[0]][0] == tune.KOKKOS
    assert best["int32"][SIZES[1]][0] == tune.Choice(*A)
    assert best["int32"][SIZES[-1]][0] == tune.Choice(*B)


def test_rows_cover_the_swept_sizes_split_at_geometric_means():
    _, _, rows, source = analyse(canned())
    r = rows["int32"]
    assert [(lo, hi) for lo, hi, *_ in r] == [(1 << 16, 92681), (92682, 741455), (741456, (1 << 21) - 1)]
    assert [c.algorithm for _, _, c, _, _ in r] == ["kokkos", "single_pass", "single_pass"]
    assert tune.lookup(r, (1 << 16) - 1) is None and tune.lookup(r, 1 << 21) is None  # the rule there
    assert source["float"] == "int32" and "double" not in rows


def test_a_kokkos_row_carries_the_single_pass_knobs_best_there():
    _, _, rows, _ = analyse(canned())
    c = rows["int32"][0][2]
    assert c.algorithm == "kokkos" and c.key() == tune.KOKKOS
    assert (c.team, c.items, c.delay, c.poll, c.prefetch) == A[1:]


def test_similar_optima_merge_within_the_tolerance():
    times = {("int32", n, A): 10.0 for n in SIZES}
    times.update({("int32", n, B): 9.8 for n in SIZES})
    _, _, rows, _ = analyse(times)
    assert len(rows["int32"]) == 1 and rows["int32"][0][2] == tune.Choice(*B)


def test_row_lines_parse_as_the_table_format():
    _, _, rows, source = analyse(canned())
    lines = tune.row_lines(rows, source)
    data = [l.split("#")[0].split() for l in lines if l.startswith("scan ")]
    assert len(data) == 6  # int32's three rows and float's copies
    for f in data:
        assert len(f) == 11 and f[0] == "scan" and f[4] in ("kokkos", "single_pass") and f[7] in ("direct", "staged")
        assert int(f[6]) >= 1  # items per thread: the table's parser wants at least 1
    assert all(re.fullmatch(r"\d+", f[3]) for f in data)


def verify_doc(automatic_us, best_us, kokkos_ratio=1.2):
    entries = []
    for n in SIZES:
        entries += bench(f"scan/automatic/int32/{n}", automatic_us, reps=1, rounds=15, wall_us=automatic_us,
                         ratio_to_kokkos=kokkos_ratio, ratio_to_cub=1.01)
    _, best, _, _ = analyse(canned())
    for n in SIZES:
        c, _ = best["int32"][n]
        entries += bench(tune.benchmark_name("int32", n, c), best_us, reps=1, rounds=15, wall_us=best_us)
    return {"context": dict(CTX), "benchmarks": entries}


def test_verification_checks_automatic_against_the_re_measured_optimum_and_kokkos():
    recs = gbench.records(scan_doc(canned()))
    md, _, failed = tune.analyze(recs, verify=gbench.records(verify_doc(10.2, 10.0)))
    assert failed == 0 and "5 of 5 sizes pass" in md
    md, _, failed = tune.analyze(recs, verify=gbench.records(verify_doc(11.0, 10.0)))
    assert failed == 5 and "> 1.05 x sweep best" in md
    md, _, failed = tune.analyze(recs, verify=gbench.records(verify_doc(10.0, 10.0, kokkos_ratio=0.9)))
    assert failed == 5 and "slower than Kokkos" in md


def test_verification_compares_times_taken_alike():
    """scan_tune/automatic and Kokkos' scan timed alone decide the checks where the run has them;
    scan/automatic's rounds (here slowed by peers) give CUB's ratio only."""
    recs = gbench.records(scan_doc(canned()))
    doc = verify_doc(13.0, 10.0, kokkos_ratio=0.9)
    for n in SIZES:
        doc["benchmarks"] += bench(f"scan_tune/automatic/int32/{n}", 10.2, reps=1, rounds=15, wall_us=10.2)
        doc["benchmarks"] += bench(f"scan_tune/kokkos/int32/{n}", 11.0, reps=1, rounds=15, wall_us=11.0)
    md, _, failed = tune.analyze(recs, verify=gbench.records(doc))
    assert failed == 0 and "| 1.02 | 1.08 | 1.01 |" in md


def test_a_wrong_kokkos_point_is_no_time_and_no_check():
    """kps-bench times a peer's wrong result and marks it (wrong_kokkos): it is no point of the sweep
    (Kokkos would be the optimum here) and the verification shows it, failing no size on it."""
    times = canned()
    times[("int32", SIZES[1], K)] = 1.0
    doc = scan_doc(times)
    for b in doc["benchmarks"]:
        if b["name"].startswith(f"scan_tune/kokkos/int32/{SIZES[1]}/"):
            b["wrong_kokkos"] = 1
    points = tune.sweep_points(gbench.records(doc))
    assert tune.KOKKOS not in points["int32"][SIZES[1]] and tune.KOKKOS in points["int32"][SIZES[0]]
    recs = gbench.records(scan_doc(canned()))
    vdoc = verify_doc(10.2, 10.0)
    for n in SIZES:
        vdoc["benchmarks"] += bench(f"scan_tune/automatic/int32/{n}", 10.2, reps=1, rounds=15, wall_us=10.2)
        vdoc["benchmarks"] += bench(f"scan_tune/kokkos/int32/{n}", 1.0, reps=1, rounds=15, wall_us=1.0,
                                    **({"wrong_kokkos": 1} if n == SIZES[1] else {}))
    md, _, failed = tune.analyze(recs, verify=gbench.records(vdoc))
    assert "Kokkos wrong" in md and failed == 4 and md.count("slower than Kokkos") == 4


def test_a_size_where_automatic_failed_its_check_is_a_failed_row():
    recs = gbench.records(scan_doc(canned()))
    doc = verify_doc(10.2, 10.0)
    doc["benchmarks"] = [b for b in doc["benchmarks"] if not b["name"].startswith(f"scan/automatic/int32/{SIZES[2]}/")]
    doc["benchmarks"].append({"name": f"scan/automatic/int32/{SIZES[2]}/manual_time", "run_type": "iteration",
                              "error_occurred": True, "error_message": "automatic: wrong result at index 7"})
    md, _, failed = tune.analyze(recs, verify=gbench.records(doc))
    assert failed == 1 and "check failed: automatic: wrong result at index 7" in md and "4 of 5 sizes pass" in md


def test_a_peer_marked_wrong_is_a_failed_check_for_every_reader():
    doc = {"context": dict(CTX), "benchmarks": bench("scan/kokkos/float/67108864", 5.0, reps=1, wrong_kokkos=1,
                                                     label="peer kokkos wrong: wrong result at index 3")
                                               + bench("scan/automatic/float/67108864", 1.0, reps=1, wrong_kokkos=1)}
    by = {r["variant"]: r for r in gbench.records(doc)}
    assert by["kokkos"]["error"] == "peer kokkos wrong: wrong result at index 3"
    assert "error" not in by["automatic"]          # kps' own result stands: only its ratio to Kokkos is gone


def test_verify_filter_names_every_optimum():
    f = tune.verify_filter(gbench.records(scan_doc(canned())), "^scan/automatic/")
    assert re.search(f, f"scan_tune/kokkos/int32/{SIZES[0]}/manual_time")
    assert re.search(f, name("int32", SIZES[1], A) + "/iterations:15/manual_time")
    assert not re.search(f, name("int32", SIZES[1], B) + "/manual_time")


def render(folder, out):
    with Staging(out) as staging:
        return tuning.render_folder(folder, Figures(staging, ""))


def test_a_tune_folder_with_both_sweeps(tmp_path):
    reduce_times = {("int32", n, "seed", 256, 16, 0): 10.0 for n in (1000, 2000)}
    (tmp_path / "sweep.json").write_text(json.dumps(sweep_doc(reduce_times)))
    alone = render(tmp_path, tmp_path / "a")
    (tmp_path / "scan-int32.json").write_text(json.dumps(scan_doc(canned())))
    both = render(tmp_path, tmp_path / "b")
    assert not alone.scan_rows and both.scan_rows and not both.scan_verified
    assert both.table_text.startswith(alone.table_text.split("\n# kps-bench")[0].split("\ndate =")[0])
    assert sum(l.startswith("scan ") for l in both.table_text.splitlines()) == 6
    # Each part's verification is tied to its own rows.
    assert reduce_tune.fingerprint(both.table_text) == reduce_tune.fingerprint(alone.table_text)
    changed = both.table_text.replace("scan int32", "scan int32 ", 1)
    assert tune.fingerprint(changed) == tune.fingerprint(both.table_text)  # spacing aside: the same rows
    assert tune.fingerprint(both.table_text.replace(" staged 2400 ", " staged 600  ", 1)) != tune.fingerprint(
        both.table_text)
    doc = verify_doc(10.0, 10.0)
    doc["context"]["kps_tune_table_sha256"] = tune.fingerprint(both.table_text)
    (tmp_path / "verify-scan.json").write_text(json.dumps(doc))
    again = render(tmp_path, tmp_path / "c")
    assert again.scan_verified and not again.verified  # the reduction's verification is still to run
    assert "Scan rows" in (tmp_path / "c" / "tune.md").read_text()


def test_the_verifications_still_to_run():
    r = tuning.TuneRendering("", "t.table", "", 0, verified=False)
    assert tuning.unverified(r) == ["verify"]  # a table without scan rows never asks for verify-scan
    r = tuning.TuneRendering("", "t.table", "", 0, verified=True, scan_rows=True, scan_verified=False)
    assert tuning.unverified(r) == ["verify-scan"]
    r = tuning.TuneRendering("", "t.table", "", 0, verified=True, scan_rows=True, scan_verified=True)
    assert tuning.unverified(r) == []


def test_a_kokkos_row_without_single_pass_points_takes_the_rules_tiles():
    assert tune.KOKKOS.row("double", 1, 2).split()[6] == "32"
    assert tune.KOKKOS.row("int32", 1, 2).split()[6] == "64"


C16 = ("single_pass", 1, 16384, 0, 0, 0, "cached", "cached")
C64S = ("single_pass", 1, 65536, 0, 0, 0, "cached", "streaming")


def test_cached_tiles_of_a_host_sweep_parse_and_make_rows_with_a_store():
    times = {}
    for n in SIZES:
        times[("int32", n, K)] = 50.0
        times[("int32", n, C16)] = 20.0 if n < SIZES[-1] else 40.0
        times[("int32", n, C64S)] = 30.0 if n < SIZES[-1] else 20.0
    assert name("int32", SIZES[0], C16).endswith("/team:1/items:16384/store:0")
    assert name("int32", SIZES[0], C64S).endswith("/team:1/items:65536/store:1")
    points, best, rows, _ = analyse(times)
    assert best["int32"][SIZES[0]][0] == tune.Choice(*C16)
    lines = tune.row_lines(rows, {t: "int32" for t in gbench.TYPES})
    cached = [l for l in lines if l.startswith("scan int32")]
    assert re.match(r"scan int32\s+65536\s+\d+\s+single_pass\s+1\s+16384\s+cached\s+0\s+0\s+0\s+cached\s", cached[0])
    assert re.match(r"scan int32\s+\d+\s+\d+\s+single_pass\s+1\s+65536\s+cached\s+0\s+0\s+0\s+streaming\s", cached[-1])


BS = ("single_pass", 256, 32, 2400, 0, 64, "staged", "streaming")


def test_staged_points_with_streaming_stores_parse_and_make_rows_with_a_store():
    times = {}
    for n in SIZES:
        times[("int32", n, B)] = 20.0
        times[("int32", n, BS)] = 30.0 if n < SIZES[-1] else 15.0
    assert name("int32", SIZES[0], B).endswith("/prefetch:64")
    assert name("int32", SIZES[0], BS).endswith("/prefetch:64/store:1")
    points, best, rows, _ = analyse(times)
    assert best["int32"][SIZES[-1]][0] == tune.Choice(*BS)
    assert best["int32"][SIZES[0]][0] == tune.Choice(*B)
    lines = [l for l in tune.row_lines(rows, {t: "int32" for t in gbench.TYPES}) if l.startswith("scan int32")]
    # ordinary stores: a GPU table's row of ten fields after `scan`; streaming: an eleventh
    assert len(lines[0].split("#")[0].split()) == 11
    assert re.match(r"scan int32\s+\d+\s+\d+\s+single_pass\s+256\s+32\s+staged\s+2400\s+0\s+64\s+streaming\s",
                    lines[-1])
    assert "streaming stores" in tune.Choice(*BS).label()


def test_a_row_that_does_not_beat_its_neighbour_by_more_than_the_spread_is_merged():
    # At 2^17 alone B is best, by 2 % over A: within the 3 % tolerance, so A's row covers it.
    times = {}
    for n in SIZES:
        times[("int32", n, A)] = 10.0 if n != SIZES[1] else 10.2
        times[("int32", n, B)] = 20.0 if n != SIZES[1] else 10.0
    _, _, rows, _ = analyse(times)
    assert [c for _, _, c, _, _ in rows["int32"]] == [tune.Choice(*A)]
    # By 10 %, more than the tolerance: its own row stays.
    times[("int32", SIZES[1], A)] = 11.0
    _, _, rows, _ = analyse(times)
    assert [c for _, _, c, _, _ in rows["int32"]] == [tune.Choice(*A), tune.Choice(*B), tune.Choice(*A)]
