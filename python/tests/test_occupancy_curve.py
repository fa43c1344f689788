"""Unit tests of the occupancy study's analysis of seed 003's sweep (kps_report.analyses.occupancy, time against
occupancy) on synthetic Google Benchmark JSON: the table per kernel, the measured plateau (the
lowest occupancy within 5 % of the best time) against the predicted one, host curves without
model claims, failed checks listed, and the waves section left as it was. Run by ctest
(kps.occupancy.curve_analysis) with pytest."""
import tempfile
import unittest
from pathlib import Path

from kps_report import gbench
from kps_report.analyses import occupancy as analyze
from kps_report.output import Figures, Staging

CTX = {"device": "Test GPU 9000", "backend": "Cuda", "device_compute_units": "4"}
N = 1 << 28


def bench(name, ms, **counters):
    """Google Benchmark entries of one benchmark, aggregates only (what kps_run.py keeps)."""
    name += "/manual_time"
    return [{"name": f"{name}_median", "run_name": name, "run_type": "aggregate", "aggregate_name": "median",
             "repetitions": 3, "iterations": 3, "real_time": ms, "cpu_time": ms, "time_unit": "ms",
             "measured_ms": ms, **counters}]


def cos_curve(knee_warps=64.0 / 19.05):
    """The cos loop of 128-thread teams, one wave of b teams per SM, the same work at every b:
    time = (16 / b) x max(64, 19.05 b) (the sharp knee), the model's prediction 2 % lower."""
    out = []
    for b in range(1, 17):
        ms = 16 / b * max(64.0, 19.05 * b) / 10
        out += bench(f"occupancy_curve/cos/fast_cosf/threads:128/blocks_per_sm:{b}", ms, blocks_per_sm=b,
                     blocks_per_sm_model=max(b, 4), blocks_per_sm_runtime=max(b, 4), occupancy=b * 4 / 64,
                     warps_per_scheduler=b, predicted_ms=0.98 * ms, prediction_error=-0.02,
                     predicted_plateau_occupancy=knee_warps * 4 / 64, predicted_plateau_warps_per_scheduler=knee_warps,
                     calibration_latency_ns=64 - 19.05, calibration_issue_ns=19.05, model_sharp_knee=1)
    return out


def reduce_curve():
    """The reduction with 256-thread teams: min(3000, 500 b) GB/s, the plateau at 6 blocks per SM."""
    out = []
    for b in range(1, 9):
        gbps = min(3000.0, 500.0 * b)
        ms = N * 4 / gbps / 1e6
        out += bench(f"occupancy_curve/reduce/int32/{N}/threads:256/blocks_per_sm:{b}", ms, **{
            "GB/s": gbps, "blocks_per_sm": b, "blocks_per_sm_model": max(b, 4), "occupancy": b * 8 / 64,
            "warps_per_scheduler": 2 * b, "predicted_ms": ms * 1.1, "prediction_error": 0.1,
            "predicted_GBps": gbps / 1.1, "predicted_plateau_occupancy": 5.5 * 8 / 64,
            "predicted_plateau_warps_per_scheduler": 11.0, "predicted_plateau_blocks_per_sm": 5.5,
            "calibration_per_block_GBps": 500.0, "calibration_ceiling_GBps": 2750.0})
    return out


def render(benchmarks):
    records = gbench.records({"context": CTX, "benchmarks": benchmarks})
    with tempfile.TemporaryDirectory() as d:
        results = gbench.StudyResults("occupancy", Path(d), records=records, context=CTX)
        with Staging(Path(d) / "out") as staging:
            return analyze.analyze(results, Figures(staging, "occupancy"))


def table_rows(md, title):
    """The rows of the first table under the heading `title` (its header and rule left out)."""
    rows = []
    for line in md.split(title, 1)[1].splitlines():
        if line.startswith("|"):
            rows.append(line)
        elif rows:
            break
    return rows[2:]


