"""The steps of the report (``evaluation.report.pipeline.STEPS``): each reads and extends a ``Context``
(bootstrap, systems table, ROVER partitions, factors, frames, combinations, agreement, hard subset),
and the helpers they share (``clean``: JSON-able values). Pure, no database."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evaluation.report import tables
from evaluation.report.config import (
    FALLBACK_METRIC,
    MAX_FLIP_NOTES,
    ROVER_NAME,
    ReportConfig,
    ScoreTable,
    StepOutput,
)
from evaluation.report.scoring import score_table, with_triplet_keys
from evaluation.science import agreement, metric_registry
from evaluation.science import factors as fx
from stats import bootstrap, significance
from stats.labels import LABEL_RANKS


def clean(value):
    """Plain JSON data: numpy scalars to Python, NaN and infinities to None.

    Parameters
    ----------
    value : object
        Nested dicts, lists, tuples, numpy arrays and scalars.

    Returns
    -------
    object
        The same structure of plain Python values (dict keys as strings).

    Examples
    --------
    >>> clean({1: np.array([0.5, np.nan]), "n": np.int64(3), "ok": np.bool_(True)})
    {'1': [0.5, None], 'n': 3, 'ok': True}
    """
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return [clean(v) for v in value.tolist()]
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return value if math.isfinite(value) else None
    return value


def _scale(metric, value):
    scale = metric_registry.get(metric).scale
    return value * scale if scale != 1 and value is not None else value


def _scaled(metric, array):
    array = np.asarray(array, dtype=float)
    scale = metric_registry.get(metric).scale
    return array * scale if scale != 1 else array


def _group_means(X, groups, keys):
    return {k: significance.nanmean_rows(X, groups == k) for k in keys}


def _side_codes(side):
    return np.where(side == 1.0, 1, np.where(side == 0.0, 0, -1))


def _frame_codes(questions):
    if "frame" not in questions or not questions["frame"].notna().any():
        return None, []
    codes, names = pd.factorize(questions["frame"])
    return codes, list(names)


def _combination_code(sides, pair, active_names):
    fa, fb = (*tuple(pair), None, None)[:2]
    if fa not in active_names or fb not in active_names:
        return None, None, None
    masks = fx.combination_masks(sides[fa].to_numpy(), sides[fb].to_numpy())
    code = np.full(len(sides), -1)
    for j, mask in enumerate(masks.values()):
        code[mask] = j
    return (fa, fb), masks, code


#
# ``compute_report`` runs named steps over one ``Context``; each step reads what the earlier ones
# left there and returns a ``StepOutput``: its keys of report.json and the tables and figures' data
# built from them (``evaluation.report.tables``), which ``compute_report`` collects (and adds to
# ``ctx.data`` for the later steps). A new section of the report is one more step added to ``STEPS``.


@dataclass
class Context:
    """What the steps of ``compute_report`` share: the inputs, the scores, and ``data`` so far."""

    questions: pd.DataFrame
    predictions: pd.DataFrame
    labels: pd.DataFrame | None
    config: ReportConfig
    table: ScoreTable
    has_labels: bool
    available: tuple
    metric: str
    notes: list
    sides: pd.DataFrame
    thresholds: dict
    active: list
    entropy: pd.Series
    frame_codes: np.ndarray | None = None
    frame_names: list = field(default_factory=list)
    combo: tuple = (None, None, None)
    boot: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)
    hard: pd.DataFrame | None = None

    @property
    def X(self):
        return self.table.matrices

    @property
    def cols(self):
        return self.table.columns

    @property
    def n_q(self):
        return len(self.table.question_ids)

    def boot_ci(self, name):
        """The percentile intervals of a bootstrap task, per group (empty without bootstrap).

        Parameters
        ----------
        name : str
            A task of ``bootstrap_step`` (``"systems"``, ``"partitions"``, ``"factor:<name>"``...).

        Returns
        -------
        dict
            ``{group: array (2, columns)}``: lower and upper bounds.

        Examples
        --------
        >>> from evaluation.report.inputs import _example_inputs
        >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=0))
        >>> ctx.boot_ci("systems")
        {}
        """
        return {g: bootstrap.percentile_ci(r) for g, r in self.boot.get(name, {}).items()}


def prepare(questions, predictions, labels, *, config) -> Context:
    """Score every prediction, resolve the metric and the factor sides: the steps' context.

    Parameters
    ----------
    questions, predictions, labels : pandas.DataFrame
        As in ``compute_report``.
    config : ReportConfig
        The report's choices.

    Returns
    -------
    Context
        The context the ``STEPS`` run on.

    Examples
    --------
    >>> from evaluation.report.inputs import _example_inputs
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=0))
    >>> ctx.metric, ctx.cols, [f.name for f in ctx.active]
    ('hscore', ['s1', 's2', 'ROVER'], ['dist'])
    """
    table = score_table(questions, predictions, labels, config=config)
    has_labels = labels is not None and len(labels) > 0
    available = metric_registry.all_keys() if has_labels else metric_registry.automatic_keys()
    metric, notes = config.metric, []
    if metric in metric_registry.human_keys() and not has_labels:
        metric = FALLBACK_METRIC
        notes.append(
            f"no labels: human metrics are null; tables and figures use {FALLBACK_METRIC} instead of {config.metric}"
        )
    if table.n_unmatched_labels:
        notes.append(
            f"{table.n_unmatched_labels} label(s) match no prediction's answer and count for no system "
            "(nor for the agreement)"
        )
    if table.empty_answers:
        counts = ", ".join(f"{name} {n}" for name, n in table.empty_answers.items())
        notes.append(
            f"{sum(table.empty_answers.values())} empty answer(s) ({counts}) are shown to nobody: they score 0 "
            "on the automatic metrics against a reference answer and count as incorrect in the human metrics "
            "(as correct where the question has no reference answer)"
        )
    entropy = fx.frame_entropy(questions, config.entropy_source, config.lexicon)
    sides, thresholds = fx.factor_sides(questions, config.factors, entropy)
    active = [f for f in config.factors if (~np.isnan(sides[f.name].to_numpy())).any()]
    ctx = Context(
        questions,
        predictions,
        labels,
        config,
        table,
        has_labels,
        available,
        metric,
        notes,
        sides,
        thresholds,
        active,
        entropy,
    )
    ctx.frame_codes, ctx.frame_names = _frame_codes(questions)
    ctx.combo = _combination_code(sides, config.combination, [f.name for f in active])
    return ctx


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
        tasks[f"factor:{f.name}"] = (stacked, _side_codes(ctx.sides[f.name].to_numpy()))
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
            row[m] = _scale(m, value)
        for m in metric_registry.human_keys():  # unlabeled predictions counted 0 (low) and 1 (high), over all of them
            low = high = None
            if ctx.has_labels and n:
                known = np.nansum(by_system[m][c][labeled])
                low, high = float(known / n), float((known + (n - labeled.sum())) / n)
            row[f"{m}_low"], row[f"{m}_high"] = _scale(m, low), _scale(m, high)
        for m in available:
            if m in sys_ci:
                row[f"{m}_ci"] = list(_scaled(m, sys_ci[m][:, c]))
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
    >>> from evaluation.report.inputs import _example_inputs
    >>> ctx = prepare(*_example_inputs(), config=ReportConfig(n_boot=20))
    >>> out = partitions_step(ctx)
    >>> out.data["partitions"]["counts"], out.tables["partition_counts"]["n"].tolist()
    ({'1': 2, '2': 0}, [0, 2])
    """
    X, part, cols, metric = ctx.X, ctx.table.partition, ctx.cols, ctx.metric
    n_sys = len(ctx.table.rover_systems)
    keys = list(range(1, n_sys + 1))
    pmeans = _group_means(X[metric], part, keys)
    pci = ctx.boot_ci("partitions")
    partitions = {
        "n_systems": n_sys,
        "alpha": ctx.config.alpha,
        "systems": ctx.table.rover_systems,
        "metric": metric,
        "counts": {k: int((part == k).sum()) for k in keys},
        "no_vote": int((part == 0).sum()),
        "by_system": {name: {k: _scale(metric, pmeans[k][c]) for k in keys} for c, name in enumerate(cols)},
        "by_system_ci": {
            name: {k: list(_scaled(metric, pci[k][:, c])) if k in pci else None for k in keys}
            for c, name in enumerate(cols)
        },
    }
    # P(f | P_k) (Table 3)
    by_partition = {f.name: fx.share_by_group(ctx.sides[f.name].to_numpy(), part, keys) for f in ctx.active}
    return tables.partitions_tables(
        StepOutput(data=clean({"partitions": partitions, "factor_by_partition": by_partition}))
    )


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
        cell = bootstrap.cells_of([_side_codes(ctx.sides[f.name].to_numpy()) for f in ctx.active], ctx.n_q)
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
                        "s_hard": _scale(m, eff["s_hard"][c]),
                        "s_easy": _scale(m, eff["s_easy"][c]),
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
        fmeans = _group_means(ctx.X[metric], codes, range(len(names)))
        fci = ctx.boot_ci("frames")
        rc = cols.index(ROVER_NAME)
        for i, name in enumerate(names):
            per_frame.append(
                {
                    "frame": name,
                    "n": int((codes == i).sum()),
                    "by_system": {sname: _scale(metric, fmeans[i][c]) for c, sname in enumerate(cols)},
                    "rover_ci": list(_scaled(metric, fci[i][:, rc])) if i in fci else None,
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
                "by_system": {name: _scale(metric, means[c]) for c, name in enumerate(cols)},
                "by_system_ci": {name: list(_scaled(metric, cci[j][:, c])) for c, name in enumerate(cols)}
                if j in cci
                else None,
            }
        combinations = {"pair": [fa, fb], "metric": metric, "subsets": subsets}
    return tables.combinations_tables(StepOutput(data=clean({"combinations": combinations})))


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
