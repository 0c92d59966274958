"""Prediction-powered estimates (SPEC section 10): an automatic judge plus a random part of human labels.

Pure numpy / pandas, no database. The unit is a prediction of a system: its human score ``h`` comes
from its triplet's human labels (SPEC 3), its judge score ``f`` from its triplet's judge label, on
the same scale (correct 1, partial 0.5, incorrect 0 for Hscore; [label == correct] for Hcorrect).

- ``prediction_scores``: one row per prediction with ``h_*`` and ``f_*`` (NaN where missing);
- ``estimate``: the classical and the PPI++ estimate of one mean (SPEC 10, word for word);
- ``ppi_rows``: the ``report.json`` ``ppi`` rows, per system and metric;
- ``labels_needed``: human labels a system still needs for an interval of a chosen half-width;
- ``settled_pairs``: per pair of systems, whether their intervals are apart;
- ``judge_agreement``: Krippendorff's alpha and the confusion matrix of the judge against humans;
- ``validity_reasons``: why the human-labeled predictions may not be a uniform sample of the judged ones;
- ``ppi_section``: everything above for one report (``ppi``, ``judge``, the ``table_ppi`` frame).

Scales follow the report: Hscore in [0, 1], Hcorrect in % (SPEC 3). ROVER has no row (its answers
are other systems' predictions, not a sample of their own).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
from scipy import stats as sps

from annotation.labels import CORRECT, LABEL_RANKS, LABEL_SCORES, LABEL_VALUES
from evaluation.science import agreement, human, metric_registry
from evaluation.science.bounds import clipped, floored

Z95 = 1.96
# The estimands: the human metrics of SPEC 3, on their report scale (``metric_registry``: Hcorrect in %).
METRICS = metric_registry.human_keys()
ROW_KEYS = (
    "system",
    "metric",
    "n_total",
    "n_human",
    "lambda",
    "estimate",
    "ci_low",
    "ci_high",
    "classical",
    "classical_ci_low",
    "classical_ci_high",
    "gain",
    "clipped",  # SPEC 16: the estimate lay outside [0, 1] and was clipped
    "too_few",  # SPEC 16: fewer than two human labels, no interval
    # SPEC 16: the confidence sequences (``evaluation.science.anytime``), merged in by the report
    "cs_estimate",
    "cs_low",
    "cs_high",
    "classical_cs_low",
    "classical_cs_high",
    "alpha_split",
)
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


def judge_triplet_scores(judge_labels: pd.DataFrame) -> pd.DataFrame:
    """Per triplet key: the judge's ``score`` and ``correct`` (one judge: the last label wins).

    Parameters
    ----------
    judge_labels : DataFrame or None
        ``tkey`` and ``label`` of one judge's labels (rows without a label are left out).

    Returns
    -------
    DataFrame
        Index ``tkey``; ``score`` (correct 1, partial 0.5, incorrect 0) and ``correct`` (0 or 1).

    Raises
    ------
    ValueError
        On a label that is not one of ``LABEL_VALUES``.

    Examples
    --------
    >>> from evaluation.science import ppi
    >>> labels, judge, predictions = ppi._example_frames()  # 6 triplets, 4 labelled
    >>> ppi.judge_triplet_scores(judge).head(3)
          score  correct
    tkey
    t1      1.0      1.0
    t2      0.5      0.0
    t3      0.0      0.0
    """
    if judge_labels is None or judge_labels.empty:
        return pd.DataFrame({"score": pd.Series(dtype=float), "correct": pd.Series(dtype=float)})
    rows = judge_labels.dropna(subset=["label"])
    bad = ~rows["label"].isin(LABEL_VALUES)
    if bad.any():
        raise ValueError(f"judge label {rows.loc[bad, 'label'].iloc[0]!r} is not one of {', '.join(LABEL_VALUES)}")
    rows = rows.drop_duplicates("tkey", keep="last").set_index("tkey")
    return pd.DataFrame(
        {"score": rows["label"].map(LABEL_SCORES).astype(float), "correct": (rows["label"] == CORRECT).astype(float)}
    )


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
    judged = judge_triplet_scores(judge_labels)  # validates the judge's labels, one per triplet
    if judge_labels is not None and not judge_labels.empty:
        judge_labels = judge_labels.dropna(subset=["label"]).drop_duplicates("tkey", keep="last")
    # Each human metric of the registry from the label counts of a triplet: the humans' under the
    # report's aggregate, the judge's one label as it is (one label: every aggregate agrees).
    sides = (("h", labels, aggregate), ("f", judge_labels if len(judged) else None, "mean"))
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


# --- one estimate (SPEC 10) ------------------------------------------------------------------


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
    >>> from evaluation.science.ppi import estimate
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


def interval(mean, variance):
    """The 95% normal interval mean +- 1.96 sqrt(variance).

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
    >>> from evaluation.science.ppi import interval
    >>> interval(0.5, 0.01), interval(None, None)
    ((0.304, 0.696), (None, None))
    """
    if mean is None or variance is None:
        return None, None
    half = Z95 * math.sqrt(variance)
    return mean - half, mean + half


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


def ppi_rows(scores: pd.DataFrame, systems=None) -> list[dict]:
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
    list of dict
        Keys ``ROW_KEYS``; Hscore in [0, 1], Hcorrect in %. The confidence sequences' keys of SPEC 16
        (``cs_*``, ``alpha_split``) are None here: the report fills them
        (``evaluation.science.anytime.sequence_rows``).

    Examples
    --------
    >>> from evaluation.science import ppi
    >>> labels, judge, predictions = ppi._example_frames()  # 6 triplets, 4 labelled
    >>> rows = ppi.ppi_rows(ppi.prediction_scores(predictions, labels, judge))
    >>> [(r["system"], r["metric"], r["n_human"], r["n_total"], r["estimate"]) for r in rows]
    [('a', 'hscore', 2, 3, 0.5), ('a', 'hcorrect', 2, 3, 50.0),
     ('b', 'hscore', 2, 3, 0.75), ('b', 'hcorrect', 2, 3, 50.0)]
    """
    rows = []
    for system, part in system_parts(scores, systems):
        for metric in metric_registry.human_keys():
            h, f = part[f"h_{metric}"].to_numpy(), part[f"f_{metric}"].to_numpy()
            judged = ~np.isnan(f)
            labeled = judged & ~np.isnan(h)
            e = estimate(h[labeled], f[labeled], f[judged & np.isnan(h)])
            rows.append(_row(system, metric, e))
    return rows


