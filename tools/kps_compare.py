#!/usr/bin/env python3
"""tools/kps_compare.py DIR... [--out FILE] [--studies a,b] [--all]: `kps compare` from a checkout.

Kept so documented commands keep working; the code is kps_report.compare (python/kps_report),
run here as `python3 -m kps_report compare` with python/ on PYTHONPATH."""
import os
import sys

PYTHON_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python")
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (PYTHON_DIR, os.environ.get("PYTHONPATH")) if p)
os.environ.setdefault("KPS_PROG", "tools/kps_compare.py")
os.execv(sys.executable, [sys.executable, "-m", "kps_report", "compare", *sys.argv[1:]])
