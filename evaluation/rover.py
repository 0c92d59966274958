"""ROVER agreement partitions (SPEC section 5). Pure numpy/pandas + rapidfuzz, no per-question loop.

Two answers agree when their Levenshtein distance (on answers normalized as for deduplication) is
< alpha. The support of an answer counts the systems that agree with it, itself included. The ROVER
answer has the largest support; ties go to the smallest sum of distances to the others, then to
the first system in the configured order. A question's partition is P_k, k = the largest support.

Identical normalized answers are grouped first: distances are computed once per pair of distinct
answers of a question (one vectorized ``rapidfuzz.process.cpdist`` call for the whole corpus), and
each distinct answer weighs as many systems as gave it. A system with no prediction for a question
does not vote on it; a question no chosen system answered has no partition (k = 0).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from rapidfuzz.distance import Levenshtein
from rapidfuzz.process import cpdist

DEFAULT_ALPHA = 5


def rover(question: np.ndarray, system: np.ndarray, normalized: np.ndarray, n_questions: int,
          alpha: float = DEFAULT_ALPHA) -> pd.DataFrame:
    """ROVER over the predictions of the chosen systems.

    ``question``: question index (0..n_questions-1) of each prediction; ``system``: the rank of its
    system in the configured order (0 = first); ``normalized``: its normalized answer.
    Returns one row per question (index 0..n_questions-1): ``k`` (largest support, 0 when no
    prediction), ``system`` (rank of the system whose answer is the ROVER answer, -1 when none),
    ``n_voters`` and ``sum_dist`` (the chosen answer's sum of distances to the others).
    """
    if not alpha > 0:
        raise ValueError(f"alpha must be a positive number of characters, got {alpha!r}")
    preds = pd.DataFrame({"q": np.asarray(question, dtype=np.int64), "s": np.asarray(system, dtype=np.int64),
                          "a": pd.Series(normalized, dtype=object).fillna("").to_numpy()})
    if preds.duplicated(["q", "s"]).any():
        raise ValueError("a system has two predictions for one question")
    out = pd.DataFrame({"k": np.zeros(n_questions, dtype=np.int64), "system": np.full(n_questions, -1, dtype=np.int64),
                        "n_voters": np.zeros(n_questions, dtype=np.int64), "sum_dist": np.zeros(n_questions)})
    if preds.empty:
        return out
    uniq = preds.groupby(["q", "a"], sort=False).agg(count=("s", "size"), first=("s", "min")).reset_index()
    uniq["u"] = np.arange(len(uniq))
    count = uniq["count"].to_numpy(dtype=np.int64)
    # Identical answers agree (distance 0 < alpha): self + the other systems with the same answer.
    support = count.astype(np.int64).copy()
    sum_dist = np.zeros(len(uniq))
    pairs = uniq[["q", "u", "a"]].merge(uniq[["q", "u", "a"]], on="q", suffixes=("_i", "_j"))
    pairs = pairs[pairs["u_i"] < pairs["u_j"]]
    if len(pairs):
        ui, uj = pairs["u_i"].to_numpy(), pairs["u_j"].to_numpy()
        dist = cpdist(pairs["a_i"].tolist(), pairs["a_j"].tolist(), scorer=Levenshtein.distance, workers=-1)
        dist = np.asarray(dist, dtype=np.float64)
        agree = dist < alpha
        n = len(uniq)
        support += np.bincount(ui, weights=agree * count[uj], minlength=n).astype(np.int64)
        support += np.bincount(uj, weights=agree * count[ui], minlength=n).astype(np.int64)
        sum_dist += np.bincount(ui, weights=dist * count[uj], minlength=n)
        sum_dist += np.bincount(uj, weights=dist * count[ui], minlength=n)
    uniq["support"], uniq["sum_dist"] = support, sum_dist
    best = uniq.sort_values(["q", "support", "sum_dist", "first"], ascending=[True, False, True, True],
                            kind="mergesort").drop_duplicates("q")
    voters = preds.groupby("q").size()
    q = best["q"].to_numpy()
    out.loc[q, "k"] = best["support"].to_numpy()
    out.loc[q, "system"] = best["first"].to_numpy()
    out.loc[q, "sum_dist"] = best["sum_dist"].to_numpy()
    out.loc[voters.index.to_numpy(), "n_voters"] = voters.to_numpy()
    return out
