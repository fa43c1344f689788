#!/usr/bin/env python3
"""studies/latency/schedsim.py fit|scan ...: the latency study's scheduler simulation from a checkout.

The code (and its usage) is kps_report.analyses.schedsim (python/kps_report), run here as
`python3 -m kps_report.analyses.schedsim` with python/ on PYTHONPATH."""
import os
import sys

PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (os.path.normpath(PYTHON_DIR), os.environ.get("PYTHONPATH")) if p)
os.execv(sys.executable, [sys.executable, "-m", "kps_report.analyses.schedsim", *sys.argv[1:]])
