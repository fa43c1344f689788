#!/usr/bin/env python3
"""studies/reduce/ncu_split.py FILE.csv[.gz] ...: where a reduction's fixed cost sits, from Nsight
Compute's CSV. The code is kps_report.analyses.ncu_split (python/kps_report), run here as
`python3 -m kps_report.analyses.ncu_split` with python/ on PYTHONPATH."""
import os
import sys

PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python")
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (os.path.normpath(PYTHON_DIR), os.environ.get("PYTHONPATH")) if p)
os.execv(sys.executable, [sys.executable, "-m", "kps_report.analyses.ncu_split", *sys.argv[1:]])
