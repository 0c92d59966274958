"""The active design (SPEC section 12): which triplets humans label, from the judge's distributions.

Pure numpy / pandas, no database, no app; the home of the design for every room above (the fold builder of
``models_runner.active_design``, the estimate of ``evaluation.science.active``,
``bench/active_bench.py``). A judge gives each triplet a distribution q over (correct, partial,
incorrect); its expected score ``f`` and its uncertainty ``u`` are read under a human metric: the values
of (correct, partial, incorrect) under it, which the caller reads from the registry
(``annotation.human_metrics``, filled by ``evaluation.science.metric_registry``). The design
has two phases (Zrnic & Candes, "Active Statistical Inference", ICML 2024, with a pilot):

1. a **pilot**, xi1 ~ Bernoulli(p1), p1 = rho B / T, served first;
2. a **residual model** fitted on the labelled pilot: (beta0, lambda0) = least squares of h on
   (1, f), gamma = least squares of r^2 on (1, u^2, f (1 - f)), s = sqrt(max(gamma . x, 0.05 mean r^2));
3. the **main draw**, xi2 ~ Bernoulli(pi2), pi2 = alpha B2 / T + (1 - alpha) min(1, c s) with
   sum pi2 = B2 = (B - p1 T) / (1 - p1); a triplet is labelled when xi1 or xi2, with the chance
   pi = p1 + (1 - p1) pi2 (sum pi = B);
4. a **fallback** to the uniform design (pi2 = B2 / T, so pi = B / T) with a stated reason when the
   pilot has fewer than 50 labels or the fit is singular.

- ``judge_distribution``: q per triplet from a judge's labels (``probs`` when given, else one-hot);
- ``expected_score`` / ``uncertainty``: f and u of q under a metric's label values;
- ``budget_count``: a budget given as a count or a share of the triplets;
- ``pilot_chance`` / ``main_budget``: p1 and B2;
- ``fit_residual_model`` / ``residual_scale``: the residual model and each triplet's s;
- ``main_chances``: pi2 (c solved exactly); ``main_design``: the whole second phase, fallback included;
- ``draw``: a seeded sample;
- ``live_design``: the completion-rate rule, per phase, while the sample is being labelled.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from stats.labels import LABEL_SCORES, LABEL_VALUES

RHO = 0.2  # the pilot's share of the budget
ALPHA = 0.1  # the defensive mixture's uniform share of the main draw
MIN_PILOT = 50  # fewer labelled pilot triplets: uniform design
R2_FLOOR = 0.05  # s^2 >= 0.05 * mean pilot r^2
PILOT, MAIN = "pilot", "main"
FEW_PILOT_REASON = "only {n} labelled pilot triplets (fewer than 50): uniform design, pi = B / T"
#: The values of (correct, partial, incorrect) under Hscore, the default metric.
HSCORE = tuple(LABEL_SCORES[v] for v in LABEL_VALUES)
SINGULAR_REASON = (
    "the residual model cannot be fitted on the pilot (the judge's f does not vary, or it predicts every "
    "label exactly): uniform design, pi = B / T"
)


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
    >>> from stats.design import judge_distribution
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
        given = [i for i, p in enumerate(rows["probs"].tolist()) if isinstance(p, dict) and p]
        if given:
            listed = rows["probs"].tolist()
            q[given] = _checked_probs([listed[i] for i in given])
            has_probs = True
    return pd.DataFrame(q, index=pd.Index(rows["tkey"].to_numpy(), name="tkey"), columns=list(LABEL_VALUES)), has_probs


def _checked_probs(dicts: list) -> np.ndarray:
    """``check_probs`` of many dicts at once (a judge's 35,000 labels in milliseconds); the first bad
    one raises ``check_probs``'s own error."""
    labels = set(LABEL_VALUES)
    plain = set().union(*dicts) <= labels and set(map(type, [v for d in dicts for v in d.values()])) <= {int, float}
    if plain:  # bools, strings and unknown labels go the slow way, which names the error
        zero = (0.0,) * len(LABEL_VALUES)  # a missing label counts 0 (a NaN given stays NaN and is refused)
        values = np.array([tuple(map(d.get, LABEL_VALUES, zero)) for d in dicts], dtype=float)
        total = values.sum(axis=1)
        if np.isfinite(values).all() and (values >= 0).all() and (total > 0).all():
            return values / total[:, None]
    return np.array([check_probs(d) for d in dicts])


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
    >>> from stats.design import check_probs
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


def expected_score(q, values=HSCORE) -> np.ndarray:
    """f = sum_v q_v v: q_c + 0.5 q_p (Hscore) or q_c (Hcorrect), on the 0-1 scale.

    Parameters
    ----------
    q : array-like, shape (..., 3)
        Probabilities of correct, partial, incorrect.
    values : array-like, shape (3,), default ``HSCORE``
        The values of (correct, partial, incorrect) under a human metric
        (``annotation.human_metrics.values(key)``).

    Returns
    -------
    ndarray, shape (...)

    Examples
    --------
    >>> from stats.design import expected_score
    >>> expected_score([[0.6, 0.3, 0.1]]).round(3).tolist(), expected_score([[0.6, 0.3, 0.1]], (1, 0, 0)).tolist()
    ([0.75], [0.6])
    """
    return np.asarray(q, dtype=float) @ np.asarray(values, dtype=float)


def uncertainty(q, values=HSCORE) -> np.ndarray:
    """u = sqrt(sum_v q_v (v - f)^2): the judge's standard deviation of the metric's value.

    Parameters
    ----------
    q : array-like, shape (..., 3)
        Probabilities of correct, partial, incorrect.
    values : array-like, shape (3,), default ``HSCORE``
        The values of (correct, partial, incorrect) under a human metric
        (``annotation.human_metrics.values(key)``).

    Returns
    -------
    ndarray, shape (...)
        0 for a one-hot q.

    Examples
    --------
    >>> from stats.design import uncertainty
    >>> uncertainty([[0.6, 0.3, 0.1], [1, 0, 0]]).round(4).tolist()
    [0.3354, 0.0]
    """
    q = np.asarray(q, dtype=float)
    values = np.asarray(values, dtype=float)
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
    >>> from stats.design import budget_count
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


def pilot_chance(budget, n_triplets: int, rho: float = RHO) -> float:
    """p1 = rho B / T: every triplet's chance of the pilot.

    Parameters
    ----------
    budget : float
        B, the expected number of human-labelled triplets.
    n_triplets : int
        T.
    rho : float, default 0.2
        The pilot's share of the budget, in (0, 1).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        When rho is not in (0, 1) or the budget not in (0, T].

    Examples
    --------
    >>> from stats.design import pilot_chance
    >>> pilot_chance(500, 10_000)
    0.01
    """
    if not 0 < rho < 1:
        raise ValueError(f"rho must be in (0, 1), got {rho!r}")
    if not 0 < budget <= n_triplets:
        raise ValueError(f"the budget must be in (0, {n_triplets}]")
    return rho * budget / n_triplets


def main_budget(budget, n_triplets: int, p1: float) -> float:
    """B2 = (B - p1 T) / (1 - p1): the main draw's expected size, so that sum_t pi_t = B.

    Parameters
    ----------
    budget : float
        B.
    n_triplets : int
        T.
    p1 : float
        The pilot chance.

    Returns
    -------
    float

    Examples
    --------
    >>> from stats.design import main_budget
    >>> round(main_budget(500, 10_000, 0.01), 4)
    404.0404
    """
    return (budget - p1 * n_triplets) / (1 - p1)


def fit_residual_model(h, f, u) -> tuple[dict | None, str | None]:
    """The residual model of SPEC 12, fitted on the labelled pilot triplets.

    (beta0, lambda0) = least squares of h on (1, f); r = h - beta0 - lambda0 f; gamma = least squares
    of r^2 on x = (1, u^2, f (1 - f)) (the minimum-norm solution when a column is 0 or repeats one,
    e.g. u = 0 for a one-hot judge); the floor of s^2 is 0.05 mean(r^2).

    Parameters
    ----------
    h : array-like
        Human scores of the labelled pilot triplets.
    f, u : array-like
        The judge's expected score and uncertainty of the same triplets.

    Returns
    -------
    model : dict or None
        ``beta0``, ``lambda0``, ``gamma`` (three floats), ``floor`` and ``n_pilot``; None on a fallback.
    reason : str or None
        Why the design falls back to uniform (fewer than 50 labels, or a singular fit), else None.

    Examples
    --------
    >>> import numpy as np
    >>> from stats.design import fit_residual_model
    >>> f = np.tile([0.9, 0.5, 0.1, 0.7], 20); u = np.tile([0.1, 0.4, 0.1, 0.3], 20)
    >>> h = np.tile([1.0, 0.5, 0.0, 0.5], 20)
    >>> model, reason = fit_residual_model(h, f, u)
    >>> round(model["lambda0"], 4), model["n_pilot"], reason
    (1.1429, 80, None)
    >>> fit_residual_model(h[:10], f[:10], u[:10])[1]
    'only 10 labelled pilot triplets (fewer than 50): uniform design, pi = B / T'
    """
    h, f, u = (np.asarray(x, dtype=float) for x in (h, f, u))
    n = len(h)
    if n < MIN_PILOT:
        return None, FEW_PILOT_REASON.format(n=n)
    x1 = np.column_stack([np.ones(n), f])
    if np.linalg.matrix_rank(x1) < 2:
        return None, SINGULAR_REASON
    coef = np.linalg.lstsq(x1, h, rcond=None)[0]
    r2 = (h - x1 @ coef) ** 2
    mean_r2 = float(r2.mean())
    if not mean_r2 > 1e-12:
        return None, SINGULAR_REASON
    gamma = np.linalg.lstsq(_scale_features(f, u), r2, rcond=None)[0]
    model = {
        "beta0": float(coef[0]),
        "lambda0": float(coef[1]),
        "gamma": [float(g) for g in gamma],
        "floor": R2_FLOOR * mean_r2,
        "n_pilot": n,
    }
    return model, None


def _scale_features(f, u):
    """x = (1, u^2, f (1 - f)) per triplet."""
    f, u = np.asarray(f, dtype=float), np.asarray(u, dtype=float)
    return np.column_stack([np.ones(len(f)), u**2, f * (1 - f)])


def residual_scale(model: dict, f, u) -> np.ndarray:
    """s_t = sqrt(max(gamma . x_t, floor)): the predicted size of each triplet's residual.

    Parameters
    ----------
    model : dict
        ``fit_residual_model``.
    f, u : array-like
        Every triplet's expected score and uncertainty.

    Returns
    -------
    ndarray
        s > 0.

    Examples
    --------
    >>> from stats.design import residual_scale
    >>> model = {"gamma": [0.01, 1.0, 0.0], "floor": 0.0025}
    >>> residual_scale(model, [0.9, 0.5], [0.0, 0.3]).round(4).tolist()
    [0.1, 0.3162]
    """
    s2 = _scale_features(f, u) @ np.asarray(model["gamma"], dtype=float)
    return np.sqrt(np.maximum(s2, model["floor"]))


def solve_scale(s, total: float) -> float:
    """c with sum_t min(1, c s_t) = total, exactly (water filling: the largest s are capped at 1).

    Parameters
    ----------
    s : array-like
        Positive scales.
    total : float
        In (0, T].

    Returns
    -------
    float
        c (the smallest that caps every triplet when total = T).

    Raises
    ------
    ValueError
        When total is outside (0, T] or some s is not positive.

    Examples
    --------
    >>> from stats.design import solve_scale
    >>> c = solve_scale([1.0, 1.0, 10.0], 2.0)
    >>> c, min(1, 10 * c)
    (0.5, 1)
    """
    s = np.sort(np.asarray(s, dtype=float))[::-1]
    n = len(s)
    if not 0 < total <= n:
        raise ValueError(f"the main budget must be in (0, {n}]")
    if not (s > 0).all():
        raise ValueError("every scale must be positive")
    rest = np.concatenate([np.cumsum(s[::-1])[::-1], [0.0]])  # rest[k] = sum of s[k:]
    k = np.arange(n)
    c = (total - k) / rest[:-1]  # k triplets capped, the others at c s
    ok = (c * s <= 1 + 1e-12) & ((k == 0) | (c * np.concatenate([[np.inf], s[:-1]]) >= 1 - 1e-12))
    return float(c[np.flatnonzero(ok)[0]]) if ok.any() else float(1 / s[-1])


def main_chances(s, b2: float, alpha: float = ALPHA) -> tuple[np.ndarray, float]:
    """pi2_t = alpha B2 / T + (1 - alpha) min(1, c s_t), c solved so that sum_t pi2_t = B2.

    Parameters
    ----------
    s : array-like
        ``residual_scale`` of every triplet.
    b2 : float
        B2 (``main_budget``).
    alpha : float, default 0.1
        The defensive mixture's uniform share, in [0, 1].

    Returns
    -------
    pi2 : ndarray
    c : float

    Examples
    --------
    >>> from stats.design import main_chances
    >>> pi2, c = main_chances([0.1, 0.1, 0.2, 0.6], 1.0)
    >>> pi2.round(4).tolist(), round(float(pi2.sum()), 10)
    ([0.115, 0.115, 0.205, 0.565], 1.0)
    """
    s = np.asarray(s, dtype=float)
    c = solve_scale(s, b2)
    return alpha * b2 / len(s) + (1 - alpha) * np.minimum(1.0, c * s), c


def combine(p1: float, pi2) -> np.ndarray:
    """pi_t = p1 + (1 - p1) pi2_t: the chance of a label in either phase.

    Parameters
    ----------
    p1 : float
        The pilot chance.
    pi2 : array-like
        The main chances.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> from stats.design import combine
    >>> combine(0.1, [0.0, 0.5]).tolist()
    [0.1, 0.55]
    """
    return p1 + (1 - p1) * np.asarray(pi2, dtype=float)


def main_design(f, u, *, pilot, h, budget: float, p1: float, alpha: float = ALPHA) -> tuple[np.ndarray, dict]:
    """The second phase: the residual model fitted on the labelled pilot, then every triplet's pi2.

    Parameters
    ----------
    f, u : array-like, shape (T,)
        Every triplet's expected score and uncertainty.
    pilot : array-like of bool, shape (T,)
        The labelled pilot triplets.
    h : array-like, shape (T,)
        Human scores (read where ``pilot``).
    budget : float
        B.
    p1 : float
        The pilot chance.
    alpha : float, default 0.1
        The defensive mixture's share.

    Returns
    -------
    pi2 : ndarray
        The main chances (B2 / T everywhere on a fallback).
    info : dict
        ``kind`` (``active`` or ``uniform``), ``reason``, ``model`` (``fit_residual_model``), ``c``,
        ``b2``, ``alpha``.

    Examples
    --------
    >>> import numpy as np
    >>> from stats.design import main_design, combine
    >>> f = np.tile([0.95, 0.5, 0.05, 0.7], 50); u = np.tile([0.1, 0.45, 0.1, 0.3], 50)
    >>> h = np.tile([1.0, 0.5, 0.0, 0.0], 50); pilot = np.arange(200) % 3 == 0
    >>> pi2, info = main_design(f, u, pilot=pilot, h=h, budget=40, p1=0.04)
    >>> info["kind"], round(float(combine(0.04, pi2).sum()), 6)
    ('active', 40.0)
    >>> pi2, info = main_design(f, u, pilot=pilot & (np.arange(200) < 40), h=h, budget=40, p1=0.04)
    >>> info["kind"], bool(np.ptp(combine(0.04, pi2)) == 0)
    ('uniform', True)
    """
    f, u, pilot = np.asarray(f, dtype=float), np.asarray(u, dtype=float), np.asarray(pilot, dtype=bool)
    n = len(f)
    b2 = main_budget(budget, n, p1)
    model, reason = fit_residual_model(np.asarray(h, dtype=float)[pilot], f[pilot], u[pilot])
    info = {"kind": "uniform", "reason": reason, "model": model, "c": None, "b2": b2, "alpha": alpha}
    if model is None:
        return np.full(n, b2 / n), info
    pi2, c = main_chances(residual_scale(model, f, u), b2, alpha)
    info.update(kind="active", c=c)
    return pi2, info


def late_chance(meta: dict, f, u) -> np.ndarray:
    """pi2 of triplets added after the main draw, by the stored model and c (uniform B2 / T on a fallback).

    Parameters
    ----------
    meta : dict
        The design's record: ``alpha``, ``b2``, ``n_triplets``, ``c`` and ``model`` (None on a fallback).
    f, u : array-like
        The new triplets' expected score and uncertainty.

    Returns
    -------
    ndarray

    Examples
    --------
    >>> from stats.design import late_chance
    >>> meta = {"alpha": 0.1, "b2": 10, "n_triplets": 100, "c": 0.5,
    ...         "model": {"gamma": [0.01, 1.0, 0.0], "floor": 0.0025}}
    >>> late_chance(meta, [0.9, 0.5], [0.0, 0.3]).round(4).tolist()
    [0.055, 0.1523]
    """
    f = np.atleast_1d(np.asarray(f, dtype=float))
    uniform = meta["b2"] / meta["n_triplets"]
    if not meta.get("model"):
        return np.full(len(f), uniform)
    s = residual_scale(meta["model"], f, u)
    return meta["alpha"] * uniform + (1 - meta["alpha"]) * np.minimum(1.0, meta["c"] * s)


def draw(pi, seed) -> np.ndarray:
    """xi_t ~ Bernoulli(pi_t), independently, from ``seed``.

    Parameters
    ----------
    pi : array-like
        Probabilities in [0, 1].
    seed : int or sequence of int
        The stored seed (the main draw uses ``[seed, 2]``): the same seed and pi give the same sample.

    Returns
    -------
    ndarray of bool

    Examples
    --------
    >>> from stats.design import draw
    >>> draw([0.0, 1.0, 0.5, 0.5], seed=1).tolist()
    [False, True, True, False]
    """
    pi = np.asarray(pi, dtype=float)
    return np.random.default_rng(seed).random(pi.shape) < pi


def live_design(pi, sampled, labeled, *, phase=None, p1=None) -> tuple[np.ndarray, np.ndarray, dict]:
    """The completion-rate rule while the sample is being labelled (SPEC 12), per phase.

    xi_i = 1 only for labelled sampled triplets. With phases (a design exported by the platform),
    r1 and r2 are the labelled shares of the pilot's and of the main sample's triplets (each is
    served in random order, so its labelled part is a uniform part of it), and pi becomes
    p1 r1 + (1 - p1 r1) pi2 r2 with pi2 = (pi - p1) / (1 - p1). Without phases the design is one
    phase: pi r, r the labelled share of the sample.

    Parameters
    ----------
    pi : array-like
        The design's pi.
    sampled : array-like of bool
        xi of the design (either phase).
    labeled : array-like of bool
        Whether the triplet has a human label.
    phase : array-like of str, optional
        ``"pilot"``, ``"main"`` (or anything else: not sampled) per triplet.
    p1 : array-like or float, optional
        The pilot chance (with ``phase``).

    Returns
    -------
    xi : ndarray of bool
    pi : ndarray
        The chances under the completion rates.
    rates : dict
        ``all`` (labelled share of the sample), ``pilot`` and ``main`` (None without phases).

    Examples
    --------
    >>> from stats.design import live_design
    >>> xi, pi, r = live_design([0.5, 0.5, 0.2, 1.0], [True, True, False, True], [True, False, True, True])
    >>> xi.tolist(), pi.round(4).tolist(), round(r["all"], 4)
    ([True, False, False, True], [0.3333, 0.3333, 0.1333, 0.6667], 0.6667)
    >>> xi, pi, r = live_design([0.2, 0.2, 0.6, 0.6], [True, True, True, True], [True, False, True, True],
    ...                         phase=["pilot", "pilot", "main", "main"], p1=0.2)
    >>> pi.round(4).tolist(), r["pilot"], r["main"]
    ([0.1, 0.1, 0.55, 0.55], 0.5, 1.0)
    """
    sampled, labeled = np.asarray(sampled, dtype=bool), np.asarray(labeled, dtype=bool)
    pi = np.asarray(pi, dtype=float)
    xi = sampled & labeled

    def rate(part):
        return float(xi[part].sum() / part.sum()) if part.any() else 0.0

    rates = {"all": rate(sampled), "pilot": None, "main": None}
    if phase is None:
        return xi, pi * rates["all"], rates
    phase = np.asarray(phase, dtype=object)
    p1 = np.broadcast_to(np.asarray(p1, dtype=float), pi.shape)
    rates["pilot"], rates["main"] = rate(sampled & (phase == PILOT)), rate(sampled & (phase == MAIN))
    pi2 = np.clip((pi - p1) / np.where(p1 < 1, 1 - p1, 1.0), 0.0, 1.0)
    first = p1 * rates["pilot"]
    return xi, first + (1 - first) * pi2 * rates["main"], rates