class OccupancyCurve(unittest.TestCase):
    def test_cos_table_and_plateaus(self):
        md = render(cos_curve())
        self.assertIn("### Seed 003: time against occupancy", md)
        rows = table_rows(md, "#### cos loop, fast_cosf, 128 threads per team")
        self.assertEqual(len(rows), 16)
        # blocks/SM, held, occupancy, warps per scheduler, ms, predicted ms, error
        self.assertEqual(rows[0], "| 1 | 4 / 4 | 6.2 % | 1 | 102 | 100 | -2.0 % |")
        self.assertEqual(rows[15].split(" | ")[:3], ["| 16", "16 / 16", "100.0 %"])
        # 3 blocks take 12 % more than the best (16/3 x 64 against 16 x 19.05): the plateau starts at 4.
        self.assertIn("measured plateau: 25.0 % (4 blocks per SM, 4 warps per scheduler); "
                      "predicted plateau: 21.0 % (3.36 warps per scheduler)", md)
        self.assertIn("sharp knee", md)
        self.assertNotIn("Failed checks", md)

    def test_reduce_table_and_plateaus(self):
        md = render(reduce_curve())
        rows = table_rows(md, "#### reduction, int32, N = 2^28, 256 threads per team")
        self.assertEqual(len(rows), 8)
        # blocks/SM, held, occupancy, warps per scheduler, ms, GB/s, predicted GB/s, predicted ms, error
        cells = rows[0].strip("| ").split(" | ")
        self.assertEqual(cells[:4], ["1", "4 / —", "12.5 %", "2"])
        self.assertEqual(cells[5:7], ["500", "455"])
        self.assertEqual(cells[-1], "+10.0 %")
        self.assertIn("measured plateau: 75.0 % (6 blocks per SM, 12 warps per scheduler); "
                      "predicted plateau: 68.8 % (11.00 warps per scheduler)", md)
        self.assertIn("ceiling 2750 GB/s -> plateau at 5.50 blocks per SM", md)

    def test_plateau_is_the_lowest_occupancy_within_tolerance(self):
        pts = [{"blocks": 1, "occupancy": 0.1, "measured_ms": 10.0}, {"blocks": 2, "occupancy": 0.2, "measured_ms": 5.2},
               {"blocks": 3, "occupancy": 0.3, "measured_ms": 5.0}, {"blocks": 4, "occupancy": 0.4, "measured_ms": 5.1}]
        self.assertEqual(analyze.measured_plateau(pts)["blocks"], 2)  # 5.2 <= 1.05 x 5.0
        pts[1]["measured_ms"] = 5.3
        self.assertEqual(analyze.measured_plateau(pts)["blocks"], 3)

    def test_host_curves_have_no_model(self):
        doc = []
        for b in (1, 2):
            doc += bench(f"occupancy_curve/reduce/int32/4096/threads:2/blocks_per_sm:{b}", 0.1, **{
                "GB/s": 1.5, "blocks_per_sm": b, "team_size": 2, "league": 2 * b, "scratch_bytes": 1024})
            doc += bench(f"occupancy_curve/cos/cosf/threads:2/blocks_per_sm:{b}", 0.2, blocks_per_sm=b, league=2 * b)
        md = render(doc)
        self.assertIn("Host backend (teams are OS threads; no occupancy, no model claims)", md)
        # teams per core, teams, ms
        self.assertEqual(table_rows(md, "#### cos loop, cosf, 2 threads per team"), ["| 1 | 2 | 0.2 |", "| 2 | 4 | 0.2 |"])
        self.assertNotIn("predicted plateau", md)
        self.assertIn("time against teams per core", md)
        self.assertNotIn("H100", md)

    def test_gbps_is_computed_from_the_time_beside_it(self):
        # Google Benchmark's loop took 1.015 ms a call (its GB/s counter: 4.13), the benchmark's own
        # measured_ms says 0.041: the row must show the GB/s of the 0.041 ms it shows.
        n = 1 << 20
        doc = bench(f"occupancy_curve/reduce/int32/{n}/threads:1/blocks_per_sm:1", 1.015, **{
            "GB/s": n * 4 / 1.015e-3 / 1e9, "blocks_per_sm": 1, "team_size": 1, "league": 2})
        doc[0]["measured_ms"] = 0.041
        md = render(doc)
        row = table_rows(md, "#### reduction, int32, N = 2^20, 1 threads per team")[0]
        cells = row.strip("| ").split(" | ")
        self.assertEqual(cells[2], "0.041")
        self.assertAlmostEqual(float(cells[3]), n * 4 / 0.041e-3 / 1e9, delta=1.0)  # 102 GB/s, not 4.13

    def test_failed_points_are_listed_not_used(self):
        doc = cos_curve()
        doc.append({"name": "occupancy_curve/cos/cosf/threads:128/blocks_per_sm:3/manual_time",
                    "run_name": "occupancy_curve/cos/cosf/threads:128/blocks_per_sm:3/manual_time",
                    "run_type": "iteration", "error_occurred": True, "error_message": "cos: thread 5 computed 1",
                    "real_time": 1, "time_unit": "ms"})
        md = render(doc)
        self.assertIn("Failed checks", md)
        self.assertIn("cos: thread 5 computed 1", md)
        self.assertNotIn("#### cos loop, cosf,", md)

    def test_waves_section_unchanged_beside_the_curve(self):
        doc = cos_curve() + bench("occupancy/kokkos/threads:32/blocks:6sm/smem:36K", 1.0, measured_ms=1.0,
                                  one_block_ms=1.0, measured_waves=1.0, blocks=24, smem_bytes=36864,
                                  predicted_waves=1, predicted_blocks_per_sm=6, registers=24, static_smem_bytes=16,
                                  occupancy=0.09375, limiter_shared_memory=1)
        md = render(doc)
        self.assertIn("Measured waves equal predicted waves at 1 of 1 points", md)
        self.assertLess(md.index("## Occupancy study"), md.index("### Seed 003: time against occupancy"))

    def test_curve_alone(self):
        md = render(reduce_curve())
        self.assertTrue(md.startswith("## Occupancy study\n"))
        self.assertNotIn("clock64", md)  # the waves study's introduction needs its points