def _row(system, metric, e) -> dict:
    s = metric_registry.get(metric).scale

    def scaled(v):
        return None if v is None else v * s

    c_mean, c_low, c_high, _c_flag = clipped(e["classical"], *interval(e["classical"], e["classical_variance"]))
    if e["estimate"] is None:
        mean, low, high, flag = c_mean, c_low, c_high, False
    else:
        mean, low, high, flag = clipped(e["estimate"], *interval(e["estimate"], e["variance"]))
    return {
        "system": system,
        "metric": metric,
        "n_total": e["n"] + e["n_unlabeled"],
        "n_human": e["n"],
        "lambda": e["lambda"],
        "estimate": scaled(mean),
        "ci_low": scaled(low),
        "ci_high": scaled(high),
        "classical": scaled(c_mean),
        "classical_ci_low": scaled(c_low),
        "classical_ci_high": scaled(c_high),
        "gain": e["gain"],
        "clipped": flag,
        "too_few": e["n"] < 2,
        **dict.fromkeys(ROW_KEYS[ROW_KEYS.index("too_few") + 1 :]),
    }


def labels_needed(row: dict, half_width: float) -> int | None:
    """Further human labels the system needs for a 95% interval of +- ``half_width``.

    At the current spread and gain: n_c = (1.96 sd / w)^2 human labels without the judge, n_c /
    gain with it. It may exceed the predictions left to label (``n_total - n_human``): the width is
    then out of reach at this gain.

    Parameters
    ----------
    row : dict
        A ``ppi_rows`` row.
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
    >>> from evaluation.science.ppi import labels_needed
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


def settled_pairs(rows: list[dict], metric: str = "hscore") -> list[dict]:
    """Per pair of systems: ``settled`` when their intervals do not overlap, and which is ahead.

    Parameters
    ----------
    rows : list of dict
        ``ppi_rows`` rows (rows of other metrics and without an interval are left out).
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
    rows = [r for r in rows if r["metric"] == metric and r["ci_low"] is not None]
    return interval_pairs(rows, metric)


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
    >>> from evaluation.science.ppi import interval_pairs
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
