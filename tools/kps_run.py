#!/usr/bin/env python3
"""tools/kps_run.py ARGS: `kps ARGS` (run, report, tune, tune-table, slim, salvage) from a checkout.

Kept so the commands the study READMEs document keep working; the code is the kps_report package
(python/kps_report), run here as `python3 -m kps_report` with python/ on PYTHONPATH."""
import os
import sys

PYTHON_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python")
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (PYTHON_DIR, os.environ.get("PYTHONPATH")) if p)
os.environ.setdefault("KPS_PROG", "tools/kps_run.py")
os.execv(sys.executable, [sys.executable, "-m", "kps_report", *sys.argv[1:]])
