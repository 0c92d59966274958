"""What the report's steps share (``evaluation.report.pipeline.STEPS``): the ``Context`` that ``prepare``
builds (the scores, the metric, the factor sides) and each step reads and extends, and the helpers the steps
share (``clean``: JSON-able values; ``scaled_value``, ``group_means``, ``side_codes``). Pure, no database."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from evaluation.report.config import FALLBACK_METRIC, ReportConfig, ScoreTable
from evaluation.report.scoring import score_table
from evaluation.science import factors as fx
from evaluation.science import metric_registry
from stats import bootstrap, significance


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


def scaled_value(metric, value):
    """``value`` of ``metric`` on the scale the report shows it (its ``Metric.scale``).

    Parameters
    ----------
    metric : str
        A metric key (``evaluation.science.metric_registry``).
    value : float or None
        A mean on the 0-1 scale the scores are held in.

    Returns
    -------
    float or None
        None stays None.

    Examples
    --------
    >>> scaled_value("hcorrect", 0.25), scaled_value("hscore", 0.25), scaled_value("hcorrect", None)
    (25.0, 0.25, None)
    """
    factor = metric_registry.get(metric).scale
    return value * factor if factor != 1 and value is not None else value


def scaled_array(metric, array):
    """``scaled_value`` of every value of ``array``.

    Parameters
    ----------
    metric : str
        A metric key.
    array : array-like of float

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> scaled_array("hcorrect", [0.5, np.nan]).tolist()
    [50.0, nan]
    """
    array = np.asarray(array, dtype=float)
    factor = metric_registry.get(metric).scale
    return array * factor if factor != 1 else array


def group_means(X, groups, keys):
    """The column means of the rows of each group, NaN ignored.

    Parameters
    ----------
    X : ndarray (questions x columns)
        Scores.
    groups : ndarray
        Each question's group.
    keys : iterable
        The groups wanted.

    Returns
    -------
    dict
        ``{key: ndarray of the column means}``.

    Examples
    --------
    >>> X = np.array([[1.0, 2.0], [3.0, np.nan], [5.0, 6.0]])
    >>> {k: v.tolist() for k, v in group_means(X, np.array([0, 1, 0]), [0, 1]).items()}
    {0: [3.0, 4.0], 1: [3.0, nan]}
    """
    return {k: significance.nanmean_rows(X, groups == k) for k in keys}


def side_codes(side):
    """A factor's sides as group codes.

    Parameters
    ----------
    side : ndarray of float
        1.0 hard, 0.0 easy, NaN lacking the attribute (``evaluation.science.factors.factor_side``).

    Returns
    -------
    ndarray of int
        1, 0 and -1.

    Examples
    --------
    >>> side_codes(np.array([1.0, 0.0, np.nan])).tolist()
    [1, 0, -1]
    """
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
