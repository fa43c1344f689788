"""The studies across backends (kps_report.compare): benchmarks matched by name with their speed
relative to the best folder, and, where a GPU and a host name their teams differently, the
normalised tables (teams per compute unit; waves per blocks per unit) that put them side by side;
and the implementations' performance portability (kps_report.portability): Pennycook's P, the
harmonic mean of per-platform efficiencies, 0 where an implementation does not run, per size class."""
import pytest
from conftest import document, entries, kps, write_json

from kps_report import gbench, portability

GPU = {"backend": "Cuda", "device": "NVIDIA H100 80GB HBM3", "device_compute_units": "132",
       "kokkos_concurrency": "270336"}
HOST = {"backend": "OpenMP", "device": "AMD EPYC", "device_compute_units": "2", "kokkos_concurrency": "2"}


def latency(threads, times):
    out = []
    for teams, ms in zip(("1", "sm", "2sm", "3sm"), times):
        out += entries(f"latency/kokkos/cosf/chains:1/threads:{threads}/teams:{teams}", [ms, ms], measured_ms=ms)
    return out


def occupancy(prefix, waves):
    out = []
    for blocks, w in zip(("1", "sm", "sm+1", "2sm"), waves):
        out += entries(f"occupancy/{prefix}/blocks:{blocks}/smem:0K", [w, w], measured_waves=w, measured_ms=w)
    return out


def test_names_and_normalised_tables(tmp_path):
    gpu, host = tmp_path / "gpu", tmp_path / "host"
    write_json(gpu / "scan" / "scan.json", document(entries("scan/single_pass/int32/1024", [1.0], **{"GB/s": 2000.0}),
                                                    **GPU))
    write_json(host / "scan" / "scan.json", document(entries("scan/single_pass/int32/1024", [4.0], **{"GB/s": 500.0}),
                                                     **HOST))
    write_json(gpu / "latency" / "l.json", document(latency(32, [4.0, 4.0, 4.1, 4.2]) + latency(1024, [10, 10, 20, 30]),
                                                    **GPU))
    write_json(host / "latency" / "l.json", document(latency(1, [1.0, 1.0, 2.0, 3.0]), **HOST))
    write_json(gpu / "occupancy" / "o.json", document(occupancy("cuda/regs:48/threads:1024", [1, 1, 2, 2]), **GPU))
    write_json(host / "occupancy" / "o.json", document(occupancy("kokkos/threads:1", [1, 1, 2, 2]), **HOST))
    out = tmp_path / "compare.md"
    rc, stdout, err = kps("compare", gpu, host, "--out", out)
    assert rc == 0, err
    md = out.read_text()
    assert "| `scan/single_pass/int32/1024` | 2000 (1.00) | 500 (0.25) |" in md
    assert "| Cuda, H100 80GB HBM3 |" in md and "| OpenMP ×2 threads, AMD EPYC |" in md
    assert "Normalised: time against teams per compute unit" in md
    # GPU teams of 32 threads: latency hidden (1.02 at two per SM); 1024 threads and the host: 2.00
    assert "| 2 per unit | 1.02 | 2 | 2 |" in md
    assert "| 3 per unit | 1.05 | 3 | 3 |" in md
    assert "Normalised: measured waves against blocks per compute unit" in md
    assert "| one per unit + 1 (sm+1) | 2 | 2 |" in md


def test_one_folder_lists_its_results(tmp_path):
    host = tmp_path / "host"
    write_json(host / "scan" / "scan.json", document(entries("scan/single_pass/int32/1024", [4.0], **{"GB/s": 500.0}),
                                                     **HOST))
    rc, _, err = kps("compare", host, "--out", tmp_path / "c.md")
    assert rc == 0, err
    assert "| `scan/single_pass/int32/1024` | 500 |" in (tmp_path / "c.md").read_text()


def test_a_folder_without_results_is_one_line(tmp_path):
    (tmp_path / "empty").mkdir()
    rc, _, err = kps("compare", tmp_path / "empty", "--out", tmp_path / "c.md")
    assert rc == 2 and "no study results under" in err and "Traceback" not in err


# --- performance portability --------------------------------------------------------------------

GPU2 = {**GPU, "device": "NVIDIA H200"}
SMALL, LARGE = 1 << 10, 1 << 26


def bench(name, gbps, **counters):
    return entries(name, [1.0], **{"GB/s": gbps, **counters})


def failed(name):
    """A benchmark whose result check failed, as Google Benchmark writes it."""
    return [{"name": name + "/manual_time", "run_name": name + "/manual_time", "run_type": "iteration",
             "error_occurred": True, "error_message": "wrong sum"}]


