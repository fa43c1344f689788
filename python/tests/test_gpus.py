"""A node's GPUs with stand-ins (python/tests/fake/nvidia-smi, test/cluster/fake/kps-bench as a CUDA
build): `kps run --gpus all|N` runs one kps-bench per GPU at once, each seeing its GPU alone and
naming it in its JSON, with nvidia-smi's state before and after; up-to-date runs are skipped;
Ctrl-C stops every run and keeps what each completed; `kps variability` runs the same sweeps on
every GPU and its report flags the benchmarks where GPUs differ by more than their own noise;
bad input (too many GPUs, a host build, no GPU, a malformed count) is one line."""
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import kps, kps_env
from test_runner import installed_home, runs

FAKE_SMI = Path(__file__).resolve().parent / "fake"


@pytest.fixture
def home(tmp_path, fake_bench):
    return installed_home(tmp_path, runs(4))


def gpu_env(home, **extra):
    env = dict(KPS_HOME=home, FAKE_KPS_BACKEND="Cuda", FAKE_KPS_DEVICE="NVIDIA H200",
               PATH=f"{FAKE_SMI}{os.pathsep}{os.environ['PATH']}")
    env.update(extra)
    e = kps_env(**env)
    e.pop("CUDA_VISIBLE_DEVICES", None)
    return e


def kps_in(tmp_path, env, *args):
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    return kps(*args, cwd=work, env=env)


def contexts(folder: Path) -> dict:
    return {f.relative_to(folder).as_posix(): json.loads(f.read_text())["context"] for f in folder.rglob("*.json")}


def test_runs_on_every_gpu_at_once_each_naming_its_gpu(tmp_path, home, fake_bench):
    out = tmp_path / "out"
    env = gpu_env(home, FAKE_KPS_SLEEP=2)
    rc, stdout, err = kps_in(tmp_path, env, "run", "--studies", "scan", "--bench", fake_bench, "--gpus", "all",
                             "--out", out)
    assert rc == 0, err
    wall = float(re.search(r"ran 4 runs on 2 GPUs in (\d+) s", stdout).group(1))
    assert "GPUs: GPU 0 (NVIDIA H200, GPU-aaaa); GPU 1 (NVIDIA H200, GPU-bbbb)" in stdout
    assert "ran 4 runs on 2 GPUs" in stdout
    ctxs = contexts(out / "scan")
    assert sorted(ctxs) == [f"job{i}.json" for i in range(4)]
    assert {c["kps_gpu_uuid"] for c in ctxs.values()} == {"GPU-aaaa", "GPU-bbbb"}
    for c in ctxs.values():
        i = c["kps_gpu_index"]
        assert c["kps_gpu_uuid"] == ("GPU-aaaa", "GPU-bbbb")[int(i)]
        # nvidia-smi's view of that very GPU, before and after the run
        assert c["nvidia_smi_uuid"] == c["nvidia_smi_before_uuid"] == c["kps_gpu_uuid"]
        assert c["nvidia_smi_before_temperature"] == str(35 + int(i))
        assert c["nvidia_smi_power_draw"] == "120.50 W"
        assert float(c["kps_other_cpu_load"]) >= 0  # other processes' load, the other GPU's kps-bench not counted
    # two at a time: the four runs of two seconds each took about four, each on its own cores
    assert wall <= sum(float(c["kps_wall_seconds"]) for c in ctxs.values()) * 0.6
    assert {c["kps_cpus_bound"] for c in ctxs.values()} == set(cpu_halves())
    assert (out / "report.md").exists()
    rc, stdout, err = kps_in(tmp_path, env, "run", "--studies", "scan", "--bench", fake_bench, "--gpus", "2",
                             "--out", out)
    assert rc == 0, err
    assert stdout.count("up to date") == 4 and "ran 0 runs" in stdout


def cpu_halves():
    from kps_report.runner import _ranges, cpu_shares
    return [_ranges(c) for c in cpu_shares(2)]


