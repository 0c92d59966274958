"""The active design (SPEC section 12): each triplet's chance of a human label from the judge's uncertainty.

Pure numpy / pandas, no database; the home of the design for every room above (the fold builder of
``models_runner.active_design``, the estimate of ``evaluation.active``, ``bench/active_bench.py``).
A judge gives each triplet a distribution q over (correct, partial, incorrect); its expected score
``f`` and its uncertainty ``u`` set each triplet's chance ``pi`` of a human label, with a floor and
the cap at 1; a seeded Bernoulli draw picks the sample (Zrnic & Candes, "Active Statistical
Inference", ICML 2024).

- ``judge_distribution``: q per triplet from a judge's labels (``probs`` when given, else one-hot);
- ``expected_score`` / ``uncertainty``: f and u of q for a metric;
- ``budget_count``: a budget given as a count or a share of the triplets;
- ``design``: pi from u (c solved so that sum pi = B), or uniform when the judge gives no probabilities;
- ``draw``: the seeded sample xi;
- ``live_design``: the completion-rate rule while the sample is being labelled.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from annotation.labels import LABEL_SCORES, LABEL_VALUES

METRICS = ("hscore", "hcorrect")
# The value of each label under each metric, in LABEL_VALUES order (correct, partial, incorrect).
METRIC_VALUES = {
    "hscore": np.array([LABEL_SCORES[v] for v in LABEL_VALUES]),
    "hcorrect": np.array([1.0, 0.0, 0.0]),
}
FLOOR_SHARE = 0.1  # pi_min = 0.1 * B / T by default (SPEC 12)
UNIFORM_REASON = "the judge gives no probabilities (one-hot labels): uniform design, pi = B / T"


# --- the judge's distribution ----------------------------------------------------------------


def judge_distribution(judge_labels: pd.DataFrame) -> tuple[pd.DataFrame, bool]:
    """q per triplet key from one judge's labels, and whether any label carried probabilities.

    Parameters
    ----------
    judge_labels : DataFrame
        ``tkey``, ``label`` and optionally ``probs`` (a dict ``{"correct": .., "partial": ..,
        "incorrect": ..}`` or None per row). A row without probabilities is one-hot on its label;
        probabilities are normalised to sum to 1. The last row of a key wins.

    Returns
    -------
    q : DataFrame
        Index ``tkey``; columns ``correct``, ``partial``, ``incorrect``.
    has_probs : bool
        True when at least one row carried probabilities.

    Raises
    ------
    ValueError
        On a label outside ``LABEL_VALUES``, or probabilities that are negative, not numbers, or
        all zero.

    Examples
    --------
    >>> import pandas as pd
    >>> from annotation.design import judge_distribution
    >>> judge = pd.DataFrame({"tkey": ["t1", "t2"], "label": ["correct", "partial"],
    ...                       "probs": [{"correct": 0.6, "partial": 0.3, "incorrect": 0.1}, None]})
    >>> q, has_probs = judge_distribution(judge)
    >>> q.round(2).values.tolist(), has_probs
    ([[0.6, 0.3, 0.1], [0.0, 1.0, 0.0]], True)
    """
    rows = judge_labels.dropna(subset=["label"]).drop_duplicates("tkey", keep="last")
    bad = ~rows["label"].isin(LABEL_VALUES)
    if bad.any():
        raise ValueError(f"judge label {rows.loc[bad, 'label'].iloc[0]!r} is not one of {', '.join(LABEL_VALUES)}")
    q = np.zeros((len(rows), len(LABEL_VALUES)))
    q[np.arange(len(rows)), rows["label"].map({v: i for i, v in enumerate(LABEL_VALUES)}).to_numpy()] = 1.0
    has_probs = False
    if "probs" in rows:
        for i, probs in enumerate(rows["probs"].tolist()):
            if isinstance(probs, dict) and probs:
                q[i] = check_probs(probs)
                has_probs = True
    return pd.DataFrame(q, index=pd.Index(rows["tkey"].to_numpy(), name="tkey"), columns=list(LABEL_VALUES)), has_probs


def check_probs(probs: dict) -> np.ndarray:
    """A ``probs`` dict as a normalised array in ``LABEL_VALUES`` order (missing labels count 0).

    Parameters
    ----------
    probs : dict
        Label -> probability (numbers >= 0, not all 0; unknown labels are an error).

    Returns
    -------
    ndarray
        Three probabilities summing to 1.

    Raises
    ------
    ValueError
        With the reason.

    Examples
    --------
    >>> from annotation.design import check_probs
    >>> check_probs({"correct": 3, "incorrect": 1}).tolist()
    [0.75, 0.0, 0.25]
    """
    unknown = set(probs) - set(LABEL_VALUES)
    if unknown:
        raise ValueError(f"probs: unknown label(s) {', '.join(sorted(map(str, unknown)))}")
    values = []
    for label in LABEL_VALUES:
        v = probs.get(label, 0.0)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise ValueError(f"probs: {label} must be a number >= 0, got {v!r}")
        values.append(float(v))
    total = sum(values)
    if total <= 0:
        raise ValueError("probs: the probabilities are all 0")
    return np.array(values) / total


def expected_score(q, metric: str = "hscore") -> np.ndarray:
    """f = sum_v q_v v: q_c + 0.5 q_p (Hscore) or q_c (Hcorrect), on the 0-1 scale.

    Parameters
    ----------
    q : array-like, shape (..., 3)
        Probabilities of correct, partial, incorrect.
    metric : {"hscore", "hcorrect"}
        The metric.

    Returns
    -------
    ndarray, shape (...)

    Examples
    --------
    >>> from annotation.design import expected_score
    >>> expected_score([[0.6, 0.3, 0.1]]).round(3).tolist(), expected_score([[0.6, 0.3, 0.1]], "hcorrect").tolist()
    ([0.75], [0.6])
    """
    return np.asarray(q, dtype=float) @ METRIC_VALUES[metric]


def uncertainty(q, metric: str = "hscore") -> np.ndarray:
    """u = sqrt(sum_v q_v (v - f)^2): the judge's standard deviation of the metric's value.

    Parameters
    ----------
    q : array-like, shape (..., 3)
        Probabilities of correct, partial, incorrect.
    metric : {"hscore", "hcorrect"}
        The metric.

    Returns
    -------
    ndarray, shape (...)
        0 for a one-hot q.

    Examples
    --------
    >>> from annotation.design import uncertainty
    >>> uncertainty([[0.6, 0.3, 0.1], [1, 0, 0]]).round(4).tolist()
    [0.3354, 0.0]
    """
    q = np.asarray(q, dtype=float)
    values = METRIC_VALUES[metric]
    f = q @ values
    return np.sqrt(np.clip((q * (values - f[..., None]) ** 2).sum(axis=-1), 0, None))


# --- the design ------------------------------------------------------------------------------


def budget_count(budget, n_triplets: int) -> int:
    """The budget B as a count of triplets: an integer >= 1, or a share in (0, 1) of ``n_triplets``.

    Parameters
    ----------
    budget : int, float or str
        ``"300"`` / 300 (a count) or ``"0.05"`` / ``"5%"`` (a share).
    n_triplets : int
        T, the triplets of the design.

    Returns
    -------
    int
        B, between 1 and T.

    Raises
    ------
    ValueError
        When the budget is not a number, not positive, or more than T.

    Examples
    --------
    >>> from annotation.design import budget_count
    >>> budget_count("5%", 1000), budget_count(0.05, 1000), budget_count("120", 1000)
    (50, 50, 120)
    """
    text = str(budget).strip()
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise ValueError(f"budget must be a count (e.g. 300) or a share (e.g. 0.05 or 5%), got {budget!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"budget must be positive, got {budget!r}")
    if value < 1:
        count = max(1, round(value * n_triplets))
    elif value != int(value):
        raise ValueError(f"a budget of more than 1 is a count of triplets: a whole number, got {budget!r}")
    else:
        count = int(value)
    if count > n_triplets:
        raise ValueError(f"budget {count} is more than the {n_triplets} triplets")
    return count


def _capped_sum(u, c, floor):
    """sum_t min(1, max(floor, c u_t)) along the last axis (c, floor broadcast per row)."""
    return np.minimum(1.0, np.maximum(floor, c * u)).sum(axis=-1)


def design(u, budget, *, pi_min=None, iterations: int = 100) -> tuple[np.ndarray, str | None]:
    """pi_t = min(1, max(pi_min, c u_t)) with c solved so that sum_t pi_t = B (SPEC 12).

    c is found by bisection, then made exact on the triplets strictly between the floor and the cap
    (the sum is B up to rounding). When u is the same for every triplet (a one-hot judge gives 0
    everywhere) the design is uniform, pi = B / T, and the reason says so. When even c = infinity
    leaves the sum below B (too few uncertain triplets), the floor of the certain ones is raised
    until the sum is B.

    Parameters
    ----------
    u : array-like, shape (T,) or (R, T)
        Uncertainties (>= 0); one design per row when 2-D.
    budget : float or array-like
        B, the expected number of human labels (per row), 0 < B <= T.
    pi_min : float, optional
        The floor; default ``FLOOR_SHARE * B / T``.
    iterations : int, default 100
        Bisection steps.

    Returns
    -------
    pi : ndarray
        Same shape as ``u``.
    reason : str or None
        ``UNIFORM_REASON`` when (every row) fell back to uniform, else None.

    Raises
    ------
    ValueError
        On a budget outside (0, T] or a negative uncertainty.

    Examples
    --------
    >>> from annotation.design import design
    >>> pi, reason = design([0.0, 0.1, 0.2, 0.4, 0.5], 2)
    >>> pi.round(4).tolist(), round(float(pi.sum()), 10), reason
    ([0.04, 0.1633, 0.3267, 0.6533, 0.8167], 2.0, None)
    >>> design([0.0, 0.0, 0.0, 0.0], 1)
    (array([0.25, 0.25, 0.25, 0.25]), 'the judge gives no probabilities (one-hot labels): uniform design, pi = B / T')
    """
    u = np.asarray(u, dtype=float)
    one = u.ndim == 1
    u = np.atleast_2d(u)
    n = u.shape[-1]
    b = np.broadcast_to(np.asarray(budget, dtype=float), u.shape[:1]).copy()
    if (b <= 0).any() or (b > n).any():
        raise ValueError(f"the budget must be in (0, {n}]")
    if (u < 0).any() or not np.isfinite(u).all():
        raise ValueError("uncertainties must be finite and >= 0")
    floor = FLOOR_SHARE * b / n if pi_min is None else np.full(len(b), float(pi_min))
    pi = np.empty_like(u)
    flat = np.ptp(u, axis=-1) == 0
    pi[flat] = (b[flat] / n)[:, None]
    rows = ~flat
    if rows.any():
        pi[rows] = _solve(u[rows], b[rows], floor[rows], iterations=iterations)
    reason = UNIFORM_REASON if flat.all() else None
    return (pi[0] if one else pi), reason


def _solve(u, b, floor, *, iterations):
    """``design`` for rows whose u varies: bisection on c, then the exact c on the middle set."""
    positive = np.where(u > 0, u, np.inf).min(axis=-1)
    hi = 1.0 / positive  # every uncertain triplet at the cap
    reach = _capped_sum(u, hi[:, None], floor[:, None])
    short = reach < b  # even c = inf is short: raise the floor of the certain triplets
    if short.any():
        n_zero = (u[short] == 0).sum(axis=-1)
        floor = floor.copy()
        floor[short] = np.minimum(1.0, (b[short] - (u[short] > 0).sum(axis=-1)) / np.maximum(n_zero, 1))
    lo = np.zeros(len(b))
    for _ in range(iterations):
        mid = (lo + hi) / 2
        below = _capped_sum(u, mid[:, None], floor[:, None]) < b
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    c = hi[:, None]
    raw = c * u
    capped, floored = raw >= 1, raw <= floor[:, None]
    middle = ~capped & ~floored
    rest = b - capped.sum(axis=-1) - (floored * floor[:, None]).sum(axis=-1)
    mass = (u * middle).sum(axis=-1)
    exact = np.where(mass > 0, rest / np.where(mass > 0, mass, 1), hi)
    return np.where(middle, exact[:, None] * u, np.where(capped, 1.0, floor[:, None]))


def draw(pi, seed: int) -> np.ndarray:
    """xi_t ~ Bernoulli(pi_t), independently, from ``seed``.

    Parameters
    ----------
    pi : array-like
        Probabilities in [0, 1].
    seed : int
        The stored seed: the same seed and pi give the same sample.

    Returns
    -------
    ndarray of bool

    Examples
    --------
    >>> from annotation.design import draw
    >>> draw([0.0, 1.0, 0.5, 0.5], seed=1).tolist()
    [False, True, True, False]
    """
    pi = np.asarray(pi, dtype=float)
    return np.random.default_rng(seed).random(pi.shape) < pi


def live_design(pi, sampled, labeled) -> tuple[np.ndarray, np.ndarray, float]:
    """The completion-rate rule while the sample is being labelled (SPEC 12).

    xi_i = 1 only for labelled sampled triplets, and every pi_i is multiplied by r = (labelled
    sampled) / (sampled): valid because the sample is served in random order, so the labelled
    ones are a uniform part of it.

    Parameters
    ----------
    pi : array-like
        The design's pi.
    sampled : array-like of bool
        xi of the design.
    labeled : array-like of bool
        Whether the triplet has a human label.

    Returns
    -------
    xi : ndarray of bool
    pi : ndarray
        pi * r.
    r : float
        The completion rate (0 when nothing is sampled).

    Examples
    --------
    >>> from annotation.design import live_design
    >>> xi, pi, r = live_design([0.5, 0.5, 0.2, 1.0], [True, True, False, True], [True, False, True, True])
    >>> xi.tolist(), pi.round(4).tolist(), round(r, 4)
    ([True, False, False, True], [0.3333, 0.3333, 0.1333, 0.6667], 0.6667)
    """
    sampled, labeled = np.asarray(sampled, dtype=bool), np.asarray(labeled, dtype=bool)
    xi = sampled & labeled
    r = float(xi.sum() / sampled.sum()) if sampled.any() else 0.0
    return xi, np.asarray(pi, dtype=float) * r, r
