"""Where kps' files are: a source checkout or an installed prefix.

In a checkout (this package at <root>/python/kps_report) the studies' sweep definitions are
<root>/studies/*/study.json, committed results lie under <root>/results and a user's own runs
under <root>/results/local (ignored by git). Installed (`cmake --install`, spack) the `kps`
command sets KPS_HOME=<prefix>/share/kps (studies/, tables/, python/) and KPS_BENCH to the
prefix's kps-bench, and runs write under the current directory, never into the prefix.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

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


def layout() -> Layout:
    home = os.environ.get("KPS_HOME")
    if home:
        h = Path(home)
        bench = os.environ.get("KPS_BENCH")
        return Layout(h / "studies", h / "tables", None, Path(bench) if bench else None)
    root = Path(__file__).resolve().parents[2]
    return Layout(root / "studies", root / TABLES_DIR_IN_SOURCE, root, None)
