"""The studies across backends (kps_report.compare): benchmarks matched by name with their speed
relative to the best folder, and, where a GPU and a host name their teams differently, the
normalised tables (teams per compute unit; waves per blocks per unit) that put them side by side."""
from conftest import document, entries, kps, write_json

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
