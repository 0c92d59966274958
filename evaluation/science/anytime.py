"""Conclusions that stay true however often they are watched (SPEC 16): asymptotic confidence sequences.

A fixed-n 95% interval looked at again and again while labels arrive covers far less than 95%
(optional stopping). A **confidence sequence** holds at every sample size at once, so a study may
stop whenever it likes and its conclusions keep their level. This module gives the normal-mixture
boundary of Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas (Annals of Statistics 2024) and, per
system, the classical and the prediction-powered sequences of SPEC 16, split between the systems
(alpha / K) so that every statement on the live page holds at once.

- ``rho2`` and ``radius``: the boundary (pure, vectorised over numpy arrays);
- ``sequence``: one system's classical and prediction-powered sequences from its scores;
- ``sequence_rows``: per system and metric, from ``ppi.prediction_scores`` (the report's fields);
- ``settled``: per pair of systems, whether their sequences are apart; ``ranking_settled``;
- ``live_section``: ``report.json``'s ``live`` section;
- ``live_conclusions``: what the live page shows (sequence, done, settled pairs, ranking, stop).

No running intersection is taken: each bound is the sequence at the current number of labels, so
a pair called settled may in rare cases become unsettled again later; every statement made at any
moment holds with probability 1 - alpha at once over all moments. Pure numpy / pandas.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from evaluation.science import metric_registry, ppi

ALPHA = 0.05  # the level of every statement of the page, split between the systems
MIN_LABELS = 30  # below this many human labels a sequence is not given (null bounds)
MIN_PLAN = 100  # n_plan is at least this
DEFAULT_WIDTH = 0.02  # the target half-width on the [0, 1] scale (x 100 for Hcorrect in %)


def rho2(n_plan, alpha):
    """The mixture's variance parameter that makes the sequence tightest at ``n_plan`` labels (SPEC 16).

    rho2 = (-2 log alpha + log(-2 log alpha + 1)) / n_plan.

    Parameters
    ----------
    n_plan : float
        The planned number of labels (> 0).
    alpha : float
        The level, in (0, 1).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        When ``n_plan`` is not positive or ``alpha`` not in (0, 1).

    Examples
    --------
    >>> from evaluation.science.anytime import rho2
    >>> round(rho2(1000, 0.05), 6)
    0.007936
    """
    if not n_plan > 0:
        raise ValueError(f"n_plan must be positive, got {n_plan!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    two_log = -2 * math.log(alpha)
    return (two_log + math.log(two_log + 1)) / n_plan


def radius(n, sd, *, alpha, n_plan):
    """Half-width of the asymptotic confidence sequence after ``n`` terms of standard deviation ``sd``.

    radius(n, alpha) = sd * sqrt(2 (n rho2 + 1) / (n^2 rho2) * log(sqrt(n rho2 + 1) / alpha)),
    with ``rho2(n_plan, alpha)`` (normal-mixture boundary; Waudby-Smith et al. 2024).

    Parameters
    ----------
    n : int or array_like
        Number of terms (>= 1).
    sd : float or array_like
        Their standard deviation (ddof=1).
    alpha : float
        The level of this sequence (already split between systems).
    n_plan : float
        The planned number of terms, where the sequence is tightest relative to a fixed interval.

    Returns
    -------
    float or ndarray
        Same shape as ``n`` and ``sd`` broadcast.

    Examples
    --------
    A running example: 400 labels with standard deviation 0.4, planned for 1,000, at alpha 0.05.
    The fixed-n 95% half-width would be 1.96 * 0.4 / 20 = 0.0392; the sequence's is wider, the price
    of being allowed to look at it whenever one likes:

    >>> from evaluation.science.anytime import radius
    >>> round(radius(400, 0.4, alpha=0.05, n_plan=1000), 4)
    0.0625
    >>> radius([100, 1000, 10000], 0.4, alpha=0.05, n_plan=1000).round(4).tolist()
    [0.1542, 0.0384, 0.013]
    """
    r2 = rho2(n_plan, alpha)
    n = np.asarray(n, dtype=float)
    nr = n * r2 + 1
    out = np.asarray(sd, dtype=float) * np.sqrt(2 * nr / (n**2 * r2) * np.log(np.sqrt(nr) / alpha))
    return float(out) if out.ndim == 0 else out


def default_n_plan(n_labelled: int) -> int:
    """The offline default of ``n_plan``: max(``MIN_PLAN``, the system's labelled predictions).

    Parameters
    ----------
    n_labelled : int
        The system's predictions with a human score.

    Returns
    -------
    int

    Examples
    --------
    >>> from evaluation.science.anytime import default_n_plan
    >>> default_n_plan(40), default_n_plan(1500)
    (100, 1500)
    """
    return max(MIN_PLAN, int(n_labelled))


def sequence(h, f=None, f_all=None, *, alpha, n_plan) -> dict:
    """One system's classical and prediction-powered confidence sequences at its current labels (SPEC 16).

    Parameters
    ----------
    h : array_like of float
        Human scores of the n labelled predictions.
    f : array_like of float, optional
        The judge's scores of the same n predictions.
    f_all : array_like of float, optional
        The judge's scores of all N predictions of the system, labelled or not (``mean_N(f)``).
    alpha : float
        The system's level (alpha / K).
    n_plan : float
        The planned number of labels.

    Returns
    -------
    dict
        ``n``, ``classical``, ``classical_low``, ``classical_high``, ``lambda``, ``estimate``, ``low``,
        ``high``, ``ppi`` (bool). Bounds are None under ``MIN_LABELS`` labels. Without a judge
        (``f`` or ``f_all`` None) ``estimate``, ``low`` and ``high`` repeat the classical ones and
        ``lambda`` is None.

    Examples
    --------
    40 labels, a judge that agrees with them on all but 4, 100 judged predictions in all:

    >>> import numpy as np
    >>> from evaluation.science.anytime import sequence
    >>> h = np.array([1.0, 0.0, 0.5, 1.0] * 10)
    >>> f = h.copy(); f[:4] = [0.0, 1.0, 0.5, 0.5]
    >>> f_all = np.concatenate([f, np.tile([1.0, 0.0, 1.0], 20)])
    >>> s = sequence(h, f, f_all, alpha=0.025, n_plan=100)
    >>> round(s["lambda"], 3), round(s["estimate"], 4), round(s["high"] - s["low"], 3)
    (0.843, 0.6524, 0.245)
    >>> round(s["classical"], 4), round(s["classical_high"] - s["classical_low"], 3)
    (0.625, 0.446)
    >>> sequence(h[:20], alpha=0.025, n_plan=100)["low"] is None
    True
    """
    h = np.asarray(h, dtype=float)
    n = len(h)
    out = dict.fromkeys(("classical", "classical_low", "classical_high", "lambda", "estimate", "low", "high"))
    out.update(n=n, ppi=False)
    if n:
        out["classical"] = out["estimate"] = float(h.mean())
    if n < MIN_LABELS:
        return out
    half = radius(n, h.std(ddof=1), alpha=alpha, n_plan=n_plan)
    out.update(classical_low=out["classical"] - half, classical_high=out["classical"] + half)
    out.update(low=out["classical_low"], high=out["classical_high"])
    if f is None or f_all is None:
        return out
    f, f_all = np.asarray(f, dtype=float), np.asarray(f_all, dtype=float)
    var_f = f.var(ddof=1)
    lam = float(np.clip(np.cov(h, f, ddof=1)[0, 1] / var_f, 0.0, 1.0)) if var_f > 0 else 0.0
    x = h - lam * f
    estimate = lam * float(f_all.mean()) + float(x.mean())
    half = radius(n, x.std(ddof=1), alpha=alpha, n_plan=n_plan)
    out.update(ppi=True, estimate=estimate, low=estimate - half, high=estimate + half)
    out["lambda"] = lam
    return out


def _plan_for(system, n_plan, n_labelled):
    """The system's n_plan: an int for all, a dict by system, or None (``default_n_plan``)."""
    if isinstance(n_plan, dict):
        n_plan = n_plan.get(system)
    if n_plan is None:
        return default_n_plan(n_labelled)
    if int(n_plan) < 1:
        raise ValueError(f"n_plan must be a positive number of labels, got {n_plan!r}")
    return int(n_plan)


def sequence_rows(scores: pd.DataFrame, systems=None, *, n_plan=None, alpha: float = ALPHA) -> list[dict]:
    """Per system and metric, both confidence sequences of SPEC 16 on the report's scale.

    alpha is split between the K systems given (ROVER is never one: it has no predictions of its
    own). The prediction-powered sequence needs the judge's score of every prediction of the
    system; otherwise the classical one is repeated (``ppi`` False).

    Parameters
    ----------
    scores : DataFrame
        ``ppi.prediction_scores`` (``system``, ``h_<metric>``, ``f_<metric>``).
    systems : iterable of str, optional
        The report's systems (default: those of ``scores``, in order of appearance).
    n_plan : int, dict or None, optional
        The planned labels per system: one number for all, a dict by system, or None for
        ``default_n_plan`` of each system's labelled predictions.
    alpha : float, default 0.05
        The level of all statements at once.

    Returns
    -------
    list of dict
        ``system``, ``metric``, ``n``, ``n_total``, ``n_plan``, ``alpha_split``, ``lambda``, ``ppi``,
        ``cs_estimate``, ``cs_low``, ``cs_high``, ``classical_cs_estimate``, ``classical_cs_low``,
        ``classical_cs_high`` (Hcorrect in %).

    Examples
    --------
    >>> from evaluation.science import anytime, ppi
    >>> labels, judge, predictions = ppi._example_frames()  # 6 triplets, 4 labelled: too few
    >>> rows = anytime.sequence_rows(ppi.prediction_scores(predictions, labels, judge))
    >>> [(r["system"], r["metric"], r["n"], r["n_plan"], r["alpha_split"], r["cs_low"]) for r in rows][:2]
    [('a', 'hscore', 2, 100, 0.025, None), ('a', 'hcorrect', 2, 100, 0.025, None)]
    """
    from evaluation.science.ppi import system_parts  # ppi holds the per-prediction scores

    parts = system_parts(scores, systems)
    alpha_s = alpha / max(len(parts), 1)
    rows = []
    for system, part in parts:
        labelled_all = int(part["h_hscore"].notna().sum())
        plan = _plan_for(system, n_plan, labelled_all)
        for metric in metric_registry.human_keys():
            h, f = part[f"h_{metric}"].to_numpy(dtype=float), part[f"f_{metric}"].to_numpy(dtype=float)
            labelled = ~np.isnan(h)
            all_judged = len(f) > 0 and not np.isnan(f).any()
            s = sequence(
                h[labelled],
                f[labelled] if all_judged else None,
                f if all_judged else None,
                alpha=alpha_s,
                n_plan=plan,
            )
            rows.append(_row(system, metric, s, n_total=len(h), n_plan=plan, alpha_split=alpha_s))
    return rows


def _row(system, metric, s, *, n_total, n_plan, alpha_split):
    scale = metric_registry.get(metric).scale

    def scaled(v):
        return None if v is None else v * scale

    return {
        "system": system,
        "metric": metric,
        "n": s["n"],
        "n_total": n_total,
        "n_plan": n_plan,
        "alpha_split": alpha_split,
        "lambda": s["lambda"],
        "ppi": s["ppi"],
        "cs_estimate": scaled(s["estimate"]),
        "cs_low": scaled(s["low"]),
        "cs_high": scaled(s["high"]),
        "classical_cs_estimate": scaled(s["classical"]),
        "classical_cs_low": scaled(s["classical_low"]),
        "classical_cs_high": scaled(s["classical_high"]),
    }


def target_width(metric: str, width: float | None = None) -> float:
    """The target half-width on the metric's report scale (default 0.02 of its range).

    Parameters
    ----------
    metric : str
        A human metric.
    width : float, optional
        The researcher's choice, on the report scale.

    Returns
    -------
    float

    Examples
    --------
    >>> from evaluation.science.anytime import target_width
    >>> target_width("hscore"), target_width("hcorrect"), target_width("hscore", 0.05)
    (0.02, 2.0, 0.05)
    """
    return float(width) if width else DEFAULT_WIDTH * metric_registry.get(metric).scale


def settled(rows: list[dict], metric: str) -> list[dict]:
    """Per pair of systems of ``metric``: ``settled`` when their sequences are disjoint, and which is ahead.

    Parameters
    ----------
    rows : list of dict
        Rows with ``system``, ``metric``, ``cs_estimate``, ``cs_low``, ``cs_high`` (null bounds: never settled).
    metric : str
        The metric compared.

    Returns
    -------
    list of dict
        ``systems``, ``metric``, ``settled``, ``ahead`` (None unless settled).

    Examples
    --------
    >>> from evaluation.science.anytime import settled
    >>> rows = [{"system": "a", "metric": "hscore", "cs_estimate": 0.8, "cs_low": 0.75, "cs_high": 0.85},
    ...         {"system": "b", "metric": "hscore", "cs_estimate": 0.6, "cs_low": 0.5, "cs_high": 0.7},
    ...         {"system": "c", "metric": "hscore", "cs_estimate": 0.6, "cs_low": None, "cs_high": None}]
    >>> [(p["systems"], p["settled"], p["ahead"]) for p in settled(rows, "hscore")]
    [(['a', 'b'], True, 'a'), (['a', 'c'], False, None), (['b', 'c'], False, None)]
    """
    return ppi.interval_pairs([r for r in rows if r["metric"] == metric], metric, low="cs_low", high="cs_high")


def ranking_settled(rows: list[dict]) -> bool:
    """Whether every adjacent pair of ``rows`` ordered by estimate (best first) has disjoint sequences.

    Parameters
    ----------
    rows : list of dict
        One metric's rows (``cs_estimate``, ``cs_low``, ``cs_high``).

    Returns
    -------
    bool
        False when a sequence is not given yet; True for a single system with a sequence.

    Examples
    --------
    >>> from evaluation.science.anytime import ranking_settled
    >>> a = {"cs_estimate": 0.8, "cs_low": 0.75, "cs_high": 0.85}
    >>> b = {"cs_estimate": 0.6, "cs_low": 0.5, "cs_high": 0.7}
    >>> ranking_settled([b, a]), ranking_settled([a, {**b, "cs_high": 0.78}])
    (True, False)
    """
    if not rows or any(r["cs_low"] is None for r in rows):
        return False
    ordered = sorted(rows, key=lambda r: -r["cs_estimate"])
    return all(hi["cs_low"] > lo["cs_high"] for hi, lo in itertools.pairwise(ordered))


def is_done(row: dict, width: float) -> bool:
    """Whether the row's sequence has a half-width of at most ``width``.

    Parameters
    ----------
    row : dict
        ``cs_low``, ``cs_high``.
    width : float
        The target half-width on the row's scale.

    Returns
    -------
    bool

    Examples
    --------
    >>> from evaluation.science.anytime import is_done
    >>> is_done({"cs_low": 0.60, "cs_high": 0.63}, 0.02), is_done({"cs_low": None, "cs_high": None}, 0.02)
    (True, False)
    """
    return row["cs_low"] is not None and (row["cs_high"] - row["cs_low"]) / 2 <= width


def live_section(rows: list[dict], widths: dict | None = None) -> dict:
    """``report.json``'s ``live`` section: per system and metric the sequence a reader should quote.

    Parameters
    ----------
    rows : list of dict
        ``sequence_rows``.
    widths : dict, optional
        Target half-width by metric (default ``target_width``).

    Returns
    -------
    dict
        ``rows`` (``system``, ``metric``, ``n``, ``estimate``, ``cs_low``, ``cs_high``, ``done``),
        ``settled_pairs`` (``settled`` of each metric), ``ranking_settled`` by metric, ``widths``,
        ``alpha``.

    Examples
    --------
    >>> from evaluation.science import anytime, ppi
    >>> labels, judge, predictions = ppi._example_frames()
    >>> live = anytime.live_section(anytime.sequence_rows(ppi.prediction_scores(predictions, labels, judge)))
    >>> live["rows"][0]
    {'system': 'a', 'metric': 'hscore', 'n': 2, 'estimate': 0.5, 'cs_low': None, 'cs_high': None, 'done': False}
    >>> live["ranking_settled"]
    {'hscore': False, 'hcorrect': False}
    """
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    widths = {m: target_width(m, (widths or {}).get(m)) for m in metrics}
    out_rows = [
        {
            "system": r["system"],
            "metric": r["metric"],
            "n": r["n"],
            "estimate": r["cs_estimate"],
            "cs_low": r["cs_low"],
            "cs_high": r["cs_high"],
            "done": is_done(r, widths[r["metric"]]),
        }
        for r in rows
    ]
    return {
        "rows": out_rows,
        "settled_pairs": [p for m in metrics for p in settled(rows, m)],
        "ranking_settled": {m: ranking_settled([r for r in rows if r["metric"] == m]) for m in metrics},
        "widths": widths,
        "alpha": ALPHA,
    }


STOP_RULES = ("ranking", "done")  # what the researcher waits for: the ranking settled, or every system done


def live_conclusions(
    predictions: pd.DataFrame,
    labels: pd.DataFrame | None,
    judge_labels: pd.DataFrame | None,
    *,
    metric: str = "hscore",
    half_width: float | None = None,
    n_plan=None,
    stop_when: str = "ranking",
    facts: dict | None = None,
) -> dict:
    """What the live page shows under SPEC 16: per system its confidence sequence and whether it is done,
    per pair whether it is settled, whether the ranking is settled and whether the researcher may stop.

    The prediction-powered sequence when a judge scored every prediction of the system, else the
    classical one (chosen by the presence of a judge, never by which is narrower). Gold items'
    labels are left out with a judge (as in ``ppi.conclusions``).

    Parameters
    ----------
    predictions : DataFrame
        ``system`` and ``tkey`` of each prediction.
    labels : DataFrame or None
        Human labels (``tkey``, ``annotator``, ``label``).
    judge_labels : DataFrame or None
        One judge's labels.
    metric : {"hscore", "hcorrect"}, default "hscore"
        The metric shown.
    half_width : float, optional
        The researcher's target half-width on the metric's scale (default ``target_width``).
    n_plan : int, dict or None, optional
        Planned labels per system (``sequence_rows``).
    stop_when : {"ranking", "done"}, default "ranking"
        What the researcher waits for: every adjacent pair settled, or every system done.
    facts : dict, optional
        Platform facts (``gold_keys``).

    Returns
    -------
    dict
        ``metric``, ``half_width``, ``alpha``, ``alpha_split``, ``rows`` (``sequence_rows`` of the
        metric with ``half`` and ``done``, the best estimate first), ``pairs`` (``settled``),
        ``ranking_settled``, ``all_done``, ``stop_when``, ``stop`` (you may stop now).

    Raises
    ------
    ValueError
        On another metric or stop rule, or a target width that is not positive.

    Examples
    --------
    >>> import pandas as pd
    >>> from evaluation.science.anytime import live_conclusions
    >>> predictions = pd.DataFrame({"system": ["good"] * 60 + ["poor"] * 60, "tkey": [f"t{i}" for i in range(120)]})
    >>> labels = pd.DataFrame({"tkey": [f"t{i}" for i in range(120)], "annotator": "ann",
    ...                        "label": ["correct"] * 54 + ["incorrect"] * 6 + ["correct"] * 12 + ["incorrect"] * 48})
    >>> live = live_conclusions(predictions, labels, None, half_width=0.2)
    >>> [(r["system"], round(r["cs_low"], 3), round(r["cs_high"], 3), r["done"]) for r in live["rows"]]
    [('good', 0.771, 1.029, True), ('poor', 0.028, 0.372, True)]
    >>> live["ranking_settled"], live["stop"], live["alpha_split"]
    (True, True, 0.025)
    """
    from evaluation.science import ppi  # ppi holds the per-prediction scores

    has_judge = judge_labels is not None and not judge_labels.empty
    scores = ppi.live_scores(predictions, labels, judge_labels, facts=facts)
    return live_from_scores(
        scores, has_judge=has_judge, metric=metric, half_width=half_width, n_plan=n_plan, stop_when=stop_when
    )


def live_from_scores(scores, *, has_judge, metric="hscore", half_width=None, n_plan=None, stop_when="ranking"):
    """``live_conclusions`` from the per-prediction scores already computed (the live page computes
    them once and shares them between its parts).

    Parameters
    ----------
    scores : DataFrame
        ``ppi.live_scores`` of the page's inputs.
    has_judge : bool
        Whether a judge's labels went into ``scores``.
    metric, half_width, n_plan, stop_when
        As ``live_conclusions``.

    Returns
    -------
    dict
        As ``live_conclusions``.

    Raises
    ------
    ValueError
        As ``live_conclusions``.

    Examples
    --------
    >>> from evaluation.science import anytime, ppi
    >>> labels, judge, predictions = ppi._example_frames()
    >>> live = anytime.live_from_scores(ppi.live_scores(predictions, labels, judge), has_judge=True)
    >>> live == anytime.live_conclusions(predictions, labels, judge)
    True
    """
    if metric not in metric_registry.human_keys():
        raise ValueError(f"metric must be one of {', '.join(metric_registry.human_keys())}")
    if stop_when not in STOP_RULES:
        raise ValueError(f"stop_when must be one of {', '.join(STOP_RULES)}, got {stop_when!r}")
    width = target_width(metric, half_width)
    if not width > 0:
        raise ValueError("the target half-width must be positive")
    systems = list(pd.unique(scores["system"]))
    rows = [r for r in sequence_rows(scores, systems, n_plan=n_plan) if r["metric"] == metric]
    for r in rows:
        r["half"] = None if r["cs_low"] is None else (r["cs_high"] - r["cs_low"]) / 2
        r["done"] = is_done(r, width)
    rows.sort(key=lambda r: -math.inf if r["cs_estimate"] is None else -r["cs_estimate"])
    ranking = len(rows) > 1 and ranking_settled(rows)
    all_done = bool(rows) and all(r["done"] for r in rows)
    return {
        "metric": metric,
        "half_width": width,
        "alpha": ALPHA,
        "alpha_split": ALPHA / max(len(systems), 1),
        "rows": rows,
        "pairs": settled(rows, metric),
        "ranking_settled": ranking,
        "all_done": all_done,
        "stop_when": stop_when,
        "stop": ranking if stop_when == "ranking" else all_done,
        "has_judge": has_judge,
    }
