"""The report's figures (paper Figures 3, 4 and 5), drawn with matplotlib's object API (Agg
renderer for PNG, PDF and SVG backends; no pyplot, no display, safe in a worker).

Up to 50 systems stay apart, in colour, in print and in greyscale (``system_style``): system i
gets colour i mod 10 of ``PALETTE`` (dark and light colours alternate, so neighbours in the legend
differ in lightness as well as in hue), marker i mod 7 and line style i div 10; no two of the first
70 share colour and marker. Legends sit outside the axes (right of the plot), never over the data.
ROVER is drawn thick and black, translucent and under the systems: a system whose line coincides with
ROVER's (a system that agrees with ROVER on every partition) shows on top of it, never hidden under it.

The words go through gettext and the value axes take the decimal separator of the active language:
``evaluation.render.outputs`` draws the paper's files in English and the page's copies in each page
language (``figure3_partitions.fr.svg``)."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy
from matplotlib.figure import Figure
from matplotlib.ticker import ScalarFormatter

from evaluation.render.choices import AGGREGATE_SHORT
from evaluation.science import metric_registry

SUBSET_LABELS = {
    "neither": pgettext_lazy("questions subset", "neither"),
    "only_f1": pgettext_lazy("questions subset", "only {a}"),
    "only_f2": pgettext_lazy("questions subset", "only {b}"),
    "both": pgettext_lazy("questions subset", "both"),
}


# Five dark and five light colours, alternating (greyscale 0.18-0.36 vs 0.62-0.73: neighbours differ by
# at least 0.26 of the grey range, and by 58 degrees of hue); the light ones are deep enough to read on white.
PALETTE = (
    "#1b2a6b",  # navy
    "#e377c2",  # pink
    "#8c510a",  # brown
    "#56b4e9",  # sky blue
    "#4b2991",  # indigo
    "#e69f00",  # orange
    "#0b5d1e",  # dark green
    "#c5b0d5",  # lavender
    "#7a1f1f",  # maroon
    "#7fc97f",  # light green
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
LINESTYLES = ("-", "--", ":", "-.")
HATCHES = ("", "//", "..", "xx")
# Figure 3's ROVER: a wide translucent black band under the systems' lines (zorder 2 < 3), so a system that
# coincides with ROVER is drawn over it, visible, and the band still reads as ROVER in the legend.
ROVER_STYLE = {
    "linewidth": 6,
    "color": "black",
    "alpha": 0.35,
    "marker": "o",
    "markersize": 10,
    "zorder": 2,
}  # the four subsets of Figure 5, apart in greyscale too


def _axis(data):
    """The axis title of the report's metric (``metric_registry``)."""
    return metric_registry.get(data["metric"]).axis


