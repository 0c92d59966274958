"""The DataFrames behind the report's CSV / LaTeX tables and the figures' data, one function per step.

Each report step (``evaluation.report.system_steps``, ``factor_steps``) hands its own report.json keys,
already plain JSON values (``context.clean``), to its function here and returns the ``StepOutput`` it fills: the step's
data and its tables together, so the tables are built once, beside the numbers they show.
"""

from __future__ import annotations

import pandas as pd

from evaluation.report.config import StepOutput
from evaluation.science import metric_registry


def systems_tables(out: StepOutput) -> StepOutput:
    """Table 1 (``systems``) from ``out.data["systems"]``: the intervals become low and high columns.

    Parameters
    ----------
    out : StepOutput
        The systems step's output, its ``data`` complete; fills ``tables``.

    Returns
    -------
    StepOutput
        ``out``.

    Examples
    --------
    >>> row = {"system": "s1", "n": 2, "missing": 0, "n_labeled": 2, "coverage": 1.0, "em_ci": [0.5, 1.0]}
    >>> row |= {k: 1.0 for k in metric_registry.all_keys()}
    >>> table = systems_tables(StepOutput(data={"systems": [row]})).tables["systems"]
    >>> table.loc["s1", ["em_ci_low", "em_ci_high"]].tolist()
    [0.5, 1.0]
    """
    systems = pd.DataFrame(out.data["systems"])
    base = ["system", "n", "missing", "n_labeled", "coverage", *metric_registry.all_keys()]
    systems = systems[base + [c for c in systems.columns if c not in base]]
    for column in [c for c in systems.columns if c.endswith("_ci")]:
        # A table cell holds one number: the interval becomes two columns, low and high.
        bounds = systems.pop(column).map(lambda ci: ci if isinstance(ci, (list, tuple)) else (None, None))
        systems[f"{column}_low"] = [b[0] for b in bounds]
        systems[f"{column}_high"] = [b[1] for b in bounds]
    out.tables["systems"] = systems.set_index("system")
    return out


def _partition_keys(partitions: dict) -> list:
    """``["n", ..., "1"]``: the partitions' keys in report.json, P_n first as in the paper."""
    return [str(k) for k in range(partitions["n_systems"], 0, -1)]


def partitions_tables(out: StepOutput) -> StepOutput:
    """The partitions' tables (``partitions``, ``partition_counts``, ``factor_by_partition``) and
    Figure 3's data, from ``out.data["partitions"]`` and ``out.data["factor_by_partition"]``.

    Parameters
    ----------
    out : StepOutput
        The step's output, its ``data`` complete (plain JSON values); fills its tables and figures.

    Returns
    -------
    StepOutput
        ``out``.

    Examples
    --------
    >>> data = {"partitions": {"n_systems": 2, "metric": "em", "counts": {"1": 3, "2": 1},
    ...                        "by_system": {"s1": {"1": 0.5, "2": 1.0}}}, "factor_by_partition": {}}
    >>> out = partitions_tables(StepOutput(data=data))
    >>> out.tables["partition_counts"]["n"].tolist(), out.figures["partitions"]["keys"]
    ([1, 3], ['1', '2'])
    """
    d = out.data
    keys = _partition_keys(d["partitions"])
    by_system = d["partitions"]["by_system"]
    part = pd.DataFrame({f"P{k}": {s: v.get(k) for s, v in by_system.items()} for k in keys})
    out.tables["partitions"] = part.rename_axis("system")
    out.tables["partition_counts"] = pd.DataFrame(
        {"partition": [f"P{k}" for k in keys], "n": [d["partitions"]["counts"][k] for k in keys]}
    ).set_index("partition")
    out.figures["partitions"] = {
        "metric": d["partitions"]["metric"],
        "keys": keys[::-1],
        "by_system": by_system,
        "counts": d["partitions"]["counts"],
    }
    if d["factor_by_partition"]:
        fbp = pd.DataFrame({f"P{k}": {f: v.get(k) for f, v in d["factor_by_partition"].items()} for k in keys})
        out.tables["factor_by_partition"] = fbp.rename_axis("factor")
    return out


