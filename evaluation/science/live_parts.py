"""The live page's fixed 95% intervals (SPEC 10) in two parts (issue 46): the costly one, every metric at
once, that the background job stores (``conclusion_parts``: ``evaluation.live_state``), and the cheap one
the page applies to it for the chosen metric and half-width (``conclusions_from``); ``conclusions`` is
both in one call."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from evaluation.science import metric_registry, ppi
from evaluation.science.rows import records
from stats.ppi import labels_needed


def conclusions(
    predictions: pd.DataFrame,
    labels: pd.DataFrame | None,
    judge_labels: pd.DataFrame | None,
    *,
    metric: str = "hscore",
    half_width: float = 0.02,
    facts: dict | None = None,
    scores: pd.DataFrame | None = None,
) -> dict:
    """What the live page shows, recomputed from the per-prediction inputs only.

    Per system the current estimate and interval (prediction-powered when a judge exists, else
    classical), the human labels it still needs for +- ``half_width``, per pair whether the order
    is settled, and (with a judge) the validity guard's reasons.

    Parameters
    ----------
    predictions : DataFrame
        ``system`` and ``tkey`` of each prediction.
    labels : DataFrame or None
        Human labels (``tkey``, ``annotator``, ``label``).
    judge_labels : DataFrame or None
        One judge's labels, or None.
    metric : {"hscore", "hcorrect"}, default "hscore"
        The metric shown.
    half_width : float, default 0.02
        The target half-width, on the metric's scale.
    facts : dict, optional
        Platform facts (``judge_inputs.sample_facts``).
    scores : DataFrame, optional
        ``live_scores`` of the same inputs, when the caller computed them already (the live page
        shares them between its parts); default computed here.

    Returns
    -------
    dict
        ``metric``, ``half_width``, ``rows`` (``ppi_rows`` of the metric with ``needed``,
        ``remaining``, ``width``; the best estimate first), ``pairs``, ``n_human``, ``has_judge``,
        ``reasons``.

    Raises
    ------
    ValueError
        On another metric.

    Examples
    --------
    >>> from evaluation.science import live_parts, ppi
    >>> labels, judge, predictions = ppi._example_frames()  # 6 triplets, 4 labelled
    >>> result = live_parts.conclusions(predictions, labels, judge, half_width=0.1)
    >>> [(r["system"], r["estimate"], r["needed"]) for r in result["rows"]]
    [('b', 0.75, 84), ('a', 0.5, 191)]
    """
    if metric not in metric_registry.human_keys():
        raise ValueError(f"metric must be one of {', '.join(metric_registry.human_keys())}")
    has_judge = judge_labels is not None and not judge_labels.empty
    if scores is None:
        scores = ppi.live_scores(predictions, labels, judge_labels, facts=facts)
    return conclusions_from(conclusion_parts(scores, has_judge=has_judge, facts=facts), metric, half_width)


def conclusion_parts(scores: pd.DataFrame, *, has_judge: bool, facts: dict | None = None) -> dict:
    """The costly part of ``conclusions``, every metric at once (what the live page's background job
    stores, ``evaluation.live_state``); ``conclusions_from`` finishes it for one metric and half-width.

    Parameters
    ----------
    scores : DataFrame
        ``live_scores``.
    has_judge : bool
        Whether a judge scored them (else the classical estimates).
    facts : dict, optional
        Platform facts (``judge_inputs.sample_facts``).

    Returns
    -------
    dict
        ``rows`` (``ppi_rows``), ``n_human`` by metric, ``has_judge``, ``reasons``: plain data.

    Examples
    --------
    >>> from evaluation.science import live_parts, ppi
    >>> labels, judge, predictions = ppi._example_frames()
    >>> parts = live_parts.conclusion_parts(ppi.live_scores(predictions, labels, judge), has_judge=True)
    >>> full = live_parts.conclusions(predictions, labels, judge, half_width=0.1)
    >>> parts["n_human"], live_parts.conclusions_from(parts, "hscore", 0.1) == full
    ({'hscore': 4, 'hcorrect': 4}, True)
    """
    if not has_judge:  # no judge: a constant judge gives lambda 0, the classical estimate
        scores = scores.assign(**{f"f_{m}": 0.0 for m in metric_registry.human_keys()})  # a copy
    return {
        "rows": records(ppi.ppi_rows(scores)),
        "n_human": {m: int((~np.isnan(scores[f"h_{m}"])).sum()) for m in metric_registry.human_keys()},
        "has_judge": has_judge,
        "reasons": ppi.validity_reasons(scores, facts) if has_judge else [],
    }


def conclusions_from(parts: dict, metric: str, half_width: float) -> dict:
    """``conclusions`` of ``metric`` at ``half_width`` from ``conclusion_parts`` (cheap: no score read).

    Parameters
    ----------
    parts : dict
        ``conclusion_parts`` (left as it is).
    metric : {"hscore", "hcorrect"}
        The metric shown.
    half_width : float
        The target half-width, on the metric's scale.

    Returns
    -------
    dict
        As ``conclusions``.

    Examples
    --------
    See ``conclusion_parts``.
    """
    rows = [dict(r) for r in parts["rows"] if r["metric"] == metric]
    for r in rows:
        if not parts["has_judge"]:
            r["lambda"] = r["gain"] = None
        r["needed"] = labels_needed(r, half_width)
        r["remaining"] = r["n_total"] - r["n_human"]
        r["width"] = None if r["ci_low"] is None else r["ci_high"] - r["ci_low"]
    rows.sort(key=lambda r: -math.inf if r["estimate"] is None else -r["estimate"])
    return {
        "metric": metric,
        "half_width": half_width,
        "rows": rows,
        "pairs": ppi.settled_pairs(rows, metric),
        "n_human": parts["n_human"][metric],
        "has_judge": parts["has_judge"],
        "reasons": [dict(r) for r in parts["reasons"]],
    }
