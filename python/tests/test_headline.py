"""The README's headline table is what kps_report.headline generates from the committed results,
and the generator reads what it says: kps' largest int32 point per machine, the bound, the fastest
peer from the shared rounds (else from the peer's own run), Kokkos; `kps headline --write` replaces
only the table between the markers and refuses a file without them (one line, exit 2)."""
from conftest import ROOT, document, entries, kps, write_json
from kps_report import headline
from kps_report.layout import layout


def test_the_readme_table_is_generated_from_results():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert headline.current(readme) == headline.table(ROOT / "results", layout()), \
        "README.md's headline table is stale: ./kps headline --write README.md"


def _machine(folder, **ctx):
    ms = [1.0, 1.0, 1.0]
    benchmarks = (entries("scan/automatic/int32/1024", ms, **{"GB/s": 10.0, "ratio_to_cub": 2.0})
                  + entries("scan/automatic/int32/1048576", ms, **{"GB/s": 90.0, "ratio_to_cub": 1.5,
                                                                   "ratio_to_kokkos": 4.0})
                  + entries("scan/cub_cccl/int32/1048576", ms, **{"GB/s": 100.0})
                  + entries("copy/kokkos/int32/1048576", ms, **{"GB/s": 120.0})
                  + entries("reduce/tuned/int32/1048576", ms, **{"GB/s": 80.0, "ratio_to_read": 0.8,
                                                                 "ratio_to_kokkos": 2.0, "wrong_cub": 1}))
    write_json(folder / "scan" / "scan.json", document([b for b in benchmarks if not b["name"].startswith("reduce")],
                                                       **ctx))
    write_json(folder / "reduce" / "reduce.json", document([b for b in benchmarks if b["name"].startswith("reduce")],
                                                           **ctx))


def test_rows_read_the_largest_point_its_bound_and_peers(tmp_path):
    _machine(tmp_path / "results" / "gpu-a", backend="Cuda", device="NVIDIA Test GPU", device_compute_units="10")
    scan, total = headline.rows(tmp_path / "results", layout())
    assert (scan.machine, scan.n, scan.gbps) == ("gpu-a", 1048576, 90.0)
    assert abs(scan.of_bound - 0.75) < 1e-9                    # 90 GB/s over the copy's 120
    assert (scan.peer, scan.over_peer) == ("CUB DeviceScan (newer CCCL)", 0.9)  # its own run: 90 / 100
    assert scan.over_kokkos == 4.0
    assert abs(total.of_bound - 0.8) < 1e-9                    # from ratio_to_read
    assert (total.peer, total.over_peer) == (None, None)        # CUB's result was wrong: no ratio
    assert total.over_kokkos == 2.0


def test_write_replaces_the_table_between_the_markers(tmp_path):
    _machine(tmp_path / "results" / "gpu-a", backend="Cuda", device="NVIDIA Test GPU")
    readme = write_json(tmp_path / "README.md", f"# x\n\nbefore\n{headline.BEGIN}\nold\n{headline.END}\nafter\n")
    rc, out, err = kps("headline", tmp_path / "results", "--write", readme)
    assert rc == 0, err
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# x\n\nbefore\n") and text.endswith(f"{headline.END}\nafter\n")
    assert headline.current(text) == headline.table(tmp_path / "results", layout())
    assert "up to date" in kps("headline", tmp_path / "results", "--write", readme)[1]


def test_a_file_without_markers_is_one_line(tmp_path):
    _machine(tmp_path / "results" / "gpu-a", backend="Cuda", device="NVIDIA Test GPU")
    plain = write_json(tmp_path / "plain.md", "# no table here\n")
    rc, _, err = kps("headline", tmp_path / "results", "--write", plain)
    assert rc == 2 and err.strip().count("\n") == 0 and "has no headline block" in err
    rc, _, err = kps("headline", tmp_path / "nothing")
    assert rc == 2 and err.strip() == f"kps: error: no results folder {tmp_path / 'nothing'}"


def test_repeated_runs_give_the_median_over_the_runs_and_their_range(tmp_path):
    """`kps run --runs K`: <study>/runs/<id>.run<k>.json; each figure the median over the three runs
    that measured the point, with their range and count; a call without repeats stays as it was."""
    folder = tmp_path / "results" / "gpu-a"
    _machine(folder, backend="Cuda", device="NVIDIA Test GPU")
    for k, (gbps, kokkos) in ((2, (88.0, 3.8)), (3, (95.0, 4.4))):
        write_json(folder / "scan" / "runs" / f"scan.run{k}.json", document(
            entries("scan/automatic/int32/1048576", [1.0, 1.0, 1.0], **{"GB/s": gbps, "ratio_to_cub": 1.5,
                                                                         "ratio_to_kokkos": kokkos}),
            backend="Cuda", device="NVIDIA Test GPU"))
    scan, total = headline.rows(tmp_path / "results", layout())
    assert (scan.gbps, scan.spread["gbps"]) == (90.0, (88.0, 95.0, 3)) and scan.runs == 3
    assert scan.over_peer == 0.9 and scan.spread["over_peer"] == (0.88, 0.95, 3)  # the newer CCCL's own run: 100
    assert abs(scan.of_bound - 0.75) < 1e-9 and scan.peer == "CUB DeviceScan (newer CCCL)"
    md = headline.markdown([scan, total])
    assert "| 90 (88–95, 3 runs) | 0.75 (0.733–0.792, 3 runs) of a copy (copy/kokkos, own run) |" in md
    assert "| 0.9× (0.88–0.95, 3 runs) CUB DeviceScan (newer CCCL) | 4× (3.8–4.4, 3 runs) |" in md
    assert total.spread == {} and total.runs == 1 and "| 80 | 0.8 of a read" in md
    # a repeat measured by another kps-bench is left out, as the targets tables leave it out
    write_json(folder / "scan" / "runs" / "scan.run3.json", document(
        entries("scan/automatic/int32/1048576", [1.0], **{"GB/s": 10.0}), backend="Cuda",
        device="NVIDIA Test GPU", kps_bench_sha256="another"))
    scan, _ = headline.rows(tmp_path / "results", layout())
    assert scan.spread["gbps"] == (88.0, 90.0, 2) and scan.gbps == 89.0
