"""The report's figures (kps_report.plots): a plot with a single x value becomes a bar chart,
sizes are a log2 axis labelled 2^k, every series keeps its own marker and draw order (the first
drawn largest, underneath), a model is dashed, the spread is drawn, the device is in the title."""
import pytest

from kps_report import plots

plt = pytest.importorskip("matplotlib.pyplot")
CTX = {"device": "Test GPU 9000", "backend": "Cuda", "device_compute_units": "4"}


def draw(tmp_path, fig, monkeypatch):
    """Saves fig and returns the matplotlib figure as drawn (savefig and close intercepted)."""
    kept = {}
    real_close = plt.close
    monkeypatch.setattr(plt, "close", lambda f=None: kept.setdefault("fig", f) if hasattr(f, "axes") else None)
    path = tmp_path / "f.png"
    assert plots.save(path, fig, CTX)
    assert path.stat().st_size > 1000
    f = kept["fig"]
    ax = f.axes[0]
    real_close(f)
    return ax


def test_sizes_on_a_log2_axis_with_every_series_visible(tmp_path, monkeypatch):
    same = [(2 ** k, 10.0 * k) for k in range(10, 31, 2)]
    fig = plots.Figure("Scan", "N", "GB/s", [plots.Series("automatic", same), plots.Series("single_pass", same),
                                             plots.Series("copy", [(x, y * 2, (y * 1.5, y * 2.5)) for x, y in same])],
                       xscale="log2", yscale="log")
    ax = draw(tmp_path, fig, monkeypatch)
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert "$2^{10}$" in labels and "$2^{30}$" in labels and len(labels) <= 12
    lines = {l.get_label(): l for l in ax.get_lines()}
    auto, single = lines["automatic"], lines["single_pass"]
    assert auto.get_marker() != single.get_marker()
    assert auto.get_markersize() > single.get_markersize()  # drawn first, larger: a ring around single_pass
    assert auto.get_zorder() < single.get_zorder()
    assert len(ax.collections) == 1  # copy's spread band
    assert "Test GPU 9000" in ax.get_title()


def test_a_model_is_dashed_and_measured_lines_solid(tmp_path, monkeypatch):
    pts = [(t, t / 10) for t in (32, 64, 128)]
    fig = plots.Figure("cos", "threads", "ms", [plots.Series("sm", pts, group="sm"),
                                                plots.Series("sm predicted", pts, predicted=True, group="sm")],
                       marks=[plots.Mark(64, 6.4, "knee", group="sm")])
    ax = draw(tmp_path, fig, monkeypatch)
    lines = {l.get_label(): l for l in ax.get_lines()}
    assert lines["sm"].get_linestyle() == "-" and lines["sm predicted"].get_linestyle() == "--"
    assert lines["sm"].get_color() == lines["sm predicted"].get_color()
    assert lines["knee"].get_marker() == "*" and lines["knee"].get_zorder() > lines["sm"].get_zorder()


def test_a_single_x_value_becomes_a_bar_chart(tmp_path, monkeypatch):
    fig = plots.Figure("teams", "threads per block", "ms",
                       [plots.Series("1 team", [(1, 2.0, (1.8, 2.2))]), plots.Series("sm teams", [(1, 4.0)])])
    ax = draw(tmp_path, fig, monkeypatch)
    assert len(ax.patches) == 2 and not [l for l in ax.get_lines() if l.get_label() == "1 team"]
    assert "threads per block = 1" in ax.get_title()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1 team", "sm teams"]


def test_nothing_to_draw_is_no_figure(tmp_path):
    assert not plots.save(tmp_path / "f.png", plots.Figure("t", "x", "y", [plots.Series("a", [(1, None)])]), CTX)
    assert not (tmp_path / "f.png").exists()
