"""Figures of the reports (matplotlib, PNG), made so that a reader can trust them:

- the device and backend in every title;
- every series visible: its own marker (hollow) and line style, drawn in the order given, the
  first drawn largest, so a series that coincides with another (`automatic` with `single_pass`,
  `kokkos` with `kokkos_kernels`) shows as a ring around it; a model's prediction dashed;
- the repetitions' spread as a band (or error bars) where the JSON has it;
- sizes on a log2 axis labelled 2^k; marks (optima, plateaus) as stars listed in the legend;
- a plot whose series have a single x value becomes a bar chart;
- the legend outside the axes, so no label covers another or the data;
- where series lie close on a log axis, a lower panel of each over a reference series;
- a cascade plot (Sewall et al., P3HPC 2020) of performance portability: per implementation its
  platforms' efficiencies best first (markers) and the metric P of those added so far (a line).
Without matplotlib the reports have tables only (one warning).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from kps_report.errors import warn
from kps_report.machine import device_label

MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "h"]
LINESTYLES = ["-", "--", "-.", ":"]
_warned = []


@dataclass
class Series:
    """points: (x, y) or (x, y, (lo, hi)) with the spread of y; None values are skipped."""
    label: str
    points: list
    predicted: bool = False      # a model's line: dashed, no markers
    group: Optional[str] = None  # series of one group share a color (measured and predicted)
    linestyle: Optional[str] = None
    color: Optional[str] = None  # a fixed color (a reference such as the copy: gray)
    marker: Optional[str] = None  # a fixed marker (figures of one family keep one meaning per marker)


@dataclass
class Mark:
    x: float
    y: float
    label: str
    group: Optional[str] = None  # a mark of a series' group takes its color


@dataclass
class Figure:
    title: str
    xlabel: str
    ylabel: str
    series: list = field(default_factory=list)  # in drawing order: the first drawn lowest and largest
    xscale: str = "linear"                     # linear, log2 (sizes: 2^k labels) or log
    yscale: str = "linear"
    marks: list = field(default_factory=list)
    legend_order: Optional[list] = None        # labels in the order the legend lists them
    relative_to: Optional[str] = None          # a lower panel: every series over this one, x by x


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        if not _warned:
            warn("matplotlib is not importable by this python: the report has tables only "
                 "(scripts/setup.sh installs it; KPS_PYTHON picks the python)")
            _warned.append(True)
        return None
    return plt


# One color and marker per implementation in every figure that draws it (a reader matching
# cub in one figure with cub in the next); other series take the next free ones.
KNOWN = {"automatic": ("C0", "o"), "tuned": ("C0", "o"), "kps": ("C0", "o"), "single_pass": ("C1", "s"),
         "cub": ("C3", "D"), "cub_cccl": ("C2", "^"), "kokkos": ("C4", "v"), "kokkos_kernels": ("C5", "<"),
         "native": ("C6", ">"), "blelloch": ("C8", "p"), "hillis_steele": ("C9", "h"),
         "serial_loop": ("saddlebrown", "X"), "openmp": ("olive", "P"), "tbb": ("teal", "8"),
         "read": ("0.3", "x"), "copy": ("0.45", "v")}


def _known(label: str):
    """The fixed style of an implementation's series ("cub", "cub (same rounds)"), or None."""
    return KNOWN.get(label.split(" (")[0])


def _clean(points):
    out = []
    for p in points:
        if p[1] is None or p[0] is None:
            continue
        if isinstance(p[1], float) and math.isnan(p[1]):
            continue
        out.append((p[0], p[1], p[2] if len(p) > 2 else None))
    return sorted(out, key=lambda p: p[0])