def portability_folders(tmp_path):
    """Three platforms. gpu: the copy measured, kps and CUB scans (CUB skipped 2^12), sums with a
    read bound; gpu2: no copy benchmark (the bound from ratio_to_copy); host: no CUB, and kps'
    own single_pass algorithm, which is no implementation of the list."""
    gpu, gpu2, host = tmp_path / "gpu", tmp_path / "gpu2", tmp_path / "host"
    write_json(gpu / "scan" / "scan.json", document(
        bench(f"copy/kokkos/int32/{SMALL}", 100.0) + bench(f"copy/kokkos/int32/{4 * SMALL}", 100.0) +
        bench(f"copy/kokkos/int32/{LARGE}", 1000.0) +
        bench(f"scan/automatic/int32/{SMALL}", 50.0, ratio_to_copy=0.4) +  # its rounds' copy (125) is faster
        bench(f"scan/automatic/int32/{4 * SMALL}", 75.0, ratio_to_copy=0.75) +
        bench(f"scan/automatic/int32/{LARGE}", 900.0, ratio_to_copy=0.9) +
        bench(f"scan/cub/int32/{SMALL}", 80.0, ratio_to_copy=0.8) +
        bench(f"scan/cub/int32/{LARGE}", 800.0, ratio_to_copy=0.8), **GPU))
    write_json(gpu / "reduce" / "reduce.json", document(
        bench(f"reduce/tuned/int32/{SMALL}", 40.0, ratio_to_read=0.5) +  # read: 80 GB/s
        bench(f"reduce/cub/int32/{SMALL}", 20.0, ratio_to_read=0.25) +
        bench(f"dot/kps/int32/{SMALL}", 120.0), **GPU))
    write_json(gpu2 / "scan" / "scan.json", document(
        bench(f"scan/automatic/int32/{SMALL}", 60.0, ratio_to_copy=0.6) +  # copy: 100 GB/s
        bench(f"scan/cub/int32/{SMALL}", 30.0, ratio_to_copy=0.3), **GPU2))
    write_json(gpu2 / "reduce" / "reduce.json", document(  # no reduce/tuned: the bound from CUB's ratio
        bench(f"reduce/cub/int32/{SMALL}", 30.0, ratio_to_read=0.5) + failed(f"reduce/kokkos/int32/{SMALL}"), **GPU2))
    write_json(host / "scan" / "scan.json", document(
        bench(f"scan/automatic/int32/{SMALL}", 10.0, ratio_to_copy=0.2) +  # copy: 50 GB/s
        bench(f"scan/single_pass/int32/{SMALL}", 20.0, ratio_to_copy=0.4), **HOST))
    return gpu, gpu2, host


def platforms_of(*folders):
    out = []
    for f in folders:
        recs = {}
        for study in ("scan", "reduce"):
            recs.update({r["name"]: r for r in gbench.load_study(study, f / study).records})
        out.append((f.name, recs))
    return out


def by_name(result, size):
    return next(c for c in result.classes if c.size.name == size)


def test_size_classes_are_data():
    names = [portability.size_class(n).name for n in (1, 1 << 16, (1 << 16) + 1, 1 << 24, (1 << 24) + 1, 1 << 30)]
    assert names == ["small", "small", "medium", "medium", "large", "large"]
    assert [portability.class_range(c) for c in portability.SIZE_CLASSES] == \
        ["N ≤ 2^16", "2^16 < N ≤ 2^24", "N > 2^24"]


def test_harmonic_mean_with_a_zero_is_zero():
    assert portability.harmonic_mean([0.5, 0.25]) == pytest.approx(1 / 3)
    assert portability.harmonic_mean([0.5, 0.0, 1.0]) == 0


