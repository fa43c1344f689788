"""The committed results render into one report with one command (`./kps report results`):
copies results/ to a temporary folder, renders it there with tools/kps_run.py, and checks that
the report holds the cross-backend tables and every machine's studies. Fails on any error."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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
        # Machines whose study folders hold JSON (a folder of single runs kept in subfolders,
        # such as h200-cuda/scan/s11/, is documented by its READMEs and not rendered).
        def rendered(d):
            path = os.path.join(results, d)
            return os.path.isdir(path) and any(
                os.path.isdir(os.path.join(path, s)) and any(f.endswith(".json") for f in os.listdir(os.path.join(path, s)))
                for s in os.listdir(path))
        machines = sorted(d for d in os.listdir(results) if rendered(d))
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
