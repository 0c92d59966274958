"""The numbers of the report page, written in the reader's language (a decimal comma in French) with an
em dash for a missing value: scores, percentages, p-values, intervals, PPI gains, sort keys. Pages
only; the downloads keep their own formats. ``page`` and ``estimates`` both format with these."""

from __future__ import annotations

import math

from django.utils import formats

from evaluation.science import metric_registry

DASH = "—"


def _ok(v):
    return v is not None and not (isinstance(v, float) and not math.isfinite(v))


def _local(text: str) -> str:
    """A number written with a point, in the reader's language (``0,5`` in French): numbers on pages
    follow the language, never those of the downloads (this module is for pages only)."""
    sep = formats.get_format("DECIMAL_SEPARATOR")
    return text.replace(".", sep) if sep != "." else text


def score(v, decimals=3):
    """A score in [0, 1] with ``decimals`` decimals; a missing value as an em dash.

    Parameters
    ----------
    v : float or None
        The value.
    decimals : int, default 3
        Decimals shown.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.numbers import score
    >>> score(0.12345), score(0.5, 2), score(None)
    ('0.123', '0.50', '—')
    """
    return _local(f"{v:.{decimals}f}") if _ok(v) else DASH


def percent(v, decimals=1):
    """A percentage with ``decimals`` decimals and a % sign; a missing value as an em dash.

    Parameters
    ----------
    v : float or None
        The value, already in %.
    decimals : int, default 1
        Decimals shown.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.numbers import percent
    >>> percent(45.678), percent(38.6, 0)
    ('45.7 %', '39 %')
    """
    return _local(f"{v:.{decimals}f} %") if _ok(v) else DASH


def integer(v):
    """A whole number (a delta); a missing value as an em dash.

    Parameters
    ----------
    v : float or None
        The value.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.numbers import integer
    >>> integer(-3.0), integer(float("nan"))
    ('-3', '—')
    """
    return str(int(v)) if _ok(v) else DASH


def p_value(p):
    """A p-value with 2 significant digits, ``< 0.001`` below; a missing value as an em dash.

    Parameters
    ----------
    p : float or None
        The p-value.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.numbers import p_value
    >>> p_value(0.0321), p_value(0.0004), p_value(None)
    ('0.032', '< 0.001', '—')
    """
    if not _ok(p):
        return DASH
    return _local("< 0.001" if p < 0.001 else f"{p:.2g}")


def metric_value(metric, v):
    """A metric's value as the page shows it: Hcorrect in %, the others in [0, 1].

    Parameters
    ----------
    metric : str
        The metric.
    v : float or None
        Its value.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.numbers import metric_value
    >>> metric_value("hcorrect", 45.2), metric_value("f1", 0.5)
    ('45.2 %', '0.500')
    """
    decimals = metric_registry.get(metric).decimals
    return percent(v, decimals) if metric_registry.get(metric).scale == 100 else score(v, decimals)


def sort_key(v):
    """The value a sortable column sorts by (empty: last).

    Parameters
    ----------
    v : float or None
        The cell's value.

    Returns
    -------
    str
        ``repr`` of the float, or "" when missing.

    Examples
    --------
    >>> from evaluation.render.numbers import sort_key
    >>> sort_key(0.5), sort_key(None)
    ('0.5', '')
    """
    return "" if not _ok(v) else repr(float(v))


def gain(v):
    """The PPI gain as ``2.50×``; a missing value as an em dash.

    Parameters
    ----------
    v : float or None
        The gain (classical variance / PPI variance).

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.numbers import gain
    >>> gain(2.5), gain(None)
    ('2.50×', '—')
    """
    return _local(f"{v:.2f}×") if _ok(v) else DASH


def interval_text(metric, low, high):
    """An interval as ``low – high`` in the metric's format; an em dash when a bound is missing.

    Parameters
    ----------
    metric : str
        The metric.
    low, high : float or None
        The bounds.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.numbers import interval_text
    >>> interval_text("hscore", 0.4, 0.6), interval_text("hcorrect", None, 60.0)
    ('0.400 – 0.600', '—')
    """
    return f"{metric_value(metric, low)} – {metric_value(metric, high)}" if _ok(low) and _ok(high) else DASH