def system_style(i: int) -> dict:
    """Colour, marker and line style of the i-th system.

    System i gets colour i mod 10 of ``PALETTE``, marker i mod 7 and line style i div 10:
    distinct (colour, marker) pairs for i < 70, and neighbours (i, i + 1) differ in colour,
    lightness and marker.

    Parameters
    ----------
    i : int
        The system's position among the drawn systems (ROVER excluded).

    Returns
    -------
    dict
        ``color`` (RGB tuple), ``marker``, ``linestyle``: keyword arguments of ``Axes.plot``.

    Examples
    --------
    >>> from evaluation.render.figures import system_style
    >>> style = system_style(21)
    >>> style["marker"], style["linestyle"], style["color"] == system_style(1)["color"]
    ('o', ':', True)
    """
    return {
        "color": PALETTE[i % len(PALETTE)],
        "marker": MARKERS[i % len(MARKERS)],
        "linestyle": LINESTYLES[(i // len(PALETTE)) % len(LINESTYLES)],
    }


def _legend_outside(fig, ax, n_entries, *, title=None):
    ncols = 1 if n_entries <= 18 else 2 if n_entries <= 36 else 3
    fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper", fontsize="small", ncols=ncols, title=title)


class _LocalFormatter(ScalarFormatter):
    """Matplotlib's default tick labels with the decimal separator of the active language."""

    def __init__(self, separator):
        super().__init__()
        self.separator = separator

    def __call__(self, x, pos=None):
        return super().__call__(x, pos).replace(".", self.separator)


def _local_ticks(axis):
    """Tick labels of a value axis in the active language's number format (``0,5`` in French); the
    English figures keep matplotlib's own formatter untouched."""
    separator = formats.get_format("DECIMAL_SEPARATOR")
    if separator != ".":
        axis.set_major_formatter(_LocalFormatter(separator))


def _num(v):
    return v if v is not None and isinstance(v, (int, float)) and math.isfinite(v) else float("nan")


def partitions_figure(data) -> Figure:
    r"""Figure 3: the metric of each system per agreement partition P1..Pn.

    Parameters
    ----------
    data : dict
        ``metric``, ``keys`` (the partitions, in drawing order), ``by_system`` (system -> {key:
        value}; ROVER drawn as a wide translucent black band under the systems), optional ``counts``
        (key -> questions) and ``human_aggregate``.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from evaluation.render.figures import partitions_figure
    >>> fig = partitions_figure({"metric": "f1", "keys": ["2", "1"], "counts": {"2": 10, "1": 4},
    ...                          "by_system": {"sys-a": {"2": 0.8, "1": 0.3}, "ROVER": {"2": 0.85, "1": 0.4}}})
    >>> ax = fig.axes[0]
    >>> ax.get_title(), len(ax.lines), [t.get_text() for t in ax.get_xticklabels()]
    ('F1 per ROVER agreement partition', 2, ['P2\n(n=10)', 'P1\n(n=4)'])
    """
    n = len(data["by_system"])
    fig = Figure(figsize=(8 + 2.2 * (1 if n <= 18 else 2 if n <= 36 else 3), 5), layout="constrained")
    ax = fig.add_subplot()
    keys = data["keys"]
    i = 0
    for system, values in data["by_system"].items():
        if system == "ROVER":
            style = ROVER_STYLE
        else:
            style = {"linewidth": 1.3, "alpha": 0.9, "markersize": 5, "zorder": 3, **system_style(i)}
            i += 1
        ax.plot(range(len(keys)), [_num(values.get(k)) for k in keys], label=system, **style)
    counts = data.get("counts") or {}
    ax.set_xticks(range(len(keys)), [f"P{k}\n(n={counts[k]})" if k in counts else f"P{k}" for k in keys])
    ax.set_xlabel(_("agreement partition (number of systems agreeing with the ROVER answer)"))
    ax.set_ylabel(_axis(data))
    ax.set_title(_("{axis} per ROVER agreement partition").format(axis=_axis(data)) + _suffix(data))
    _local_ticks(ax.yaxis)
    ax.grid(alpha=0.3)
    _legend_outside(fig, ax, n)
    return fig


def _suffix(data):
    aggregate = data.get("human_aggregate")
    if not aggregate or data.get("metric") not in metric_registry.human_keys():
        return ""
    return "\n" + _("(labels: {aggregate})").format(aggregate=AGGREGATE_SHORT.get(aggregate, aggregate))


def per_frame_figure(data) -> Figure:
    """Figure 4: ROVER's metric per frame, sorted, with the frame's count in brackets.

    Parameters
    ----------
    data : dict
        ``metric``, ``rows`` (``frame``, ``n``, ``by_system`` with a ``ROVER`` value; drawn top to
        bottom in the order given), optional ``human_aggregate``.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from evaluation.render.figures import per_frame_figure
    >>> fig = per_frame_figure({"metric": "f1", "rows": [{"frame": "Motion", "n": 12, "by_system": {"ROVER": 0.7}},
    ...                                                   {"frame": "Giving", "n": 3, "by_system": {"ROVER": 0.4}}]})
    >>> [t.get_text() for t in fig.axes[0].get_yticklabels()]
    ['Giving (3)', 'Motion (12)']
    """
    rows = data["rows"]
    fig = Figure(figsize=(8, max(3, 0.28 * len(rows) + 1)), layout="constrained")
    ax = fig.add_subplot()
    names = [f"{r['frame']} ({r['n']})" for r in rows][::-1]
    values = [_num(r["by_system"].get("ROVER")) for r in rows][::-1]
    ax.barh(names, values, color="#3b6ea8")
    ax.set_xlabel(f"ROVER {_axis(data)}")
    ax.set_title(_("ROVER per frame, sorted (questions in brackets)") + _suffix(data))
    _local_ticks(ax.xaxis)
    ax.grid(axis="x", alpha=0.3)
    ax.tick_params(axis="y", labelsize=8)
    return fig


def combinations_figure(data) -> Figure:
    """Figure 5: the metric of each system on the four subsets of two factors.

    Parameters
    ----------
    data : dict
        ``metric``, ``pair`` (the two factor names), ``subsets`` (``neither``, ``only_f1``,
        ``only_f2``, ``both`` -> {``n``, ``by_system``}), optional ``human_aggregate``.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from evaluation.render.figures import combinations_figure
    >>> subsets = {k: {"n": 5, "by_system": {"sys-a": 0.5, "ROVER": 0.6}}
    ...            for k in ("neither", "only_f1", "only_f2", "both")}
    >>> fig = combinations_figure({"metric": "f1", "pair": ["nb_fes", "entropy"], "subsets": subsets})
    >>> [t.get_text() for t in fig.legends[0].get_texts()]
    ['neither (n=5)', 'only nb_fes (n=5)', 'only entropy (n=5)', 'both (n=5)']
    """
    a, b = data["pair"]
    subsets = data["subsets"]
    labels = list(subsets)
    systems = list(next(iter(subsets.values()))["by_system"])
    fig = Figure(figsize=(max(6, 0.45 * len(systems) + 2) + 2.5, 5), layout="constrained")
    ax = fig.add_subplot()
    width = 0.8 / len(labels)
    for i, label in enumerate(labels):
        xs = [j + (i - (len(labels) - 1) / 2) * width for j in range(len(systems))]
        name = str(SUBSET_LABELS[label]).format(a=a, b=b) + f" (n={subsets[label]['n']})"
        color, hatch = PALETTE[i % len(PALETTE)], HATCHES[i % len(HATCHES)]
        values = [_num(subsets[label]["by_system"][s]) for s in systems]
        ax.bar(xs, values, width, label=name, color=color, hatch=hatch, edgecolor="black", linewidth=0.4)
    ax.set_xticks(range(len(systems)), systems, rotation=30, ha="right")
    ax.set_ylabel(_axis(data))
    ax.set_title(_("{axis} by combination of {a} and {b}").format(axis=_axis(data), a=a, b=b) + _suffix(data))
    ax.grid(axis="y", alpha=0.3)
    _local_ticks(ax.yaxis)
    _legend_outside(fig, ax, len(labels), title=_("questions"))
    return fig


FIGURES = {"partitions": partitions_figure, "per_frame": per_frame_figure, "combinations": combinations_figure}
# file stems (SPEC 11)
FIGURE_FILES = {
    "partitions": "figure3_partitions",
    "per_frame": "figure4_per_frame",
    "combinations": "figure5_combinations",
}
FORMATS = ("png", "pdf", "svg")
