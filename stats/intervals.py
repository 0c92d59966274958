"""Intervals and bounds, the one home of the level, the z and the normal interval (SPEC 3, 10, 12, 16).

One level, ``LEVEL`` (0.95), and one z, ``Z95`` = 1.96: every fixed interval of the report (the
classical and the prediction-powered intervals of SPEC 10, the active ones of SPEC 12, the Wilson
intervals of the human checks) is written with it. 1.96 and not scipy's norm.ppf(0.975) =
1.959963984540054: the reports have always used 1.96, and the exact value changes every PPI and
active bound of report.json in the fifth decimal. ``floored`` and ``clipped`` keep a fixed interval
from claiming a certainty it does not have (SPEC 16): a variance floor while predictions remain
unlabelled, and estimates clipped to [0, 1] with a flag. Pure standard library.

- ``normal``: mean +- z sqrt(variance);
- ``wilson``: the Wilson score interval of a proportion;
- ``floored`` / ``clipped``: SPEC 16's floor and clip;
- ``interval_pairs``: which intervals are apart, and which is ahead.
"""

from __future__ import annotations

import itertools
import math

LEVEL = 0.95  # the level of every fixed interval
Z95 = 1.96  # the two-sided normal quantile of LEVEL, as the reports write it (see above)


def normal(mean, variance):
    """The normal interval at ``LEVEL``: mean +- ``Z95`` sqrt(variance).

    Parameters
    ----------
    mean, variance : float or None
        An estimate and its variance.

    Returns
    -------
    tuple
        (low, high), or (None, None) when either is None.

    Examples
    --------
    >>> from stats.intervals import normal
    >>> normal(0.5, 0.01), normal(None, None)
    ((0.304, 0.696), (None, None))
    """
    if mean is None or variance is None:
        return None, None
    half = Z95 * math.sqrt(variance)
    return mean - half, mean + half


def wilson(correct, n):
    """The Wilson score interval ``(low, high)`` of a proportion at ``LEVEL``; ``(None, None)`` when ``n`` is 0.

    Parameters
    ----------
    correct : int
        The successes.
    n : int
        The trials.

    Returns
    -------
    tuple
        (low, high) within [0, 1], or (None, None).

    Examples
    --------
    >>> from stats.intervals import wilson
    >>> [round(x, 3) for x in wilson(8, 10)], wilson(0, 0)
    ([0.49, 0.943], (None, None))
    """
    if n <= 0:
        return None, None
    z = Z95
    p = correct / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def floored(s2, n, *, remaining=1):
    """A sample variance of ``n`` scores in [0, 1] no smaller than that of the same labels with one more
    that disagrees, n / (n + 1)^2 (SPEC 16), while ``remaining`` predictions are unlabelled: a fixed
    interval never has zero width before every prediction is labelled.

    Parameters
    ----------
    s2 : float
        The sample variance.
    n : int
        The number of labels it came from.
    remaining : int, default 1
        The predictions still unlabelled (0: no floor, the mean is known).

    Returns
    -------
    float

    Examples
    --------
    >>> from stats.intervals import floored
    >>> floored(0.0, 40), floored(0.25, 40), floored(0.0, 40, remaining=0)
    (0.02379535990481856, 0.25, 0.0)
    """
    return max(float(s2), n / (n + 1) ** 2) if remaining > 0 and n > 0 else float(s2)


def clipped(mean, low, high):
    """(mean, low, high) with the estimate clipped to [0, 1], and whether it lay outside (SPEC 16: clipped
    and flagged). The bounds stay as computed (their width is the estimator's spread, which
    ``stats.ppi.labels_needed`` reads back).

    Parameters
    ----------
    mean, low, high : float or None
        An estimate and its interval.

    Returns
    -------
    tuple
        (mean, low, high, flag).

    Examples
    --------
    >>> from stats.intervals import clipped
    >>> clipped(-0.25, -0.6, 0.1), clipped(0.5, 0.3, 0.7), clipped(None, None, None)
    ((0.0, -0.6, 0.1, True), (0.5, 0.3, 0.7, False), (None, None, None, False))
    """
    if mean is None:
        return None, low, high, False
    return min(max(float(mean), 0.0), 1.0), low, high, not 0.0 <= mean <= 1.0


def interval_pairs(rows: list[dict], metric: str, *, low: str = "ci_low", high: str = "ci_high") -> list[dict]:
    """Every pair of ``rows``: ``settled`` when their intervals ``[low, high]`` are apart, and which is ahead.

    The one pairing rule of the fixed intervals (``settled_pairs``) and of the confidence sequences
    (``evaluation.science.anytime.settled``). A row whose bounds are None is never settled.

    Parameters
    ----------
    rows : list of dict
        Rows with ``system`` and the bounds ``low`` and ``high`` (one metric's).
    metric : str
        The metric, copied into each pair.
    low, high : str
        The keys of the bounds.

    Returns
    -------
    list of dict
        ``systems``, ``metric``, ``settled``, ``ahead`` (the system whose interval lies above; None
        unless settled), in the order of ``itertools.combinations(rows, 2)``.

    Examples
    --------
    >>> from stats.intervals import interval_pairs
    >>> rows = [{"system": "a", "lo": 0.5, "hi": 0.7}, {"system": "b", "lo": 0.75, "hi": 0.85},
    ...         {"system": "c", "lo": None, "hi": None}]
    >>> [(p["systems"], p["settled"], p["ahead"]) for p in interval_pairs(rows, "hscore", low="lo", high="hi")]
    [(['a', 'b'], True, 'b'), (['a', 'c'], False, None), (['b', 'c'], False, None)]
    """
    out = []
    for a, b in itertools.combinations(rows, 2):
        known = a[low] is not None and b[low] is not None
        above = known and a[low] > b[high]
        below = known and b[low] > a[high]
        out.append(
            {
                "systems": [a["system"], b["system"]],
                "metric": metric,
                "settled": bool(above or below),
                "ahead": a["system"] if above else b["system"] if below else None,
            }
        )
    return out