def factors_tables(out: StepOutput) -> StepOutput:
    """Table 2 per metric (``factors_<metric>``: size of E_f, then delta per system) and its bold cells
    (significant deltas), from ``out.data["factors"]``.

    Parameters
    ----------
    out : StepOutput
        The step's output, its ``data`` complete (plain JSON values); fills its tables and bold cells.

    Returns
    -------
    StepOutput
        ``out``.

    Examples
    --------
    >>> entry = {"factor": "dist", "metric": "em", "size_pct": 40.0,
    ...          "rows": [{"system": "s1", "delta": -2.0, "significant": True}]}
    >>> out = factors_tables(StepOutput(data={"factors": [entry]}))
    >>> out.tables["factors_em"]["dist"].tolist(), out.bold["factors_em"]["dist"].tolist()
    ([40.0, -2.0], [False, True])
    """
    factors = out.data["factors"]
    for m in {e["metric"] for e in factors}:
        entries = [e for e in factors if e["metric"] == m]
        delta = pd.DataFrame({e["factor"]: {r["system"]: r["delta"] for r in e["rows"]} for e in entries})
        bold = pd.DataFrame({e["factor"]: {r["system"]: r["significant"] for r in e["rows"]} for e in entries})
        size = pd.DataFrame([{e["factor"]: e["size_pct"] for e in entries}], index=["size of Ef (%)"])
        out.tables[f"factors_{m}"] = pd.concat([size, delta]).rename_axis("system")
        out.bold[f"factors_{m}"] = pd.concat([size.astype(bool) & False, bold]).fillna(False).astype(bool)
    return out


def frames_tables(out: StepOutput, metric: str) -> StepOutput:
    """The metric per frame (``per_frame``) and Figure 4's data, from ``out.data["per_frame"]``.

    Parameters
    ----------
    out : StepOutput
        The step's output, its ``data`` complete (plain JSON values); fills its tables and figures.
    metric : str
        The report's metric (the figure's axis).

    Returns
    -------
    StepOutput
        ``out``.

    Examples
    --------
    >>> rows = [{"frame": "Win", "n": 2, "by_system": {"s1": 1.0, "ROVER": 1.0}, "rover_ci": None}]
    >>> frames_tables(StepOutput(data={"per_frame": rows}), "em").tables["per_frame"].loc["Win"].tolist()
    [2.0, 1.0, 1.0]
    """
    rows = out.data["per_frame"]
    if rows:
        frame = pd.DataFrame([{"frame": r["frame"], "n": r["n"], **r["by_system"]} for r in rows])
        out.tables["per_frame"] = frame.set_index("frame")
        out.figures["per_frame"] = {"metric": metric, "rows": rows}
    return out


def combinations_tables(out: StepOutput) -> StepOutput:
    """The metric on the four subsets of two factors (``combinations``) and Figure 5's data.

    Parameters
    ----------
    out : StepOutput
        The step's output, its ``data`` complete (plain JSON values); fills its tables and figures.

    Returns
    -------
    StepOutput
        ``out``.

    Examples
    --------
    >>> combo = {"pair": ["a", "b"], "metric": "em", "subsets": {"a & b": {"n": 3, "by_system": {"s1": 0.5}}}}
    >>> combinations_tables(StepOutput(data={"combinations": combo})).tables["combinations"]["a & b"].tolist()
    [3.0, 0.5]
    """
    combo = out.data["combinations"]
    if combo:
        table = pd.DataFrame({label: {"n": sub["n"], **sub["by_system"]} for label, sub in combo["subsets"].items()})
        out.tables["combinations"] = table.rename_axis("system")
        out.figures["combinations"] = combo
    return out


def agreement_tables(out: StepOutput) -> StepOutput:
    """The annotators' pairwise agreement (``agreement_pairs``), from ``out.data["agreement"]["pairs"]``.

    Parameters
    ----------
    out : StepOutput
        The step's output, its ``data`` complete (plain JSON values); fills its tables.

    Returns
    -------
    StepOutput
        ``out``.

    Examples
    --------
    >>> pair = {"annotators": ["a", "b"], "n_items": 4, "alpha_ordinal": 0.5}
    >>> agreement_tables(StepOutput(data={"agreement": {"pairs": [pair]}})).tables["agreement_pairs"].columns.tolist()
    ['annotator_a', 'annotator_b', 'n_items', 'alpha_ordinal']
    """
    pairs = out.data["agreement"]["pairs"]
    if pairs:
        out.tables["agreement_pairs"] = pd.DataFrame(
            [
                {
                    "annotator_a": p["annotators"][0],
                    "annotator_b": p["annotators"][1],
                    **{k: v for k, v in p.items() if k != "annotators"},
                }
                for p in pairs
            ]
        )
    return out
