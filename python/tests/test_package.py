"""The kps package as pip installs it (python/pyproject.toml): its declaration agrees with the
checkout (the CMake project's version, one data-files line per study, the `kps` entry point), and
`pip install` of it into a fresh virtual environment gives a `kps` that finds its study
definitions outside any checkout. Offline: the environment sees this python's own packages, and
pip builds with its setuptools (no downloads); skipped where this python has no pip or setuptools."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

tomllib = pytest.importorskip("tomllib")
PYPROJECT = tomllib.loads((ROOT / "python" / "pyproject.toml").read_text(encoding="utf-8"))


def test_version_is_the_cmake_projects():
    cmake = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    assert PYPROJECT["project"]["version"] == re.search(r"project\(kps VERSION ([0-9.]+)", cmake).group(1)


def test_every_study_is_a_data_file():
    declared = {f for files in PYPROJECT["tool"]["setuptools"]["data-files"].values() for f in files}
    studies = {f"../{p.relative_to(ROOT).as_posix()}" for p in ROOT.glob("studies/*/study.json")}
    assert declared == studies
    for target, files in PYPROJECT["tool"]["setuptools"]["data-files"].items():
        assert [target] == [f"share/kps/{Path(f).parent.relative_to('..').as_posix()}" for f in files]


def test_entry_point_exists():
    module, _, function = PYPROJECT["project"]["scripts"]["kps"].partition(":")
    assert module == "kps_report.cli"
    from kps_report import cli
    assert callable(getattr(cli, function))


def _can_build() -> bool:
    for code in ("import pip", "import setuptools",
                 "import importlib.util as u; assert u.find_spec('wheel') or u.find_spec('setuptools.command.bdist_wheel')"):
        if subprocess.run([sys.executable, "-c", code], capture_output=True).returncode:
            return False
    return True


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """`pip install ./python` into a fresh virtual environment, from a copy of python/ and studies/
    (setuptools builds in the source folder)."""
    if not _can_build():
        pytest.skip(f"{sys.executable} has no pip, setuptools or wheel to build the package with")
    work = tmp_path_factory.mktemp("package")
    shutil.copytree(ROOT / "python" / "kps_report", work / "src" / "python" / "kps_report",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "python" / "pyproject.toml", work / "src" / "python")
    shutil.copytree(ROOT / "studies", work / "src" / "studies")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KPS_HOME", "KPS_BENCH", "KPS_PROG")}
    env["PIP_ROOT_USER_ACTION"] = "ignore"
    p = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps",
                        "--no-build-isolation", "--no-index", str(work / "src" / "python")],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    return venv / "bin" / "kps", elsewhere, env


def test_pip_install_gives_a_kps_command(installed):
    kps, cwd, env = installed
    p = subprocess.run([str(kps), "--help"], capture_output=True, text=True, cwd=cwd, env=env)
    assert p.returncode == 0 and "run" in p.stdout and "report" in p.stdout
    assert (kps.parent.parent / "share" / "kps" / "studies" / "scan" / "study.json").is_file()


def test_installed_kps_finds_its_studies(installed):
    kps, cwd, env = installed
    ok = subprocess.run([str(kps), "run", "--check", "--studies", "latency,scan"], capture_output=True, text=True,
                        cwd=cwd, env=env)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run([str(kps), "run", "--check", "--studies", "nosuch"], capture_output=True, text=True,
                         cwd=cwd, env=env)
    assert bad.returncode == 2
    assert bad.stderr.strip().splitlines() == [
        "kps: error: unknown study 'nosuch' (studies: latency, occupancy, reduce, scan)"]