def test_a_job_of_several_types_is_split_across_the_gpus_and_merged(tmp_path, fake_bench):
    home = installed_home(tmp_path, runs(1) + [dict(runs(1)[0], id="both", types="int32,double")])
    out = tmp_path / "out"
    env = gpu_env(home, FAKE_KPS_SLEEP=1)
    rc, stdout, err = kps_in(tmp_path, env, "run", "--studies", "scan", "--bench", fake_bench, "--gpus", "all",
                             "--out", out)
    assert rc == 0, err
    assert "ran 3 runs on 2 GPUs" in stdout and "both.int32 (not run yet; shard int32)" in stdout
    assert sorted(p.name for p in (out / "scan").iterdir() if not p.name.endswith(".png")) == ["both.json", "job0.json"]
    doc = json.loads((out / "scan" / "both.json").read_text())
    ctx = doc["context"]
    assert ctx["kps_job_id"] == "both" and "--kps_types=int32,double" in ctx["kps_command"]
    assert re.fullmatch(r"int32: GPU [01] \([\d.]+ s, cores [\d,-]+\); double: GPU [01] \([\d.]+ s, cores [\d,-]+\)",
                        ctx["kps_shards"]), ctx["kps_shards"]
    names = [b["name"] for b in doc["benchmarks"] if b.get("aggregate_name") == "median"]
    assert [n.split("/")[2] for n in names] == ["int32", "int32", "double", "double"]  # the job's order of types
    rc, stdout, err = kps_in(tmp_path, env, "run", "--studies", "scan", "--bench", fake_bench, "--gpus", "all",
                             "--out", out)
    assert rc == 0 and stdout.count("up to date") == 2 and "ran 0 runs" in stdout, (stdout, err)
    # the same job without --gpus: the merged JSON is its own
    rc, stdout, err = kps_in(tmp_path, env, "run", "--studies", "scan", "--bench", fake_bench, "--out", out)
    assert rc == 0 and stdout.count("up to date") == 2, (stdout, err)


def test_one_gpu_of_several(tmp_path, home, fake_bench):
    out = tmp_path / "out"
    rc, stdout, err = kps_in(tmp_path, gpu_env(home), "run", "--studies", "scan", "--bench", fake_bench,
                             "--gpus", "1", "--out", out, "--only", "job0")
    assert rc == 0, err
    c = contexts(out / "scan")["job0.json"]
    assert c["kps_gpu_uuid"] == "GPU-aaaa" and c["nvidia_smi_uuid"] == "GPU-aaaa"


def test_cuda_visible_devices_limits_the_node(tmp_path, home, fake_bench):
    env = gpu_env(home)
    env["CUDA_VISIBLE_DEVICES"] = "1"
    rc, stdout, err = kps_in(tmp_path, env, "run", "--studies", "scan", "--bench", fake_bench, "--gpus", "2",
                             "--out", tmp_path / "out")
    assert rc == 2
    assert err.strip() == ("kps: error: --gpus 2: this node has 1 GPU (GPU 1 (NVIDIA H200, GPU-bbbb))"), err


@pytest.mark.parametrize("args, env, message", [
    (["--gpus", "3"], {}, "--gpus 3: this node has 2 GPUs (GPU 0 (NVIDIA H200, GPU-aaaa); GPU 1"),
    (["--gpus", "0"], {}, "--gpus 0: expected 'all' or a number of GPUs"),
    (["--gpus", "two"], {}, "--gpus two: expected 'all' or a number of GPUs"),
    (["--gpus", "all"], {"FAKE_KPS_BACKEND": "OpenMP"}, "is a host build (OpenMP); --gpus is for a GPU build"),
    (["--gpus", "all"], {"FAKE_KPS_BACKEND": "HIP"}, "this kps-bench runs on HIP"),
    (["--gpus", "all"], {"FAKE_GPUS": ""}, "--gpus all: no GPU found"),
])
def test_bad_gpus_is_one_line(tmp_path, home, fake_bench, args, env, message):
    e = gpu_env(home, **env)
    rc, stdout, err = kps_in(tmp_path, e, "run", "--studies", "scan", "--bench", fake_bench, "--out",
                             tmp_path / "out", *args)
    assert rc == 2, (stdout, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kps: error: ") and message in lines[0], err
    assert not (tmp_path / "out" / "scan").exists()


def test_no_nvidia_smi_is_one_line(tmp_path, home, fake_bench):
    env = gpu_env(home)
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep)
                                  if not (Path(p) / "nvidia-smi").exists())
    rc, _, err = kps_in(tmp_path, env, "run", "--studies", "scan", "--bench", fake_bench, "--gpus", "all",
                        "--out", tmp_path / "out")
    assert rc == 2 and "no GPU found" in err and len(err.strip().splitlines()) == 1, err


