"""Human metrics (SPEC section 3): labels -> triplet scores -> Hscore and Hcorrect.

Labels are keyed by (question id, answer text); predictions of one question whose answers are equal
under the corpus dedup policy share one triplet, so both are mapped to the same triplet key with
``annotation.dedup.normalize_answer``. Pure pandas, no database.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from annotation.dedup import DEFAULT_POLICY, normalize_answers
from evaluation.science import crowd
from stats.labels import CORRECT, INCORRECT, LABEL_VALUES, PARTIAL

KEY_SEP = "\x1f"
DEFAULT_AGGREGATE = "mean"  # the one home of the default (the report option reads it)
# how the labels of a triplet make its scores; ``ds`` (SPEC 17) turns them into Dawid-Skene posteriors,
# which every human metric then reads as one label's share of each class (``aggregated_label_counts``)
AGGREGATES = (DEFAULT_AGGREGATE, "majority", "ds")
LABEL_CODES = {CORRECT: 0, PARTIAL: 1, INCORRECT: 2}  # the columns of ``label_counts``


def normalize_all(texts, policy: str = DEFAULT_POLICY) -> list:
    """``normalize_answer`` of each text (give distinct strings), in one pass (``normalize_answers``).

    Parameters
    ----------
    texts : iterable of str
        The answers.
    policy : str
        A dedup policy of ``annotation.dedup.POLICIES`` (checked even when ``texts`` is empty).

    Returns
    -------
    list of str
        The normalized answers, in the order of ``texts``.

    Examples
    --------
    >>> normalize_all(["Denver  Broncos ", "Denver Broncos"])
    ['Denver Broncos', 'Denver Broncos']
    >>> normalize_all(["Denver  Broncos "], "exact")
    ['Denver  Broncos ']
    """
    return normalize_answers(texts, policy)


def normalized_answers(answers: pd.Series, policy: str = DEFAULT_POLICY, known: dict | None = None) -> pd.Series:
    """``normalize_answer`` over a Series, computed once per distinct string.

    Parameters
    ----------
    answers : pandas.Series
        Answer texts; a missing one counts as ``""``.
    policy : str
        The dedup policy.
    known : dict, optional
        Answers already normalized under ``policy`` (answer -> normalized), reused.

    Returns
    -------
    pandas.Series
        The normalized answers (object dtype), on the index of ``answers``.

    Examples
    --------
    >>> normalized_answers(pd.Series(["a  b", None, "a  b"])).tolist()
    ['a b', '', 'a b']
    """
    answers = answers.fillna("").astype(str)
    codes, uniques = pd.factorize(answers)
    uniques = np.asarray(uniques, dtype=object)  # iterated in Python: plain objects, not an extension array
    known = known or {}
    todo = [a for a in uniques if a not in known]
    mapping = dict(zip(todo, normalize_all(todo, policy)))
    normalized = np.array([known[a] if a in known else mapping[a] for a in uniques] + [""], dtype=object)
    return pd.Series(normalized[codes], index=answers.index, dtype=object)


def triplet_keys(
    question_ids: pd.Series, answers: pd.Series, policy: str = DEFAULT_POLICY, *, known: dict | None = None
) -> pd.Series:
    """One string key per (question, normalized answer): the identity of a triplet.

    Parameters
    ----------
    question_ids, answers : pandas.Series
        Aligned question ids and answer texts.
    policy : str
        The dedup policy.
    known : dict, optional
        As in ``normalized_answers``.

    Returns
    -------
    pandas.Series
        ``question id + KEY_SEP + normalized answer`` per row (``str`` dtype, on the index of
        ``question_ids``). Each distinct key is built once and shared by the rows that have it: a
        report's million predictions of 350,000 triplets hold 350,000 strings, not a million
        (178 MiB of the 10x two-way report's peak when every row had its own; issue 46).

    Examples
    --------
    >>> keys = triplet_keys(pd.Series(["q1", "q1"]), pd.Series(["Warsaw ", "Warsaw"]))
    >>> keys.nunique(), keys[0] == "q1" + KEY_SEP + "Warsaw"
    (1, True)
    """
    questions = question_ids.astype(str)  # a missing id stays missing, and so does its key
    q_codes, q_uniques = pd.factorize(questions, use_na_sentinel=False)
    a_codes, a_uniques = pd.factorize(normalized_answers(answers, policy, known))  # never missing
    width = max(len(a_uniques), 1)
    codes, pairs = pd.factorize(q_codes.astype(np.int64) * width + a_codes)
    q_uniques, a_uniques = np.asarray(q_uniques, dtype=object), np.asarray(a_uniques, dtype=object)
    pairs_q, pairs_a = q_uniques[pairs // width], a_uniques[pairs % width]
    keys = np.array([q + KEY_SEP + a if isinstance(q, str) else None for q, a in zip(pairs_q, pairs_a)], dtype=object)
    return pd.Series(keys[codes], index=question_ids.index, dtype=questions.dtype)


def check_labels(values: pd.Series) -> None:
    """Raise ``ValueError`` naming the first label value that is not one of ``LABEL_VALUES``.

    Parameters
    ----------
    values : pandas.Series
        Label values.

    Examples
    --------
    >>> check_labels(pd.Series(["correct", "partial", "incorrect"]))
    >>> check_labels(pd.Series(["correct", "good"]))
    Traceback (most recent call last):
    ...
    ValueError: label 'good' is not one of correct, partial, incorrect
    """
    bad = ~values.isin(LABEL_VALUES)
    if bad.any():
        raise ValueError(f"label {values[bad].iloc[0]!r} is not one of {', '.join(LABEL_VALUES)}")


def latest_labels(labels: pd.DataFrame) -> pd.DataFrame:
    """Keep one label per (triplet key, annotator): the last one (rows are in submission order).

    Parameters
    ----------
    labels : pandas.DataFrame
        Columns ``tkey``, ``annotator``, ``label``.

    Returns
    -------
    pandas.DataFrame
        The kept rows; ``ValueError`` for a label value that is not one of ``LABEL_VALUES``.

    Examples
    --------
    >>> labels = pd.DataFrame({"tkey": ["t1", "t1"], "annotator": "ann", "label": ["partial", "correct"]})
    >>> latest_labels(labels)["label"].tolist()
    ['correct']
    """
    check_labels(labels["label"])
    return labels.drop_duplicates(["tkey", "annotator"], keep="last")


def label_counts(triplet: np.ndarray, annotators, labels, *, n_triplets: int) -> np.ndarray:
    """Counts of correct, partial and incorrect labels per triplet code.

    ``latest_labels`` then counting, on integer codes: only the last label of each (triplet,
    annotator) counts (rows in submission order).

    Parameters
    ----------
    triplet : numpy.ndarray
        The triplet code of each label, ``0 <= code < n_triplets``; a negative code is no triplet
        (the label is left out).
    annotators, labels : array-like
        The annotator and the label value (checked beforehand) of each label.
    n_triplets : int
        The number of triplet codes.

    Returns
    -------
    numpy.ndarray
        (n_triplets, 3) integer counts, columns in ``LABEL_CODES`` order.

    Examples
    --------
    >>> label_counts(np.array([0, 0, 1, -1]), ["a", "a", "b", "b"], ["partial", "correct", "incorrect", "correct"],
    ...              n_triplets=2).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    triplet = np.asarray(triplet, dtype=np.int64)
    annotator, names = pd.factorize(np.asarray(annotators, dtype=object), use_na_sentinel=False)
    key = triplet * max(len(names), 1) + annotator
    keep = (triplet >= 0) & ~pd.Series(key).duplicated(keep="last").to_numpy()
    value, names = pd.factorize(np.asarray(labels, dtype=object))
    value = np.array([LABEL_CODES[name] for name in names], dtype=np.int64)[value]
    codes = triplet[keep] * 3 + value[keep]
    return np.bincount(codes, minlength=3 * n_triplets).reshape(-1, 3)


def scores_from_counts(counts: np.ndarray, aggregate: str = DEFAULT_AGGREGATE):
    """Score, correct-share and number of labels per row of ``label_counts``.

    Parameters
    ----------
    counts : numpy.ndarray
        (triplets, 3) counts of correct, partial and incorrect labels.
    aggregate : str
        ``"mean"`` or ``"majority"`` (see ``triplet_scores``); ``"ds"`` reads ``counts`` as
        posteriors (``aggregated_label_counts``) and scores them as ``mean`` does.

    Returns
    -------
    tuple of numpy.ndarray
        ``(score, correct, n_labels)``; score and correct are NaN where a row has no label. Each
        value is one division of integers (equal ratios, equal floats).

    Examples
    --------
    >>> score, correct, n = scores_from_counts(np.array([[1, 1, 0], [0, 0, 0]]))
    >>> score.tolist(), correct.tolist(), n.tolist()
    ([0.75, nan], [0.5, nan], [2, 0])
    """
    if aggregate not in AGGREGATES:
        raise ValueError(f"human_aggregate must be one of {', '.join(AGGREGATES)}, got {aggregate!r}")
    c, p, i = counts[:, 0], counts[:, 1], counts[:, 2]
    n = c + p + i
    score, correct = np.full(len(n), np.nan), np.full(len(n), np.nan)
    has = n > 0
    c, p, i, m = c[has], p[has], i[has], n[has]
    if aggregate in ("mean", "ds"):  # ds: posteriors (one label's worth per triplet), read as shares
        score[has], correct[has] = (2 * c + p) / (2 * m), c / m
    else:
        top = np.maximum(np.maximum(c, p), i)
        tc, tp, ti = (c == top), (p == top), (i == top)  # the tied labels (one when a label wins)
        n_tied = tc.astype(np.int64) + tp + ti
        score[has] = (2 * tc + tp) / (2 * n_tied)  # values 1, 1/2, 0 of the tied labels, averaged
        correct[has] = tc / n_tied
    return score, correct, n


def triplet_label_counts(labels: pd.DataFrame) -> tuple[pd.Index, np.ndarray]:
    """Per triplet key, the counts of its correct / partial / incorrect labels (each annotator's last).

    Parameters
    ----------
    labels : pandas.DataFrame
        Columns ``tkey``, ``annotator``, ``label``, in submission order; not empty.

    Returns
    -------
    tuple
        The triplet keys (first-seen order) and an integer array (triplets x 3): what a human
        metric's ``per_triplet`` scorer reads (``metric_registry``).

    Examples
    --------
    >>> labels = pd.DataFrame({"tkey": ["t1", "t1", "t2"], "annotator": ["a", "b", "a"],
    ...                        "label": ["correct", "partial", "incorrect"]})
    >>> tkeys, counts = triplet_label_counts(labels)
    >>> list(tkeys), counts.tolist()
    (['t1', 't2'], [[1, 1, 0], [0, 0, 1]])
    """
    labels = latest_labels(labels)
    tcode, tkeys = pd.factorize(labels["tkey"])
    lcode = labels["label"].map(LABEL_CODES).to_numpy(dtype=np.int64)
    return tkeys, np.bincount(tcode * 3 + lcode, minlength=3 * len(tkeys)).reshape(-1, 3)  # per triplet: c, p, i


def label_codes(labels: pd.DataFrame):
    """Integer codes of the last label of each (triplet, annotator): ``(tkeys, task, worker, label,
    gold)``; ``gold`` is per triplet the code of its known label (column ``gold`` of ``labels``, the
    expected label of a gold item) or -1.

    Parameters
    ----------
    labels : pandas.DataFrame
        ``tkey``, ``annotator``, ``label``, optional ``gold``, in submission order.

    Returns
    -------
    tuple
        The triplet keys (first-seen order) and integer arrays ``task``, ``worker``, ``label`` (one
        per kept label) and ``gold`` (one per triplet).

    Examples
    --------
    >>> labels = pd.DataFrame({"tkey": ["t1", "t1", "t2"], "annotator": ["a", "b", "a"],
    ...                        "label": ["correct", "partial", "incorrect"], "gold": [None, None, "incorrect"]})
    >>> tkeys, task, worker, label, gold = label_codes(labels)
    >>> list(tkeys), task.tolist(), worker.tolist(), label.tolist(), gold.tolist()
    (['t1', 't2'], [0, 0, 1], [0, 1, 0], [0, 1, 2], [-1, 2])
    """
    labels = latest_labels(labels)
    task, tkeys = pd.factorize(labels["tkey"])
    worker, _ = pd.factorize(labels["annotator"].astype(str))
    label = labels["label"].map(LABEL_CODES).to_numpy(dtype=np.int64)
    gold = np.full(len(tkeys), -1, dtype=np.int64)
    if "gold" in labels.columns:
        known = labels["gold"].map(LABEL_CODES)
        rows = known.notna().to_numpy()
        gold[task[rows]] = known[rows].to_numpy(dtype=np.int64)
    return tkeys, task, worker, label, gold


def aggregated_label_counts(labels: pd.DataFrame, aggregate: str = DEFAULT_AGGREGATE):
    """The per-triplet matrix every human metric reads under ``aggregate``: the one place where a
    triplet's labels become what its human scores are computed from (report, PPI, live, active).

    ``mean`` / ``majority``: the counts of ``triplet_label_counts``. ``ds``: the Dawid-Skene
    posteriors of correct / partial / incorrect (SPEC 17: fitted over all the labels given, gold
    triplets fixed at their known label), read by the metrics as one label's share of each class;
    ``ValueError`` with SPEC 17's message when too few triplets have two labels.

    Parameters
    ----------
    labels : pandas.DataFrame
        ``tkey``, ``annotator``, ``label`` (optional ``gold``), in submission order; not empty.
    aggregate : str
        One of ``AGGREGATES``.

    Returns
    -------
    tuple
        The triplet keys and a (triplets, 3) array in ``LABEL_CODES`` order.

    Examples
    --------
    >>> labels = pd.DataFrame({"tkey": ["t1", "t1", "t2", "t2"], "annotator": ["a", "b", "a", "b"],
    ...                        "label": ["correct", "correct", "incorrect", "incorrect"]})
    >>> tkeys, post = aggregated_label_counts(labels, "ds")
    >>> list(tkeys), post.round(3).tolist()
    (['t1', 't2'], [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    """
    if aggregate not in AGGREGATES:
        raise ValueError(f"human_aggregate must be one of {', '.join(AGGREGATES)}, got {aggregate!r}")
    tkeys, counts = triplet_label_counts(labels)
    if aggregate != "ds":
        return tkeys, counts
    refusal = crowd.ds_refusal(counts.sum(axis=1))
    if refusal:
        raise ValueError(refusal)
    tkeys, task, worker, label, gold = label_codes(labels)
    return tkeys, crowd.dawid_skene(task, worker, label, n_tasks=len(tkeys), gold=gold).posteriors


def code_scores(codes, n_tasks, aggregate: str = DEFAULT_AGGREGATE):
    """Score and correct-share per task from integer label codes ``(task, worker, label, gold)``
    (``label_codes``) under ``aggregate``, or None when ``ds`` is refused for them: a bootstrap
    replicate's refit (``crowd.two_way_bootstrap``).

    Parameters
    ----------
    codes : tuple
        ``(task, worker, label, gold)`` integer codes.
    n_tasks : int
        The number of task codes.
    aggregate : str
        One of ``AGGREGATES``.

    Returns
    -------
    tuple or None
        ``(score, correct)`` per task (NaN without a label), or None when ``ds`` is refused.

    Examples
    --------
    >>> code_scores(([0, 0], [0, 1], [0, 1], [-1]), 1)
    (array([0.75]), array([0.5]))
    >>> code_scores(([0, 1], [0, 0], [0, 1], [-1, -1]), 2, "ds") is None
    True
    """
    task, worker, label, gold = codes
    task, label = np.asarray(task, dtype=np.int64), np.asarray(label, dtype=np.int64)
    counts = np.bincount(task * 3 + label, minlength=3 * n_tasks).reshape(-1, 3)
    if aggregate == "ds":
        if crowd.ds_refusal(counts.sum(axis=1)):
            return None
        counts = np.nan_to_num(crowd.dawid_skene(task, worker, label, n_tasks=n_tasks, gold=gold).posteriors)
    score, correct, _ = scores_from_counts(counts, aggregate)
    return score, correct


def triplet_scores(labels: pd.DataFrame, aggregate: str = DEFAULT_AGGREGATE) -> pd.DataFrame:
    """Per triplet key: ``score``, ``correct`` (correct-share) and ``n_labels`` (SPEC 3).

    ``mean``: score = mean label value, correct = share of `correct` labels. ``majority``: the most
    frequent label decides; on a tie, score = mean of the tied labels' values and correct = share of
    `correct` among the tied labels. Both are one division of integer counts (equal ratios, equal
    floats): with c / p / i the counts of correct / partial / incorrect, mean score = (2c + p) / 2n.

    Parameters
    ----------
    labels : pandas.DataFrame or None
        Columns ``tkey``, ``annotator``, ``label``, in submission order (the last label of an
        annotator on a triplet counts).
    aggregate : str
        ``"mean"`` or ``"majority"``.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``tkey`` (first-seen order), columns ``score``, ``correct``, ``n_labels``.

    Examples
    --------
    >>> labels = pd.DataFrame({"tkey": ["t1", "t1", "t2"], "annotator": ["a", "b", "a"],
    ...                        "label": ["correct", "partial", "incorrect"]})
    >>> triplet_scores(labels).to_dict("index")
    {'t1': {'score': 0.75, 'correct': 0.5, 'n_labels': 2}, 't2': {'score': 0.0, 'correct': 0.0, 'n_labels': 1}}
    """
    if aggregate not in AGGREGATES:
        raise ValueError(f"human_aggregate must be one of {', '.join(AGGREGATES)}, got {aggregate!r}")
    if labels is None or labels.empty:
        return pd.DataFrame(
            {"score": pd.Series(dtype=float), "correct": pd.Series(dtype=float), "n_labels": pd.Series(dtype=int)}
        )
    tkeys, matrix = aggregated_label_counts(labels, aggregate)
    score, correct, _ = scores_from_counts(matrix, aggregate)
    n = triplet_label_counts(labels)[1].sum(axis=1)
    return pd.DataFrame({"score": score, "correct": correct, "n_labels": n}, index=pd.Index(tkeys, name="tkey"))