def save(path: Path, fig: Figure, ctx: dict) -> bool:
    """Draws `fig` into the PNG `path`; False without matplotlib (or without any point)."""
    plt = pyplot()
    if plt is None:
        return False
    series = [(s, _clean(s.points)) for s in fig.series]
    series = [(s, pts) for s, pts in series if pts]
    if not series:
        return False
    title = f"{fig.title}\n{device_label(ctx)}"
    xs = {p[0] for _, pts in series for p in pts}
    path.parent.mkdir(parents=True, exist_ok=True)
    if len(xs) == 1:
        return _bars(plt, path, fig, series, title, xs.pop())
    groups = []
    for s, _ in series:
        key = s.group or s.label
        if key not in groups:
            groups.append(key)
    ref = dict((p[0], p[1]) for s, pts in series if s.label == fig.relative_to for p in pts)
    if ref:
        f, (ax, rel) = plt.subplots(2, 1, figsize=(7.5, 6.4), sharex=True, gridspec_kw={"height_ratios": [3, 1.6]})
    else:
        f, ax = plt.subplots(figsize=(7.5, 4.6))
        rel = None
    handles = {}
    ratios = []
    with_model = any(s.predicted for s, _ in series)  # then measured lines are solid, the model's dashed
    for i, (s, pts) in enumerate(series):
        known = None if s.group else _known(s.label)
        color = s.color or (known[0] if known else f"C{groups.index(s.group or s.label) % 10}")
        marker = s.marker or (known[1] if known else None)
        x = [p[0] for p in pts]
        y = [p[1] for p in pts]
        z = 2 + i
        if s.predicted:
            # On top of the measured lines, with a white halo: a model that matches its measurement
            # exactly stays visible as a dashed line over it.
            from matplotlib import patheffects
            (h,) = ax.plot(x, y, color=color, linestyle=s.linestyle or "--", linewidth=1.4, zorder=40 + i,
                           label=s.label, path_effects=[patheffects.withStroke(linewidth=3.2, foreground="white")])
        else:
            style = s.linestyle or ("-" if with_model else LINESTYLES[i % len(LINESTYLES)])
            (h,) = ax.plot(x, y, color=color, linestyle=style,
                           linewidth=max(1.0, 2.4 - 0.25 * i), marker=marker or MARKERS[i % len(MARKERS)],
                           markersize=max(5.0, 9.0 - 0.8 * i) if known or not s.marker else 7.0,
                           markerfacecolor="none",
                           markeredgewidth=1.3,
                           zorder=z, label=s.label)
            spread = [(p[0], p[2]) for p in pts if p[2] is not None]
            if len(spread) >= 2:
                ax.fill_between([p[0] for p in spread], [p[1][0] for p in spread], [p[1][1] for p in spread],
                                color=color, alpha=0.15, linewidth=0, zorder=1)
            elif spread:
                ax.errorbar([p[0] for p in spread], [y[x.index(p[0])] for p in spread],
                            yerr=[[y[x.index(p[0])] - p[1][0] for p in spread],
                                  [p[1][1] - y[x.index(p[0])] for p in spread]],
                            fmt="none", ecolor=color, capsize=3, zorder=z)
        handles[s.label] = h
        if rel is not None and s.label != fig.relative_to:
            pairs = [(p[0], p[1] / ref[p[0]]) for p in pts if ref.get(p[0])]
            ratios += [p[1] for p in pairs if p[1] > 0]
            if pairs:
                rel.plot([p[0] for p in pairs], [p[1] for p in pairs], color=color, linestyle=h.get_linestyle(),
                         linewidth=h.get_linewidth(), marker=h.get_marker(), markersize=h.get_markersize() * 0.8,
                         markerfacecolor="none", markeredgewidth=1.1, zorder=z)
    for m in fig.marks:
        if m.y is None:
            continue
        face = f"C{groups.index(m.group) % 10}" if m.group in groups else "gold"
        (h,) = ax.plot([m.x], [m.y], linestyle="none", marker="*", markersize=18, markerfacecolor=face,
                       markeredgecolor="black", markeredgewidth=1.2, zorder=50, label=m.label)
        handles[m.label] = h
    _axis(ax, "x", fig.xscale, sorted(xs))
    _axis(ax, "y", fig.yscale, None)
    ax.set_ylabel(fig.ylabel)
    if rel is not None:
        rel.axhline(1.0, color="black", linewidth=0.8, zorder=1)
        if ratios and max(ratios) / min(ratios) > 2.5:
            _axis(rel, "y", "log", None)
        rel.set_ylabel(f"over {fig.relative_to}")
        rel.set_xlabel(fig.xlabel)
        rel.grid(True, alpha=0.3)
        _axis(rel, "x", fig.xscale, sorted(xs))
    else:
        ax.set_xlabel(fig.xlabel)
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3, which="major")
    order = [l for l in (fig.legend_order or []) if l in handles] + \
        [l for l in handles if l not in (fig.legend_order or [])]
    hs = [handles[l] for l in order]
    # Outside the axes: a legend never covers the data.
    ax.legend(hs, order, fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    f.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(f)
    return True


def _axis(ax, which, scale, values):
    if scale == "log2":
        from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
        getattr(ax, f"set_{which}scale")("log", base=2)
        if values:
            lo = math.floor(math.log2(min(values)))
            hi = math.ceil(math.log2(max(values)))
            step = max(1, math.ceil((hi - lo + 1) / 11))
            ticks = [2.0 ** k for k in range(lo, hi + 1, step)]
            axis = getattr(ax, f"{which}axis")
            axis.set_major_locator(FixedLocator(ticks))
            axis.set_major_formatter(FuncFormatter(lambda v, _: f"$2^{{{round(math.log2(v))}}}$" if v > 0 else ""))
            axis.set_minor_locator(NullLocator())
    elif scale == "log":
        from matplotlib.ticker import FuncFormatter
        getattr(ax, f"set_{which}scale")("log")
        axis = getattr(ax, f"{which}axis")
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}" if v < 1e5 else f"{v:.0f}"))
        lo, hi = (ax.get_ylim() if which == "y" else ax.get_xlim())
        if hi / lo < 10:  # less than a decade: ticks and labels at 1, 1.2, 1.5, 2, 2.5, 3, 4, ... x 10^k
            from matplotlib.ticker import LogLocator, NullLocator
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0)))
            axis.set_minor_locator(NullLocator())
        elif hi / lo < 100:  # less than two decades: label 2, 3 and 5 x 10^k too
            axis.set_minor_formatter(FuncFormatter(
                lambda v, _: f"{v:g}" if f"{v:.0e}"[0] in "235" else ""))


