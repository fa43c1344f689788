"""Unit tests of the reduction tuning analysis (kps_report.analyses.reduce_tune) on canned Google Benchmark JSON: the
optimum per size, the merging of sizes with similar optima into ranges and their boundaries,
capped configurations standing in for the seed's where the cap does not bind, same-size type
copies, the table text (format of src/kps/tuning/table.hpp), the checks, and the files written.
Run by ctest (kps.reduce.tune_analysis) with pytest."""
import json
import os
import re
import tempfile
import unittest
from pathlib import Path

from kps_report import gbench, tuning
from kps_report.analyses import reduce_tune as tune
from kps_report.analyses.common import row_source

CTX = {"device": "Test GPU 9000", "backend": "Cuda", "kokkos_concurrency": "1024", "device_compute_units": "4",
       "device_compute_capability": "9.0", "device_memory_bytes": "85017493504", "date": "2025-01-01T00:00:00", "kps_git_revision": "abc"}


def bench(name, us, reps=3, **counters):
    """Google Benchmark entries of one benchmark: `reps` repetitions around a median of `us`."""
    out = []
    for k, f in enumerate([1.0, 0.99, 1.01][:reps]):
        out.append({"name": name + "/manual_time", "run_name": name + "/manual_time", "run_type": "iteration",
                    "repetitions": reps, "repetition_index": k, "iterations": 100, "real_time": us * f,
                    "cpu_time": us * f, "time_unit": "us", **counters})
    return out


