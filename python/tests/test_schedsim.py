"""Unit tests of schedsim.py on a hand-written SASS listing shaped like the __cosf loop: the loop's path, its
dependences and pipes, one warp's time from its dependent chain, saturation of the XU pipe, the policies' order,
and the fit against a canned benchmark. Run by ctest (kps.latency.schedsim) with pytest."""
import json
import os
import tempfile
import unittest

from kps_report.analyses import schedsim

# One __cosf chain, not unrolled: f = cos(2 f) on the chain, c += int(f + 1) off it, and a slow path skipped by a
# forward branch inside the loop (as cosf's), never taken.
LISTING = """
        Function : _ZN3kps4cuda51_GLOBAL__N_15cos_loop_kernelILi1ELb1EEEvxPi
        /*0000*/                   MOV R2, RZ ;
        /*0010*/                   FADD R2, R2, R2 ;
        /*0020*/                   IADD3 R9, P0, R9, 0x1, RZ ;
        /*0030*/                   FMUL.RZ R6, R2, 0.15915493667125701904 ;
        /*0040*/              @!P1 BRA 0x60 ;
        /*0050*/                   DMUL R6, R6, UR8 ;
        /*0060*/                   MUFU.COS R2, R6 ;
        /*0070*/                   FADD R3, R2, 1 ;
        /*0080*/                   F2I.TRUNC.NTZ R3, R3 ;
        /*0090*/                   IADD3 R0, R3, R0, RZ ;
        /*00a0*/               @P0 BRA 0x10 ;
        /*00b0*/                   EXIT ;
"""


class Trace(unittest.TestCase):
    def setUp(self):
        self.traces = schedsim.kernels_of([LISTING])
        self.trace = self.traces[("cuda", "fast_cosf", 1)]

    def test_path_skips_the_slow_path_and_reads_dependences(self):
        self.assertEqual([op for _, op, _, _ in self.trace],
                         ["FADD", "IADD3", "FMUL.RZ", "BRA", "MUFU.COS", "FADD", "F2I.TRUNC.NTZ", "IADD3", "BRA"])
        pipe, _, dst, src = self.trace[1]
        self.assertEqual((pipe, dst, src), ("alu", ("R9", "P0"), ("R9",)))
        self.assertEqual(self.trace[4][:1] + self.trace[4][2:], ("xu", ("R2",), ("R6",)))
        self.assertEqual(self.trace[8][3], ("P0",))  # the loop branch waits for its predicate

    def test_one_warp_runs_its_dependent_chain(self):
        # In order: MUFU, FADD after L, F2I 4 later, the IADD3 that reads it after L, BRA, FADD, IADD3, FMUL 4
        # after the FADD, BRA, MUFU 4 after the FMUL: 2 L + 14 cycles per pass.
        for lat in (10, 20, 30):
            cycles = schedsim.simulate(self.trace, (0,), 40, lat)[0] / 40
            self.assertAlmostEqual(cycles, 2 * lat + 14, delta=0.5)

    def test_many_warps_saturate_the_xu_pipe(self):
        # Two XU instructions of 8 cycles per pass: 16 warps of one block need 16 x 16 cycles per pass. Strict
        # oldest first loses a few: when the pipe frees, the oldest ready warp may take the issue slot with an FADD.
        for policy in ("lrr", "blockrr", "blockgto"):
            finish = schedsim.simulate(self.trace, (0,) * 16, 40, 20, policy)
            self.assertAlmostEqual(max(finish) / 40 / (16 * 16), 1.0, delta=0.02, msg=policy)
        oldest = max(schedsim.simulate(self.trace, (0,) * 16, 40, 20, "oldest")) / 40 / (16 * 16)
        self.assertTrue(1.0 <= oldest < 1.15, oldest)

    def test_oldest_block_first_starves_the_young_block(self):
        lrr = schedsim.simulate(self.trace, (0, 0, 1, 1), 30, 20, "lrr")
        old = schedsim.simulate(self.trace, (0, 0, 1, 1), 30, 20, "blockrr")
        self.assertLess(max(old[:2]), min(old[2:]))         # the old block finishes first
        self.assertLess(max(lrr) - min(lrr), 0.05 * max(lrr))  # round robin: together
        self.assertGreater(max(old), max(lrr))

    def test_warps_go_round_robin_over_schedulers(self):
        self.assertEqual(schedsim.scheduler_blocks(3, 5), [(0, 0, 1, 2), (0, 1, 1, 2), (0, 1, 2, 2), (0, 1, 2)])
        self.assertEqual(schedsim.scheduler_blocks(1, 2), [(0,), (0,)])

    def test_no_loop_is_an_error(self):
        with self.assertRaises(ValueError):
            schedsim.loop_trace(["/*0000*/ MOV R2, RZ ;", "/*0010*/ EXIT ;"])


class Fit(unittest.TestCase):
    def test_calibration_points_are_reproduced_and_the_rest_predicted(self):
        trace = schedsim.kernels_of([LISTING])[("cuda", "fast_cosf", 1)]
        k = schedsim.Kernel(trace, 1, "blockgto", 24)
        one = 2 * (k.cycles((0,), 25.0)) / 1.98  # a device at 1.98 cycles per ns, XU latency 25, a bit slower
        eight = k.cycles((0,) * 8, 25.0) / 1.98
        k.calibrate(one / 2, eight)
        self.assertAlmostEqual(k.cycles((0,), k.xu_latency) * k.scale, one / 2, delta=0.01 * one)
        self.assertAlmostEqual(k.cycles((0,) * 8, k.xu_latency) * k.scale, eight, delta=1e-9)
        bench = []
        for threads, teams, league in ((32, "1", 1), (1024, "1", 1), (256, "2sm", 264)):
            ms = k.predict_ms(league, threads, 2, 132, 1000) * (1.05 if teams == "2sm" else 1)
            bench.append({"name": f"latency/cuda/fast_cosf/chains:1/threads:{threads}/teams:{teams}/manual_time",
                          "run_type": "aggregate", "aggregate_name": "median", "real_time": ms, "time_unit": "ms",
                          "league": league, "blocks_per_sm": 2, "loop_iterations": 1000})
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "latency-cuda.json"), "w") as f:
                json.dump({"context": {"backend": "Cuda", "device_compute_units": "132"}, "benchmarks": bench}, f)
            rows, sms = schedsim.measured(d)
            self.assertEqual(sms, 132)
            with open(os.devnull, "w") as null:
                errors = schedsim.fit({("cuda", "fast_cosf", 1): trace}, rows, sms, "blockgto", 24, out=null)
        self.assertEqual(len(errors), 3)
        self.assertAlmostEqual(errors[("cuda", "fast_cosf", 1, 256, "2sm")], 1 / 1.05 - 1, delta=0.01)
        self.assertLess(abs(errors[("cuda", "fast_cosf", 1, 1024, "1")]), 1e-9)

