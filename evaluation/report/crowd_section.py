"""The report's crowd figures (SPEC 17): ``crowd_sensitivity`` (per system, Hscore and Hcorrect under
each human aggregate, with and without excluded participants) and the two-way bootstrap (participants,
then questions, the aggregation refitted per replicate) whenever labels come from a study or ``ds`` is
chosen. Pure, no database: the labels carry an ``excluded`` flag (``evaluation.report.inputs.crowd_table``;
a file's labels have none: nobody is excluded).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evaluation.report.context import clean
from evaluation.science import crowd, human, metric_registry, ppi

HUMAN = ("hscore", "hcorrect")
#: the two sets of participants: the report's default (excluded left out), then everyone
VARIANTS = (("", False), ("_all", True))
BOOTSTRAP_QUESTIONS = "questions"
BOOTSTRAP_TWO_WAY = "two-way"
MAX_TWO_WAY = 200  # replicates of the two-way bootstrap at most (each refits the aggregation)


def excluded_mask(labels: pd.DataFrame) -> np.ndarray:
    """Which label rows come from excluded participants (column ``excluded``; none without it).

    Parameters
    ----------
    labels : pandas.DataFrame
        Labels, optionally with a boolean ``excluded`` column.

    Returns
    -------
    numpy.ndarray
        One bool per row.

    Examples
    --------
    >>> excluded_mask(pd.DataFrame({"excluded": [True, None, False]})).tolist()
    [True, False, False]
    >>> excluded_mask(pd.DataFrame({"label": ["correct"]})).tolist()
    [False]
    """
    if "excluded" not in labels.columns:
        return np.zeros(len(labels), dtype=bool)
    return labels["excluded"].fillna(False).to_numpy(dtype=bool)


def _system_means(predictions, labels, *, aggregate, systems):
    """Per system, the mean h_hscore and h_hcorrect (scaled as the main table) or None when
    ``aggregate`` is refused for these labels."""
    try:
        scores = ppi.prediction_scores(predictions, labels, None, aggregate=aggregate)
    except ValueError:
        return None
    means = scores.groupby("system", sort=False)[[f"h_{m}" for m in HUMAN]].mean()
    means = means.reindex(systems)
    return {m: means[f"h_{m}"] * metric_registry.get(m).scale for m in HUMAN}


def sensitivity(predictions: pd.DataFrame, labels: pd.DataFrame | None, systems) -> list:
    """``crowd_sensitivity`` rows: one per system with ``{metric}_{aggregate}`` (excluded
    participants left out) and ``{metric}_{aggregate}_all`` (everyone), and ``hscore_spread`` (the
    largest minus the smallest of its Hscores); empty unless some triplet has two or more labels.

    Parameters
    ----------
    predictions : pandas.DataFrame
        ``system`` and ``tkey`` of each prediction.
    labels : pandas.DataFrame or None
        Every label (``tkey``, ``annotator``, ``label``, optional ``excluded`` and ``gold``).
    systems : list of str
        The systems, in the report's order.

    Returns
    -------
    list of dict
        One row per system (plain values, None where an aggregate is refused).

    Examples
    --------
    >>> labels = pd.DataFrame({"tkey": ["t1", "t1", "t2", "t2"], "annotator": ["a", "b", "a", "b"],
    ...                        "label": ["correct", "partial", "incorrect", "incorrect"],
    ...                        "excluded": [False, True, False, True]})
    >>> predictions = pd.DataFrame({"system": ["s", "s"], "tkey": ["t1", "t2"]})
    >>> row = sensitivity(predictions, labels, ["s"])[0]
    >>> row["hscore_mean"], row["hscore_mean_all"], row["hscore_ds"], row["hscore_ds_all"] is not None
    (0.5, 0.375, None, True)
    """
    if labels is None or labels.empty:
        return []
    if human.triplet_label_counts(labels[["tkey", "annotator", "label"]])[1].sum(axis=1).max() < 2:
        return []
    mask = excluded_mask(labels)
    rows = [{"system": s} for s in systems]
    for suffix, everyone in VARIANTS:
        subset = labels if everyone else labels[~mask]
        for aggregate in human.AGGREGATES:
            means = _system_means(predictions, subset, aggregate=aggregate, systems=systems) if len(subset) else None
            for i, row in enumerate(rows):
                for m in HUMAN:
                    value = None if means is None else means[m].iloc[i]
                    row[f"{m}_{aggregate}{suffix}"] = None if value is None or pd.isna(value) else float(value)
    for row in rows:
        values = [v for k, v in row.items() if k.startswith("hscore_") and v is not None]
        row["hscore_spread"] = float(max(values) - min(values)) if values else None
    return clean(rows)


def _score_fn(aggregate):
    def score(codes, n_tasks):
        return human.code_scores(codes, n_tasks, aggregate)

    return score


#: answers normalized at once by ``empty_answer_scores``: every answer's normalized text at once was
#: 200 MiB at 10x SQuAD dev (a million predictions), the two-way report's peak (issue 46)
NORMALIZED_AT_ONCE = 65536


def empty_answer_scores(predictions, scores, policy) -> np.ndarray:
    """Per prediction, the Hscore and Hcorrect (in [0, 1]) the main table gives it by rule when its
    answer is empty (SPEC 1: no triplet, never labelled), NaN for every other prediction.

    Parameters
    ----------
    predictions : pandas.DataFrame
        ``question_id``, ``system`` and, for this to find any, ``answer``.
    scores : ScoreTable or None
        The report's scores (``score_table``), whose matrices hold the rule values.
    policy : str
        The dedup policy (what "empty" means after normalization, as in ``score_table``).

    Returns
    -------
    numpy.ndarray
        (predictions, 2) floats.

    Examples
    --------
    >>> from evaluation.report.inputs import _example_inputs
    >>> from evaluation.report.scoring import score_table
    >>> from evaluation.report.config import ReportConfig
    >>> questions, predictions, labels = _example_inputs()
    >>> predictions = pd.concat([predictions, pd.DataFrame({"question_id": [questions.index[0]],
    ...                                                     "system": ["s3"], "answer": [""]})])
    >>> table = score_table(questions, predictions, labels, config=ReportConfig())
    >>> empty_answer_scores(predictions, table, "whitespace")[-1].tolist()
    [0.0, 0.0]
    """
    out = np.full((len(predictions), 2), np.nan)
    if scores is None or "answer" not in predictions.columns or not len(predictions):
        return out
    answers = predictions["answer"].fillna("").astype(str).to_numpy()
    empty = np.zeros(len(answers), dtype=bool)
    for start in range(0, len(answers), NORMALIZED_AT_ONCE):  # a slice at a time: only emptiness is kept
        chunk = human.normalize_all(answers[start : start + NORMALIZED_AT_ONCE], policy)
        empty[start : start + len(chunk)] = [text == "" for text in chunk]
    q = scores.question_ids.get_indexer(predictions["question_id"].to_numpy()[empty])
    s = np.array([scores.columns.index(name) for name in predictions["system"].to_numpy()[empty]], dtype=np.int64)
    known = q >= 0
    rows = np.flatnonzero(empty)[known]
    for j, metric in enumerate(HUMAN):
        out[rows, j] = scores.matrices[metric][q[known], s[known]]
    return out


def two_way_intervals(predictions, labels, systems, *, aggregate, n_boot, seed=0, empty_scores=None) -> list:
    """Per system the two-way bootstrap's 95% intervals of Hscore and Hcorrect (SPEC 17):
    ``{system, hscore_low, hscore_high, hcorrect_low, hcorrect_high}`` (main table's scale).

    Parameters
    ----------
    predictions : pandas.DataFrame
        ``question_id``, ``system``, ``tkey``.
    labels : pandas.DataFrame
        The report's labels (``tkey``, ``annotator``, ``label``, optional ``gold``).
    systems : list of str
        The systems.
    aggregate : str
        The human aggregate, refitted per replicate.
    n_boot, seed : int
        Replicates and seed.
    empty_scores : numpy.ndarray, optional
        ``empty_answer_scores`` of ``predictions``: empty answers count with their rule scores, as
        in the main table (without it they are left out).

    Returns
    -------
    list of dict
        One row per system.

    Examples
    --------
    >>> labels = pd.DataFrame({"tkey": ["t1", "t1", "t2", "t2"], "annotator": ["a", "b", "a", "b"],
    ...                        "label": ["correct", "correct", "incorrect", "partial"]})
    >>> predictions = pd.DataFrame({"question_id": ["q1", "q2"], "system": ["s", "s"], "tkey": ["t1", "t2"]})
    >>> row = two_way_intervals(predictions, labels, ["s"], aggregate=human.DEFAULT_AGGREGATE, n_boot=30)[0]
    >>> 0 <= row["hscore_low"] <= row["hscore_high"] <= 1
    True
    """
    tkeys, task, worker, label, gold = human.label_codes(labels)
    q_code, _ = pd.factorize(predictions["question_id"])
    s_code = pd.Index(list(systems)).get_indexer(predictions["system"])
    keep = s_code >= 0
    pred_task = np.full((int(q_code.max()) + 1 if len(q_code) else 0, len(systems)), -1, dtype=np.int64)
    pred_task[q_code[keep], s_code[keep]] = tkeys.get_indexer(predictions["tkey"].to_numpy(dtype=object)[keep])
    fixed = None
    if empty_scores is not None:
        fixed = tuple(np.full(pred_task.shape, np.nan) for _ in HUMAN)
        for j, rule in enumerate(fixed):
            rule[q_code[keep], s_code[keep]] = np.asarray(empty_scores, dtype=float)[keep, j]
    out = crowd.two_way_bootstrap(
        (task, worker, label, gold), pred_task, _score_fn(aggregate), n_boot=n_boot, seed=seed, fixed=fixed
    )
    rows = []
    for i, system in enumerate(systems):
        row = {"system": system}
        for m, key in (("hscore", "score"), ("hcorrect", "correct")):
            scale = metric_registry.get(m).scale
            low, high = out[key][i]
            row[f"{m}_low"] = None if np.isnan(low) else float(low * scale)
            row[f"{m}_high"] = None if np.isnan(high) else float(high * scale)
        rows.append(row)
    return clean(rows)


def crowd_step(report, predictions, labels, *, extras, config) -> None:
    """Put ``crowd_sensitivity``, ``crowd_intervals`` and ``bootstrap`` into ``report.data`` (and the
    ``crowd_sensitivity`` table): the sensitivity over ``extras.crowd_labels`` (every label, flagged)
    or the report's labels; the two-way bootstrap over the report's labels when they come from a
    study (``extras.from_study``) or the aggregate is ``ds``.

    Parameters
    ----------
    report : Report
        The report being made (its ``data`` and ``tables`` are filled).
    predictions, labels : pandas.DataFrame
        The report's inputs (``labels`` may be None).
    extras : ReportExtras
        ``crowd_labels`` and ``from_study``.
    config : ReportConfig
        The dedup policy, ``n_boot`` and ``seed``.

    Returns
    -------
    None

    Examples
    --------
    >>> from evaluation.report.inputs import _example_inputs
    >>> from evaluation.report.pipeline import compute_report
    >>> from evaluation.report.config import ReportConfig
    >>> report = compute_report(*_example_inputs(), config=ReportConfig(n_boot=0))
    >>> report.data["bootstrap"], report.data["crowd_sensitivity"]
    ('questions', [])
    """
    from evaluation.report.sections import with_tkeys

    aggregate = report.data.get("human_aggregate") or human.DEFAULT_AGGREGATE
    systems = [r["system"] for r in report.data.get("systems", []) if r["system"] in set(predictions["system"])]
    policy, n_boot = config.dedup_policy, config.n_boot
    predictions = with_tkeys(predictions, policy)
    labels = with_tkeys(labels, policy)
    everyone = with_tkeys(extras.crowd_labels, policy) if extras.crowd_labels is not None else labels
    rows = sensitivity(predictions, everyone, systems)
    report.data["crowd_sensitivity"] = rows
    if rows:
        report.tables["crowd_sensitivity"] = pd.DataFrame(rows).set_index("system")
    two_way = labels is not None and not labels.empty and (extras.from_study or aggregate == "ds") and n_boot > 0
    report.data["bootstrap"] = BOOTSTRAP_TWO_WAY if two_way else BOOTSTRAP_QUESTIONS
    report.data["crowd_intervals"] = []
    if two_way:
        report.data["crowd_intervals"] = two_way_intervals(
            predictions,
            labels,
            systems,
            aggregate=aggregate,
            n_boot=min(n_boot, MAX_TWO_WAY),
            seed=config.seed,
            empty_scores=empty_answer_scores(predictions, report.scores, policy),
        )
