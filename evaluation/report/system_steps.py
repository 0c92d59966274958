"""The steps of the report about the systems (``evaluation.report.pipeline.STEPS``): the one bootstrap,
the systems table with its ranking flips, the ROVER partitions and the agreement. Each reads and extends a
``Context`` (``evaluation.report.context``). Pure, no database."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evaluation.report import tables
from evaluation.report.config import MAX_FLIP_NOTES, StepOutput
from evaluation.report.context import Context, clean, group_means, scaled_array, scaled_value, side_codes
from evaluation.report.scoring import with_triplet_keys
from evaluation.science import agreement, metric_registry
from evaluation.science import factors as fx
from stats import bootstrap
from stats.labels import LABEL_RANKS


def bootstrap_step(ctx: Context) -> StepOutput:
    """One bootstrap (the same resamples of the questions) for every interval of the report.

    Parameters
    ----------
    ctx : Context
        From ``prepare`` and the earlier steps.

    Returns
    -------
    StepOutput
        The step's report.json keys, tables and figures' data.

    Examples
    --------
    >>> from evaluation.report.config import ReportConfig
    >>> from evaluation.report.context import prepare
    >>> from evaluation.report.inputs import _example_inputs
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=20))
    >>> bootstrap_step(ctx).data
    {}
    >>> sorted(ctx.boot)
    ['factor:dist', 'frames', 'partitions', 'systems']
    """
    if not ctx.config.n_boot:
        return StepOutput()
    X, part = ctx.X, ctx.table.partition
    stacked = np.hstack([X[m] for m in ctx.available])
    tasks = {
        "systems": (stacked, np.zeros(ctx.n_q, dtype=int)),
        "partitions": (X[ctx.metric], np.where(part > 0, part, -1)),
    }
    for f in ctx.active:
        tasks[f"factor:{f.name}"] = (stacked, side_codes(ctx.sides[f.name].to_numpy()))
    if ctx.frame_codes is not None:
        tasks["frames"] = (X[ctx.metric], ctx.frame_codes)
    if ctx.combo[0] is not None:
        tasks["combination"] = (X[ctx.metric], ctx.combo[2])
    ctx.boot = bootstrap.bootstrap_group_means(tasks, ctx.n_q, ctx.config.n_boot, seed=ctx.config.seed)
    return StepOutput()


def systems_step(ctx: Context) -> StepOutput:
    """Table 1: every metric per system and ROVER, coverage and its bounds (SPEC 3).

    Parameters
    ----------
    ctx : Context
        From ``prepare`` and the earlier steps.

    Returns
    -------
    StepOutput
        The step's report.json keys, tables and figures' data.

    Examples
    --------
    >>> from evaluation.report.config import ReportConfig
    >>> from evaluation.report.context import prepare
    >>> from evaluation.report.inputs import _example_inputs
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=20))
    >>> out = systems_step(ctx)
    >>> [(row["system"], row["hscore"], row["coverage"]) for row in out.data["systems"]]
    [('s1', 0.75, 1.0), ('s2', 0.0, 0.5), ('ROVER', 0.75, 1.0)]
    >>> float(out.tables["systems"].loc["s2", "coverage"])
    0.5
    """
    X, cols, n_q, available = ctx.X, ctx.cols, ctx.n_q, ctx.available
    sys_ci = {}
    everyone = ctx.boot_ci("systems").get(0)
    if everyone is not None:
        for i, m in enumerate(available):
            sys_ci[m] = everyone[:, i * len(cols) : (i + 1) * len(cols)]
    rows = []
    # one system = one row of the transposed matrices: contiguous, the same values in the same order
    by_system = {m: np.ascontiguousarray(X[m].T) for m in metric_registry.all_keys()}
    present_by_system = np.ascontiguousarray(ctx.table.present.T)
    for c, name in enumerate(cols):
        present = present_by_system[c]
        n = int(present.sum())
        row = {"system": name, "n": n, "missing": int(n_q - n)}
        labeled = ~np.isnan(by_system["hscore"][c]) & present
        row["n_labeled"] = int(labeled.sum())
        row["coverage"] = float(labeled.sum() / n) if ctx.has_labels and n else None
        for m in metric_registry.all_keys():
            col = by_system[m][c]
            value = float(np.nanmean(col)) if m in available and (~np.isnan(col)).any() else None
            row[m] = scaled_value(m, value)
        for m in metric_registry.human_keys():  # unlabeled predictions counted 0 (low) and 1 (high), over all of them
            low = high = None
            if ctx.has_labels and n:
                known = np.nansum(by_system[m][c][labeled])
                low, high = float(known / n), float((known + (n - labeled.sum())) / n)
            row[f"{m}_low"], row[f"{m}_high"] = scaled_value(m, low), scaled_value(m, high)
        for m in available:
            if m in sys_ci:
                row[f"{m}_ci"] = list(scaled_array(m, sys_ci[m][:, c]))
        rows.append(row)
    flips = ranking_flips(rows) if ctx.has_labels else []
    for flip in flips[:MAX_FLIP_NOTES]:
        ctx.notes.append(
            f"partial coverage: {flip['higher']} ranks above {flip['lower']} by Hscore "
            f"({flip['higher_hscore']:.3f} > {flip['lower_hscore']:.3f}), but the bounds with unlabeled predictions "
            f"counted 0 / 1 ({flip['higher_low']:.3f}-{flip['higher_high']:.3f} and "
            f"{flip['lower_low']:.3f}-{flip['lower_high']:.3f}) let the ranking flip"
        )
    if len(flips) > MAX_FLIP_NOTES:
        ctx.notes.append(
            f"partial coverage: {len(flips) - MAX_FLIP_NOTES} more pairs of systems could flip (all in ranking_flips)"
        )
    return tables.systems_tables(StepOutput(data=clean({"systems": rows, "ranking_flips": flips})))


def ranking_flips(rows) -> list:
    """Pairs of rows whose ranking by Hscore could flip inside the coverage bounds (SPEC 3).

    One of the two is below 100% coverage and the higher one's low bound is below the lower one's
    high bound.

    Parameters
    ----------
    rows : list of dict
        Rows of the systems table (``system``, ``hscore``, ``hscore_low``, ``hscore_high``,
        ``coverage``).

    Returns
    -------
    list of dict
        One entry per pair that could flip, the higher system first.

    Examples
    --------
    >>> rows = [{"system": "a", "hscore": 0.8, "hscore_low": 0.4, "hscore_high": 0.9, "coverage": 0.5},
    ...         {"system": "b", "hscore": 0.6, "hscore_low": 0.6, "hscore_high": 0.6, "coverage": 1.0}]
    >>> [(f["higher"], f["lower"]) for f in ranking_flips(rows)]
    [('a', 'b')]
    """
    ranked = sorted(
        (r for r in rows if r.get("hscore") is not None and r.get("hscore_low") is not None), key=lambda r: -r["hscore"]
    )
    flips = []
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 :]:
            if (
                (a["coverage"] < 1 or b["coverage"] < 1)
                and a["hscore"] > b["hscore"]
                and a["hscore_low"] < b["hscore_high"]
            ):
                flips.append(
                    {
                        "higher": a["system"],
                        "lower": b["system"],
                        "higher_hscore": a["hscore"],
                        "lower_hscore": b["hscore"],
                        "higher_low": a["hscore_low"],
                        "higher_high": a["hscore_high"],
                        "lower_low": b["hscore_low"],
                        "lower_high": b["hscore_high"],
                    }
                )
    return flips


def partitions_step(ctx: Context) -> StepOutput:
    """ROVER agreement partitions (Figure 3).

    Parameters
    ----------
    ctx : Context
        From ``prepare`` and the earlier steps.

    Returns
    -------
    StepOutput
        The step's report.json keys, tables and figures' data.

    Examples
    --------
    >>> from evaluation.report.config import ReportConfig
    >>> from evaluation.report.context import prepare
    >>> from evaluation.report.inputs import _example_inputs
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=20))
    >>> out = partitions_step(ctx)
    >>> out.data["partitions"]["counts"], out.tables["partition_counts"]["n"].tolist()
    ({'1': 2, '2': 0}, [0, 2])
    """
    X, part, cols, metric = ctx.X, ctx.table.partition, ctx.cols, ctx.metric
    n_sys = len(ctx.table.rover_systems)
    keys = list(range(1, n_sys + 1))
    pmeans = group_means(X[metric], part, keys)
    pci = ctx.boot_ci("partitions")
    partitions = {
        "n_systems": n_sys,
        "alpha": ctx.config.alpha,
        "systems": ctx.table.rover_systems,
        "metric": metric,
        "counts": {k: int((part == k).sum()) for k in keys},
        "no_vote": int((part == 0).sum()),
        "by_system": {name: {k: scaled_value(metric, pmeans[k][c]) for k in keys} for c, name in enumerate(cols)},
        "by_system_ci": {
            name: {k: list(scaled_array(metric, pci[k][:, c])) if k in pci else None for k in keys}
            for c, name in enumerate(cols)
        },
    }
    # P(f | P_k) (Table 3)
    by_partition = {f.name: fx.share_by_group(ctx.sides[f.name].to_numpy(), part, keys) for f in ctx.active}
    return tables.partitions_tables(
        StepOutput(data=clean({"partitions": partitions, "factor_by_partition": by_partition}))
    )


def agreement_step(ctx: Context) -> StepOutput:
    """Krippendorff's alpha (SPEC 7) on the labels that match a triplet.

    The same label set in the offline and the in-app report (the app's labels are on triplets by
    construction).

    Parameters
    ----------
    ctx : Context
        From ``prepare``.

    Returns
    -------
    StepOutput
        ``agreement`` and the ``agreement_pairs`` table.

    Examples
    --------
    >>> from evaluation.report.config import ReportConfig
    >>> from evaluation.report.context import prepare
    >>> from evaluation.report.inputs import _example_inputs
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=0))
    >>> agreement_step(ctx).data["agreement"]["n_items"]  # one annotator: no item with two labels
    0
    """
    if ctx.has_labels:
        lab = ctx.table.labels
        if lab is None:
            lab = with_triplet_keys(ctx.labels, ctx.config.dedup_policy)
        if ctx.table.label_matched is not None:
            lab = lab[ctx.table.label_matched]
        agree = agreement.krippendorff_alpha(
            pd.DataFrame({"item": lab["tkey"], "annotator": lab["annotator"], "value": lab["label"]}), LABEL_RANKS
        )
    else:
        agree = {
            "alpha_ordinal": None,
            "alpha_nominal": None,
            "n_items": 0,
            "n_labels": 0,
            "n_annotators": 0,
            "pairs": [],
        }
    return tables.agreement_tables(StepOutput(data=clean({"agreement": agree})))