def test_ctrl_c_stops_every_gpu_and_the_next_run_resumes(tmp_path, home, fake_bench):
    out = tmp_path / "out"
    (tmp_path / "work").mkdir()
    env = gpu_env(home, FAKE_KPS_SLEEP=60, FAKE_KPS_SLEEP_AFTER=1)
    p = subprocess.Popen([sys.executable, "-m", "kps_report", "run", "--studies", "scan", "--bench", str(fake_bench),
                          "--gpus", "all", "--out", str(out)], cwd=tmp_path / "work", env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=os.setpgrp)
    partials = [out / "scan" / "job0.json.partial", out / "scan" / "job1.json.partial"]
    deadline = time.time() + 30
    while time.time() < deadline and not all(f.exists() and "manual_time_cv" in f.read_text() for f in partials):
        time.sleep(0.1)
    assert all(f.exists() for f in partials), "the stand-ins never started"
    os.killpg(p.pid, signal.SIGINT)
    _, stderr = p.communicate(timeout=60)
    assert p.returncode == 130, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    assert "interrupted during scan run job" in lines[0] and "also stopped: scan run job" in lines[0], lines[0]
    assert "the 1 completed benchmark of job0" in lines[0] and "the 1 completed benchmark of job1" in lines[0]
    assert not list(out.rglob("*.partial"))
    for j in ("job0", "job1"):
        assert json.loads((out / "scan" / f"{j}.json").read_text())["context"]["kps_incomplete"] == "true"
    rc, stdout, err = kps_in(tmp_path, gpu_env(home), "run", "--studies", "scan", "--bench", fake_bench,
                             "--gpus", "all", "--out", out)
    assert rc == 0, err
    assert stdout.count("the last run of it was interrupted") == 2 and stdout.count("(not run yet)") == 2
    assert all("kps_incomplete" not in c for c in contexts(out / "scan").values())


def test_variability_flags_a_gpu_slower_than_its_noise(tmp_path, home, fake_bench):
    out = tmp_path / "out"
    env = gpu_env(home, FAKE_KPS_GPU_GBS="GPU-aaaa=10,GPU-bbbb=9.5")  # GPU 1 5 % slower; repetitions 2 % apart
    rc, stdout, err = kps_in(tmp_path, env, "variability", "--studies", "scan", "--bench", fake_bench,
                             "--only", "job0,job1", "--out", out)
    assert rc == 0, err
    for g, uuid in (("gpu0", "GPU-aaaa"), ("gpu1", "GPU-bbbb"), ("gpu0-run2", "GPU-aaaa"), ("gpu1-run2", "GPU-bbbb")):
        ctxs = contexts(out / "variability" / g / "scan")
        assert sorted(ctxs) == ["job0.json", "job1.json"]
        assert {c["kps_gpu_uuid"] for c in ctxs.values()} == {uuid}
    report = (out / "report.md").read_text()
    assert "## GPU-to-GPU variability: 2 GPUs of one node" in report and "2 times each" in report
    assert "| scan | 2 | 2 | 5.1 % | 2.0 % | 0.0 % |" in report, report  # scan and copy, both flagged
    assert "scan: scan/single_pass/int32/1024" in report
    assert "GPU-bbbb" in report and "1980-1980" not in report and "1980 MHz / 1980 MHz" in report
    assert "Machine and conditions" in report and "NVIDIA H200" in report
    pytest.importorskip("matplotlib")
    assert (out / "variability" / "variability.png").exists()


def test_variability_of_equal_gpus_flags_nothing(tmp_path, home, fake_bench):
    out = tmp_path / "out"
    rc, stdout, err = kps_in(tmp_path, gpu_env(home), "variability", "--studies", "scan", "--bench", fake_bench,
                             "--only", "job0", "--out", out, "--runs", "1")
    assert rc == 0, err
    report = (out / "report.md").read_text()
    assert "| scan | 2 | 0 | 0.0 % | 2.0 % | (one run) |" in report, report
    assert "No benchmark differs between the GPUs by more than one GPU differs from itself." in report
    assert "the run-to-run noise is unknown" in report


def test_runs_that_differ_more_than_the_gpus_flag_nothing(tmp_path, home, fake_bench):
    out = tmp_path / "out"
    env = gpu_env(home, FAKE_KPS_GPU_GBS="GPU-aaaa=10,GPU-bbbb=9.5")
    assert kps_in(tmp_path, env, "variability", "--studies", "scan", "--bench", fake_bench, "--only", "job0",
                  "--out", out, "--runs", "1")[0] == 0
    env = gpu_env(home, FAKE_KPS_GPU_GBS="GPU-aaaa=9,GPU-bbbb=9")  # the second runs 10 % and 5 % slower
    rc, _, err = kps_in(tmp_path, env, "variability", "--studies", "scan", "--bench", fake_bench, "--only", "job0",
                        "--out", out)
    assert rc == 0, err
    report = (out / "report.md").read_text()
    assert "| scan | 2 | 0 |" in report and "10.5 %" in report, report


