"""The DataFrames behind the report's CSV / LaTeX tables and the figures' data, from report.json data."""

from __future__ import annotations

import pandas as pd

from evaluation.report.config import Report
from evaluation.science import metric_registry


def build_tables(report: Report) -> None:
    """The DataFrames behind the CSV / LaTeX tables and the figures' data, into ``report``.

    Parameters
    ----------
    report : Report
        A report whose ``data`` is complete; fills ``tables``, ``bold`` and ``figures``.

    Examples
    --------
    >>> from evaluation.report.config import ReportConfig
    >>> from evaluation.report.inputs import _example_inputs
    >>> from evaluation.report.pipeline import compute_report
    >>> report = compute_report(*_example_inputs(), config=ReportConfig(n_boot=0))
    >>> report.tables = {}
    >>> build_tables(report)
    >>> float(report.tables["systems"].loc["s1", "hscore"])
    0.75
    """
    d = report.data
    metric = d["metric"]
    systems = pd.DataFrame(d["systems"])
    base = ["system", "n", "missing", "n_labeled", "coverage", *metric_registry.all_keys()]
    systems = systems[base + [c for c in systems.columns if c not in base]]
    for column in [c for c in systems.columns if c.endswith("_ci")]:
        # A table cell holds one number: the interval becomes two columns, low and high.
        bounds = systems.pop(column).map(lambda ci: ci if isinstance(ci, (list, tuple)) else (None, None))
        systems[f"{column}_low"] = [b[0] for b in bounds]
        systems[f"{column}_high"] = [b[1] for b in bounds]
    report.tables["systems"] = systems.set_index("system")

    keys = [str(k) for k in range(d["partitions"]["n_systems"], 0, -1)]  # P_n ... P_1, as in the paper
    part = pd.DataFrame({f"P{k}": {s: v.get(k) for s, v in d["partitions"]["by_system"].items()} for k in keys})
    report.tables["partitions"] = part.rename_axis("system")
    report.tables["partition_counts"] = pd.DataFrame(
        {"partition": [f"P{k}" for k in keys], "n": [d["partitions"]["counts"][k] for k in keys]}
    ).set_index("partition")
    report.figures["partitions"] = {
        "metric": metric,
        "keys": keys[::-1],
        "by_system": d["partitions"]["by_system"],
        "counts": d["partitions"]["counts"],
    }

    for m in {e["metric"] for e in d["factors"]}:
        entries = [e for e in d["factors"] if e["metric"] == m]
        delta = pd.DataFrame({e["factor"]: {r["system"]: r["delta"] for r in e["rows"]} for e in entries})
        bold = pd.DataFrame({e["factor"]: {r["system"]: r["significant"] for r in e["rows"]} for e in entries})
        size = pd.DataFrame([{e["factor"]: e["size_pct"] for e in entries}], index=["size of Ef (%)"])
        table = pd.concat([size, delta]).rename_axis("system")
        report.tables[f"factors_{m}"] = table
        report.bold[f"factors_{m}"] = pd.concat([size.astype(bool) & False, bold]).fillna(False).astype(bool)

    if d["factor_by_partition"]:
        fbp = pd.DataFrame({f"P{k}": {f: v.get(k) for f, v in d["factor_by_partition"].items()} for k in keys})
        report.tables["factor_by_partition"] = fbp.rename_axis("factor")
    if d["per_frame"]:
        frame = pd.DataFrame([{"frame": r["frame"], "n": r["n"], **r["by_system"]} for r in d["per_frame"]])
        report.tables["per_frame"] = frame.set_index("frame")
        report.figures["per_frame"] = {"metric": metric, "rows": d["per_frame"]}
    if d["combinations"]:
        combo = d["combinations"]
        table = pd.DataFrame({label: {"n": sub["n"], **sub["by_system"]} for label, sub in combo["subsets"].items()})
        report.tables["combinations"] = table.rename_axis("system")
        report.figures["combinations"] = combo
    pairs = d["agreement"]["pairs"]
    if pairs:
        report.tables["agreement_pairs"] = pd.DataFrame(
            [
                {
                    "annotator_a": p["annotators"][0],
                    "annotator_b": p["annotators"][1],
                    **{k: v for k, v in p.items() if k != "annotators"},
                }
                for p in pairs
            ]
        )
