"""Prediction-powered rows (SPEC section 10): an automatic judge plus a random part of human labels.

Pure numpy / pandas, no database. The estimates themselves (one mean, the labels an interval needs)
are ``stats.ppi``, their intervals ``stats.intervals``; this module makes the report's rows of them.
The unit is a prediction of a system: its human score ``h`` comes from its triplet's human labels
(SPEC 3), its judge score ``f`` from its triplet's judge label, on the same scale (correct 1,
partial 0.5, incorrect 0 for Hscore; [label == correct] for Hcorrect).

- ``prediction_scores``: one row per prediction with ``h_*`` and ``f_*`` (NaN where missing);
- ``ppi_rows``: the ``report.json`` ``ppi`` rows, per system and metric;
- ``settled_pairs``: per pair of systems, whether their intervals are apart;
- ``judge_agreement``: Krippendorff's alpha and the confusion matrix of the judge against humans;
- ``validity_reasons``: why the human-labeled predictions may not be a uniform sample of the judged ones;
- ``ppi_section``: everything above for one report (``ppi``, ``judge``, the ``table_ppi`` frame).

Scales follow the report: Hscore in [0, 1], Hcorrect in % (SPEC 3). ROVER has no row (its answers
are other systems' predictions, not a sample of their own).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as sps

from evaluation.science import agreement, human, metric_registry
from evaluation.science.rows import PpiRow, keys
from stats.intervals import clipped, interval_pairs, normal
from stats.labels import LABEL_RANKS, LABEL_VALUES
from stats.ppi import estimate

# The estimands: the human metrics of SPEC 3, on their report scale (``metric_registry``: Hcorrect in %).
METRICS = metric_registry.human_keys()
ROW_KEYS = keys(PpiRow)  # the ``ppi`` row's keys (SPEC 16's sequence fields last)
GUARD_P = 0.01  # a labeled / unlabeled difference of judge scores below this p-value is reported


# --- per prediction --------------------------------------------------------------------------


def _example_frames():
    """The small inputs of this module's examples: (human labels, judge labels, predictions) over
    six triplets of systems ``a`` and ``b``, four of them labelled by people."""
    judge = pd.DataFrame(
        {
            "tkey": ["t1", "t2", "t3", "t4", "t5", "t6"],
            "annotator": "judge-1",
            "label": ["correct", "partial", "incorrect", "correct", "correct", "incorrect"],
        }
    )
    predictions = pd.DataFrame({"system": ["a", "a", "a", "b", "b", "b"], "tkey": ["t1", "t2", "t3", "t4", "t5", "t6"]})
    labels = pd.DataFrame(
        {
            "tkey": ["t1", "t2", "t4", "t6"],
            "annotator": ["ann", "ann", "bob", "bob"],
            "label": ["correct", "incorrect", "correct", "partial"],
        }
    )
    return labels, judge, predictions


def _judge_rows(judge_labels: pd.DataFrame | None) -> pd.DataFrame | None:
    """One judge's labels, one per triplet (the last label of a triplet wins; rows without a label are
    left out), or None when there is none; ``ValueError`` on a label not in ``LABEL_VALUES``."""
    if judge_labels is None or judge_labels.empty:
        return None
    rows = judge_labels.dropna(subset=["label"])
    bad = ~rows["label"].isin(LABEL_VALUES)
    if bad.any():
        raise ValueError(f"judge label {rows.loc[bad, 'label'].iloc[0]!r} is not one of {', '.join(LABEL_VALUES)}")
    rows = rows.drop_duplicates("tkey", keep="last")
    return rows if len(rows) else None


def prediction_scores(
    predictions: pd.DataFrame,
    labels: pd.DataFrame | None,
    judge_labels: pd.DataFrame | None,
    *,
    gold=None,
    aggregate: str = human.DEFAULT_AGGREGATE,
) -> pd.DataFrame:
    """One row per prediction: its human and judge scores.

    Parameters
    ----------
    predictions : DataFrame
        ``system`` and ``tkey`` of each prediction.
    labels : DataFrame or None
        Human labels (``tkey``, ``annotator``, ``label``).
    judge_labels : DataFrame or None
        The judge's labels (``tkey``, ``label``).
    gold : iterable of str, optional
        Triplet keys of gold items. An admin chose them and every annotator labels them, so their
        human labels are not a random draw: their predictions get no human score here (judge score
        only, like any unlabeled prediction) and the human sample stays a uniform one
        (docs/report.md).
    aggregate : {"mean", "majority", "ds"}, default "mean"
        How one triplet's human labels make its score (SPEC 3 and 17, the report's choice).

    Returns
    -------
    DataFrame
        ``system``, ``tkey``, ``h_hscore``, ``h_hcorrect``, ``f_hscore``, ``f_hcorrect`` (NaN = no
        human / no judge score).

    Examples
    --------
    >>> from evaluation.science import ppi
    >>> labels, judge, predictions = ppi._example_frames()  # 6 triplets, 4 labelled
    >>> ppi.prediction_scores(predictions, labels, judge)
      system tkey  h_hscore  h_hcorrect  f_hscore  f_hcorrect
    0      a   t1       1.0         1.0       1.0         1.0
    1      a   t2       0.0         0.0       0.5         0.0
    2      a   t3       NaN         NaN       0.0         0.0
    3      b   t4       1.0         1.0       1.0         1.0
    4      b   t5       NaN         NaN       1.0         1.0
    5      b   t6       0.5         0.0       0.0         0.0
    """
    tkeys = predictions["tkey"]
    if gold is not None and labels is not None and len(labels):
        labels = labels[~labels["tkey"].isin(set(gold))]
    if aggregate not in human.AGGREGATES:
        raise ValueError(f"human_aggregate must be one of {', '.join(human.AGGREGATES)}, got {aggregate!r}")
    # Each human metric of the registry from the label counts of a triplet: the humans' under the
    # report's aggregate, the judge's one label as it is (one label: every aggregate agrees).
    sides = (("h", labels, aggregate), ("f", _judge_rows(judge_labels), "mean"))
    out = pd.DataFrame({"system": predictions["system"].to_numpy(), "tkey": tkeys.to_numpy()})
    for prefix, rows, how in sides:
        keys, counts = (
            human.aggregated_label_counts(rows, how) if rows is not None and len(rows) else (pd.Index([]), None)
        )
        at = keys.get_indexer(tkeys) if counts is not None else np.full(len(tkeys), -1)  # one hash pass per side
        for metric in metric_registry.human_keys():
            values = metric_registry.get(metric).per_triplet(counts, how) if counts is not None else []
            values = np.append(np.asarray(values, dtype=float), np.nan)  # position -1: no label, NaN
            out[f"{prefix}_{metric}"] = values[at]
    return out


# --- per system ------------------------------------------------------------------------------


def system_parts(scores: pd.DataFrame, systems=None) -> list[tuple]:
    """Per system its rows of ``scores``, in one grouping pass (not one comparison of every row per system).

    Parameters
    ----------
    scores : DataFrame
        ``prediction_scores`` (or any frame with ``system``).
    systems : iterable of str, optional
        The systems, in order (default: order of appearance); one without rows gets an empty part.

    Returns
    -------
    list of (str, DataFrame)
        Each part keeps the rows' order and index.

    Examples
    --------
    >>> from evaluation.science import ppi
    >>> labels, judge, predictions = ppi._example_frames()
    >>> [(s, len(p)) for s, p in ppi.system_parts(ppi.prediction_scores(predictions, labels, judge), ["b", "a", "z"])]
    [('b', 3), ('a', 3), ('z', 0)]
    """
    systems = list(systems) if systems is not None else list(pd.unique(scores["system"]))
    positions = scores.groupby("system", sort=False).indices
    empty = np.array([], dtype=np.intp)
    return [(system, scores.iloc[positions.get(system, empty)]) for system in systems]


def ppi_rows(scores: pd.DataFrame, systems=None) -> list[PpiRow]:
    """The ``ppi`` rows of ``report.json``: per system and metric, over the predictions judged.

    When only the classical estimate exists, ``estimate`` and its interval repeat the classical
    ones and ``lambda`` and ``gain`` are null. SPEC 16: each variance is floored (``floored``) while
    predictions remain unlabelled, estimates and bounds are clipped to [0, 1] (``clipped`` says when
    the estimate was), and ``too_few`` marks a row of fewer than two labels (no interval).

    Parameters
    ----------
    scores : DataFrame
        ``prediction_scores``.
    systems : iterable of str, optional
        The systems, in order (default: order of appearance).

    Returns
    -------
    list of PpiRow
        Hscore in [0, 1], Hcorrect in % (``evaluation.science.rows.as_json``: the keys ``ROW_KEYS``). The confidence
        sequences' fields of SPEC 16 (``cs_*``, ``alpha_split``) are None here: the report fills them
        (``evaluation.science.anytime.sequence_rows``).

    Examples
    --------
    >>> from evaluation.science import ppi
    >>> labels, judge, predictions = ppi._example_frames()  # 6 triplets, 4 labelled
    >>> rows = ppi.ppi_rows(ppi.prediction_scores(predictions, labels, judge))
    >>> [(r.system, r.metric, r.n_human, r.n_total, r.estimate) for r in rows]
    [('a', 'hscore', 2, 3, 0.5), ('a', 'hcorrect', 2, 3, 50.0),
     ('b', 'hscore', 2, 3, 0.75), ('b', 'hcorrect', 2, 3, 50.0)]
    """
    out = []
    for system, part in system_parts(scores, systems):
        for metric in metric_registry.human_keys():
            h, f = part[f"h_{metric}"].to_numpy(), part[f"f_{metric}"].to_numpy()
            judged = ~np.isnan(f)
            labeled = judged & ~np.isnan(h)
            e = estimate(h[labeled], f[labeled], f[judged & np.isnan(h)])
            out.append(_row(system, metric, e))
    return out


def _row(system, metric, e) -> PpiRow:
    s = metric_registry.get(metric).scale

    def scaled(v):
        return None if v is None else v * s

    c_mean, c_low, c_high, _c_flag = clipped(e["classical"], *normal(e["classical"], e["classical_variance"]))
    if e["estimate"] is None:
        mean, low, high, flag = c_mean, c_low, c_high, False
    else:
        mean, low, high, flag = clipped(e["estimate"], *normal(e["estimate"], e["variance"]))
    return PpiRow(
        system=system,
        metric=metric,
        n_total=e["n"] + e["n_unlabeled"],
        n_human=e["n"],
        lambda_=e["lambda"],
        estimate=scaled(mean),
        ci_low=scaled(low),
        ci_high=scaled(high),
        classical=scaled(c_mean),
        classical_ci_low=scaled(c_low),
        classical_ci_high=scaled(c_high),
        gain=e["gain"],
        clipped=flag,
        too_few=e["n"] < 2,
    )


def settled_pairs(rows: list[dict], metric: str = "hscore") -> list[dict]:
    """Per pair of systems: ``settled`` when their intervals do not overlap, and which is ahead.

    Parameters
    ----------
    rows : list of dict
        ``ppi_rows`` rows as ``evaluation.science.rows.as_json`` gives them (rows of other metrics and without an
        interval are left out).
    metric : str, default "hscore"
        The metric compared.

    Returns
    -------
    list of dict
        ``systems``, ``metric``, ``settled``, ``ahead`` (None unless settled).

    Examples
    --------
    >>> from evaluation.science.ppi import settled_pairs
    >>> rows = [{"system": "a", "metric": "hscore", "estimate": 0.8, "ci_low": 0.75, "ci_high": 0.85},
    ...         {"system": "b", "metric": "hscore", "estimate": 0.6, "ci_low": 0.5, "ci_high": 0.7}]
    >>> settled_pairs(rows)
    [{'systems': ['a', 'b'], 'metric': 'hscore', 'settled': True, 'ahead': 'a'}]
    """
    return interval_pairs([r for r in rows if r["metric"] == metric and r["ci_low"] is not None], metric)


# --- the judge against the humans ------------------------------------------------------------


def judge_agreement(labels: pd.DataFrame | None, judge_labels: pd.DataFrame | None) -> dict:
    """The judge against the humans: each human label paired with the judge's label of its triplet.

    Parameters
    ----------
    labels : DataFrame or None
        Human labels (``tkey``, ``annotator``, ``label``).
    judge_labels : DataFrame or None
        The judge's labels (``tkey``, ``label``).

    Returns
    -------
    dict
        ``alpha_ordinal``, ``alpha_nominal`` (Krippendorff's alpha over those pairs), ``n_pairs``
        and ``confusion`` (human label -> judge label -> count).

    Examples
    --------
    >>> from evaluation.science import ppi
    >>> labels, judge, predictions = ppi._example_frames()  # 6 triplets, 4 labelled
    >>> agreement = ppi.judge_agreement(labels, judge)
    >>> round(agreement["alpha_ordinal"], 3), agreement["n_pairs"], agreement["confusion"]["correct"]
    (0.806, 4, {'correct': 2, 'partial': 0, 'incorrect': 0})
    """
    empty = {
        "alpha_ordinal": None,
        "alpha_nominal": None,
        "n_pairs": 0,
        "confusion": {h: dict.fromkeys(LABEL_VALUES, 0) for h in LABEL_VALUES},
    }
    if labels is None or labels.empty or judge_labels is None or judge_labels.empty:
        return empty
    hl = human.latest_labels(labels.dropna(subset=["label"]))
    jl = judge_labels.dropna(subset=["label"]).drop_duplicates("tkey", keep="last").set_index("tkey")["label"]
    pairs = pd.DataFrame(
        {"unit": np.arange(len(hl)), "human": hl["label"].to_numpy(), "judge": hl["tkey"].map(jl).to_numpy()}
    ).dropna()
    if pairs.empty:
        return empty
    rows = pd.concat(
        [pairs.assign(annotator="human", value=pairs["human"]), pairs.assign(annotator="judge", value=pairs["judge"])]
    ).rename(columns={"unit": "item"})
    alpha = agreement.krippendorff_alpha(rows[["item", "annotator", "value"]], LABEL_RANKS, pairs=False)
    confusion = pd.crosstab(pairs["human"], pairs["judge"]).reindex(
        index=list(LABEL_VALUES), columns=list(LABEL_VALUES), fill_value=0
    )
    return {
        "alpha_ordinal": alpha["alpha_ordinal"],
        "alpha_nominal": alpha["alpha_nominal"],
        "n_pairs": len(pairs),
        "confusion": {h: {j: int(confusion.loc[h, j]) for j in LABEL_VALUES} for h in LABEL_VALUES},
    }


# --- validity guard --------------------------------------------------------------------------


def validity_reasons(scores: pd.DataFrame, facts: dict | None = None) -> list[dict]:
    """Why the human-labeled predictions may not be a uniform random sample of the judged ones.

    From the data: human-labeled predictions the judge did not score; judge scores that differ
    between labeled and unlabeled predictions (Mann-Whitney, p < ``GUARD_P``: the labeled ones are
    not a random sample).

    Parameters
    ----------
    scores : DataFrame
        ``prediction_scores``.
    facts : dict, optional
        Counts from the platform: ``folds_not_started``, ``skipped`` items, ``gold`` items with
        human labels, ``imported`` labels (other keys, such as ``gold_keys``, are ignored here).

    Returns
    -------
    list of dict
        ``reason``, ``count``, ``handling`` each.

    Examples
    --------
    >>> from evaluation.science import ppi
    >>> labels, judge, predictions = ppi._example_frames()  # 6 triplets, 4 labelled
    >>> scores = ppi.prediction_scores(predictions, labels, judge)
    >>> [r["count"] for r in ppi.validity_reasons(scores, {"skipped": 2})]
    [2]
    """
    return _score_reasons(scores) + _fact_reasons(facts or {})


# What each count of ``facts`` means for the sample, and how the report handles it.
FACT_REASONS = {
    "folds_not_started": (
        "triplet folds not started by any annotator: their triplets cannot be in the human sample",
        "estimates given over all judged predictions; the human sample covers only started folds",
    ),
    "skipped": (
        "triplets skipped by annotators (hard items are skipped more often)",
        "counted as unlabeled (judge score only)",
    ),
    "gold": (
        "gold items with human labels (chosen by an admin and labeled by every annotator: not drawn at random)",
        "their human labels are left out of the prediction-powered rows (judge score only); "
        "they count in the systems table",
    ),
    "imported": (
        "labels imported from files (not served in the platform's random order)",
        "estimates given as computed; check that the file's triplets were drawn at random",
    ),
}


def _score_reasons(scores):
    """The reasons found in the scores: unjudged human labels, a labeled sample the judge scores apart."""
    reasons = []
    h, f = scores["h_hscore"].to_numpy(), scores["f_hscore"].to_numpy()
    unjudged = int((~np.isnan(h) & np.isnan(f)).sum())
    if unjudged:
        reasons.append(
            {
                "reason": "human-labeled predictions that the judge did not score",
                "count": unjudged,
                "handling": "left out of the prediction-powered rows (they count in the systems table)",
            }
        )
    judged = ~np.isnan(f)
    lab, unl = f[judged & ~np.isnan(h)], f[judged & np.isnan(h)]
    if len(lab) >= 2 and len(unl) >= 2 and np.ptp(np.concatenate([lab, unl])) > 0:
        p = float(sps.mannwhitneyu(lab, unl).pvalue)
        if p < GUARD_P:
            reasons.append(
                {
                    "reason": f"the judge scores human-labeled predictions differently from the others "
                    f"(mean {lab.mean():.3f} vs {unl.mean():.3f}, Mann-Whitney p = {p:.2g}): "
                    "the labeled ones are not a random sample",
                    "count": len(lab),
                    "handling": "estimates given as computed; intervals may not hold their 95%",
                }
            )
    return reasons


def _fact_reasons(facts):
    """The reasons counted by the platform (``FACT_REASONS``), in that order, those with a count."""
    reasons = []
    for key, (reason, handling) in FACT_REASONS.items():
        count = int(facts.get(key) or 0)
        if count:
            reasons.append({"reason": reason, "count": count, "handling": handling})
    return reasons


def live_scores(predictions, labels, judge_labels, *, facts=None, aggregate=human.DEFAULT_AGGREGATE) -> pd.DataFrame:
    """``prediction_scores`` as the live page's parts read them: gold triplets' human labels left out
    with a judge only (with a judge they are not a random draw; without one the classical estimate
    keeps them, as ``conclusions`` and ``anytime.live_conclusions`` always did).

    Parameters
    ----------
    predictions, labels, judge_labels : DataFrame or None
        As ``prediction_scores``.
    facts : dict, optional
        ``gold_keys``.
    aggregate : str, default "mean"
        The human aggregate (``human.AGGREGATES``; ``ds``: SPEC 17).

    Returns
    -------
    DataFrame
        As ``prediction_scores``.

    Examples
    --------
    >>> from evaluation.science import ppi
    >>> labels, judge, predictions = ppi._example_frames()
    >>> ppi.live_scores(predictions, labels, judge, facts={"gold_keys": ["t1"]})["h_hscore"].tolist()[:2]
    [nan, 0.0]
    >>> ppi.live_scores(predictions, labels, None, facts={"gold_keys": ["t1"]})["h_hscore"].tolist()[:2]
    [1.0, 0.0]
    """
    has_judge = judge_labels is not None and not judge_labels.empty
    gold = (facts or {}).get("gold_keys") if has_judge else None
    return prediction_scores(predictions, labels, judge_labels if has_judge else None, gold=gold, aggregate=aggregate)
