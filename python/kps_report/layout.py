"""Where kps' files are: a source checkout or an installed kps.

In a checkout (this package at <root>/python/kps_report: `./kps`, an editable install, the tests)
the studies' sweep definitions are <root>/studies/*/study.json, committed results lie under
<root>/results and a user's own runs under <root>/results/local (ignored by git).

Installed, the data lie in <prefix>/share/kps (studies/, tables/) beside the `kps` command in
<prefix>/bin: the CMake install (its `kps` a zip application of this package, with kps-bench
beside it; spack's is the same), or `pip install ./python` (the study definitions installed as
data files, where pip puts the package's scripts and data: a virtual environment's share/kps).
KPS_HOME=<a share/kps folder> and KPS_BENCH=<a kps-bench> override both. Runs of an installed kps
write under the current directory, never into the prefix.
"""
from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from kps_report.errors import KpsError

# The library's table folder in a checkout: the tuned kps::reduce_sum reads the tables here
# (src/CMakeLists.txt: KPS_TUNING_TABLE_SOURCE_DIR; <prefix>/share/kps/tables when installed).
# The one place the Python side writes this path.
TABLES_DIR_IN_SOURCE = Path("src") / "kps" / "tuning" / "tables"
# A user's runs in a checkout, beside the committed results and ignored by git.
LOCAL_RESULTS_IN_SOURCE = Path("results") / "local"
# A user's runs of an installed kps: under the current directory.
LOCAL_RESULTS_INSTALLED = Path("kps-results")
# Sub-folder names under results/<machine>/ that are not the canonical run.
EXPERIMENTS = "experiments"


@dataclass(frozen=True)
class Layout:
    studies_dir: Path
    tables_dir: Path
    source_root: Optional[Path]  # the checkout, None when installed
    default_bench: Optional[Path]

    @property
    def installed(self) -> bool:
        return self.source_root is None

    @property
    def command(self) -> str:
        """How a reader of a report runs kps: the checkout's script, or the installed command."""
        return "kps" if self.installed else "./kps"

    @property
    def prefix(self) -> Optional[Path]:
        """The installation prefix (<prefix>/share/kps holds the studies), None in a checkout."""
        return None if self.source_root else self.studies_dir.parent.parent.parent

    @property
    def committed_results(self) -> Optional[Path]:
        return self.source_root / "results" if self.source_root else None

    @property
    def local_results(self) -> Path:
        if self.source_root:
            return self.source_root / LOCAL_RESULTS_IN_SOURCE
        return Path.cwd() / LOCAL_RESULTS_INSTALLED

    def is_committed(self, path: Path) -> bool:
        """True for a folder of the checkout's committed results (results/ but not results/local)."""
        if not self.committed_results:
            return False
        p = path.resolve()
        return is_within(p, self.committed_results.resolve()) and not is_within(p, self.local_results.resolve())

    def display(self, path: Path) -> str:
        """A path as a reader of the report would type it: relative to the checkout where it lies inside it."""
        p = Path(path).resolve()
        for base in filter(None, (self.source_root, Path.cwd())):
            if is_within(p, base.resolve()):
                rel = p.relative_to(base.resolve())
                return str(rel) if str(rel) != "." else "."
        return str(path)


def is_within(path: Path, parent: Path) -> bool:
    try:
        path.relative_to(parent)
        return True
    except ValueError:
        return False


def installed_data() -> Optional[Path]:
    """<prefix>/share/kps of an installed kps: beside the command that runs (<prefix>/bin/kps), else
    in this interpreter's data folder (`python3 -m kps_report` of a virtual environment); None if
    neither holds the study definitions."""
    command = Path(sys.argv[0]).resolve() if sys.argv and sys.argv[0] else None
    for prefix in ([command.parent.parent] if command else []) + [Path(sysconfig.get_path("data"))]:
        home = prefix / "share" / "kps"
        if (home / "studies").is_dir():
            return home
    return None


def checkout_of(package: Path) -> Optional[Path]:
    """The checkout this package lies in (<root>/python/kps_report), or None."""
    root = package.parents[1]
    return root if (root / "studies").is_dir() and (root / "src" / "kps").is_dir() else None


def installed_layout(home: Path) -> Layout:
    """An installed kps' layout: its data in `home` (<prefix>/share/kps) and its kps-bench KPS_BENCH,
    else the one beside the `kps` command, else the one on PATH."""
    bench = os.environ.get("KPS_BENCH")
    if not bench:
        beside = Path(sys.argv[0]).resolve().parent / "kps-bench" if sys.argv and sys.argv[0] else None
        bench = str(beside) if beside and beside.is_file() else shutil.which("kps-bench")
    return Layout(home / "studies", home / "tables", None, Path(bench) if bench else None)


def layout() -> Layout:
    home = os.environ.get("KPS_HOME")
    if home:
        return installed_layout(Path(home))
    root = checkout_of(Path(__file__).resolve().parent)
    if root:
        return Layout(root / "studies", root / TABLES_DIR_IN_SOURCE, root, None)
    home = installed_data()
    if home is None:
        raise KpsError("no study definitions found: this kps is neither in a checkout nor installed with its "
                       "share/kps (set KPS_HOME=<prefix>/share/kps)")
    return installed_layout(home)
