"""Fixed-sample intervals that never claim a certainty they do not have (SPEC 16, amended, for the
intervals of SPEC 3, 10 and 12): a variance floor while predictions remain unlabelled, and estimates
clipped to [0, 1] with a flag. Pure.
"""

from __future__ import annotations


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
    >>> from evaluation.science.bounds import floored
    >>> floored(0.0, 40), floored(0.25, 40), floored(0.0, 40, remaining=0)
    (0.02379535990481856, 0.25, 0.0)
    """
    return max(float(s2), n / (n + 1) ** 2) if remaining > 0 and n > 0 else float(s2)


def clipped(mean, low, high):
    """(mean, low, high) with the estimate clipped to [0, 1], and whether it lay outside (SPEC 16: clipped
    and flagged). The bounds stay as computed (their width is the estimator's spread, which
    ``labels_needed`` reads back).

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
    >>> from evaluation.science.bounds import clipped
    >>> clipped(-0.25, -0.6, 0.1), clipped(0.5, 0.3, 0.7), clipped(None, None, None)
    ((0.0, -0.6, 0.1, True), (0.5, 0.3, 0.7, False), (None, None, None, False))
    """
    if mean is None:
        return None, low, high, False
    return min(max(float(mean), 0.0), 1.0), low, high, not 0.0 <= mean <= 1.0
