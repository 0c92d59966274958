"""Active statistical inference (SPEC section 12): the estimate when humans label where the judge is unsure.

Pure numpy. The design (q, f, u, the pilot, the residual model, pi, the draw, the completion-rate
rule per phase) is ``stats.design``; the report's rows of it (per system and metric, from the labels)
are ``evaluation.science.active``. This module re-weights the human labels of the drawn sample by
``1 / pi`` (Zrnic & Candes, "Active Statistical Inference", ICML 2024), so the estimate stays valid
whatever the judge's quality.

- ``estimate``: the estimate, its variance and the two control variates lambda and beta (per group);
- ``interval_variance``: the variance its 95% interval (``stats.intervals.normal``) is read from;
- ``uniform_variance``: what uniform PPI++ would have given with as many labels, from the same sample;
- ``labels_to_settle``: more labels that would set two systems' intervals apart.
"""

from __future__ import annotations

import math

import numpy as np

MIN_MEASURED = 10  # labelled items below which the gain against uniform PPI++ is not measured
MAX_CONDITION = 1e6  # SPEC 16: S with a larger condition number falls back as a singular one


def estimate(h, f, *, xi, pi, groups=None) -> dict:
    """The active estimate of a mean (SPEC 12), with two control variates.

    w_i = xi_i / pi_i; a_i = f_i (1 - w_i); c_i = 1 - w_i; b_i = h_i w_i (the Horvitz-Thompson
    terms); z_i = b_i + lambda a_i + beta c_i, with (lambda, beta) = -S^-1 (cov(a, b), cov(c, b)), S
    the 2x2 sample covariance of (a, c), not clipped. When S is singular, or its condition number
    exceeds ``MAX_CONDITION`` (SPEC 16), c is dropped (beta = 0, lambda = -cov(a, b) / var(a)), then a
    (lambda = beta = 0: the Horvitz-Thompson estimate).
    theta = mean(z); variance = var(z) / N (ddof=1); gain = var(b) / var(z).

    Parameters
    ----------
    h : array-like
        Human scores; read only where ``xi`` (anything, NaN included, elsewhere).
    f : array-like
        The judge's expected scores.
    xi : array-like of bool
        Human-labelled and in the sample.
    pi : array-like
        Each one's chance of being in the sample (> 0 wherever ``xi``).
    groups : array-like of int, optional
        A group code (0 .. G-1) per item: one estimate per group (a system each), computed at once.

    Returns
    -------
    dict
        ``estimate``, ``variance``, ``lambda``, ``beta``, ``gain``, ``n`` (N) and ``n_labeled`` (sum xi):
        floats (arrays of G with ``groups``); ``estimate`` etc. None (NaN with ``groups``) for N < 2.

    Raises
    ------
    ValueError
        When a labelled item has pi <= 0 or no human score.

    Examples
    --------
    >>> from stats.active import estimate
    >>> xi, pi = [True, True, False, False, True], [0.5, 0.5, 0.25, 0.25, 0.8]
    >>> e = estimate([1.0, 0.0, 0.5, 1.0, 0.5], [0.9, 0.2, 0.6, 0.8, 0.4], xi=xi, pi=pi)
    >>> [round(e[k], 4) for k in ("estimate", "variance", "lambda", "beta", "gain")]
    [0.6881, 0.0076, 2.6387, -1.1517, 19.7051]
    """
    h, f = np.asarray(h, dtype=float), np.asarray(f, dtype=float)
    xi, pi = np.asarray(xi, dtype=bool), np.asarray(pi, dtype=float)
    if (xi & ~(pi > 0)).any() or np.isnan(np.where(xi, h, 0.0)).any():
        raise ValueError("every labelled item needs pi > 0 and a human score")
    w = np.where(xi, 1.0 / np.where(xi, pi, 1.0), 0.0)
    terms = {"a": f * (1 - w), "c": 1 - w, "b": np.where(xi, h, 0.0) * w}
    one = groups is None
    groups = np.zeros(len(f), dtype=np.intp) if one else np.asarray(groups, dtype=np.intp)
    size = int(groups.max()) + 1 if len(groups) else int(one)  # one estimate of nothing: undefined
    n = np.bincount(groups, minlength=size).astype(float)
    out = _control_variates(terms, groups, n)
    out["n"], out["n_labeled"] = n.astype(int), np.bincount(groups, weights=xi, minlength=size).astype(int)
    if not one:
        return out
    return {
        k: (int(v[0]) if k in ("n", "n_labeled") else (float(v[0]) if n[0] >= 2 and np.isfinite(v[0]) else None))
        for k, v in out.items()
    }


