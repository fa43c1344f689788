"""Unit tests of the tuning analysis (kps_report.analyses.tune) on canned Google Benchmark JSON.

The reduction's rows: the optimum per size, the merging of sizes with similar optima into ranges
and their boundaries, capped configurations standing in for the seed's where the cap does not
bind, same-size type copies, the table text (format of src/kps/tuning/table.hpp), the checks, and
the files written. The scan's rows: the optimum per size among the single pass's knobs and Kokkos'
scan, the rows and their boundaries, a Kokkos row's single-pass knobs, the row format, the
verification checks, and a tune folder rendered with both sweeps: the scan rows follow the reduce
rows, each part's verification tied to its own rows. Both: the knobs' names read from kps-bench's
kps_knobs, the table written in format 2 with the fingerprints of its format-1 form, and the
committed verifications still valid. Run by ctest (kps.reduce.tune_analysis) with pytest."""
import json
import os
import re
import tempfile
import unittest
from pathlib import Path

import pytest

from conftest import ROOT
from kps_report import gbench, tuning
from kps_report.analyses import tune
from kps_report.analyses.common import row_source
from kps_report.errors import KpsError
from kps_report.output import Figures, Staging
from kps_report.study import load_studies

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


def as_format_1(text):
    """A table of format 2 as format 1 wrote it: rows without their class (plus, the sums')."""
    return re.sub(r"^(reduce|scan) plus ", r"\1 ", text.replace("kps-tuning-table 2", "kps-tuning-table 1"), flags=re.M)


A = ("seed", 64, 2, 0)
B = ("seed", 256, 16, 0)
C = ("capped", 256, 16, 1)  # cap = 1024 // 256 * 1 = 4 teams: binds from n > 4 * 4096
SMALL = [1000, 2000, 4000]
LARGE = [1000000, 2000000, 4000000]


