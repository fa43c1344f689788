"""kps_report: runs the kps studies with kps-bench and renders their reports.

The package holds everything on the Python side of kps: the study runner (`runner`), the Google
Benchmark JSON reader (`gbench`), the report (`report`) and its plots (`plots`), the
cross-backend comparison (`compare`), the reduction's tuning driver (`tuning`) and each study's
analysis (`analyses`). `python3 -m kps_report --help` (or the `kps` command) lists the commands.
Nothing here needs a GPU or a build to render a report: every figure comes from the JSON.
"""