def _control_variates(terms, groups, n):
    """theta, variance, lambda, beta and gain per group from the terms a, c, b (see ``estimate``)."""
    size = len(n)
    dof = np.where(n >= 2, n - 1, np.nan)
    means = {k: np.bincount(groups, weights=v, minlength=size) / np.where(n > 0, n, 1) for k, v in terms.items()}
    centred = {k: v - means[k][groups] for k, v in terms.items()}

    def cov(x, y):
        return np.bincount(groups, weights=centred[x] * centred[y], minlength=size) / dof

    s_aa, s_cc, s_ac, s_ab, s_cb, s_bb = (
        cov("a", "a"),
        cov("c", "c"),
        cov("a", "c"),
        cov("a", "b"),
        cov("c", "b"),
        cov("b", "b"),
    )
    det = s_aa * s_cc - s_ac**2
    half_trace = (s_aa + s_cc) / 2
    spread = np.sqrt(np.maximum(half_trace**2 - det, 0.0))
    smallest = half_trace - spread  # the eigenvalues of S are half_trace +- spread
    full = (det > 0) & (smallest > 0) & ((half_trace + spread) <= MAX_CONDITION * np.where(smallest > 0, smallest, 1.0))
    only_a = ~full & (s_aa > np.maximum(s_bb, 1e-300) / MAX_CONDITION)  # var(a) ~ 0 next to var(b): drop a too
    safe = np.where(full, det, 1.0)
    lam = np.where(
        full, -(s_cc * s_ab - s_ac * s_cb) / safe, np.where(only_a, -s_ab / np.where(only_a, s_aa, 1.0), 0.0)
    )
    beta = np.where(full, -(s_aa * s_cb - s_ac * s_ab) / safe, 0.0)
    var_z = s_bb + 2 * lam * s_ab + 2 * beta * s_cb + lam**2 * s_aa + 2 * lam * beta * s_ac + beta**2 * s_cc
    var_z = np.where(var_z > 1e-12 * s_bb, var_z, 0.0)  # below: rounding of an exact fit (a handful of labels)
    theta = means["b"] + lam * means["a"] + beta * means["c"]
    # var(b) / var(z); undefined (NaN) when the control variates fit b exactly, 1 when b does not vary
    gain = np.where(var_z > 0, s_bb / np.where(var_z > 0, var_z, 1.0), np.where(s_bb > 0, np.nan, 1.0))
    variance = np.where(n > 0, var_z / np.where(n > 0, n, 1), np.nan)  # a group of no item: undefined
    return {"estimate": theta, "variance": variance, "lambda": lam, "beta": beta, "gain": gain}


def interval_variance(e: dict) -> float | None:
    """The variance an active estimate's interval is read from (``stats.intervals.normal``); None when
    the estimate is undefined. While predictions remain unlabelled (``n_labeled`` < ``n``) it is at
    least 1 / (n_labeled + 1)^2, that of a mean of the labels with one more that disagrees (SPEC 16):
    never [x, x].

    Parameters
    ----------
    e : dict
        An ``estimate`` (1-D input).

    Returns
    -------
    float or None

    Examples
    --------
    >>> from stats.active import interval_variance
    >>> from stats.intervals import normal
    >>> e = {"estimate": 0.5, "variance": 0.0025}
    >>> tuple(round(x, 4) for x in normal(e["estimate"], interval_variance(e)))
    (0.402, 0.598)
    >>> interval_variance({**e, "variance": 0.0, "n": 10, "n_labeled": 4})  # 1 / 5^2
    0.04
    """
    if e["estimate"] is None:
        return None
    variance = max(e["variance"], 0.0)
    n, labelled = e.get("n"), e.get("n_labeled")
    if n is not None and labelled is not None and 0 < labelled < n:  # SPEC 16: never zero width
        variance = max(variance, 1 / (labelled + 1) ** 2)  # a mean of the labels with one that disagrees
    return variance