def verified(doc, verify):
    """tune.REDUCE.analyze of the sweep `doc` with the verification run `verify` (Google Benchmark
    documents), in a scratch folder: (markdown, number of failed checks)."""
    with tempfile.TemporaryDirectory() as d:
        md, _, failed = tune.REDUCE.analyze(records(doc), CTX, d, figures_in_md=False, verify=records(verify))
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
        points = tune.REDUCE.sweep_points(recs)
        best = tune.optima(points)
        rows, source = tune.REDUCE.build_rows(points, best, 1024, tolerance)
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
        best = tune.optima(tune.REDUCE.sweep_points(records(doc)))
        self.assertEqual(best["int32"][1000000][0], tune.Config(*B))
        self.assertAlmostEqual(best["int32"][1000000][1], 50e-6)
        # One point without a wall time: every point is compared by Google Benchmark's time.
        first = doc["benchmarks"][0]["name"]
        for e in doc["benchmarks"]:
            if e["name"] == first:
                del e["wall_us"]
        best = tune.optima(tune.REDUCE.sweep_points(records(doc)))
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
        text = tune.REDUCE.table_text(CTX, rows, source, 1024)
        self.assertRegex(text, r"\nreduce plus int32\s+63246\s+inf\s+256\s+16\s+4\s+0\s+#")

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
        text = tune.REDUCE.table_text(CTX, rows, source, 1024)
        self.assertRegex(text, r"\nreduce plus int32\s+\d+\s+inf\s+256\s+16\s+0\s+0\s+dynamic\s+#")
        # static rows keep their seven fields after the class
        self.assertRegex(text, r"\nreduce plus int32\s+0\s+\d+\s+64\s+2\s+0\s+0\s+#")
        self.assertEqual(tune.REDUCE.benchmark_name("int32", 1000000, tune.Config(*D)),
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
        text = tune.REDUCE.table_text(CTX, rows, source, 1024)
        int64 = [l for l in text.splitlines() if l.startswith("reduce plus int64")]
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
        points = tune.REDUCE.sweep_points(records(sweep_doc(times)))
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
        self.assertEqual(tune.optima(points)["int32"][2048][0], tune.Config("capped", 64, 2, 1))
        self.assertEqual(tune.optima({"int32": {2048: pooled}})["int32"][2048][0], tune.Config("seed", 64, 3, 0))
        # Dynamic teams are a launch of their own only past one wave; an unknown concurrency pools nothing.
        self.assertFalse(tune.launch(tune.Config("dynamic", 64, 2, 0), "int32", 2048, 1024)[3])
        self.assertTrue(tune.launch(tune.Config("dynamic", 64, 2, 0), "int32", 4096, 1024)[3])
        self.assertIs(tune.pool_equivalent(points, 0), points)
        # The table says so where a block pools.
        _, _, rows, source = self.analyse(canned())
        self.assertIn("timed as one", tune.REDUCE.table_text(CTX, rows, source, 1024, pool=True))
        self.assertNotIn("timed as one", tune.REDUCE.table_text(CTX, rows, source, 1024))

    def test_same_size_copies(self):
        _, _, rows, source = self.analyse(canned())
        self.assertEqual(source, {"int32": "int32", "float": "int32"})
        self.assertIs(rows["float"], rows["int32"])
        self.assertNotIn("double", rows)

    def test_table_text_format(self):
        _, _, rows, source = self.analyse(canned())
        text = tune.REDUCE.table_text(CTX, rows, source, 1024, "canned sweep", "kps tune", ["kps-bench x"])
        lines = [l.strip() for l in text.splitlines() if l.strip() and not l.strip().startswith("#")]
        self.assertEqual(lines[0], "kps-tuning-table 2")
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
            self.assertEqual(len(r), 9)
            self.assertEqual(r[:2], ["reduce", "plus"])
            self.assertIn(r[2], ("int32", "float"))
        self.assertEqual(rows_txt[0], ["reduce", "plus", "int32", "0", "63245", "64", "2", "0", "0"])
        self.assertEqual(tune.table_slug(CTX), "test-gpu-9000-cuda")
        # The fingerprint ignores the date and the command line, not the rows.
        other = text.replace("date = 2025-01-01T00:00:00", "date = 2030").replace("command = tools", "command = x")
        self.assertEqual(tune.REDUCE.fingerprint(text), tune.REDUCE.fingerprint(other))
        self.assertNotEqual(tune.REDUCE.fingerprint(text),
                            tune.REDUCE.fingerprint(text.replace("int32  0 ", "int32  1 ")))
        # Tables of the older formats keep their fingerprint: verification runs of tables written
        # before the format changed still match them. Format 1 (kps-tuning-table 1, rows without
        # their class)...
        format_1 = as_format_1(text)
        self.assertNotIn(" plus ", format_1)
        self.assertEqual(tune.REDUCE.fingerprint(format_1), tune.REDUCE.fingerprint(text))
        # ... and kps-reduce-table 1 (rows without `reduce` either).
        older = format_1.replace("kps-tuning-table 1", "kps-reduce-table 1")
        older = re.sub(r"^reduce (\w+) +", lambda m: f"{m[1]:<8} ", older, flags=re.M)
        self.assertNotIn("\nreduce ", older)
        self.assertEqual(tune.REDUCE.fingerprint(older), tune.REDUCE.fingerprint(text))
        # A row of another class is another table.
        builtin = re.sub(r"^reduce plus ", "reduce builtin ", text, count=1, flags=re.M)
        self.assertNotEqual(tune.REDUCE.fingerprint(builtin), tune.REDUCE.fingerprint(text))
        # Tables written before the compute capability and memory were recorded keep theirs too.
        bare = re.sub(r"^(compute_capability|memory_bytes) = .*\n", "", text, flags=re.M)
        self.assertNotIn("compute_capability", bare)
        self.assertEqual(tune.REDUCE.fingerprint(bare), tune.REDUCE.fingerprint(text))

    def test_analyze_writes_files_and_checks(self):
        doc = sweep_doc(canned())
        verify = {"context": dict(CTX), "benchmarks": (
            bench("reduce/tuned/int32/1000", 10.3) + bench("reduce/kokkos/int32/1000", 12.0) +
            bench("reduce/tuned/int32/4000000", 110.0, ratio_to_cub=1.02, ratio_to_copy=0.97) +   # 1.10 x best
            bench("reduce/kokkos/int32/4000000", 105.0))}                                          # and slower
        with tempfile.TemporaryDirectory() as d:
            md, text, failed = tune.REDUCE.analyze(records(doc), CTX, d, figures_in_md=False, verify=records(verify))
            self.assertTrue(os.path.exists(os.path.join(d, "sweep.csv")))
            self.assertTrue(os.path.exists(os.path.join(d, "optima.csv")))
            with open(os.path.join(d, "optima.csv")) as f:
                self.assertEqual(len(f.read().strip().splitlines()), 1 + len(SMALL) + len(LARGE))
        self.assertIn("Optimum per size", md)
        self.assertIn("kps-tuning-table 2", text)
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
        f = tune.REDUCE.verify_filter(records(sweep_doc(canned())), "^reduce/(tuned|kokkos)/")
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
            md, _, _ = tune.REDUCE.analyze(records(doc), CTX, d, figures_in_md=False)
        self.assertIn("Failed checks", md)
        self.assertIn("wrong result", md)
        points = tune.REDUCE.sweep_points([r for r in records(doc) if "error" not in r])
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


# The scan's rows.

SA = ("single_pass", 128, 32, 0, 0, 0)
SB = ("single_pass", 256, 32, 2400, 0, 64)
SK = ("kokkos", 0, 0, 0, 0, 0)
SIZES = [1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20]


def scan_name(t, n, c):
    return tune.SCAN.benchmark_name(t, n, tune.Choice(*c))


def scan_doc(times):
    """times: {(type, n, choice tuple): µs} -> a document of scan_tune points (timed in rounds)."""
    entries = []
    for (t, n, c), us in times.items():
        entries += bench(scan_name(t, n, c), us, reps=1, rounds=15, wall_us=us)
    return {"context": dict(CTX), "benchmarks": entries}


def scan_canned():
    times = {}
    for n in SIZES:
        times[("int32", n, SK)] = 10.0 if n == SIZES[0] else 40.0 * n / SIZES[-1] + 30
        times[("int32", n, SA)] = 12.0 if n == SIZES[0] else 10.0 + 20.0 * n / SIZES[-1]
        times[("int32", n, SB)] = 30.0 if n < SIZES[-1] else 25.0
    return times


def scan_analyse(times):
    points = tune.SCAN.sweep_points(gbench.records(scan_doc(times)))
    best = tune.optima(points)
    rows, source = tune.SCAN.build_rows(points, best)
    return points, best, rows, source


def test_optimum_per_size_among_knobs_and_kokkos():
    _, best, _, _ = scan_analyse(scan_canned())
    assert best["int32"][SIZES[0]][0] == tune.KOKKOS
    assert best["int32"][SIZES[1]][0] == tune.Choice(*SA)
    assert best["int32"][SIZES[-1]][0] == tune.Choice(*SB)


def test_rows_cover_the_swept_sizes_split_at_geometric_means():
    _, _, rows, source = scan_analyse(scan_canned())
    r = rows["int32"]
    assert [(lo, hi) for lo, hi, *_ in r] == [(1 << 16, 92681), (92682, 741455), (741456, (1 << 21) - 1)]
    assert [c.algorithm for _, _, c, _, _ in r] == ["kokkos", "single_pass", "single_pass"]
    assert tune.lookup(r, (1 << 16) - 1) is None and tune.lookup(r, 1 << 21) is None  # the rule there
    assert source["float"] == "int32" and "double" not in rows


def test_a_kokkos_row_carries_the_single_pass_knobs_best_there():
    _, _, rows, _ = scan_analyse(scan_canned())
    c = rows["int32"][0][2]
    assert c.algorithm == "kokkos" and c.key() == tune.KOKKOS
    assert (c.team, c.items, c.delay, c.poll, c.prefetch) == SA[1:]


def test_similar_optima_merge_within_the_tolerance():
    times = {("int32", n, SA): 10.0 for n in SIZES}
    times.update({("int32", n, SB): 9.8 for n in SIZES})
    _, _, rows, _ = scan_analyse(times)
    assert len(rows["int32"]) == 1 and rows["int32"][0][2] == tune.Choice(*SB)


def test_row_lines_parse_as_the_table_format():
    _, _, rows, source = scan_analyse(scan_canned())
    lines = tune.SCAN.scan_lines(rows, source)
    data = [l.split("#")[0].split() for l in lines if l.startswith("scan ")]
    assert len(data) == 6  # int32's three rows and float's copies
    for f in data:
        assert len(f) == 12 and f[:2] == ["scan", "plus"] and f[5] in ("kokkos", "single_pass")
        assert f[8] in ("direct", "staged")
        assert int(f[7]) >= 1  # items per thread: the table's parser wants at least 1
    assert all(re.fullmatch(r"\d+", f[4]) for f in data)


def scan_verify_doc(automatic_us, best_us, kokkos_ratio=1.2):
    entries = []
    for n in SIZES:
        entries += bench(f"scan/automatic/int32/{n}", automatic_us, reps=1, rounds=15, wall_us=automatic_us,
                         ratio_to_kokkos=kokkos_ratio, ratio_to_cub=1.01)
    _, best, _, _ = scan_analyse(scan_canned())
    for n in SIZES:
        c, _ = best["int32"][n]
        entries += bench(tune.SCAN.benchmark_name("int32", n, c), best_us, reps=1, rounds=15, wall_us=best_us)
    return {"context": dict(CTX), "benchmarks": entries}


def test_verification_checks_automatic_against_the_re_measured_optimum_and_kokkos():
    recs = gbench.records(scan_doc(scan_canned()))
    md, _, failed = tune.SCAN.analyze(recs, verify=gbench.records(scan_verify_doc(10.2, 10.0)))
    assert failed == 0 and "5 of 5 sizes pass" in md
    md, _, failed = tune.SCAN.analyze(recs, verify=gbench.records(scan_verify_doc(11.0, 10.0)))
    assert failed == 5 and "> 1.05 x sweep best" in md
    md, _, failed = tune.SCAN.analyze(recs, verify=gbench.records(scan_verify_doc(10.0, 10.0, kokkos_ratio=0.9)))
    assert failed == 5 and "slower than Kokkos" in md


def test_verification_compares_times_taken_alike():
    """scan_tune/automatic and Kokkos' scan timed alone decide the checks where the run has them;
    scan/automatic's rounds (here slowed by peers) give CUB's ratio only."""
    recs = gbench.records(scan_doc(scan_canned()))
    doc = scan_verify_doc(13.0, 10.0, kokkos_ratio=0.9)
    for n in SIZES:
        doc["benchmarks"] += bench(f"scan_tune/automatic/int32/{n}", 10.2, reps=1, rounds=15, wall_us=10.2)
        doc["benchmarks"] += bench(f"scan_tune/kokkos/int32/{n}", 11.0, reps=1, rounds=15, wall_us=11.0)
    md, _, failed = tune.SCAN.analyze(recs, verify=gbench.records(doc))
    assert failed == 0 and "| 1.02 | 1.08 | 1.01 |" in md


def test_a_wrong_kokkos_point_is_no_time_and_no_check():
    """kps-bench times a peer's wrong result and marks it (wrong_kokkos): it is no point of the sweep
    (Kokkos would be the optimum here) and the verification shows it, failing no size on it."""
    times = scan_canned()
    times[("int32", SIZES[1], SK)] = 1.0
    doc = scan_doc(times)
    for b in doc["benchmarks"]:
        if b["name"].startswith(f"scan_tune/kokkos/int32/{SIZES[1]}/"):
            b["wrong_kokkos"] = 1
    points = tune.SCAN.sweep_points(gbench.records(doc))
    assert tune.KOKKOS not in points["int32"][SIZES[1]] and tune.KOKKOS in points["int32"][SIZES[0]]
    recs = gbench.records(scan_doc(scan_canned()))
    vdoc = scan_verify_doc(10.2, 10.0)
    for n in SIZES:
        vdoc["benchmarks"] += bench(f"scan_tune/automatic/int32/{n}", 10.2, reps=1, rounds=15, wall_us=10.2)
        vdoc["benchmarks"] += bench(f"scan_tune/kokkos/int32/{n}", 1.0, reps=1, rounds=15, wall_us=1.0,
                                    **({"wrong_kokkos": 1} if n == SIZES[1] else {}))
    md, _, failed = tune.SCAN.analyze(recs, verify=gbench.records(vdoc))
    assert "Kokkos wrong" in md and failed == 4 and md.count("slower than Kokkos") == 4


def test_a_size_where_automatic_failed_its_check_is_a_failed_row():
    recs = gbench.records(scan_doc(scan_canned()))
    doc = scan_verify_doc(10.2, 10.0)
    doc["benchmarks"] = [b for b in doc["benchmarks"] if not b["name"].startswith(f"scan/automatic/int32/{SIZES[2]}/")]
    doc["benchmarks"].append({"name": f"scan/automatic/int32/{SIZES[2]}/manual_time", "run_type": "iteration",
                              "error_occurred": True, "error_message": "automatic: wrong result at index 7"})
    md, _, failed = tune.SCAN.analyze(recs, verify=gbench.records(doc))
    assert failed == 1 and "check failed: automatic: wrong result at index 7" in md and "4 of 5 sizes pass" in md


def test_a_peer_marked_wrong_is_a_failed_check_for_every_reader():
    doc = {"context": dict(CTX), "benchmarks": bench("scan/kokkos/float/67108864", 5.0, reps=1, wrong_kokkos=1,
                                                     label="peer kokkos wrong: wrong result at index 3")
                                               + bench("scan/automatic/float/67108864", 1.0, reps=1, wrong_kokkos=1)}
    by = {r["variant"]: r for r in gbench.records(doc)}
    assert by["kokkos"]["error"] == "peer kokkos wrong: wrong result at index 3"
    assert "error" not in by["automatic"]          # kps' own result stands: only its ratio to Kokkos is gone


def test_verify_filter_names_every_optimum():
    f = tune.SCAN.verify_filter(gbench.records(scan_doc(scan_canned())), "^scan/automatic/")
    assert re.search(f, f"scan_tune/kokkos/int32/{SIZES[0]}/manual_time")
    assert re.search(f, scan_name("int32", SIZES[1], SA) + "/iterations:15/manual_time")
    assert not re.search(f, scan_name("int32", SIZES[1], SB) + "/manual_time")


def render(folder, out):
    with Staging(out) as staging:
        return tuning.render_folder(folder, Figures(staging, ""))


def test_a_tune_folder_with_both_sweeps(tmp_path):
    reduce_times = {("int32", n, "seed", 256, 16, 0): 10.0 for n in (1000, 2000)}
    (tmp_path / "sweep.json").write_text(json.dumps(sweep_doc(reduce_times)))
    alone = render(tmp_path, tmp_path / "a")
    (tmp_path / "scan-int32.json").write_text(json.dumps(scan_doc(scan_canned())))
    both = render(tmp_path, tmp_path / "b")
    assert not alone.scan_rows and both.scan_rows and not both.scan_verified
    assert both.table_text.startswith(alone.table_text.split("\n# kps-bench")[0].split("\ndate =")[0])
    assert sum(l.startswith("scan ") for l in both.table_text.splitlines()) == 6
    # Each part's verification is tied to its own rows.
    assert tune.REDUCE.fingerprint(both.table_text) == tune.REDUCE.fingerprint(alone.table_text)
    changed = both.table_text.replace("scan plus int32", "scan plus int32 ", 1)
    assert tune.SCAN.fingerprint(changed) == tune.SCAN.fingerprint(both.table_text)  # spacing aside: the same rows
    assert tune.SCAN.fingerprint(both.table_text.replace(" staged 2400 ", " staged 600  ", 1)) != tune.SCAN.fingerprint(
        both.table_text)
    # Written in format 2 (rows of class plus), with the fingerprints of its format-1 form.
    assert "\nkps-tuning-table 2\n" in both.table_text and "\nscan plus int32 " in both.table_text
    older = as_format_1(both.table_text)
    assert "\nscan int32 " in older and "\nreduce int32 " in older
    assert tune.SCAN.fingerprint(older) == tune.SCAN.fingerprint(both.table_text)
    assert tune.REDUCE.fingerprint(older) == tune.REDUCE.fingerprint(both.table_text)
    other_class = both.table_text.replace("\nscan plus int32 ", "\nscan user int32 ", 1)
    assert tune.SCAN.fingerprint(other_class) != tune.SCAN.fingerprint(both.table_text)
    doc = scan_verify_doc(10.0, 10.0)
    doc["context"]["kps_tune_table_sha256"] = tune.SCAN.fingerprint(both.table_text)
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
    assert tune.SCAN.row_line("double", 1, 2, tune.KOKKOS).split()[7] == "32"
    assert tune.SCAN.row_line("int32", 1, 2, tune.KOKKOS).split()[7] == "64"


C16 = ("single_pass", 1, 16384, 0, 0, 0, "cached", "cached")
C64S = ("single_pass", 1, 65536, 0, 0, 0, "cached", "streaming")


def test_cached_tiles_of_a_host_sweep_parse_and_make_rows_with_a_store():
    times = {}
    for n in SIZES:
        times[("int32", n, SK)] = 50.0
        times[("int32", n, C16)] = 20.0 if n < SIZES[-1] else 40.0
        times[("int32", n, C64S)] = 30.0 if n < SIZES[-1] else 20.0
    assert scan_name("int32", SIZES[0], C16).endswith("/team:1/items:16384/store:0")
    assert scan_name("int32", SIZES[0], C64S).endswith("/team:1/items:65536/store:1")
    points, best, rows, _ = scan_analyse(times)
    assert best["int32"][SIZES[0]][0] == tune.Choice(*C16)
    lines = tune.SCAN.scan_lines(rows, {t: "int32" for t in gbench.TYPES})
    cached = [l for l in lines if l.startswith("scan plus int32")]
    assert re.match(r"scan plus int32\s+65536\s+\d+\s+single_pass\s+1\s+16384\s+cached\s+0\s+0\s+0\s+cached\s", cached[0])
    assert re.match(r"scan plus int32\s+\d+\s+\d+\s+single_pass\s+1\s+65536\s+cached\s+0\s+0\s+0\s+streaming\s", cached[-1])


BS = ("single_pass", 256, 32, 2400, 0, 64, "staged", "streaming")


def test_staged_points_with_streaming_stores_parse_and_make_rows_with_a_store():
    times = {}
    for n in SIZES:
        times[("int32", n, SB)] = 20.0
        times[("int32", n, BS)] = 30.0 if n < SIZES[-1] else 15.0
    assert scan_name("int32", SIZES[0], SB).endswith("/prefetch:64")
    assert scan_name("int32", SIZES[0], BS).endswith("/prefetch:64/store:1")
    points, best, rows, _ = scan_analyse(times)
    assert best["int32"][SIZES[-1]][0] == tune.Choice(*BS)
    assert best["int32"][SIZES[0]][0] == tune.Choice(*SB)
    lines = [l for l in tune.SCAN.scan_lines(rows, {t: "int32" for t in gbench.TYPES})
             if l.startswith("scan plus int32")]
    # ordinary stores: a GPU table's row of ten fields after `scan` and its class; streaming: an eleventh
    assert len(lines[0].split("#")[0].split()) == 12
    assert re.match(r"scan plus int32\s+\d+\s+\d+\s+single_pass\s+256\s+32\s+staged\s+2400\s+0\s+64\s+streaming\s",
                    lines[-1])
    assert "streaming stores" in tune.Choice(*BS).label()


def test_a_row_that_does_not_beat_its_neighbour_by_more_than_the_spread_is_merged():
    # At 2^17 alone SB is best, by 2 % over SA: within the 3 % tolerance, so SA's row covers it.
    times = {}
    for n in SIZES:
        times[("int32", n, SA)] = 10.0 if n != SIZES[1] else 10.2
        times[("int32", n, SB)] = 20.0 if n != SIZES[1] else 10.0
    _, _, rows, _ = scan_analyse(times)
    assert [c for _, _, c, _, _ in rows["int32"]] == [tune.Choice(*SA)]
    # By 10 %, more than the tolerance: its own row stays.
    times[("int32", SIZES[1], SA)] = 11.0
    _, _, rows, _ = scan_analyse(times)
    assert [c for _, _, c, _, _ in rows["int32"]] == [tune.Choice(*SA), tune.Choice(*SB), tune.Choice(*SA)]


# Both: the knobs' names, the table's format and the committed verifications.

KNOBS_CONTEXT = ("reduce:team,items,league,vector,schedule=static|dynamic;"
                 "single_pass:team,items,load=direct|staged|cached,delay,poll,prefetch,lanes,store=cached|streaming")


def test_kps_knobs_parse_into_names_and_value_names():
    knobs = gbench.knobs({"kps_knobs": KNOBS_CONTEXT})
    assert knobs["reduce"] == [("team", None), ("items", None), ("league", None), ("vector", None),
                               ("schedule", ["static", "dynamic"])]
    assert knobs["single_pass"][2] == ("load", ["direct", "staged", "cached"])
    assert knobs["single_pass"][-1] == ("store", ["cached", "streaming"])
    assert [name for name, _ in knobs["single_pass"]] == ["team", "items", "load", "delay", "poll", "prefetch",
                                                          "lanes", "store"]
    # JSON without the key (every kps-bench before it) takes today's names; a family the key does
    # not list keeps them too.
    assert gbench.knobs({}) == gbench.KNOBS == knobs
    assert gbench.knobs({"kps_knobs": "single_pass:team,items"})["reduce"] == gbench.KNOBS["reduce"]
    for bad in ("single_pass", "single_pass:", ":team", "single_pass:team,,items", "single_pass:store=cached|"):
        with pytest.raises(KpsError, match="kps_knobs"):
            gbench.knobs({"kps_knobs": bad})


def test_a_sweep_reads_its_knobs_by_kps_knobs():
    """An enumerated knob's numbers mean the value names kps_knobs gives them: a kps-bench that
    numbered the stores the other way round has its points read, named and re-measured by them."""
    times = {("int32", n, C16): 20.0 for n in SIZES}
    times.update({("int32", n, C64S): 10.0 for n in SIZES})
    doc = scan_doc(times)  # store:0 the ordinary stores, store:1 the streaming ones, as today's
    points = tune.SCAN.sweep_points(gbench.records(doc), gbench.knobs(doc["context"]))
    assert set(points["int32"][SIZES[0]]) == {tune.Choice(*C16), tune.Choice(*C64S)}
    knobs = gbench.knobs({"kps_knobs": "single_pass:team,items,store=streaming|cached"})
    points = tune.SCAN.sweep_points(gbench.records(doc), knobs)
    assert tune.optima(points)["int32"][SIZES[0]][0] == tune.Choice("single_pass", 1, 65536, load="cached")
    assert tune.SCAN.benchmark_name("int32", SIZES[0], tune.Choice(*C64S), knobs).endswith("/store:0")
    f = tune.SCAN.verify_filter(gbench.records(doc), "^scan/automatic/", knobs=knobs)
    assert re.search(f, scan_name("int32", SIZES[0], C64S) + "/manual_time")  # store:1, the ordinary stores there
    with pytest.raises(KpsError, match="store 1 is none of kps_knobs' cached$"):
        tune.SCAN.sweep_points(gbench.records(doc), gbench.knobs({"kps_knobs": "single_pass:team,items,store=cached"}))


def test_the_committed_verifications_stay_valid():
    """Every committed verification run of a tune folder's table still tests the table rendered
    from the folder's JSON: written in format 2 now, it has the fingerprints of its format-1 form,
    which the runs recorded."""
    folders = sorted((ROOT / "results").glob("*/reduce/tune"))
    if not folders:
        pytest.skip("no committed results")
    study, scan_study = load_studies(["reduce", "scan"], ROOT / "studies")
    verified = 0
    for folder in folders:
        sweep = tuning.load_sweep(folder, study)
        table = tune.REDUCE.table_only(sweep.records, sweep.ctx, tolerance=sweep.tolerance, pool=sweep.pool)
        scan = tuning.load_scan_sweep(folder, scan_study)
        if scan:
            table += "\n".join(tune.SCAN.table_lines(scan.records, scan.tolerance, scan.knobs)) + "\n"
        assert "\nkps-tuning-table 2\n" in table
        for family, doc in ((tune.REDUCE, sweep.verify_doc), (tune.SCAN, scan.verify_doc if scan else None)):
            if doc:
                recorded = doc["context"].get("kps_tune_table_sha256")
                assert family.fingerprint(table) == family.fingerprint(as_format_1(table)), folder
                verified += recorded == family.fingerprint(table)
    assert verified
