"""Statistics on the frame proxy for the report: outcome counts, paper Table 4 over annotators' frame
checks, and their agreement (paper section 5; SPEC 7 and 8). Pure: plain rows or DataFrames in, plain
JSON-able dicts out (``None`` where a number is undefined, never NaN). The checks themselves are made
and stored by ``frames.checking``.

Inputs:
- outcomes: an iterable of outcome strings, or rows / a DataFrame with an ``outcome`` column
  (one per question the proxy saw);
- checks: rows / a DataFrame with ``item`` (the frame annotation), ``annotator``, ``frame_rating``
  and ``fe_rating`` in full / partial / erroneous; a missing rating (skipped) is left out.

Table 4 percentages are over ratings: with two annotators on 50 questions, 100 ratings per row. Each
share comes with its 95 % Wilson score interval over the ratings, as the attribute checks' accuracies
(``stats.intervals.wilson``); two annotators' ratings of one item count as two ratings, so where
annotators agree the interval is narrower than one over items would be (the page says so).
Krippendorff's alpha uses the items rated by two or more annotators, ordinal (erroneous < partial <
full, ``stats.labels.FRAME_CHECK_RANKS``) and nominal.
"""

from __future__ import annotations

import math

import pandas as pd

from evaluation.science.agreement import krippendorff_alpha
from frames.outcomes import ERROR, OUTCOMES, gettext_noop
from stats.intervals import wilson
from stats.labels import FRAME_CHECK_RANKS, FRAME_CHECK_VALUES

RATING_FIELDS = {"frame": "frame_rating", "fes": "fe_rating"}
TABLE4_ROWS = {"frame": gettext_noop("Frame Prediction"), "fes": gettext_noop("Frame Elements")}  # pages: gettext


def outcome_counts(outcomes):
    """``{no_trigger, unknown_frame, bad_output, done, error, total}`` (paper: 18 / 35 / 24 of 1,000)."""
    if isinstance(outcomes, pd.DataFrame):
        values = outcomes["outcome"].tolist() if len(outcomes) else []
    else:
        values = [o["outcome"] if isinstance(o, dict) else o for o in outcomes]
    unknown = sorted({v for v in values if v not in (*OUTCOMES, ERROR)})
    if unknown:
        raise ValueError(
            f"unknown frame outcome(s): {', '.join(map(str, unknown))}; expected one of {', '.join(OUTCOMES)}"
        )
    counts = {o: values.count(o) for o in OUTCOMES}
    counts[ERROR] = values.count(ERROR)
    counts["total"] = len(values)
    return counts


def _checks(checks):
    df = checks.copy() if isinstance(checks, pd.DataFrame) else pd.DataFrame(list(checks))
    for column in ("item", "annotator", *RATING_FIELDS.values()):
        if column not in df.columns:
            df[column] = None
    for column in RATING_FIELDS.values():
        df[column] = pd.Series(
            [None if v is None or (isinstance(v, float) and math.isnan(v)) else v for v in df[column]],
            index=df.index,
            dtype=object,
        )
        bad = sorted({v for v in df[column] if v is not None and v not in FRAME_CHECK_VALUES})
        if bad:
            raise ValueError(
                f"{column}: unknown rating(s) {', '.join(map(str, bad))}; expected one of "
                f"{', '.join(FRAME_CHECK_VALUES)}"
            )
    return df


def table4(checks):
    """Paper Table 4: % full / partial / erroneous for the frame and for the FEs, with the counts and
    each share's 95 % Wilson interval in % (``<value>_ci``).

    ``{"frame": {"label": "Frame Prediction", "n": .., "full": %, "partial": %, "erroneous": %,
    "full_ci": [low %, high %], ..., "counts": {..}}, "fes": {...}}``; percentages and intervals are
    ``None`` when nothing was rated.

    >>> t = table4([{"item": 1, "annotator": "a", "frame_rating": "full", "fe_rating": "partial"},
    ...             {"item": 2, "annotator": "a", "frame_rating": "full", "fe_rating": None}])
    >>> t["frame"]["n"], t["frame"]["full"], [round(x, 1) for x in t["frame"]["full_ci"]], t["fes"]["n"]
    (2, 100.0, [34.2, 100.0], 1)
    >>> table4([])["frame"]["full_ci"] is None
    True
    """
    df = _checks(checks)
    out = {}
    for key, column in RATING_FIELDS.items():
        values = [v for v in df[column] if v is not None]
        counts = {v: values.count(v) for v in FRAME_CHECK_VALUES}
        n = len(values)
        out[key] = {
            "label": TABLE4_ROWS[key],
            "n": n,
            "counts": counts,
            **{v: (100.0 * counts[v] / n if n else None) for v in FRAME_CHECK_VALUES},
            **{f"{v}_ci": ([100.0 * b for b in wilson(counts[v], n)] if n else None) for v in FRAME_CHECK_VALUES},
        }
    return out


def alpha_for(checks, field="frame"):
    """Alpha (ordinal and nominal) on one rating, overall and per pair of annotators sharing items
    (``evaluation.science.agreement.krippendorff_alpha`` with ``FRAME_CHECK_RANKS``)."""
    column = RATING_FIELDS[field]
    df = _checks(checks)
    rows = pd.DataFrame({"item": df["item"], "annotator": df["annotator"], "value": df[column]})
    return krippendorff_alpha(rows, FRAME_CHECK_RANKS)


def agreement(checks):
    """``{"frame": alpha_for(frame), "fes": alpha_for(fes)}``."""
    return {key: alpha_for(checks, key) for key in RATING_FIELDS}


def frame_report(outcomes, checks):
    """The frame section of report.json: outcome counts, Table 4 and agreement on the checks."""
    return {"outcomes": outcome_counts(outcomes), "table4": table4(checks), "agreement": agreement(checks)}


def table4_rows(report_table4):
    """Table 4 as rows ``{evaluation, full, partial, erroneous, n}`` for CSV / LaTeX writers."""
    return [
        {"evaluation": t["label"], "full": t["full"], "partial": t["partial"], "erroneous": t["erroneous"], "n": t["n"]}
        for t in report_table4.values()
    ]
