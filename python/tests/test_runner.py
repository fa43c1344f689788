"""The runner with a stand-in kps-bench (test/cluster/fake/kps-bench): results in a folder named
after the machine, up-to-date runs skipped, a changed binary or sweep definition re-run, a failed
run reported, and Ctrl-C: one line saying what was kept, no traceback, no .partial left, the
interrupted run's completed benchmarks kept (marked incomplete), and the next run resumes at the
interrupted job."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT, kps, kps_env


def installed_home(tmp_path, scan_runs=None):
    """An installed kps' share/kps (KPS_HOME) with the checkout's studies, scan's runs replaceable."""
    home = tmp_path / "prefix" / "share" / "kps"
    shutil.copytree(ROOT / "studies", home / "studies", ignore=shutil.ignore_patterns("*.md", "*.py", "tables"))
    (home / "tables").mkdir()
    if scan_runs is not None:
        path = home / "studies" / "scan" / "study.json"
        study = json.loads(path.read_text())
        study["sweeps"]["small"]["runs"] = scan_runs
        path.write_text(json.dumps(study))
    return home


def runs(n, sizes="1024"):
    return [{"id": f"job{i}", "filter": "^(scan|copy)/", "sizes": sizes, "types": "int32", "repetitions": 3,
             "min_time": 0.01} for i in range(n)]


@pytest.fixture
def home(tmp_path, fake_bench):
    return installed_home(tmp_path, runs(3))


def run(tmp_path, home, bench, *args, **env):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return kps("run", "--studies", "scan", "--bench", bench, *args, cwd=work, env=kps_env(KPS_HOME=home, **env))


def test_results_go_to_a_folder_named_after_the_machine(tmp_path, home, fake_bench):
    rc, out, err = run(tmp_path, home, fake_bench, FAKE_KPS_DEVICE="Fake EPYC 7B13 64-Core Processor",
                       OMP_NUM_THREADS=4)
    assert rc == 0, err
    folder = tmp_path / "work" / "kps-results" / "fake-epyc-7b13-64-core-4t-openmp"
    assert (folder / "report.md").exists()
    doc = json.loads((folder / "scan" / "job0.json").read_text())
    ctx = doc["context"]
    for key in ("kps_bench_sha256", "kps_job", "kps_load_before", "kps_load_after", "kps_other_cpu_load",
                "kps_job_id", "kps_study", "kps_scale"):
        assert key in ctx, key
    assert "--benchmark_out" not in ctx["kps_command"]
    # A binary outside the checkout is named, not located: no folder of this machine in results.
    assert ctx["kps_command"].startswith("kps-bench ")
    for key in ("executable", "kps_command", "kps_tuning_table"):
        assert str(tmp_path) not in ctx.get(key, ""), key
    # the aggregates with the repetitions' spread, and every repetition (the verdicts' rank test)
    assert {b["aggregate_name"] for b in doc["benchmarks"] if b.get("run_type") == "aggregate"} == \
        {"mean", "median", "stddev", "cv", "min", "max"}
    assert any(b.get("run_type") == "iteration" for b in doc["benchmarks"])
    assert not list(folder.rglob("*.partial"))
    assert "Machine and conditions" in (folder / "report.md").read_text()


def test_up_to_date_runs_are_skipped_and_changes_rerun(tmp_path, home, fake_bench):
    out = tmp_path / "out"
    assert run(tmp_path, home, fake_bench, "--out", out)[0] == 0
    stamp = (out / "scan" / "job1.json").stat().st_mtime_ns
    rc, stdout, _ = run(tmp_path, home, fake_bench, "--out", out)
    assert rc == 0 and stdout.count("up to date") == 3
    assert (out / "scan" / "job1.json").stat().st_mtime_ns == stamp
    # another kps-bench binary: every job again
    other = tmp_path / "kps-bench"
    other.write_text(fake_bench.read_text() + "\n# rebuilt\n")
    other.chmod(0o755)
    rc, stdout, _ = run(tmp_path, home, other, "--out", out)
    assert rc == 0 and stdout.count("kps-bench changed") == 3
    # one job's definition changed: that job again
    study = home / "studies" / "scan" / "study.json"
    s = json.loads(study.read_text())
    s["sweeps"]["small"]["runs"][1]["sizes"] = "4096"
    study.write_text(json.dumps(s))
    rc, stdout, _ = run(tmp_path, home, other, "--out", out)
    assert rc == 0 and stdout.count("definition of it changed") == 1 and stdout.count("up to date") == 2
    rc, stdout, _ = run(tmp_path, home, other, "--out", out, "--force", "--only", "job2")
    assert rc == 0 and "job2 (--force)" in stdout


