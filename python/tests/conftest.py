"""Shared by the tests of the kps_report package: the checkout's paths, the stand-in kps-bench,
Google Benchmark entries made by hand, and running `kps` as a user does (a subprocess)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAKE_BENCH = ROOT / "test" / "cluster" / "fake" / "kps-bench"


def entries(name, times, unit="ms", aggregates=True, **counters):
    """Google Benchmark entries of one benchmark: one per repetition (`times`), then the mean,
    median, stddev and cv aggregates as Google Benchmark writes them. Counters are constant
    unless given as lists (one value per repetition)."""
    name += "/manual_time"
    out = []
    for k, t in enumerate(times):
        c = {key: (v[k] if isinstance(v, list) else v) for key, v in counters.items()}
        out.append({"name": name, "run_name": name, "run_type": "iteration", "repetitions": len(times),
                    "repetition_index": k, "iterations": 10, "real_time": t, "cpu_time": t, "time_unit": unit, **c})
    if aggregates and len(times) > 1:
        import statistics
        series = {"real_time": list(times)}
        for key, v in counters.items():
            series[key] = v if isinstance(v, list) else [v] * len(times)
        for agg in ("mean", "median", "stddev", "cv"):
            e = {"name": f"{name}_{agg}", "run_name": name, "run_type": "aggregate", "repetitions": len(times),
                 "aggregate_name": agg, "iterations": len(times), "time_unit": unit}
            for key, vs in series.items():
                mean = statistics.fmean(vs)
                sd = statistics.stdev(vs)
                e[key] = {"mean": mean, "median": statistics.median(vs), "stddev": sd,
                          "cv": sd / mean if mean else 0}[agg]
            e["cpu_time"] = e["real_time"]
            out.append(e)
    return out


def document(benchmarks, **context):
    ctx = {"backend": "OpenMP", "device": "Test CPU", "kokkos_concurrency": "2", "device_compute_units": "2",
           "kokkos_version": "4.6.01", "date": "2025-01-01T00:00:00+00:00", **context}
    return {"context": ctx, "benchmarks": benchmarks}


def write_json(path: Path, doc) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc, encoding="utf-8")
    return path


def kps_env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "python")
    env.pop("KPS_HOME", None)
    env.pop("KPS_BENCH", None)
    env["KPS_PROG"] = "kps"
    env.update({k: str(v) for k, v in extra.items()})
    return env


def kps(*args, cwd=None, env=None, timeout=300):
    """Runs `python3 -m kps_report ARGS` as a user does: (exit status, stdout, stderr)."""
    p = subprocess.run([sys.executable, "-m", "kps_report", *map(str, args)], capture_output=True, text=True,
                       cwd=cwd or ROOT, env=env or kps_env(), timeout=timeout)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture
def fake_bench():
    if not FAKE_BENCH.exists():
        pytest.skip("no stand-in kps-bench")
    return FAKE_BENCH