def test_variability_runs_is_checked(tmp_path, home, fake_bench):
    rc, _, err = kps_in(tmp_path, gpu_env(home), "variability", "--studies", "scan", "--bench", fake_bench,
                        "--runs", "0", "--check")
    assert rc == 2 and "--runs must be at least 1" in err, err


def test_variability_needs_two_gpus(tmp_path, home, fake_bench):
    rc, _, err = kps_in(tmp_path, gpu_env(home, FAKE_GPUS="GPU-aaaa"), "variability", "--studies", "scan",
                        "--bench", fake_bench, "--out", tmp_path / "out")
    assert rc == 2 and "comparing GPUs needs at least 2" in err and len(err.strip().splitlines()) == 1, err


def test_a_gpu_folder_measured_on_another_gpu_is_run_again(tmp_path, home, fake_bench):
    out = tmp_path / "out"
    args = ("variability", "--studies", "scan", "--bench", fake_bench, "--only", "job0", "--out", out, "--runs", "1")
    assert kps_in(tmp_path, gpu_env(home), *args)[0] == 0
    rc, stdout, err = kps_in(tmp_path, gpu_env(home, FAKE_GPUS="GPU-cccc,GPU-dddd"), *args)
    assert rc == 0, err
    assert "job0 (it ran on another GPU (GPU-aaaa))" in stdout and "job0 (it ran on another GPU (GPU-bbbb))" in stdout
    assert contexts(out / "variability" / "gpu0" / "scan")["job0.json"]["kps_gpu_uuid"] == "GPU-cccc"


def test_a_gpu_is_known_by_its_uuid(tmp_path):
    from conftest import document, entries, write_json
    from kps_report import variability
    folder = tmp_path / "variability"
    for sub, uuid, t in (("gpu0", "GPU-a", 1.0), ("gpu1", "GPU-b", 1.1), ("gpu0-run2", "GPU-c", 1.2),
                         ("gpu1-run2", "GPU-b", 1.1)):
        write_json(folder / sub / "scan" / "scan.json",
                   document(entries("scan/single_pass/int32/1024", [t, t * 1.01, t * 0.99]), backend="Cuda",
                            kps_gpu_uuid=uuid, kps_gpu_index=sub[3]))
    gpus = variability.load(folder)
    assert [(g.label, len(g.runs)) for g in gpus] == [("GPU 0 (GPU-a)", 1), ("GPU 1", 2), ("GPU 0 (GPU-c)", 1)]
    (row,) = variability.rows(gpus)
    assert row.run_to_run == 0.0 and abs(row.across - 0.2 / 1.1) < 1e-9 and row.flagged  # GPU-b: two runs alike


def test_a_failure_inside_a_gpu_worker_is_one_line(tmp_path, home, fake_bench):
    # a kps-bench that answers --kps_context, then cannot be run: the workers' Popen fails
    bench = tmp_path / "kps-bench"
    bench.write_text(f'#!/usr/bin/env bash\n[ "$1" = --kps_context ] && chmod -x "$0"\nexec {fake_bench} "$@"\n')
    bench.chmod(0o755)
    rc, stdout, err = kps_in(tmp_path, gpu_env(home), "run", "--studies", "scan", "--bench", bench, "--gpus", "all",
                             "--out", tmp_path / "out")
    assert rc == 2, (stdout, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kps: error: cannot run ") and "Traceback" not in err, err


def test_shards_left_by_an_interrupted_run_go_once_the_job_is_up_to_date(tmp_path, fake_bench):
    home = installed_home(tmp_path, [dict(runs(1)[0], id="both", types="int32,double")])
    out = tmp_path / "out"
    env = gpu_env(home)
    assert kps_in(tmp_path, env, "run", "--studies", "scan", "--bench", fake_bench, "--out", out)[0] == 0
    stale = out / "scan" / ".shards" / "both.int32.json"
    stale.parent.mkdir()
    stale.write_text("{}")
    rc, stdout, err = kps_in(tmp_path, env, "run", "--studies", "scan", "--bench", fake_bench, "--gpus", "all",
                             "--out", out)
    assert rc == 0 and "both: up to date" in stdout, (stdout, err)
    assert not stale.parent.exists()
