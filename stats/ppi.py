"""Prediction-powered estimates (SPEC section 10): the classical and the PPI++ estimate of one mean from
a random part of human scores and a judge's scores of all, and the labels an interval still needs.

Pure numpy; the rows of the report (per system and metric, from the labels) are
``evaluation.science.ppi``. Every interval is ``stats.intervals.normal`` (one level, one z).

- ``estimate``: the classical and the PPI++ estimate of one mean (SPEC 10, word for word);
- ``labels_needed``: human labels a system still needs for an interval of a chosen half-width.
"""

from __future__ import annotations

import math

import numpy as np

from stats.intervals import Z95, floored


def estimate(h, f, f_unlabeled) -> dict:
    """Classical and PPI++ estimates of the mean of ``h`` (SPEC 10).

    Parameters
    ----------
    h, f : array_like of float
        Human and judge scores of the n predictions that have both.
    f_unlabeled : array_like of float
        Judge scores of the N_u predictions without a human score.

    Returns
    -------
    dict
        ``n``, ``n_unlabeled``, ``lambda``, ``estimate``, ``variance``, ``classical``,
        ``classical_variance``, ``gain``. ``lambda``, ``estimate``, ``variance`` and ``gain`` are
        None when only the classical estimate exists (n < 2 or N_u < 2: a variance with ddof=1
        needs two values), the classical ones None when n < 2 (n = 1 gives only the mean).

    Examples
    --------
    >>> from stats.ppi import estimate
    >>> e = estimate([1.0, 0.0, 1.0, 0.5], [1.0, 0.5, 1.0, 0.0], [1.0, 0.0, 0.5])
    >>> round(e["lambda"], 4), round(e["estimate"], 4), e["classical"], round(e["gain"], 3)
    (0.3088, 0.5864, 0.625, 1.189)
    """
    h, f, fu = (np.asarray(a, dtype=float) for a in (h, f, f_unlabeled))
    n, nu = len(h), len(fu)
    out = {
        "n": n,
        "n_unlabeled": nu,
        "lambda": None,
        "estimate": None,
        "variance": None,
        "classical": float(h.mean()) if n else None,
        "classical_variance": None,
        "gain": None,
    }
    if n < 2:
        return out
    out["classical_variance"] = float(floored(h.var(ddof=1), n, remaining=nu) / n)
    if nu < 2:
        return out
    f_all = np.concatenate([f, fu])
    var_all = f_all.var(ddof=1)
    lam = 0.0
    if var_all > 0:
        cov = np.cov(h, f, ddof=1)[0, 1]
        lam = float(np.clip(cov / ((1 + n / nu) * var_all), 0.0, 1.0))
    theta = float((h - lam * f).mean() + lam * fu.mean())
    variance = float(floored((h - lam * f).var(ddof=1), n, remaining=nu) / n + lam**2 * fu.var(ddof=1) / nu)
    out.update({"lambda": lam, "estimate": theta, "variance": variance})
    if variance > 0:
        out["gain"] = out["classical_variance"] / variance
    return out


def labels_needed(row: dict, half_width: float) -> int | None:
    """Further human labels the system needs for a 95% interval of +- ``half_width``.

    At the current spread and gain: n_c = (1.96 sd / w)^2 human labels without the judge, n_c /
    gain with it. It may exceed the predictions left to label (``n_total - n_human``): the width is
    then out of reach at this gain.

    Parameters
    ----------
    row : dict
        A ``ppi_rows`` row (``evaluation.science.ppi``): ``classical_ci_low``, ``classical_ci_high``,
        ``n_human``, ``gain``.
    half_width : float
        The target half-width, on the report's scale.

    Returns
    -------
    int or None
        None when the spread is unknown (fewer than two human labels).

    Raises
    ------
    ValueError
        When ``half_width`` is not positive.

    Examples
    --------
    >>> from stats.ppi import labels_needed
    >>> row = {"classical_ci_low": 0.4, "classical_ci_high": 0.6, "n_human": 50, "gain": 2.0}
    >>> labels_needed(row, 0.05), labels_needed({**row, "gain": None}, 0.05)
    (50, 150)
    """
    if not half_width or half_width <= 0:
        raise ValueError("the interval half-width must be positive")
    low, high, n = row["classical_ci_low"], row["classical_ci_high"], row["n_human"]
    if low is None or high is None or n < 2:
        return None
    sd = (high - low) / (2 * Z95) * math.sqrt(n)  # back from the classical interval
    needed = (Z95 * sd / half_width) ** 2
    if row["gain"]:
        needed /= row["gain"]
    return int(max(0, math.ceil(needed) - n))
