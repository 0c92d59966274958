"""The report's figures (paper Figures 3, 4 and 5), drawn with matplotlib's object API (Agg
renderer for PNG, SVG renderer for SVG; no pyplot, no display, safe in a worker)."""
from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
from matplotlib.figure import Figure  # noqa: E402

LABELS = {"hscore": "Hscore", "hcorrect": "Hcorrect (%)", "rouge_l": "ROUGE-L", "f1": "F1", "em": "EM"}
SUBSET_LABELS = {"neither": "neither", "only_f1": "only {a}", "only_f2": "only {b}", "both": "both"}


def _num(v):
    return v if v is not None and isinstance(v, (int, float)) and math.isfinite(v) else float("nan")


def partitions_figure(data) -> Figure:
    """Figure 3: the metric of each system per agreement partition P1..Pn."""
    fig = Figure(figsize=(8, 5), layout="constrained")
    ax = fig.add_subplot()
    keys = data["keys"]
    for system, values in data["by_system"].items():
        style = {"linewidth": 3, "color": "black"} if system == "ROVER" else {"linewidth": 1.3, "alpha": 0.85}
        ax.plot([f"P{k}" for k in keys], [_num(values.get(k)) for k in keys], marker="o", label=system, **style)
    ax.set_xlabel("agreement partition (number of systems agreeing with the ROVER answer)")
    ax.set_ylabel(LABELS.get(data["metric"], data["metric"]))
    ax.set_title(f"{LABELS.get(data['metric'], data['metric'])} per ROVER agreement partition")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", ncols=2)
    return fig


def per_frame_figure(data) -> Figure:
    """Figure 4: ROVER's metric per frame, sorted, with the frame's count in brackets."""
    rows = data["rows"]
    fig = Figure(figsize=(8, max(3, 0.28 * len(rows) + 1)), layout="constrained")
    ax = fig.add_subplot()
    names = [f"{r['frame']} ({r['n']})" for r in rows][::-1]
    values = [_num(r["by_system"].get("ROVER")) for r in rows][::-1]
    ax.barh(names, values, color="#3b6ea8")
    ax.set_xlabel(f"ROVER {LABELS.get(data['metric'], data['metric'])}")
    ax.set_title("ROVER per frame")
    ax.tick_params(axis="y", labelsize=8)
    return fig


def combinations_figure(data) -> Figure:
    """Figure 5: the metric of each system on the four subsets of two factors."""
    a, b = data["pair"]
    subsets = data["subsets"]
    labels = list(subsets)
    systems = list(next(iter(subsets.values()))["by_system"])
    fig = Figure(figsize=(max(6, 0.9 * len(systems) + 2), 5), layout="constrained")
    ax = fig.add_subplot()
    width = 0.8 / len(labels)
    for i, label in enumerate(labels):
        xs = [j + (i - (len(labels) - 1) / 2) * width for j in range(len(systems))]
        name = SUBSET_LABELS[label].format(a=a, b=b) + f" (n={subsets[label]['n']})"
        ax.bar(xs, [_num(subsets[label]["by_system"][s]) for s in systems], width, label=name)
    ax.set_xticks(range(len(systems)), systems, rotation=30, ha="right")
    ax.set_ylabel(LABELS.get(data["metric"], data["metric"]))
    ax.set_title(f"{LABELS.get(data['metric'], data['metric'])} by combination of {a} and {b}")
    ax.legend(fontsize="small")
    return fig


FIGURES = {"partitions": partitions_figure, "per_frame": per_frame_figure, "combinations": combinations_figure}