def test_p_is_the_harmonic_mean_over_platforms_and_zero_where_unsupported(tmp_path):
    scan = portability.evaluate(portability.STUDIES[0], platforms_of(*portability_folders(tmp_path)))
    assert scan.implementations == ["kps scan", "CUB DeviceScan"]  # single_pass is no row
    small = by_name(scan, "small")
    assert small.platforms == ["gpu", "gpu2", "host"]
    auto = small.cells["kps scan"]
    # gpu: the harmonic mean over its two points, each over the fastest copy there (kps_report.bounds):
    # at 2^10 the rounds' copy (50 / 0.4 = 125 GB/s) over the copy/kokkos record (100 GB/s), at 2^12 the
    # two alike (100 GB/s): architectural 0.4 and 0.75, application 50/80 and 75/75 (CUB skipped 2^12:
    # not charged for it)
    assert auto["gpu"].arch == pytest.approx(2 / (1 / 0.4 + 1 / 0.75))
    assert auto["gpu"].app == pytest.approx(2 / (80 / 50 + 1))
    assert auto["gpu2"].arch == pytest.approx(0.6)   # 60 GB/s over 60 / 0.6 = 100 GB/s
    assert auto["host"].arch == pytest.approx(0.2)
    assert small.p("kps scan", "arch") == pytest.approx(3 / (1 / auto["gpu"].arch + 1 / 0.6 + 1 / 0.2))
    assert small.p("kps scan", "app") == pytest.approx(3 / (1 / auto["gpu"].app + 1 + 1))
    # CUB: one point on gpu, best there (application 1), absent from the host: P = 0, 2 of 3
    cub = small.cells["CUB DeviceScan"]
    assert cub["gpu"].app == 1 and cub["gpu"].points == 1
    assert cub["host"].points == 0 and cub["host"].arch == 0 and cub["host"].app == 0
    assert small.p("CUB DeviceScan", "arch") == 0 and small.p("CUB DeviceScan", "app") == 0
    assert (small.ran("CUB DeviceScan"), len(small.platforms)) == (2, 3)
    # large: gpu alone measured there, so the class has one platform
    large = by_name(scan, "large")
    assert large.platforms == ["gpu"]
    assert large.p("kps scan", "arch") == pytest.approx(0.9) and large.p("kps scan", "app") == 1
    assert large.p("CUB DeviceScan", "app") == pytest.approx(800 / 900)
    assert [c.size.name for c in scan.classes] == ["small", "large"]


def test_sum_and_dot_bounds_from_the_streaming_read(tmp_path):
    plats = platforms_of(*portability_folders(tmp_path))
    sums = portability.evaluate(portability.STUDIES[1], plats)
    small = by_name(sums, "small")
    assert small.platforms == ["gpu", "gpu2"]   # the host ran no sum
    assert small.cells["kps sum"]["gpu"].arch == pytest.approx(0.5)
    assert small.cells["CUB DeviceReduce::Sum"]["gpu"].app == pytest.approx(0.5)
    # gpu2 has no reduce/tuned: the bound from CUB's ratio_to_read (30 / 0.5 = 60 GB/s)
    assert small.cells["CUB DeviceReduce::Sum"]["gpu2"].arch == pytest.approx(0.5)
    # a failed check is 0 there: Kokkos ran on gpu2 (a wrong sum), not on gpu
    assert small.cells["Kokkos parallel_reduce"]["gpu2"].points == 1
    assert small.cells["Kokkos parallel_reduce"]["gpu2"].app == 0
    assert small.ran("Kokkos parallel_reduce") == 1
    dot = portability.evaluate(portability.STUDIES[2], plats)
    cell = by_name(dot, "small").cells["kps dot"]["gpu"]
    assert cell.arch == pytest.approx(1.5)  # 2N elements at the read's 80 GB/s: above 1, kept as measured
    assert by_name(dot, "small").above_one == [("kps dot", "gpu", "int32", SMALL, pytest.approx(1.5))]


def test_the_portability_section_and_its_cascade_plots(tmp_path):
    folders = portability_folders(tmp_path)
    out = tmp_path / "cmp" / "c.md"
    rc, _, err = kps("compare", *folders, "--out", out)
    assert rc == 0, err
    md = out.read_text()
    assert "## Performance portability" in md and "Implications of a metric for performance portability" in md
    assert "| implementation | small: P arch | small: P app | small: platforms | large: P arch |" in md
    assert "| CUB DeviceScan | 0 | 0 | 2 of 3 |" in md
    assert "| kps scan | 0.35 | " in md
    assert "1.5: kps dot on Cuda, H100 80GB HBM3, int32, N = 2^10" in md
    assert "`scan/single_pass" not in md.split("## Performance portability")[1].split("\n## ")[0]


def test_the_cascade_plot_is_written(tmp_path):
    pytest.importorskip("matplotlib")
    folders = portability_folders(tmp_path)
    out = tmp_path / "cmp" / "c.md"
    rc, _, err = kps("compare", *folders, "--out", out)
    assert rc == 0, err
    md = out.read_text()
    for study in ("scan", "reduce", "dot"):
        for kind in ("architectural", "application"):
            png = out.parent / f"c_portability_{study}_{kind}.png"
            assert png.stat().st_size > 1000
            assert f"]({png.name})" in md
    assert not list(out.parent.glob(".kps-render-*"))  # the staging folder is gone