def test_a_failed_run_is_reported(tmp_path, home, fake_bench):
    rc, out, err = run(tmp_path, home, fake_bench, "--out", tmp_path / "o", FAKE_KPS_FAIL="scan")
    assert rc == 1
    assert "job0 FAILED (kps-bench exit 1)" in err
    assert "Traceback" not in err


def interrupt_job1(tmp_path, home, fake_bench, out, written=lambda text: text.endswith('"benchmarks": ['), args=(),
                   **env):
    """Runs the study (with `args`) with job0 done before and a stand-in that waits in job1; Ctrl-C
    once its .partial holds what the stand-in writes before its wait (`written`): (exit status,
    stderr)."""
    env = kps_env(KPS_HOME=home, FAKE_KPS_SLEEP=60, **env)
    p = subprocess.Popen([sys.executable, "-m", "kps_report", "run", "--studies", "scan", "--bench", str(fake_bench),
                          "--out", str(out), *args], cwd=tmp_path / "work", env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, preexec_fn=os.setpgrp)
    partial = out / "scan" / "job1.json.partial"
    deadline = time.time() + 30
    while not (partial.exists() and written(partial.read_text().rstrip())) and time.time() < deadline:
        time.sleep(0.1)
    assert partial.exists(), "the stand-in never started"
    assert written(partial.read_text().rstrip()), partial.read_text()
    os.killpg(p.pid, signal.SIGINT)  # what Ctrl-C in a terminal does: the whole foreground group
    stdout, stderr = p.communicate(timeout=30)
    return p.returncode, stderr


def one_line(rc, stderr):
    assert rc == 130
    assert "Traceback" not in stderr
    lines = [l for l in stderr.splitlines() if l.strip()]
    assert len(lines) == 1, stderr
    assert "interrupted during scan run job1" in lines[0] and "kept 1 finished run" in lines[0]
    assert "resumes at job1" in lines[0]
    return lines[0]


def test_ctrl_c_keeps_what_finished_and_resumes(tmp_path, home, fake_bench):
    out = tmp_path / "out"
    assert run(tmp_path, home, fake_bench, "--out", out, "--only", "job0")[0] == 0
    # the stand-in completes the scan benchmark (its 3 repetitions and aggregates), then waits
    line = one_line(*interrupt_job1(tmp_path, home, fake_bench, out, FAKE_KPS_SLEEP_AFTER=1,
                                   written=lambda text: "manual_time_cv" in text and text.endswith("}")))
    assert "the 1 completed benchmark of job1 in " in line and "job1.json" in line, line
    assert "marked incomplete" in line
    assert not list(out.rglob("*.partial"))
    doc = json.loads((out / "scan" / "job1.json").read_text())
    ctx = doc["context"]
    assert ctx["kps_incomplete"] == "true"
    for key in ("kps_command", "kps_job", "kps_job_id", "kps_bench_sha256", "kps_load_before", "kps_study"):
        assert key in ctx, key
    assert ctx["kps_job_id"] == "job1" and str(tmp_path) not in ctx["kps_command"]
    # every entry the stand-in wrote before the wait: the scan benchmark's, the copy one never ran
    names = [b["name"] for b in doc["benchmarks"]]
    assert len(names) == 3 + 4 and all(n.startswith("scan/single_pass/int32/1024/manual_time") for n in names)
    assert {b.get("aggregate_name") for b in doc["benchmarks"]} == {None, "mean", "median", "stddev", "cv"}
    rc, stdout, err = run(tmp_path, home, fake_bench, "--out", out)
    assert rc == 0, err
    assert "job0: up to date" in stdout and "job1 (the last run of it was interrupted)" in stdout
    doc = json.loads((out / "scan" / "job1.json").read_text())
    assert "kps_incomplete" not in doc["context"]
    assert any(b["name"].startswith("copy/") for b in doc["benchmarks"])
    assert not list(out.rglob("*.partial"))