def uniform_variance(h, f, *, xi, pi) -> float | None:
    """The variance uniform PPI++ (SPEC 10) would have had with as many labels, estimated from the sample.

    The population variance of the residual h - beta - lambda f at the best (beta, lambda) is
    estimated from the labelled items weighted by 1 / pi (weighted least squares of h on (1, f));
    with n labels out of N, uniform sampling gives that variance times (1 / n - 1 / N). Divided by
    the active ``estimate``'s variance it is the design's measured gain over uniform PPI++.

    Parameters
    ----------
    h, f, xi, pi : array-like
        As ``estimate``.

    Returns
    -------
    float or None
        None with fewer than ``MIN_MEASURED`` (10) labelled items: too few to measure anything.

    Examples
    --------
    >>> from stats.active import uniform_variance
    >>> import numpy as np
    >>> h, f = np.tile([1.0, 0.0, 0.5, 1.0], 5), np.tile([0.9, 0.2, 0.6, 0.8], 5)
    >>> xi, pi = np.arange(20) % 4 != 2, np.tile([0.5, 0.5, 0.25, 0.8], 5)
    >>> round(uniform_variance(h, f, xi=xi, pi=pi) * 1e5, 1)
    5.9
    """
    h, f = np.asarray(h, dtype=float), np.asarray(f, dtype=float)
    xi, pi = np.asarray(xi, dtype=bool), np.asarray(pi, dtype=float)
    n, big_n = int(xi.sum()), len(f)
    if n < MIN_MEASURED:
        return None
    w = 1.0 / pi[xi]
    x = np.column_stack([np.ones(n), f[xi]])
    coef = np.linalg.lstsq(x * np.sqrt(w)[:, None], h[xi] * np.sqrt(w), rcond=None)[0]
    resid = h[xi] - x @ coef
    sigma2 = float((w * resid**2).sum() / w.sum()) * n / (n - 1)
    return sigma2 * (1 / n - 1 / big_n)


def labels_to_settle(a: dict, b: dict, n_labeled: int) -> int | None:
    """More labelled sample triplets that would set two systems' 95% intervals apart.

    At the current spread, each variance shrinks as 1 / (labelled sample triplets) k (the
    completion-rate rule: the chances scale with k); the intervals are apart once 1.96 (sd_a + sd_b)
    < |estimate_a - estimate_b|, so k must grow by the factor (1.96 (sd_a + sd_b) / diff)^2.

    Parameters
    ----------
    a, b : dict
        ``active_rows`` rows (``estimate``, ``ci_low``, ``ci_high``) of the same metric.
    n_labeled : int
        Labelled sample triplets so far (k).

    Returns
    -------
    int or None
        0 when already apart; None when an interval is missing or the estimates are equal.

    Examples
    --------
    >>> from stats.active import labels_to_settle
    >>> a = {"estimate": 0.70, "ci_low": 0.62, "ci_high": 0.78}
    >>> b = {"estimate": 0.60, "ci_low": 0.52, "ci_high": 0.68}
    >>> labels_to_settle(a, b, 100)  # half-widths 0.08 + 0.08 = 0.16 > 0.10: k x (0.16 / 0.10)^2
    156
    """
    if a.get("ci_low") is None or b.get("ci_low") is None or not n_labeled:
        return None
    diff = abs(a["estimate"] - b["estimate"])
    spread = (a["ci_high"] - a["ci_low"]) / 2 + (b["ci_high"] - b["ci_low"]) / 2
    if spread < diff:
        return 0
    if diff == 0:
        return None
    return math.ceil(round(n_labeled * (spread / diff) ** 2 - n_labeled, 9))  # no ceil of float noise
