"""The committed results render into one report with one command (`./kps report results`), from
their JSON alone, into a temporary folder (the source tree is left as it is): the studies across
backends, then every machine's report leading with its conditions and summary; no private paths,
no GPU wording in a CPU machine's report, every figure linked exists and every figure is linked;
and rendering twice gives the same report."""
import json
import re
import shutil

import pytest

from conftest import ROOT, kps
from kps_report import runner

RESULTS = ROOT / "results"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    if not RESULTS.is_dir():
        pytest.skip("no committed results")
    tmp = tmp_path_factory.mktemp("committed")
    src = tmp / "results"
    shutil.copytree(RESULTS, src, ignore=shutil.ignore_patterns("*.png", "report.md", "compare.md", "local"))
    out = tmp / "out"
    rc, stdout, err = kps("report", src, "--out", out, timeout=600)
    assert rc == 0, err
    return src, out


def machines(text):
    parts = re.split(r"^## kps report: ", text, flags=re.M)[1:]
    return {p.split("\n", 1)[0].strip(): p for p in parts}


def test_every_machine_and_study(rendered):
    _, out = rendered
    text = (out / "report.md").read_text()
    assert "the studies across backends" in text
    ms = machines(text)
    assert {"h100-cuda", "h100-node-openmp16", "h100-node-serial"} <= set(ms)
    for name, section in ms.items():
        assert section.index("Machine and conditions") < section.index("Environment"), name
    h100 = ms["h100-cuda"]
    assert h100.index("Machine and conditions") < h100.index("Summary") < h100.index("Latency-hiding study")
    for study in ("Latency-hiding study", "Occupancy study", "Reduction study", "Scan study"):
        assert study in h100
    assert "Failed checks" not in text
    assert "Normalised: time against teams per compute unit" in text


def test_no_private_paths_and_commands_a_reader_can_run(rendered):
    src, out = rendered
    text = (out / "report.md").read_text().replace(str(src), "results")  # the copy's own path
    for private in (".carry/", "/root/", "/tmp/", "--benchmark_out="):
        assert private not in text, private
    assert "`build/cuda/bench/kps-bench " in text and "`build/serial/bench/kps-bench " in text
    assert "(= `./kps run --studies latency --scale full --only latency-cuda`)" in text


def test_committed_files_name_no_private_path():
    """Every committed result and table names files as the runner writes them (runner.portable):
    inside the checkout relative to it, elsewhere by name; no temporary or home folder of the
    machine that ran it, no output path of a run in progress."""
    if not RESULTS.is_dir():
        pytest.skip("no committed results")
    private = re.compile(r"(?<![\w.])(/tmp/|/root/|/home/|\.carry/|/[^\s\"']*\.json\.partial)")
    found = []
    for folder in (RESULTS, ROOT / "src" / "kps" / "tuning" / "tables"):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix in (".json", ".table", ".md", ".txt", ".out", ".log", ".csv"):
                text = path.read_text(encoding="utf-8", errors="replace")
                found += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in private.finditer(text)]
    assert not found, found[:5]
    for path in sorted(RESULTS.rglob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        ctx = doc.get("context", {}) if isinstance(doc, dict) else {}
        for key, value in ctx.items():  # an install prefix (/usr/...) is no machine's own
            for p in runner._ABSOLUTE.findall(str(value)):  # the runner's own reading of a path
                assert p.startswith("/usr/"), (str(path.relative_to(ROOT)), key, p)


def test_cpu_reports_say_nothing_of_gpus(rendered):
    _, out = rendered
    sections = machines((out / "report.md").read_text())
    assert "`sm+1` = 133 on this GPU" in sections["h100-cuda"]
    for name, section in sections.items():
        if "| backend | Cuda |" in section:  # a GPU's report (h100-cuda, h200-cuda)
            continue
        assert "| backend | " in section, name
        for gpu_only in ("cudaFuncGetAttributes", "sm+1` = 133", "/ cub", "on an H100", "warps per scheduler"):
            assert gpu_only not in section, (name, gpu_only)


def test_every_figure_linked_exists_and_is_linked(rendered):
    _, out = rendered
    linked = set()
    for md in out.rglob("*.md"):
        for target in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md.read_text()):
            path = (md.parent / target).resolve()
            assert path.exists(), (md, target)
            linked.add(path)
    pngs = {p.resolve() for p in out.rglob("*.png")}
    assert pngs and pngs <= linked, sorted(str(p) for p in pngs - linked)[:5]
    assert not list(out.rglob(".kps-render-*"))


def test_the_seed_003_row_agrees_with_its_gbps(rendered):
    _, out = rendered
    section = machines((out / "report.md").read_text())["h100-cuda"]
    table = section.split("##### reduction, int32, N = 2^28, 128 threads per team", 1)[1]
    row = next(l for l in table.splitlines() if l.startswith("| 1 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    ms, gbps = float(cells[4]), float(cells[5])
    assert gbps == pytest.approx((1 << 28) * 4 / (ms * 1e-3) / 1e9, rel=0.01)


def test_rendering_is_deterministic(rendered, tmp_path):
    src, out = rendered
    again = tmp_path / "again"
    rc, _, err = kps("report", src / "h100-node-serial", "--out", again)
    assert rc == 0, err
    first = (out / "h100-node-serial" / "report.md").read_text()
    second = (again / "report.md").read_text()
    norm = lambda t: t.replace(str(src / "h100-node-serial"), "X").replace(str(src), "X")
    assert norm(first.replace("results/h100-node-serial", "X")) == norm(second.replace("results/h100-node-serial", "X"))