def _bars(plt, path, fig, series, title, x):
    """One value per series: a bar each (with its spread), the x value in the title."""
    f, ax = plt.subplots(figsize=(max(4.5, 1.0 + 0.9 * len(series)), 4.2))
    labels = [s.label for s, _ in series]
    ys = [pts[0][1] for _, pts in series]
    err = [[y - pts[0][2][0] if pts[0][2] else 0 for y, (_, pts) in zip(ys, series)],
           [pts[0][2][1] - y if pts[0][2] else 0 for y, (_, pts) in zip(ys, series)]]
    colors = [f"C{i % 10}" for i in range(len(series))]
    hatches = ["//" if s.predicted else "" for s, _ in series]
    bars = ax.bar(range(len(series)), ys, color=colors, alpha=0.8,
                  yerr=err if any(any(e) for e in err) else None, capsize=4)
    for b, h in zip(bars, hatches):
        b.set_hatch(h)
    ax.set_xticks(range(len(series)))
    ax.set_xticklabels(labels, rotation=30 if len(series) > 3 else 0, ha="right" if len(series) > 3 else "center",
                       fontsize=8)
    xv = f"{x:g}" if fig.xscale != "log2" else f"2^{round(math.log2(x))}"
    ax.set_ylabel(fig.ylabel)
    if fig.yscale == "log":
        ax.set_yscale("log")
    ax.set_title(f"{title}\n({fig.xlabel} = {xv} for every bar)", fontsize=10)
    ax.grid(True, axis="y", alpha=0.3)
    f.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(f)
    return True


# --- cascade plots of performance portability ---------------------------------------------------

@dataclass
class CascadeSeries:
    """One implementation: per platform added, best first, (its efficiency, P of the platforms
    added so far). `style`: the key of its fixed color and marker (KNOWN), e.g. its variant."""
    label: str
    points: list
    style: Optional[str] = None


@dataclass
class CascadePanel:
    title: str
    series: list


def cascade(path: Path, title: str, ylabel: str, panels: list) -> bool:
    """Sewall et al.'s cascade plot, one panel per size class: x = platforms added (best first),
    hollow markers = that platform's efficiency, a line = P so far; an implementation that does not
    run on a platform falls to 0 there. False without matplotlib or without any series."""
    panels = [p for p in panels if p.series]
    plt = pyplot() if panels else None
    if plt is None:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    f, axes = plt.subplots(1, len(panels), figsize=(1.5 + 4.2 * len(panels), 4.4), sharey=True, squeeze=False)
    handles, top = {}, 1.0
    labels = [s.label for p in panels for s in p.series]
    order = list(dict.fromkeys(labels))
    for ax, panel in zip(axes[0], panels):
        m = max(len(s.points) for s in panel.series)
        for s in panel.series:
            i = order.index(s.label)
            known = _known(s.style) if s.style else None
            color = known[0] if known else f"C{i % 10}"
            marker = known[1] if known else MARKERS[i % len(MARKERS)]
            x = list(range(1, len(s.points) + 1))
            effs = [p[0] for p in s.points]
            pp = [p[1] for p in s.points]
            top = max(top, *effs)
            (h,) = ax.plot(x, pp, color=color, linestyle=LINESTYLES[i % len(LINESTYLES)], linewidth=1.6,
                           marker=marker, markersize=7.5, markerfacecolor="none", markeredgewidth=1.3,
                           markevery=[], zorder=2 + i, label=s.label)
            ax.plot(x, effs, color=color, linestyle="none", marker=marker, markersize=7.5, markerfacecolor="none",
                    markeredgewidth=1.3, zorder=20 + i)
            handles.setdefault(s.label, h)
        ax.axhline(1.0, color="0.5", linewidth=0.8, linestyle=":", zorder=1)
        ax.set_xticks(range(1, m + 1))
        ax.set_xlim(0.6, m + 0.4)
        ax.set_xlabel("platforms added (best first)")
        ax.set_title(panel.title, fontsize=9)
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylim(-0.04 * top, top * 1.08)  # below 0: a platform where it does not run shows its marker
    axes[0][0].set_ylabel(f"{ylabel}\n(markers: the platform; line: P so far)")
    f.suptitle(title, fontsize=10)
    # Outside the axes: a legend never covers the data. Each entry shows the marker and the line.
    from matplotlib.lines import Line2D
    proxies = [Line2D([], [], color=handles[l].get_color(), linestyle=handles[l].get_linestyle(),
                      marker=handles[l].get_marker(), markerfacecolor="none", markeredgewidth=1.3) for l in order]
    axes[0][-1].legend(proxies, order, fontsize=7.5, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)
    f.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(f)
    return True