def sweep_doc(times):
    """times: {(type, n, variant, team, items, waves): µs} -> a Google Benchmark document."""
    entries = []
    for (t, n, variant, team, items, waves), us in times.items():
        name = f"reduce_sweep/{variant}/{t}/{n}/team:{team}/items:{items}" + (f"/waves:{waves}" if waves else "")
        league = -(-n // (team * items)) if not waves else min(-(-n // (team * items)), (1024 // team) * waves)
        entries += bench(name, us, **{"GB/s": n * 4 / us / 1e3, "load_per_thread": n / (team * league),
                                      "league": league, "team": team, "items": items})
    return {"context": dict(CTX), "benchmarks": entries}


def records(doc):
    return gbench.records(doc)


A = ("seed", 64, 2, 0)
B = ("seed", 256, 16, 0)
C = ("capped", 256, 16, 1)  # cap = 1024 // 256 * 1 = 4 teams: binds from n > 4 * 4096
SMALL = [1000, 2000, 4000]
LARGE = [1000000, 2000000, 4000000]


def verified(doc, verify):
    """tune.analyze of the sweep `doc` with the verification run `verify` (Google Benchmark
    documents), in a scratch folder: (markdown, number of failed checks)."""
    with tempfile.TemporaryDirectory() as d:
        md, _, failed = tune.analyze(records(doc), CTX, d, figures_in_md=False, verify=records(verify))
    return md, failed


def canned(overrides=None):
    times = {}
    for n in SMALL:
        times[("int32", n) + A] = 10.0
        times[("int32", n) + B] = 15.0
    for n in LARGE:
        times[("int32", n) + A] = 200.0
        times[("int32", n) + B] = 100.0
        times[("int32", n) + C] = 120.0
    times.update(overrides or {})
    return times


class Tune(unittest.TestCase):
    def analyse(self, times, tolerance=tune.TOLERANCE):
        recs = records(sweep_doc(times))
        points = tune.sweep_points(recs)
        best = tune.optima(points, 1024)
        rows, source = tune.build_rows(points, best, 1024, tolerance)
        return points, best, rows, source

    def test_optimum_per_size(self):
        _, best, _, _ = self.analyse(canned())
        for n in SMALL:
            self.assertEqual(best["int32"][n][0], tune.Config(*A))
            self.assertAlmostEqual(best["int32"][n][1], 10e-6)
        for n in LARGE:
            self.assertEqual(best["int32"][n][0], tune.Config(*B))

    def test_tuned_on_round_wall_times_where_every_point_has_them(self):
        # The loop (back to back, warm cache) favours A at 1000000; the flushed rounds favour B.
        doc = sweep_doc(canned({("int32", 1000000) + A: 90.0}))
        for e in doc["benchmarks"]:
            e["wall_us"] = 50.0 if "/team:256/items:16/manual" in e["name"] else 60.0
        best = tune.optima(tune.sweep_points(records(doc)), 1024)
        self.assertEqual(best["int32"][1000000][0], tune.Config(*B))
        self.assertAlmostEqual(best["int32"][1000000][1], 50e-6)
        # One point without a wall time: every point is compared by Google Benchmark's time.
        first = doc["benchmarks"][0]["name"]
        for e in doc["benchmarks"]:
            if e["name"] == first:
                del e["wall_us"]
        best = tune.optima(tune.sweep_points(records(doc)), 1024)
        self.assertEqual(best["int32"][1000000][0], tune.Config(*A))
        self.assertAlmostEqual(best["int32"][1000000][1], 90e-6)

    def test_ranges_and_boundaries(self):
        _, _, rows, _ = self.analyse(canned())
        got = [(lo, hi, c) for lo, hi, c, _, _ in rows["int32"]]
        self.assertEqual(got, [(0, 63245, tune.Config(*A)), (63246, None, tune.Config(*B))])  # isqrt(4000 * 10^6)

    def test_similar_optima_merge(self):
        # At 2000 and 4000 B is best, but A is within 3 %: one range, and A (worst 1.02) is its entry.
        over = {("int32", 2000) + A: 10.2, ("int32", 2000) + B: 10.0,
                ("int32", 4000) + A: 10.1, ("int32", 4000) + B: 10.0}
        _, best, rows, _ = self.analyse(canned(over))
        self.assertEqual(best["int32"][2000][0], tune.Config(*B))
        self.assertEqual(rows["int32"][0][2], tune.Config(*A))
        self.assertEqual(rows["int32"][0][4], SMALL)
        self.assertAlmostEqual(rows["int32"][0][3], 1.02, places=6)

    def test_dissimilar_optima_split(self):
        # At 4000, A is 10 % off the best: a range of its own (B), so three ranges.
        over = {("int32", 4000) + A: 11.0, ("int32", 4000) + B: 10.0}
        _, _, rows, _ = self.analyse(canned(over))
        self.assertEqual([r[4] for r in rows["int32"]], [[1000, 2000], [4000, *LARGE]])
        # ... unless the tolerance is wider.
        _, _, rows, _ = self.analyse(canned(over), tolerance=0.12)
        self.assertEqual(len(rows["int32"]), 2)

    def test_capped_stands_in_for_seed_where_cap_does_not_bind(self):
        # C is best at the large sizes and was not run at the small ones, where its cap (4 teams of
        # 4096) does not bind: there it is the seed's B, so the large range may extend down...
        over = {("int32", n) + C: 90.0 for n in LARGE}
        points, best, rows, source = self.analyse(canned(over))
        self.assertAlmostEqual(tune.config_seconds(points["int32"][4000], tune.Config(*C), 4000, 1024), 15e-6)
        # (a cap that binds, 16 teams of 128 where 32 are needed, has no stand-in)
        self.assertIsNone(tune.config_seconds(points["int32"][4000], tune.Config("capped", 64, 2, 1), 4000, 1024))
        self.assertEqual(rows["int32"][-1][2], tune.Config(*C))
        self.assertEqual(tune.Config(*C).league(1024), 4)
        # ... and the table's league column holds the cap in teams.
        text = tune.table_text(CTX, rows, source, 1024)
        self.assertRegex(text, r"\nreduce int32\s+63246\s+inf\s+256\s+16\s+4\s+0\s+#")

    def test_dynamic_teams_make_a_row_with_a_schedule(self):
        # D (the seed's league of B with dynamic teams) is best at the large sizes; not run at the
        # small ones, where its league is one wave at most: there the seed's B stands in.
        D = ("dynamic", 256, 16, 0)
        over = {("int32", n) + D: 80.0 for n in LARGE}
        points, best, rows, source = self.analyse(canned(over))
        self.assertAlmostEqual(tune.config_seconds(points["int32"][4000], tune.Config(*D), 4000, 1024), 15e-6)
        self.assertEqual(rows["int32"][-1][2], tune.Config(*D))
        self.assertEqual(tune.Config(*D).schedule(), "dynamic")
        self.assertIn("dynamic teams", tune.Config(*D).label())
        text = tune.table_text(CTX, rows, source, 1024)
        self.assertRegex(text, r"\nreduce int32\s+\d+\s+inf\s+256\s+16\s+0\s+0\s+dynamic\s+#")
        # static rows keep their seven fields
        self.assertRegex(text, r"\nreduce int32\s+0\s+\d+\s+64\s+2\s+0\s+0\s+#")
        self.assertEqual(tune.benchmark_name("int32", 1000000, tune.Config(*D)),
                         "reduce_sweep/dynamic/int32/1000000/team:256/items:16")

    def test_a_stand_in_never_labels_a_row_dynamic(self):
        # At the small sizes the seed's B is best and D (B's league, dynamic) has no point of its
        # own there (B's league is one team, one wave at most): B's time stands in for it, a tie.
        # At 20000 (5 teams, past one wave of 4) D was timed and is slow, A is best; at the large
        # sizes D is best. The small sizes' row is B's, static: labelled dynamic from the stand-in,
        # the sizes past its last (leagues past one wave) would run D's slow schedule.
        D = ("dynamic", 256, 16, 0)
        over = {("int32", n) + A: 15.0 for n in SMALL}
        over.update({("int32", n) + B: 10.0 for n in SMALL})
        over.update({("int32", 20000) + A: 10.0, ("int32", 20000) + B: 30.0, ("int32", 20000) + D: 500.0})
        over.update({("int32", n) + D: 80.0 for n in LARGE})
        points, best, rows, _ = self.analyse(canned(over))
        self.assertAlmostEqual(tune.config_seconds(points["int32"][SMALL[0]], tune.Config(*D), SMALL[0], 1024), 10e-6)
        self.assertEqual([r[4] for r in rows["int32"]], [SMALL, [20000], LARGE])
        self.assertEqual([r[2] for r in rows["int32"]], [tune.Config(*B), tune.Config(*A), tune.Config(*D)])

    def test_dynamic_teams_within_the_spread_of_a_static_pick_are_taken(self):
        # At the large sizes B (static) is best; D (B's league, dynamic, past one wave there) is
        # 0.5 % behind, within the repetitions' 1 % spread: the balanced schedule is taken. 3 %
        # behind, outside the spread (but within the 3 % merge tolerance), B stays.
        D = ("dynamic", 256, 16, 0)
        _, _, rows, _ = self.analyse(canned({("int32", n) + D: 100.5 for n in LARGE}))
        self.assertEqual(rows["int32"][-1][2], tune.Config(*D))
        self.assertEqual(rows["int32"][-1][4], LARGE)
        self.assertAlmostEqual(rows["int32"][-1][3], 1.005)
        _, _, rows, _ = self.analyse(canned({("int32", n) + D: 103.0 for n in LARGE}))
        self.assertEqual(rows["int32"][-1][2], tune.Config(*B))
        # Within the spread at two of the row's sizes but not at the third: B stays.
        over = {("int32", n) + D: 100.5 for n in LARGE[:2]}
        over[("int32", LARGE[2]) + D] = 103.0
        _, _, rows, _ = self.analyse(canned(over))
        self.assertEqual(rows["int32"][-1][2], tune.Config(*B))
        # Size by size, not by the worst ratio: B reads 1.00, 1.00, 1.02 of the best, D 1.02, 1.00,
        # 1.00 (the same worst ratio); D is 2 % behind B at the first size, outside the spread.
        over = {("int32", LARGE[0]) + D: 102.0, ("int32", LARGE[1]) + D: 100.0,
                ("int32", LARGE[2]) + D: 100.0, ("int32", LARGE[2]) + B: 102.0}
        _, _, rows, _ = self.analyse(canned(over))
        self.assertEqual(rows["int32"][-1][2], tune.Config(*B))

    def test_a_dynamic_choice_is_no_baseline_for_the_merge(self):
        # A at 1.035 x B at the large sizes is outside the 3 % merge tolerance of B: two rows, A's
        # and B's. D (0.5 % behind B) then takes B's row; had it taken it before the merge, A (1.035
        # / 1.005 = 1.030 x D) would have merged the large row into A's, 3.5 % behind the best.
        D = ("dynamic", 256, 16, 0)
        over = {("int32", n) + D: 100.5 for n in LARGE}
        over.update({("int32", n) + A: 103.5 for n in LARGE})
        _, _, rows, _ = self.analyse(canned(over))
        self.assertEqual([r[2] for r in rows["int32"]], [tune.Config(*A), tune.Config(*D)])
        self.assertEqual(rows["int32"][-1][4], LARGE)
        self.assertAlmostEqual(rows["int32"][-1][3], 1.005)

    def test_a_type_swept_in_the_caches_alone_takes_its_size_mates_rows_past_them(self):
        # int64 swept at the small sizes alone (B best there), double at every size (A small, B
        # large): int64 keeps its own row to the geometric mean of its last size and double's next
        # (isqrt(4000 * 10^6) = 63245) and takes double's rows past it, named as double's.
        times = {}
        for n in SMALL:
            times[("double", n) + A], times[("double", n) + B] = 10.0, 15.0
            times[("int64", n) + A], times[("int64", n) + B] = 15.0, 10.0
        for n in LARGE:
            times[("double", n) + A], times[("double", n) + B] = 200.0, 100.0
        points, best, rows, source = self.analyse(times)
        self.assertEqual(source["int64"], "int64")
        self.assertEqual([(lo, hi, c) for lo, hi, c, _, _ in rows["int64"]],
                         [(0, 63245, tune.Config(*B)), (63246, None, tune.Config(*B))])
        self.assertEqual([(lo, hi, c) for lo, hi, c, _, _ in rows["double"]],
                         [(0, 63245, tune.Config(*A)), (63246, None, tune.Config(*B))])
        self.assertEqual([row_source("int64", r[4], source) for r in rows["int64"]], ["int64", "double"])
        text = tune.table_text(CTX, rows, source, 1024)
        int64 = [l for l in text.splitlines() if l.startswith("reduce int64")]
        self.assertIn("worst 1.000 x best at swept N", int64[0])
        self.assertIn("# from double (same element size; int64 past its sweep)", int64[1])
        # With double swept at 10^5 too (A best there, one row with the small sizes to
        # isqrt(10^5 * 10^6)), the cut moves to isqrt(4000 * 10^5) and that row, across it, is clipped.
        times[("double", 100000) + A], times[("double", 100000) + B] = 20.0, 40.0
        _, _, rows, source = self.analyse(times)
        self.assertEqual([(lo, hi) for lo, hi, _, _, _ in rows["double"]], [(0, 316227), (316228, None)])
        self.assertEqual([(lo, hi, c) for lo, hi, c, _, _ in rows["int64"]],
                         [(0, 20000, tune.Config(*B)), (20001, 316227, tune.Config(*A)), (316228, None, tune.Config(*B))])

    def test_dynamic_teams_without_a_point_past_one_wave_have_no_time(self):
        # A sweep run before the knob has no dynamic point at a size where the seed's league is
        # more than one wave: the seed's (static) time does not stand in there, so a row measured
        # dynamic at the largest size does not reach down over sizes where it was never run.
        D = ("dynamic", 256, 16, 0)
        over = {("int32", LARGE[-1]) + D: 80.0}
        points, best, rows, _ = self.analyse(canned(over))
        self.assertIsNone(tune.config_seconds(points["int32"][LARGE[0]], tune.Config(*D), LARGE[0], 1024))
        for lo, hi, c, _, sizes in rows["int32"]:
            if c == tune.Config(*D):
                self.assertEqual(sizes, [LARGE[-1]])

    def test_points_of_one_launch_are_timed_as_one_where_pooled(self):
        # At n = 2048 (concurrency 1024, one wave of team 64 = 16 teams) the capped points of
        # team 64 with 2 and 6 items launch the same 16 teams reading pairs of int32 (the width
        # divides the items): one launch, measured 10 and 14 us; the seed's point of 64 x 2
        # launches those 16 teams too. Team 64 x 3 items reads single elements: another launch.
        times = {("int32", 2048, "capped", 64, 2, 1): 10.0, ("int32", 2048, "capped", 64, 6, 1): 14.0,
                 ("int32", 2048, "seed", 64, 2, 0): 12.0, ("int32", 2048, "seed", 64, 3, 0): 11.0}
        points = tune.sweep_points(records(sweep_doc(times)))
        launch = {c: tune.launch(c, "int32", 2048, 1024) for c in points["int32"][2048]}
        self.assertEqual(launch[tune.Config("capped", 64, 2, 1)], (64, 16, 2, False))
        self.assertEqual(launch[tune.Config("capped", 64, 6, 1)], (64, 16, 2, False))
        self.assertEqual(launch[tune.Config("seed", 64, 2, 0)], (64, 16, 2, False))
        self.assertEqual(launch[tune.Config("seed", 64, 3, 0)], (64, 11, 1, False))
        pooled = tune.pool_equivalent(points, 1024)["int32"][2048]
        for c in (tune.Config("capped", 64, 2, 1), tune.Config("capped", 64, 6, 1), tune.Config("seed", 64, 2, 0)):
            self.assertAlmostEqual(pooled[c]["tune_seconds"], 12e-6)        # the launch's median
        self.assertAlmostEqual(pooled[tune.Config("capped", 64, 6, 1)]["own_seconds"], 14e-6)
        self.assertAlmostEqual(pooled[tune.Config("seed", 64, 3, 0)]["tune_seconds"], 11e-6)  # a launch of its own
        # Unpooled the luckiest copy (10 us) is the optimum; pooled the other launch is (11 us).
        self.assertEqual(tune.optima(points, 1024)["int32"][2048][0], tune.Config("capped", 64, 2, 1))
        self.assertEqual(tune.optima({"int32": {2048: pooled}}, 1024)["int32"][2048][0], tune.Config("seed", 64, 3, 0))
        # Dynamic teams are a launch of their own only past one wave; an unknown concurrency pools nothing.
        self.assertFalse(tune.launch(tune.Config("dynamic", 64, 2, 0), "int32", 2048, 1024)[3])
        self.assertTrue(tune.launch(tune.Config("dynamic", 64, 2, 0), "int32", 4096, 1024)[3])
        self.assertIs(tune.pool_equivalent(points, 0), points)
        # The table says so where a block pools.
        _, _, rows, source = self.analyse(canned())
        self.assertIn("timed as one", tune.table_text(CTX, rows, source, 1024, pool=True))
        self.assertNotIn("timed as one", tune.table_text(CTX, rows, source, 1024))

    def test_same_size_copies(self):
        _, _, rows, source = self.analyse(canned())
        self.assertEqual(source, {"int32": "int32", "float": "int32"})
        self.assertIs(rows["float"], rows["int32"])
        self.assertNotIn("double", rows)

    def test_table_text_format(self):
        _, _, rows, source = self.analyse(canned())
        text = tune.table_text(CTX, rows, source, 1024, "canned sweep", "kps tune", ["kps-bench x"])
        lines = [l.strip() for l in text.splitlines() if l.strip() and not l.strip().startswith("#")]
        self.assertEqual(lines[0], "kps-tuning-table 1")
        header = dict(l.split(" = ", 1) for l in lines[1:] if re.match(r"^[a-z_]+ = ", l))
        self.assertEqual(header["device"], "Test GPU 9000")
        self.assertEqual(header["backend"], "Cuda")
        self.assertEqual(header["concurrency"], "1024")
        self.assertEqual(header["sweep"], "canned sweep")
        # A GPU without a table of its own finds this one by its compute capability.
        self.assertEqual(header["compute_capability"], "9.0")
        self.assertEqual(header["memory_bytes"], "85017493504")
        rows_txt = [l.split("#")[0].split() for l in lines[1 + len(header):]]
        self.assertEqual(len(rows_txt), 4)
        for r in rows_txt:
            self.assertEqual(len(r), 8)
            self.assertEqual(r[0], "reduce")
            self.assertIn(r[1], ("int32", "float"))
        self.assertEqual(rows_txt[0], ["reduce", "int32", "0", "63245", "64", "2", "0", "0"])
        self.assertEqual(tune.table_slug(CTX), "test-gpu-9000-cuda")
        # The fingerprint ignores the date and the command line, not the rows.
        other = text.replace("date = 2025-01-01T00:00:00", "date = 2030").replace("command = tools", "command = x")
        self.assertEqual(tune.fingerprint(text), tune.fingerprint(other))
        self.assertNotEqual(tune.fingerprint(text), tune.fingerprint(text.replace("int32  0 ", "int32  1 ")))
        # A table of the older format (kps-reduce-table 1, rows without `reduce`) keeps its fingerprint:
        # verification runs of tables written before the format changed still match them.
        older = text.replace("kps-tuning-table 1", "kps-reduce-table 1")
        older = re.sub(r"^reduce (\w+) +", lambda m: f"{m[1]:<8} ", older, flags=re.M)
        self.assertNotIn("\nreduce ", older)
        self.assertEqual(tune.fingerprint(older), tune.fingerprint(text))
        # Tables written before the compute capability and memory were recorded keep theirs too.
        bare = re.sub(r"^(compute_capability|memory_bytes) = .*\n", "", text, flags=re.M)
        self.assertNotIn("compute_capability", bare)
        self.assertEqual(tune.fingerprint(bare), tune.fingerprint(text))

    def test_analyze_writes_files_and_checks(self):
        doc = sweep_doc(canned())
        verify = {"context": dict(CTX), "benchmarks": (
            bench("reduce/tuned/int32/1000", 10.3) + bench("reduce/kokkos/int32/1000", 12.0) +
            bench("reduce/tuned/int32/4000000", 110.0, ratio_to_cub=1.02, ratio_to_copy=0.97) +   # 1.10 x best
            bench("reduce/kokkos/int32/4000000", 105.0))}                                          # and slower
        with tempfile.TemporaryDirectory() as d:
            md, text, failed = tune.analyze(records(doc), CTX, d, figures_in_md=False, verify=records(verify))
            self.assertTrue(os.path.exists(os.path.join(d, "sweep.csv")))
            self.assertTrue(os.path.exists(os.path.join(d, "optima.csv")))
            with open(os.path.join(d, "optima.csv")) as f:
                self.assertEqual(len(f.read().strip().splitlines()), 1 + len(SMALL) + len(LARGE))
        self.assertIn("Optimum per size", md)
        self.assertIn("kps-tuning-table 1", text)
        self.assertEqual(failed, 1)  # the 4000000 verification row
        self.assertRegex(md, r"\| int32 \| 4000000 \|.*slower than Kokkos; > 1.05 x sweep best")
        self.assertRegex(md, r"\| int32 \| 1000 \|.*\| ok \|")
        # The optimum re-measured in the verification run is the reference where present.
        verify["benchmarks"] += bench("reduce_sweep/seed/int32/4000000/team:256/items:16", 108.0)
        md, failed = verified(doc, verify)
        self.assertEqual(failed, 1)
        self.assertRegex(md, r"\| int32 \| 4000000 \|[^\n]*\| 1.02 \| 0.955 \|[^\n]*slower than Kokkos \|")

    def test_verification_compares_round_wall_times(self):
        # A loop median thrown off by the host (tuned 40 us against Kokkos' 30) is not what the
        # check reads where every record has its rounds' wall time (tuned 20 us, Kokkos 30).
        doc = sweep_doc(canned())
        verify = {"context": dict(CTX), "benchmarks":
                  bench("reduce/tuned/int32/1000", 40.0, wall_us=20.0, **{"GB/s": 1.0})
                  + bench("reduce/kokkos/int32/1000", 30.0, wall_us=30.0)
                  + bench("reduce_sweep/seed/int32/1000/team:64/items:2", 19.0, wall_us=19.5)}
        md, failed = verified(doc, verify)
        self.assertEqual(failed, 0)
        self.assertRegex(md, r"\| int32 \| 1000 \|[^\n]*\| 1.03 \| 1.5 \|[^\n]*\| ok \|")
        # One record without it: Google Benchmark's times for that comparison (40 / 19: over 1.05).
        verify["benchmarks"] = [b for b in verify["benchmarks"] if "reduce_sweep" not in b["name"]]
        verify["benchmarks"] += bench("reduce_sweep/seed/int32/1000/team:64/items:2", 19.0)
        md, failed = verified(doc, verify)
        self.assertEqual(failed, 1)
        self.assertRegex(md, r"\| int32 \| 1000 \|[^\n]*\| 2.11 \| 1.5 \|[^\n]*> 1.05 x sweep best \|")

    def test_verification_prefers_ratios_from_the_same_rounds(self):
        # Across benchmarks, tuned (22 us) looks slower than Kokkos (20 us) and the optimum
        # (19 us): each benchmark ran in its own rounds, under its own state of the machine. The
        # ratios timed in the same rounds say otherwise and are the ones read.
        doc = sweep_doc(canned())
        verify = {"context": dict(CTX), "benchmarks":
                  bench("reduce/tuned/int32/1000", 22.0, wall_us=22.0, ratio_to_kokkos=1.04, **{"GB/s": 1.0})
                  + bench("reduce/kokkos/int32/1000", 20.0, wall_us=20.0)
                  + bench("reduce_sweep/seed/int32/1000/team:64/items:2", 19.0, wall_us=19.0, ratio_to_tuned=1.01)}
        md, failed = verified(doc, verify)
        self.assertEqual(failed, 0)
        self.assertRegex(md, r"\| int32 \| 1000 \|[^\n]*\| 1.01 \| 1.04 \|[^\n]*\| ok \|")
        # Same-round ratios that miss the targets fail the check.
        for b in verify["benchmarks"]:
            if "ratio_to_kokkos" in b:
                b["ratio_to_kokkos"] = 0.97
            if "ratio_to_tuned" in b:
                b["ratio_to_tuned"] = 1.08
        md, failed = verified(doc, verify)
        self.assertEqual(failed, 1)
        self.assertRegex(md, r"\| int32 \| 1000 \|[^\n]*\| 1.08 \| 0.97 \|"
                             r"[^\n]*slower than Kokkos; > 1.05 x sweep best \|")

    def test_verify_filter(self):
        f = tune.verify_filter(records(sweep_doc(canned())), "^reduce/(tuned|kokkos)/")
        self.assertTrue(re.search(f, "reduce_sweep/seed/int32/1000/team:64/items:2/manual_time"))
        self.assertTrue(re.search(f, "reduce_sweep/seed/int32/4000000/team:256/items:16/manual_time"))
        self.assertTrue(re.search(f, "reduce/tuned/int32/4000000/manual_time"))
        self.assertFalse(re.search(f, "reduce_sweep/seed/int32/4000000/team:64/items:2/manual_time"))
        self.assertFalse(re.search(f, "reduce_sweep/seed/int32/10000/team:64/items:2/manual_time"))  # 1000 != 10000

    def test_failed_benchmarks_are_listed_not_used(self):
        doc = sweep_doc(canned())
        doc["benchmarks"].append({"name": "reduce_sweep/seed/int32/1000/team:32/items:2/manual_time",
                                  "run_name": "reduce_sweep/seed/int32/1000/team:32/items:2/manual_time",
                                  "run_type": "iteration", "error_occurred": True,
                                  "error_message": "seed: wrong result", "real_time": 0.001, "time_unit": "us"})
        with tempfile.TemporaryDirectory() as d:
            md, _, _ = tune.analyze(records(doc), CTX, d, figures_in_md=False)
        self.assertIn("Failed checks", md)
        self.assertIn("wrong result", md)
        points = tune.sweep_points([r for r in records(doc) if "error" not in r])
        self.assertNotIn(tune.Config("seed", 32, 2), points["int32"][1000])


class SweepFolderTest(unittest.TestCase):
    def test_header_context_is_the_newest_runs(self):
        """A partial re-tune re-runs some of a folder's sweeps: the table's header (date, revision)
        names the newest run, whatever its place in the sweep's order."""
        with tempfile.TemporaryDirectory() as d:
            for name, date, rev in (("sweep-a", "2025-02-01T00:00:00", "new"), ("sweep-b", "2025-01-01T00:00:00", "old")):
                doc = sweep_doc({(t, n, *A): 10.0 for t in ("int32",) for n in SMALL})
                doc["context"].update(date=date, kps_git_revision=rev)
                Path(d, f"{name}.json").write_text(json.dumps(doc))
            sweep = tuning.load_sweep(Path(d), None)
            self.assertEqual(sweep.ctx["date"], "2025-02-01T00:00:00")
            self.assertEqual(sweep.ctx["kps_git_revision"], "new")

    def test_sweep_line_names_the_runs_that_ran(self):
        """A block that gained a run (full-host's int64 sweep of the caches) renders a folder swept
        before it: the table's `sweep =` line names the runs whose JSON are there, not the block's."""
        from kps_report.study import Study
        block = {"merge_tolerance": 0.1, "runs": [
            {"id": "sweep-a", "filter": "^reduce_sweep/", "sizes": "1000,2000", "types": "int32", "repetitions": 3},
            {"id": "sweep-b", "filter": "^reduce_sweep/", "sizes": "1000,2000", "types": "int64", "repetitions": 3}]}
        study = Study("reduce", "reduce", Path("."), {}, {"blk": block})
        with tempfile.TemporaryDirectory() as d:
            Path(d, "sweep-a.json").write_text(json.dumps(sweep_doc({("int32", n, *A): 10.0 for n in SMALL})))
            sweep = tuning.load_sweep(Path(d), study)
            self.assertEqual(sweep.scale, "blk")
            self.assertIn("sweep-a: sizes 1000,2000, types int32", sweep.text)
            self.assertNotIn("sweep-b", sweep.text)
