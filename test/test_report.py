"""The committed results render into one report with one command (`./kps report results`):
copies results/ to a temporary folder, renders it there with tools/kps_run.py, and checks that
the report holds the cross-backend tables and every machine's studies. Fails on any error."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import kps_run  # noqa: E402  (tools/, beside kpsjson)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        results = os.path.join(tmp, "results")
        shutil.copytree(os.path.join(ROOT, "results"), results,
                        ignore=shutil.ignore_patterns("*.png", "report.md", "compare.md", "local"))
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "kps_run.py"), "report", results],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"FAIL: kps_run.py report exited {p.returncode}:\n{p.stderr}")
        with open(os.path.join(results, "report.md")) as f:
            text = f.read()
        # The machines the report renders (kps_run.machine_folders: study folders holding JSON;
        # a folder of single runs kept in subfolders, such as h200-cuda/scan/s11/, has READMEs).
        machines = [os.path.basename(m) for m in kps_run.machine_folders(results)]
        if not machines:
            sys.exit("FAIL: no committed results folders")
        missing = [m for m in machines if f"kps report: {m}" not in text]
        wanted = ["the studies across backends", "Latency-hiding study", "Occupancy study", "Reduction study",
                  "Scan study", "Environment"]
        missing += [w for w in wanted if w not in text]
        if "Failed checks" in text:
            missing.append("(a committed benchmark failed its check)")
        if missing:
            sys.exit("FAIL: the report lacks: " + ", ".join(missing))
        print(f"ok: {len(machines)} machines, {len(text)} characters")


if __name__ == "__main__":
    main()
