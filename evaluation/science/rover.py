"""ROVER agreement partitions (SPEC section 5). Pure numpy/pandas + rapidfuzz, no per-question loop.

Two answers agree when their Levenshtein distance (on answers normalized as for deduplication) is
< alpha. The support of an answer counts the systems that agree with it, itself included. The ROVER
answer has the largest support; ties go to the smallest sum of distances to the others, then to
the first system in the configured order. A question's partition is P_k, k = the largest support.

Identical normalized answers are grouped first (integer codes, no string work per prediction):
distances are computed once per pair of distinct answers of a question (one vectorized
``rapidfuzz.process.cpdist`` call for the whole corpus), and each distinct answer weighs as many
systems as gave it. A system with no prediction for a question
does not vote on it; a question no chosen system answered has no partition (k = 0).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cpdist

DEFAULT_ALPHA = 5


def rover(
    question: np.ndarray, system: np.ndarray, normalized: np.ndarray, *, n_questions: int, alpha: float = DEFAULT_ALPHA
) -> pd.DataFrame:
    """ROVER over the predictions of the chosen systems (SPEC 5).

    Parameters
    ----------
    question : ndarray of int
        The question index (0 .. n_questions - 1) of each prediction.
    system : ndarray of int
        The rank of each prediction's system in the configured order (0 = first: wins the last tie).
    normalized : ndarray of str
        Each prediction's normalized answer (None counts as "").
    n_questions : int
        The number of questions (rows of the result).
    alpha : float, default DEFAULT_ALPHA
        Two answers agree when their Levenshtein distance is < alpha.

    Returns
    -------
    DataFrame
        One row per question (index 0 .. n_questions - 1): ``k`` (largest support, 0 when no
        prediction), ``system`` (rank of the system whose answer is the ROVER answer, -1 when none),
        ``n_voters`` and ``sum_dist`` (the chosen answer's sum of distances to the others).

    Examples
    --------
    Question 0: "paris" and "pariss" agree (distance 1), "lyon" agrees with neither (5 and 6); of
    the two answers with support 2, "paris" has the smaller sum of distances. Question 2 has no
    prediction.

    >>> import numpy as np
    >>> from evaluation.science.rover import rover
    >>> rover(np.array([0, 0, 0, 1]), np.array([0, 1, 2, 1]),
    ...       np.array(["paris", "pariss", "lyon", "rome"], dtype=object), n_questions=3)
       k  system  n_voters  sum_dist
    0  2       0         3       6.0
    1  1       1         1       0.0
    2  0      -1         0       0.0
    """
    code, texts = pd.factorize(pd.Series(normalized, dtype=object).fillna("").to_numpy())
    return rover_codes(
        question, system, code, texts=np.asarray(texts, dtype=object), n_questions=n_questions, alpha=alpha
    )


def rover_codes(
    question: np.ndarray,
    system: np.ndarray,
    answer: np.ndarray,
    *,
    texts: np.ndarray,
    n_questions: int,
    alpha: float = DEFAULT_ALPHA,
    checked: bool = False,
    pairs: tuple | None = None,
) -> pd.DataFrame:
    """``rover`` with the normalized answers given as codes into ``texts``.

    Parameters
    ----------
    question : ndarray of int
        The question index (0 .. n_questions - 1) of each prediction.
    system : ndarray of int
        The rank of each prediction's system in the configured order (0 = first).
    answer : ndarray of int
        Each prediction's normalized answer as an index into ``texts`` (equal codes for equal texts).
    texts : ndarray of str
        The distinct normalized answers.
    n_questions : int
        The number of questions (rows of the result).
    alpha : float, default DEFAULT_ALPHA
        Two answers agree when their Levenshtein distance is < alpha.
    checked : bool, default False
        The caller already made sure no system has two predictions for one question.
    pairs : tuple of ndarray, optional
        ``pandas.factorize(question * len(texts) + answer)``, when the caller has it.

    Returns
    -------
    DataFrame
        As ``rover``: ``k``, ``system``, ``n_voters``, ``sum_dist`` per question.

    Raises
    ------
    ValueError
        When alpha is not positive, or (unless ``checked``) a system answers a question twice.

    Examples
    --------
    Two systems answer "lyon" (code 1), one "paris" (code 0): the first of the two wins, k = 2.

    >>> import numpy as np
    >>> from evaluation.science.rover import rover_codes
    >>> rover_codes(np.array([0, 0, 0]), np.array([0, 1, 2]), np.array([1, 1, 0]),
    ...             texts=np.array(["paris", "lyon"], dtype=object), n_questions=1)
       k  system  n_voters  sum_dist
    0  2       0         3       5.0
    """
    if not alpha > 0:
        raise ValueError(f"alpha must be a positive number of characters, got {alpha!r}")
    q, s, a = (np.asarray(x, dtype=np.int64) for x in (question, system, answer))
    out = _no_winners(n_questions)
    if not len(q):
        return out
    n_systems = int(s.max()) + 1
    if not checked and pd.Series(q * n_systems + s).duplicated().any():
        raise ValueError("a system has two predictions for one question")
    # distinct (question, answer): how many systems gave it, the first of them in the order
    u, keys = pairs if pairs is not None else pd.factorize(q * len(texts) + a)
    n = len(keys)
    uq, ua = keys // len(texts), keys % len(texts)
    count = np.bincount(u, minlength=n).astype(np.int64)
    first = np.full(n, n_systems, dtype=np.int64)
    np.minimum.at(first, u, s)
    support, sum_dist = _support(texts[ua], uq, count, n_questions=n_questions, alpha=alpha)
    # per question: largest support, then smallest sum of distances, then first system
    best = np.lexsort((first, sum_dist, -support, uq))
    best = best[np.r_[True, uq[best][1:] != uq[best][:-1]]]
    bq = uq[best]
    out.loc[bq, "k"] = support[best]
    out.loc[bq, "system"] = first[best]
    out.loc[bq, "sum_dist"] = sum_dist[best]
    voters = np.bincount(q, minlength=n_questions)
    out["n_voters"] = voters.astype(np.int64)
    return out


def _no_winners(n_questions):
    """The result with no winner yet: k 0, system -1, no voters, no distance, per question."""
    return pd.DataFrame(
        {
            "k": np.zeros(n_questions, dtype=np.int64),
            "system": np.full(n_questions, -1, dtype=np.int64),
            "n_voters": np.zeros(n_questions, dtype=np.int64),
            "sum_dist": np.zeros(n_questions),
        }
    )


def _support(answers, uq, count, *, n_questions, alpha):
    """Per distinct answer (text ``answers``, question ``uq``, given by ``count`` systems): the systems
    that agree with it (distance < alpha, itself included) and the sum of its distances to the others."""
    n = len(count)
    # Identical answers agree (distance 0 < alpha): self + the other systems with the same answer.
    support = count.copy()
    sum_dist = np.zeros(n)
    ui, uj = _answer_pairs(uq, n_questions)
    if len(ui):
        dist = cpdist(answers[ui].tolist(), answers[uj].tolist(), scorer=Levenshtein.distance, workers=-1)
        dist = np.asarray(dist, dtype=np.float64)
        agree = dist < alpha
        support += np.bincount(ui, weights=agree * count[uj], minlength=n).astype(np.int64)
        support += np.bincount(uj, weights=agree * count[ui], minlength=n).astype(np.int64)
        sum_dist += np.bincount(ui, weights=dist * count[uj], minlength=n)
        sum_dist += np.bincount(uj, weights=dist * count[ui], minlength=n)
    return support, sum_dist


def _answer_pairs(uq, n_questions):
    """Every pair i < j of distinct answers of one question (in question order), as two index arrays."""
    n = len(uq)
    order = np.argsort(uq, kind="stable")
    sizes = np.bincount(uq, minlength=n_questions)
    later = sizes[uq[order]] - 1 - (np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes))  # answers after it
    ui_pos = np.repeat(np.arange(n), later)
    step = np.arange(len(ui_pos)) - np.repeat(np.cumsum(later) - later, later) + 1
    return order[ui_pos], order[ui_pos + step]
