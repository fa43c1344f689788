"""Writing a report all at once: every file (report.md, PNG, CSV) is rendered into a staging
folder beside the output and moved into place only when the whole rendering succeeded, so an
error or Ctrl-C leaves the previous report as it was and no half-written file."""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path


class Staging:
    """with Staging(out) as s: write under s.path(...); on a clean exit the files move into out."""

    def __init__(self, out: Path):
        self.out = Path(out)
        self.dir = None

    def __enter__(self) -> "Staging":
        self.out.mkdir(parents=True, exist_ok=True)
        self.dir = Path(tempfile.mkdtemp(prefix=".kps-render-", dir=self.out))
        return self

    def path(self, rel) -> Path:
        p = self.dir / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        return p

    def __exit__(self, kind, value, tb):
        try:
            if kind is None:
                for f in sorted(p for p in self.dir.rglob("*") if p.is_file()):
                    dest = self.out / f.relative_to(self.dir)
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(f, dest)
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
        return False


@dataclass
class Figures:
    """Where a study's figures go (`sub` under the report's folder) and how the report links them."""
    staging: Staging
    sub: str  # folder of the figures relative to the report, e.g. 'scan' ('' for beside it)

    def path(self, name: str) -> Path:
        return self.staging.path(f"{self.sub}/{name}" if self.sub else name)

    def folder(self) -> Path:
        p = self.staging.dir / self.sub if self.sub else self.staging.dir
        p.mkdir(parents=True, exist_ok=True)
        return p

    def link(self, name: str, alt: str) -> str:
        target = f"{self.sub}/{name}" if self.sub else name
        return f"![{alt}]({target})\n"

    def child(self, sub: str) -> "Figures":
        return Figures(self.staging, f"{self.sub}/{sub}" if self.sub else sub)
