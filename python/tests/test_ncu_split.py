"""Unit tests of ncu_split.py on a canned Nsight Compute CSV: kernel kinds from their names,
the split of kernels that wrote back a predecessor's dirty lines, and the two-size fit
t = t0 + bytes / R. Run by ctest (kps.reduce.ncu_split) with pytest."""
import gzip
import os
import tempfile
import unittest

from kps_report.analyses import ncu_split

HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
        '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"')
NATIVE = "void cuda::<unnamed>::reduce_kernel<int, 4, unsigned int>(const T1 *)"
CUB = "void cub::DeviceReduceKernel<cub::policy_hub<int>::Policy1000>(T2)"


def kernel(kid, name, ns, read, write, grid="(264, 1, 1)"):
    """The three metric rows ncu writes for one kernel (values with thousands separators)."""
    rows = []
    for metric, unit, value in (("dram__bytes_read.sum", "byte", read), ("dram__bytes_write.sum", "byte", write),
                                ("gpu__time_duration.sum", "ns", ns)):
        rows.append(f'"{kid}","1","kps-bench","h","{name}","1","7","(1024, 1, 1)","{grid}","0","9.0",'
                    f'"Command line profiler metrics","{metric}","{unit}","{value:,}"')
    return rows


def write_csv(path, rows, opener=open):
    with opener(path, "wt") as f:
        f.write("==PROF== Connected to process 1\n" + HEAD + "\n" + "\n".join(rows) + "\n")


class NcuSplit(unittest.TestCase):
    def setUp(self):
        # The native twin at 100 MB (3 kernels, one after a copy) and 400 MB: 2 + B / 4 us.
        self.rows = (kernel(0, NATIVE, 27000, 100_000_000, 10_000) + kernel(1, NATIVE, 27000, 100_000_000, 20_000)
                     + kernel(2, NATIVE, 35000, 100_000_000, 22_000_000) + kernel(3, NATIVE, 102000, 400_000_000, 0)
                     + kernel(4, CUB, 30000, 100_000_000, 0, grid="(4096, 1, 1)"))

    def test_kinds(self):
        self.assertEqual(ncu_split.kind(NATIVE), "native twin")
        self.assertEqual(ncu_split.kind(CUB), "CUB DeviceReduceKernel")
        self.assertEqual(ncu_split.kind("void Kokkos::x<impl::ReduceKernel<Kokkos::Cuda>>"),
                         "kps::reduce_sum (TeamPolicy)")
        self.assertEqual(ncu_split.kind("other_kernel(int)"), "other_kernel")

    def test_split_and_fit(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "k.csv.gz")
            write_csv(path, self.rows, lambda p, m: gzip.open(p, m))
            ks = ncu_split.kernels(path)
            self.assertEqual(len(ks), 5)
            self.assertEqual(ks[2]["dram__bytes_write.sum"], 22_000_000)
            groups = ncu_split.split(ks)
            launch = "(264, 1, 1) x (1024, 1, 1)"
            self.assertEqual(len(groups[("native twin", launch, 100, False)]), 2)
            self.assertEqual(len(groups[("native twin", launch, 100, True)]), 1)
            t0, r = ncu_split.fits(groups)["native twin"]
            self.assertAlmostEqual(r, 4.0)  # 300 MB in 75 us
            self.assertAlmostEqual(t0, 2.0)
            self.assertNotIn("CUB DeviceReduceKernel", ncu_split.fits(groups))  # one size only
            text = ncu_split.report(path)
            self.assertIn("| native twin | (264, 1, 1) x (1024, 1, 1) | 100 | yes | 1 | 35.00 | 22.00 |", text)
            self.assertIn("| native twin | 2.00 | 4.000 |", text)

