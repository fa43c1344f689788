"""The command line as a user meets it: every bad option, study, folder and file answered with
one line and a non-zero exit before anything runs (no traceback), the `kps` script checking its
options before its set-up and build, committed results never written by default, and a report
that is either rendered whole or not at all."""
import os
import subprocess

import pytest

from conftest import ROOT, document, entries, kps, kps_env, write_json


def one_line_error(rc, err, says, status=2):
    assert rc == status, err
    assert "Traceback" not in err
    lines = [l for l in err.splitlines() if l.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("kps: error: ") and says in lines[0], lines[0]


@pytest.mark.parametrize("args, says", [
    (["run", "--studies", "nosuch"], "unknown study 'nosuch' (studies: latency, occupancy, reduce, scan)"),
    (["run", "--studies", "scan,scan"], "listed twice"),
    (["run", "--scale", "huge"], "invalid choice: 'huge'"),
    (["run", "--studies", "scan", "--only", "nosuch"], "unknown run id nosuch for --scale small"),
    (["run", "--repetitions", "-1"], "--repetitions must be at least 1"),
    (["run", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    (["run", "--out", "results/h100-cuda"], "is a committed results folder"),
    (["run", "--out", "README.md"], "is a file, not a folder"),
    (["tune", "--only", "sweep-nosuch"], "unknown run id sweep-nosuch"),
    (["frob"], "invalid choice: 'frob'"),
    (["report"], "the following arguments are required: dir"),
    (["report", "no/such/folder"], "no results folder no/such/folder"),
    (["compare", "results/h100-cuda", "--studies", "nosuch"], "unknown study 'nosuch'"),
])
def test_bad_input_is_one_line_before_anything_runs(args, says):
    rc, out, err = kps(*args)
    one_line_error(rc, err, says)


def test_the_check_alone_needs_no_kps_bench():
    rc, out, err = kps("run", "--studies", "scan,latency", "--scale", "full", "--only", "scan-2e30", "--check")
    assert (rc, out, err) == (0, "", "")


def test_a_missing_kps_bench_is_one_line(tmp_path):
    rc, _, err = kps("run", "--studies", "scan", "--bench", tmp_path / "kps-bench")
    one_line_error(rc, err, "is not an executable kps-bench")


def test_the_script_checks_before_setup_and_build(tmp_path):
    env = kps_env(KPS_CACHE=tmp_path / "no-cache", PATH=os.environ["PATH"])
    env.pop("KPS_PROG")
    for args, says in ((["run", "--studies", "nosuch"], "unknown study 'nosuch'"),
                       (["run", "--scale", "huge"], "invalid choice: 'huge'"),
                       (["tune", "--scale", "huge"], "invalid choice"),
                       (["run", "--preset", "nosuch"], "unknown preset 'nosuch'")):
        p = subprocess.run([str(ROOT / "kps"), *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
        assert p.returncode == 2, p.stderr
        assert says in p.stderr and "[kps setup]" not in p.stdout + p.stderr and "Traceback" not in p.stderr
    p = subprocess.run([str(ROOT / "kps"), "run", "--help"], capture_output=True, text=True, env=env, cwd=ROOT,
                       timeout=60)
    assert p.returncode == 0 and "--studies" in p.stdout and "[kps setup]" not in p.stdout
    assert not (tmp_path / "no-cache").exists()


@pytest.mark.parametrize("text, says", [
    ("", "empty file"),
    ('{"context": {"backend": "OpenMP"}, "bench', "not valid JSON"),
    ("{}", "no list of 'benchmarks'"),
    ('{"benchmarks": []}', "no kps-bench context"),
])
def test_a_bad_file_stops_the_report_and_leaves_the_old_one(tmp_path, text, says):
    folder = tmp_path / "machine"
    write_json(folder / "scan" / "scan.json", document(entries("scan/single_pass/int32/1024", [1.0, 1.1, 0.9],
                                                                  **{"GB/s": 8.0})))
    assert kps("report", folder)[0] == 0
    before = (folder / "report.md").read_bytes()
    bad = write_json(folder / "scan" / "zz-bad.json", text)
    rc, _, err = kps("report", folder)
    one_line_error(rc, err, says)
    assert str(bad) in err
    assert (folder / "report.md").read_bytes() == before
    assert not [p for p in folder.iterdir() if p.name.startswith(".kps-render")]


def test_a_committed_folder_renders_outside_it():
    src = ROOT / "results" / "h100-node-serial"
    if not src.is_dir():
        pytest.skip("no committed results/h100-node-serial")
    tracked = {p: p.stat().st_mtime_ns for p in src.rglob("*") if p.is_file()}
    rc, out, err = kps("report", "results/h100-node-serial")
    assert rc == 0, err
    assert "results/local/report/h100-node-serial/report.md" in out
    assert {p: p.stat().st_mtime_ns for p in src.rglob("*") if p.is_file()} == tracked
    text = (ROOT / "results" / "local" / "report" / "h100-node-serial" / "report.md").read_text()
    assert text.index("## Machine and conditions") < text.index("## Summary") < text.index("## Latency-hiding study")
    assert (ROOT / "results" / "local" / ".gitignore").read_text().strip().endswith("*")


def test_experiments_render_alone_and_stay_out_of_the_machine(tmp_path):
    machine = tmp_path / "results" / "m1"
    write_json(machine / "scan" / "scan.json",
               document(entries("scan/single_pass/int32/1024", [1.0, 1.1, 0.9], **{"GB/s": 8.0})))
    exp = machine / "experiments" / "batched"
    write_json(exp / "scan" / "a.json", document(entries("scan/single_pass/int32/4096", [2.0, 2.1], **{"GB/s": 9.0})))
    flat = machine / "experiments" / "flat"
    write_json(flat / "b.json", document(entries("scan/kokkos/int32/2048", [3.0, 3.1], **{"GB/s": 7.0})))
    assert kps("report", tmp_path / "results")[0] == 0
    tree = (tmp_path / "results" / "report.md").read_text()
    assert "kps report: m1" in tree and "2^12" not in tree and "2^11" not in tree
    rc, _, err = kps("report", exp)
    assert rc == 0, err
    assert "| 2^12 |" in (exp / "report.md").read_text()
    rc, _, err = kps("report", flat)
    assert rc == 0, err
    assert "| 2^11 |" in (flat / "report.md").read_text()


def test_an_unwritable_output_is_one_line(tmp_path):
    folder = tmp_path / "machine"
    write_json(folder / "scan" / "scan.json", document(entries("scan/single_pass/int32/1024", [1.0, 1.1], **{"GB/s": 8.0})))
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    rc, _, err = kps("report", folder, "--out", blocker / "sub")
    one_line_error(rc, err, str(blocker))


def test_the_preset_named_for_a_run_is_its_backends():
    """The commands a table or report records name the preset's kps-bench that wrote them."""
    from kps_report.machine import preset_of
    assert preset_of({"backend": "Threads"}) == "threads"
    assert preset_of({"backend": "Serial"}) == "serial"
    assert preset_of({"backend": "OpenMP"}) == "host"
    assert preset_of({"backend": "Cuda", "device_compute_capability": "9.0"}) == "cuda"