def test_ctrl_c_of_a_forced_run_keeps_the_complete_earlier_json(tmp_path, home, fake_bench):
    out = tmp_path / "out"
    assert run(tmp_path, home, fake_bench, "--out", out)[0] == 0
    before = (out / "scan" / "job1.json").read_bytes()
    rc, stderr = interrupt_job1(tmp_path, home, fake_bench, out, FAKE_KPS_SLEEP_AFTER=1, args=("--force", "--only", "job1"),
                                written=lambda text: "manual_time_cv" in text and text.endswith("}"))
    assert rc == 130 and "Traceback" not in stderr
    lines = [l for l in stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and "job1.json.interrupted" in lines[0] and "of an earlier run kept" in lines[0], stderr
    assert (out / "scan" / "job1.json").read_bytes() == before
    kept = json.loads((out / "scan" / "job1.json.interrupted").read_text())
    assert kept["context"]["kps_incomplete"] == "true" and len(kept["benchmarks"]) == 3 + 4
    assert not list(out.rglob("*.partial"))
    rc, stdout, _ = run(tmp_path, home, fake_bench, "--out", out)
    assert rc == 0 and "job1: up to date" in stdout


def test_ctrl_c_before_any_benchmark_completed_keeps_nothing_of_it(tmp_path, home, fake_bench):
    out = tmp_path / "out"
    assert run(tmp_path, home, fake_bench, "--out", out, "--only", "job0")[0] == 0
    line = one_line(*interrupt_job1(tmp_path, home, fake_bench, out))
    assert "no benchmark of job1 had completed" in line, line
    assert not list(out.rglob("*.partial"))
    assert not (out / "scan" / "job1.json").exists()
    rc, stdout, _ = run(tmp_path, home, fake_bench, "--out", out)
    assert rc == 0
    assert "job0: up to date" in stdout and "job1 (not run yet)" in stdout


def test_results_never_go_into_the_prefix(tmp_path, home, fake_bench):
    rc, _, err = kps("run", "--studies", "scan", "--bench", fake_bench, "--out", tmp_path / "prefix" / "r",
                     cwd=tmp_path, env=kps_env(KPS_HOME=home))
    assert rc == 2 and "outside the installation" in err


def test_a_leftover_partial_is_not_read_and_is_replaced(tmp_path, home, fake_bench):
    out = tmp_path / "out"
    (out / "scan").mkdir(parents=True)
    (out / "scan" / "job0.json.partial").write_text('{"context": ')
    rc, _, err = run(tmp_path, home, fake_bench, "--out", out)
    assert rc == 0, err
    assert not list(out.rglob("*.partial"))


def test_portable_paths():
    from pathlib import Path
    from kps_report.runner import portable
    inside = lambda p: str(p.relative_to("/src")) if str(p).startswith("/src/") else str(p)
    assert portable("/opt/b/kps-bench --benchmark_filter=^scan/automatic/|^x/ --kps_sizes=2^10", inside) == \
        "kps-bench --benchmark_filter=^scan/automatic/|^x/ --kps_sizes=2^10"
    assert portable("/src/tables/a.table (the nearest table: made on X)", inside) == \
        "tables/a.table (the nearest table: made on X)"
    assert portable("KPS_TUNING_TABLE=/tmp/r/t.table", inside) == "KPS_TUNING_TABLE=t.table"


def test_a_run_is_measured_again_when_its_tuning_table_changed(tmp_path):
    """A targets run read a table (by path and checksum) or found none and used the rules: once the
    table has other rows, or a table made for its device appears where it looked, the run is stale;
    paths resolve against the checkout, wherever kps runs from."""
    import hashlib
    from kps_report.runner import table_changed, table_rows_sha
    root = tmp_path / "checkout"
    (root / "tables").mkdir(parents=True)
    table = root / "tables" / "cpu-threads.table"
    table.write_text("reduce int32 0 inf 1 8 16 0\n")
    sha = hashlib.sha256(table.read_bytes()).hexdigest()[:16]
    read = {"kps_tuning_table": "tables/cpu-threads.table", "kps_tuning_table_sha256": sha}
    assert table_changed(read, root) is None
    assert table_changed({**read, "kps_tuning_table": "tables/cpu-threads.table (the nearest table: made on X)"},
                         root) is None
    table.write_text("reduce int32 0 inf 1 32 16 0\n")
    assert "the tuning table it read changed" in table_changed(read, root)
    assert table_changed({**read, "kps_tuning_table": "gone/cpu-threads.table"}, root) is None
    # a run that kept the rows' fingerprint: a re-rendered comment, date or spacing is no change, a row is
    table.write_text("device = CPU\nreduce int32 0 inf 1 32 16 0   # team 1\n")
    rows = {**read, "kps_tuning_rows_sha256": table_rows_sha(table.read_text())}
    table.write_text("# made again\ndate = later\ndevice  =  CPU\n  reduce\tint32 0 inf 1 32 16 0  # team 1, 32 items\n")
    assert table_changed(rows, root) is None
    table.write_text("device = CPU\nreduce int32 0 inf 4 32 16 0\n")
    assert "changed" in table_changed(rows, root)
    assert table_rows_sha("kps-reduce-table 1\nint32 0 inf 1 8 0\n") != table_rows_sha("kps-reduce-table 1\nint32 0 inf 1 16 0\n")
    # a run on the rules: a table of the name it looked for counts only if made for its device,
    # backend and concurrency (or *)
    rules = {"kps_tuning_table": "no table cpu-openmp.table for 'CPU' (OpenMP, concurrency 16) in elsewhere, "
                                 "tables; kps uses the rules (kps::fallback_reduce_policy, kps::impl::scan_rule)"}
    assert table_changed(rules, root) is None
    other = root / "tables" / "cpu-openmp.table"
    other.write_text("device = CPU\nbackend = OpenMP\nconcurrency = 2\nreduce int32 0 inf 1 8 16 0\n")
    assert table_changed(rules, root) is None
    other.write_text("device = CPU\nbackend = OpenMP\nconcurrency = 16\nreduce int32 0 inf 1 8 16 0\n")
    assert "a table for it is installed now (tables/cpu-openmp.table)" in table_changed(rules, root)
    # an installed kps records a table by its name alone: found among the installed tables
    assert table_changed({**read, "kps_tuning_table": "cpu-threads.table"}, None, root / "tables") is not None
    # a run on another device's table (the nearest): stale once its own device's table is there
    near = {"kps_tuning_table": "tables/cpu-threads.table (the nearest table: made on 'CPU' ...)",
            "kps_tuning_table_sha256": hashlib.sha256(table.read_bytes()).hexdigest()[:16],
            "device": "CPU", "backend": "OpenMP"}
    assert "its device's own is installed now (cpu-openmp.table)" in table_changed(near, root)


def test_runs_repeat_each_job_into_the_study_s_runs_folder(tmp_path, home, fake_bench):
    """`--runs K`: run 1 of every job first, then run 2 ...; run k >= 2 into <study>/runs/<id>.run<k>.json,
    each up to date on its own, and out of the records a report merges (gbench.load_study)."""
    from kps_report import gbench
    out = tmp_path / "out"
    rc, stdout, err = run(tmp_path, home, fake_bench, "--out", out, "--runs", "2", "--only", "job0,job1")
    assert rc == 0, err
    assert (out / "scan" / "job0.json").exists() and (out / "scan" / "runs" / "job1.run2.json").exists()
    assert stdout.index("job1 (not run yet)") < stdout.index("job0 (not run yet)", stdout.index("job1 (not run yet)"))
    assert json.loads((out / "scan" / "runs" / "job0.run2.json").read_text())["context"]["kps_run"] == "2"
    assert [f.name for f in gbench.load_study("scan", out / "scan").files] == ["job0.json", "job1.json"]
    repeats = gbench.repeated_runs(out / "scan")
    assert sorted(repeats.runs) == [2] and not repeats.left_out
    # run 1 measured again by another kps-bench: its old repeat no longer counts, and says why
    first = out / "scan" / "job0.json"
    doc = json.loads(first.read_text())
    doc["context"]["kps_bench_sha256"] = "another"
    first.write_text(json.dumps(doc))
    assert gbench.repeated_runs(out / "scan").left_out == ["runs/job0.run2.json: another kps-bench"]
    first.write_text(json.dumps({**doc, "context": {**doc["context"], "kps_bench_sha256": json.loads(
        (out / "scan" / "job1.json").read_text())["context"]["kps_bench_sha256"]}}))
    rc, stdout, _ = run(tmp_path, home, fake_bench, "--out", out, "--runs", "3", "--only", "job0,job1")
    assert rc == 0 and stdout.count("up to date") == 4 and (out / "scan" / "runs" / "job0.run3.json").exists()
    assert run(tmp_path, home, fake_bench, "--out", out, "--runs", "0")[0] != 0
