"""The steps of the report about the questions' complexity (``evaluation.report.pipeline.STEPS``): the
factors (SPEC 6), the frames, the combination of two factors and the hard subset export. Each reads and
extends a ``Context`` (``evaluation.report.context``). Pure, no database."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from evaluation.report import tables
from evaluation.report.config import ROVER_NAME, StepOutput
from evaluation.report.context import Context, clean, group_means, scaled_array, scaled_value, side_codes
from evaluation.science import factors as fx
from stats import bootstrap, significance


def factors_step(ctx: Context) -> StepOutput:
    """Table 2 for every available metric: delta, Mann-Whitney U and p, Holm over each metric.

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
    >>> out = factors_step(ctx)
    >>> [(e["factor"], e["metric"]) for e in out.data["factors"]][:2], "factors_hscore" in out.tables
    ([('dist', 'hscore'), ('dist', 'hcorrect')], True)
    """
    X, cols, config = ctx.X, ctx.cols, ctx.config
    entries, holm_family = [], {}
    ties = {m: significance.tie_groups(X[m]) for m in ctx.available} if ctx.active else {}  # ranked once per metric
    if ctx.active:  # every side is a union of cells of the sides: counted once per cell
        cell = bootstrap.cells_of([side_codes(ctx.sides[f.name].to_numpy()) for f in ctx.active], ctx.n_q)
        for t in ties.values():
            t.count_by_cells(cell)
    for f in ctx.active:
        side = ctx.sides[f.name].to_numpy()
        diff_ci = None
        reps = ctx.boot.get(f"factor:{f.name}", {})
        if 0 in reps and 1 in reps:
            diff_ci = bootstrap.percentile_ci(reps[1] - reps[0])
        for i, m in enumerate(ctx.available):
            eff = fx.factor_effect(X[m], side, ties[m])
            rows = []
            for c, name in enumerate(cols):
                ci = diff_ci[:, i * len(cols) + c] if diff_ci is not None else None
                rows.append(
                    {
                        "system": name,
                        "delta": significance.floor_delta(eff["diff"][c]),
                        "diff": eff["diff"][c],
                        "u": eff["u"][c],
                        "p_value": eff["p_value"][c],
                        "significant": fx.is_significant(float(eff["p_value"][c]), config.significance),
                        "s_hard": scaled_value(m, eff["s_hard"][c]),
                        "s_easy": scaled_value(m, eff["s_easy"][c]),
                        "n_hard": int(eff["n_hard_scored"][c]),
                        "n_easy": int(eff["n_easy_scored"][c]),
                        "diff_ci": list(ci) if ci is not None else None,
                        "delta_ci": [significance.floor_delta(v) for v in ci] if ci is not None else None,
                    }
                )
            entries.append(
                {
                    "factor": f.name,
                    "metric": m,
                    "attribute": f.attribute,
                    "op": f.op,
                    "threshold": ctx.thresholds[f.name],
                    "threshold_spec": f.threshold,
                    "size_pct": eff["size_pct"],
                    "size_pct_corpus": eff["size_pct_corpus"],
                    "n_hard": eff["n_hard"],
                    "n_easy": eff["n_easy"],
                    "rows": rows,
                }
            )
            holm_family.setdefault(m, []).extend(rows)
    for rows in holm_family.values():
        adjusted = significance.holm([r["p_value"] for r in rows])
        for r, p in zip(rows, adjusted):
            r["p_holm"] = p
            r["significant_holm"] = fx.is_significant(float(p), config.significance)
    derived = fx.derived_attributes(ctx.questions)  # SPEC 15
    for e in entries:
        e["derived"] = derived.get(e["attribute"])
    skipped = [f for f in config.factors if f not in ctx.active]
    data = {
        "factors": entries,
        "derived_attributes": derived,
        "factors_skipped": [f.name for f in skipped],
        "factors_skipped_reasons": {f.name: fx.skip_reason(ctx.questions, f, ctx.entropy) for f in skipped},
    }
    return tables.factors_tables(StepOutput(data=clean(data)))


def frames_step(ctx: Context) -> StepOutput:
    """The metric per frame, ROVER first (Figure 4), sorted by ROVER's value.

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
    >>> out = frames_step(ctx)
    >>> [(r["frame"], float(r["by_system"]["ROVER"])) for r in out.data["per_frame"]]
    [('Win', 1.0), ('Capital', 0.5)]
    >>> out.tables["per_frame"].index.tolist()
    ['Win', 'Capital']
    """
    per_frame = []
    if ctx.frame_codes is not None:
        codes, names, cols, metric = ctx.frame_codes, ctx.frame_names, ctx.cols, ctx.metric
        fmeans = group_means(ctx.X[metric], codes, range(len(names)))
        fci = ctx.boot_ci("frames")
        rc = cols.index(ROVER_NAME)
        for i, name in enumerate(names):
            per_frame.append(
                {
                    "frame": name,
                    "n": int((codes == i).sum()),
                    "by_system": {sname: scaled_value(metric, fmeans[i][c]) for c, sname in enumerate(cols)},
                    "rover_ci": list(scaled_array(metric, fci[i][:, rc])) if i in fci else None,
                }
            )

        def rover_value(r):
            v = r["by_system"][ROVER_NAME]
            return v if v is not None and math.isfinite(v) else -math.inf

        per_frame.sort(key=lambda r: (-rover_value(r), r["frame"]))
    return tables.frames_tables(StepOutput(data=clean({"per_frame": per_frame})), ctx.metric)


def combinations_step(ctx: Context) -> StepOutput:
    """The metric on the four subsets of two factors (Figure 5).

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
    >>> out = combinations_step(ctx)
    >>> out.data["combinations"] is None, out.tables  # the default pair (nb_fes, entropy) needs frame elements
    (True, {})
    """
    combinations = None
    if ctx.combo[0] is not None:
        (fa, fb), masks, _ = ctx.combo
        cols, metric = ctx.cols, ctx.metric
        cci = ctx.boot_ci("combination")
        subsets = {}
        for j, (label, mask) in enumerate(masks.items()):
            means = significance.nanmean_rows(ctx.X[metric], mask)
            subsets[label] = {
                "n": int(mask.sum()),
                "by_system": {name: scaled_value(metric, means[c]) for c, name in enumerate(cols)},
                "by_system_ci": {name: list(scaled_array(metric, cci[j][:, c])) for c, name in enumerate(cols)}
                if j in cci
                else None,
            }
        combinations = {"pair": [fa, fb], "metric": metric, "subsets": subsets}
    return tables.combinations_tables(StepOutput(data=clean({"combinations": combinations})))


def hard_subset_step(ctx: Context) -> StepOutput:
    """The hard subset export (``hard_subset``) when the configuration asks for one.

    Parameters
    ----------
    ctx : Context
        From ``prepare``; sets ``ctx.hard`` (the questions exported).

    Returns
    -------
    StepOutput
        ``hard_subset`` (its size and choices).

    Examples
    --------
    >>> from evaluation.report.config import ReportConfig
    >>> from evaluation.report.context import prepare
    >>> from evaluation.report.inputs import _example_inputs
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=0, hard_factors=("dist",)))
    >>> hard_subset_step(ctx).data["hard_subset"]["n"], ctx.hard.index.tolist()
    (1, ['q2'])
    """
    c = ctx.config
    if c.hard_partitions or c.hard_factors:
        ctx.hard = hard_subset(
            ctx.questions,
            ctx.table.partition,
            ctx.sides,
            partitions=c.hard_partitions,
            factor_names=c.hard_factors,
            require=c.hard_require,
        )
    summary = (
        {
            "n": len(ctx.hard),
            "partitions": list(c.hard_partitions),
            "factors": list(c.hard_factors),
            "require": c.hard_require,
        }
        if ctx.hard is not None
        else None
    )
    return StepOutput(data=clean({"hard_subset": summary}))


def hard_subset(questions, partition, sides, *, partitions=(), factor_names=(), require="any") -> pd.DataFrame:
    """Questions in the chosen ROVER partitions and/or in E_f of the chosen factors.

    Parameters
    ----------
    questions : pandas.DataFrame
        The questions.
    partition : numpy.ndarray
        The ROVER partition k of each question.
    sides : pandas.DataFrame
        Per factor, 1.0 for E_f, 0.0 for the other side, NaN for neither.
    partitions : iterable of int
        Partitions k to keep.
    factor_names : iterable of str
        Factors whose E_f to keep (``ValueError`` for an unknown one).
    require : str
        ``"any"`` criterion, or ``"all"`` of them.

    Returns
    -------
    pandas.DataFrame
        The kept questions with their ``partition``; none when no criterion is given.

    Examples
    --------
    >>> questions = pd.DataFrame({"question": ["a?", "b?", "c?"]}, index=["q1", "q2", "q3"])
    >>> sides = pd.DataFrame({"dist": [1.0, 0.0, 1.0]})
    >>> hard_subset(questions, np.array([1, 1, 3]), sides, partitions=[1], factor_names=["dist"],
    ...             require="all").index.tolist()
    ['q1']
    """
    criteria = []
    if partitions:
        criteria.append(np.isin(partition, [int(k) for k in partitions]))
    for name in factor_names:
        if name not in sides:
            raise ValueError(f"hard subset: unknown factor {name!r}; known: {', '.join(sides.columns)}")
        criteria.append(sides[name].to_numpy() == 1.0)
    if not criteria:
        return questions.iloc[:0]
    stack = np.vstack(criteria)
    keep = stack.all(axis=0) if require == "all" else stack.any(axis=0)
    return questions[keep].assign(partition=partition[keep])
