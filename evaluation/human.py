"""Human metrics (SPEC section 3): labels -> triplet scores -> Hscore, Hcorrect and coverage.

Labels are keyed by (question id, answer text); predictions of one question whose answers are equal
under the corpus dedup policy share one triplet, so both are mapped to the same triplet key with
``annotation.dedup.normalize_answer``. Pure pandas, no database.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from annotation.dedup import DEFAULT_POLICY, normalize_answer
from annotation.labels import CORRECT, INCORRECT, LABEL_VALUES, PARTIAL

KEY_SEP = "\x1f"
AGGREGATES = ("mean", "majority")  # how the labels of a triplet make its scores


def normalize_all(texts, policy: str = DEFAULT_POLICY) -> list:
    """``normalize_answer`` of each of ``texts`` (distinct strings: one call each)."""
    if policy == "exact":
        normalize_answer("", policy)  # validates the policy
        return list(texts)
    return [normalize_answer(t, policy) for t in texts]


def normalized_answers(answers: pd.Series, policy: str = DEFAULT_POLICY, known: dict | None = None) -> pd.Series:
    """``normalize_answer`` over a Series, computed once per distinct string (``known``: answers
    already normalized under ``policy``, answer -> normalized)."""
    answers = answers.fillna("").astype(str)
    codes, uniques = pd.factorize(answers)
    uniques = np.asarray(uniques, dtype=object)  # iterated in Python: plain objects, not an extension array
    known = known or {}
    todo = [a for a in uniques if a not in known]
    mapping = dict(zip(todo, normalize_all(todo, policy)))
    normalized = np.array([known[a] if a in known else mapping[a] for a in uniques] + [""], dtype=object)
    return pd.Series(normalized[codes], index=answers.index, dtype=object)


def triplet_keys(question_ids: pd.Series, answers: pd.Series, policy: str = DEFAULT_POLICY, *,
                 known: dict | None = None) -> pd.Series:
    """One string key per (question, normalized answer): the identity of a triplet."""
    return question_ids.astype(str) + KEY_SEP + normalized_answers(answers, policy, known)


LABEL_CODES = {CORRECT: 0, PARTIAL: 1, INCORRECT: 2}  # the columns of ``label_counts``


def check_labels(values: pd.Series) -> None:
    """Raise ``ValueError`` naming the first label value that is not one of ``LABEL_VALUES``."""
    bad = ~values.isin(LABEL_VALUES)
    if bad.any():
        raise ValueError(f"label {values[bad].iloc[0]!r} is not one of {', '.join(LABEL_VALUES)}")


def latest_labels(labels: pd.DataFrame) -> pd.DataFrame:
    """Keep one label per (triplet key, annotator): the last one (rows are in submission order)."""
    check_labels(labels["label"])
    return labels.drop_duplicates(["tkey", "annotator"], keep="last")


def label_counts(triplet: np.ndarray, annotators, labels, n_triplets: int) -> np.ndarray:
    """(n_triplets, 3) counts of correct, partial and incorrect labels per triplet code, the last
    label of each (triplet, annotator) only (rows in submission order); a negative code is no
    triplet (left out). ``latest_labels`` then counting, on integer codes."""
    triplet = np.asarray(triplet, dtype=np.int64)
    annotator, names = pd.factorize(np.asarray(annotators, dtype=object), use_na_sentinel=False)
    key = triplet * max(len(names), 1) + annotator
    keep = (triplet >= 0) & ~pd.Series(key).duplicated(keep="last").to_numpy()
    value, names = pd.factorize(np.asarray(labels, dtype=object))
    value = np.array([LABEL_CODES[name] for name in names], dtype=np.int64)[value]
    codes = triplet[keep] * 3 + value[keep]
    return np.bincount(codes, minlength=3 * n_triplets).reshape(-1, 3)


def scores_from_counts(counts: np.ndarray, aggregate: str = "mean"):
    """(score, correct, n_labels) per row of ``label_counts``; score and correct NaN where a row
    has no label. See ``triplet_scores`` for the two aggregates."""
    if aggregate not in AGGREGATES:
        raise ValueError(f"human_aggregate must be one of {', '.join(AGGREGATES)}, got {aggregate!r}")
    c, p, i = counts[:, 0], counts[:, 1], counts[:, 2]
    n = c + p + i
    score, correct = np.full(len(n), np.nan), np.full(len(n), np.nan)
    has = n > 0
    c, p, i, m = c[has], p[has], i[has], n[has]
    if aggregate == "mean":
        score[has], correct[has] = (2 * c + p) / (2 * m), c / m
    else:
        top = np.maximum(np.maximum(c, p), i)
        tc, tp, ti = (c == top), (p == top), (i == top)  # the tied labels (one when a label wins)
        n_tied = tc.astype(np.int64) + tp + ti
        score[has] = (2 * tc + tp) / (2 * n_tied)  # values 1, 1/2, 0 of the tied labels, averaged
        correct[has] = tc / n_tied
    return score, correct, n


def triplet_scores(labels: pd.DataFrame, aggregate: str = "mean") -> pd.DataFrame:
    """Per triplet key: ``score``, ``correct`` (correct-share) and ``n_labels`` (SPEC 3).

    ``mean``: score = mean label value, correct = share of `correct` labels. ``majority``: the most
    frequent label decides; on a tie, score = mean of the tied labels' values and correct = share of
    `correct` among the tied labels. Both are one division of integer counts (equal ratios, equal
    floats): with c / p / i the counts of correct / partial / incorrect, mean score = (2c + p) / 2n.
    """
    if aggregate not in AGGREGATES:
        raise ValueError(f"human_aggregate must be one of {', '.join(AGGREGATES)}, got {aggregate!r}")
    if labels is None or labels.empty:
        return pd.DataFrame({"score": pd.Series(dtype=float), "correct": pd.Series(dtype=float),
                             "n_labels": pd.Series(dtype=int)})
    labels = latest_labels(labels)
    tcode, tkeys = pd.factorize(labels["tkey"])
    lcode = labels["label"].map(LABEL_CODES).to_numpy(dtype=np.int64)
    counts = np.bincount(tcode * 3 + lcode, minlength=3 * len(tkeys)).reshape(-1, 3)  # per triplet: c, p, i
    score, correct, n = scores_from_counts(counts, aggregate)
    return pd.DataFrame({"score": score, "correct": correct, "n_labels": n}, index=pd.Index(tkeys, name="tkey"))


def prediction_human_scores(tkeys: pd.Series, scores: pd.DataFrame):
    """Hscore and correct-share of each prediction through its triplet; NaN when unlabeled."""
    hscore = tkeys.map(scores["score"]).to_numpy(dtype=float)
    hcorrect = tkeys.map(scores["correct"]).to_numpy(dtype=float)
    return hscore, hcorrect


def unmatched_label_count(labels: pd.DataFrame, tkeys: pd.Series) -> int:
    """Labels whose (question, answer) matches no prediction (they cannot count for any system)."""
    if labels is None or labels.empty:
        return 0
    return int((~labels["tkey"].isin(set(tkeys.dropna()))).sum())


def coverage(hscore_column: np.ndarray, present: np.ndarray) -> float | None:
    n = int(present.sum())
    if n == 0:
        return None
    return float((~np.isnan(hscore_column) & present).sum() / n)
