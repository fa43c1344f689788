#!/usr/bin/env python3
"""tools/kps_run.py ARGS: `./kps ARGS`, for the batch scripts (cluster/slurm) and the commands the
committed results record; new commands call `./kps` (or an installed `kps`) instead."""
import os
import sys
from pathlib import Path

KPS = Path(__file__).resolve().parent.parent / "kps"
os.execv(KPS, [str(KPS), *sys.argv[1:]])
