"""`python3 -m kps_report ...`: the kps command line (see kps_report.cli)."""
import sys

from kps_report.cli import main

sys.exit(main())
