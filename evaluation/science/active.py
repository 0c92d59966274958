"""Active statistical inference (SPEC section 12): the estimate when humans label where the judge is unsure.

Pure numpy / pandas, no database. The design (q, f, u, pi, the draw, the completion-rate rule) is
``annotation.design``; this module re-weights the human labels of the drawn sample by ``1 / pi``
(Zrnic & Candes, "Active Statistical Inference", ICML 2024), so the estimate stays valid whatever
the judge's quality.

- ``estimate``: the estimate, its variance and the power-tuned lambda (works along the last axis);
- ``interval``: its 95% interval;
- ``active_scores``: one row per prediction (human scores, the judge's f, pi, the live xi);
- ``active_rows``: the ``report.json`` ``active`` rows per system and metric.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from annotation.design import METRICS, UNIFORM_REASON, expected_score, judge_distribution, live_design
from evaluation.science import human

Z95 = 1.96
SCALE = {"hscore": 1.0, "hcorrect": 100.0}  # report scale (SPEC 3: Hcorrect in %)
ROW_KEYS = (
    "system",
    "metric",
    "n_total",
    "n_sampled",
    "n_labeled",
    "lambda",
    "estimate",
    "ci_low",
    "ci_high",
    "gain",
)


# --- the estimate ----------------------------------------------------------------------------


def estimate(h, f, *, xi, pi) -> dict:
    """The active estimate of a mean (SPEC 12), along the last axis.

    z_i(lambda) = lambda f_i + (h_i - lambda f_i) xi_i / pi_i; theta = mean(z); variance =
    var(z) / N (ddof=1). With a_i = f_i (1 - xi_i / pi_i) and b_i = h_i xi_i / pi_i (so z = b +
    lambda a), lambda = -cov(a, b) / var(a) clipped to [0, 1], 0 when var(a) = 0. gain =
    var(z(0)) / var(z(lambda)).

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

    Returns
    -------
    dict
        ``estimate``, ``variance``, ``lambda``, ``gain``, ``n`` (N) and ``n_labeled`` (sum xi):
        floats (arrays for 2-D input); ``estimate`` etc. None for a 1-D input with N < 2.

    Raises
    ------
    ValueError
        When a labelled item has pi <= 0 or no human score.

    Examples
    --------
    >>> from evaluation.science.active import estimate
    >>> xi, pi = [True, True, False, False], [0.5, 0.5, 0.25, 0.25]
    >>> e = estimate([1.0, 0.0, 0.5, 1.0], [0.9, 0.2, 0.6, 0.8], xi=xi, pi=pi)
    >>> round(e["estimate"], 4), round(e["variance"], 5), e["lambda"], round(e["gain"], 3)
    (0.575, 0.07729, 1.0, 3.235)
    """
    h, f = np.asarray(h, dtype=float), np.asarray(f, dtype=float)
    xi, pi = np.asarray(xi, dtype=bool), np.asarray(pi, dtype=float)
    n = f.shape[-1]
    if n < 2:
        return {"estimate": None, "variance": None, "lambda": None, "gain": None, "n": n, "n_labeled": int(xi.sum())}
    if (xi & ~(pi > 0)).any() or np.isnan(np.where(xi, h, 0.0)).any():
        raise ValueError("every labelled item needs pi > 0 and a human score")
    w = np.where(xi, 1.0 / np.where(xi, pi, 1.0), 0.0)
    a = f * (1 - w)
    b = np.where(xi, h, 0.0) * w
    var_a, var_b = a.var(axis=-1, ddof=1), b.var(axis=-1, ddof=1)
    cov = ((a - a.mean(axis=-1, keepdims=True)) * (b - b.mean(axis=-1, keepdims=True))).sum(axis=-1) / (n - 1)
    lam = np.clip(-cov / np.where(var_a > 0, var_a, 1.0), 0.0, 1.0) * (var_a > 0)
    var_z = var_b + 2 * lam * cov + lam**2 * var_a
    theta = (b + lam[..., None] * a).mean(axis=-1) if np.ndim(lam) else float((b + lam * a).mean())
    gain = np.where(var_z > 0, var_b / np.where(var_z > 0, var_z, 1.0), 1.0)
    out = {"estimate": theta, "variance": var_z / n, "lambda": lam, "gain": gain, "n": n}
    out["n_labeled"] = xi.sum(axis=-1)
    if np.ndim(lam) == 0:
        out = {k: (float(v) if k not in ("n", "n_labeled") else int(v)) for k, v in out.items()}
    return out


def interval(e: dict) -> tuple:
    """(low, high): the estimate +- 1.96 sqrt(variance), None when undefined.

    Parameters
    ----------
    e : dict
        An ``estimate`` (1-D input).

    Returns
    -------
    tuple of float or None

    Examples
    --------
    >>> from evaluation.science.active import interval
    >>> tuple(round(x, 4) for x in interval({"estimate": 0.5, "variance": 0.0025}))
    (0.402, 0.598)
    """
    if e["estimate"] is None:
        return None, None
    half = Z95 * math.sqrt(max(e["variance"], 0.0))
    return e["estimate"] - half, e["estimate"] + half


# --- the report section ----------------------------------------------------------------------


def active_scores(predictions, labels, judge_labels, *, design_frame, gold=None, aggregate=human.DEFAULT_AGGREGATE):
    """One row per prediction in the design: human scores, the judge's f, pi and the live xi.

    Parameters
    ----------
    predictions : DataFrame
        ``system`` and ``tkey`` of each prediction.
    labels : DataFrame or None
        Human labels (``tkey``, ``annotator``, ``label``).
    judge_labels : DataFrame
        One judge's labels (``tkey``, ``label``, optionally ``probs``).
    design_frame : DataFrame
        ``tkey``, ``pi``, ``sampled`` of each triplet of the design.
    gold : iterable of str, optional
        Gold triplet keys: their human labels are not drawn by the design and are left out.
    aggregate : {"mean", "majority"}, default "mean"
        How a triplet's labels make its score (SPEC 3).

    Returns
    -------
    scores : DataFrame
        ``system``, ``tkey``, ``h_*``, ``f_*``, ``pi`` (times the completion rate), ``sampled`` and ``xi``; only
        predictions whose triplet is in the design and has a judge label.
    facts : dict
        ``n_sampled`` and ``n_labeled`` triplets, ``completion`` r, ``budget`` (sum of pi),
        ``uniform`` (every pi equal) and ``judge_has_probs``.

    Examples
    --------
    >>> from evaluation.science import active
    >>> predictions, labels, judge, plan = active._example_frames()
    >>> scores, facts = active.active_scores(predictions, labels, judge, design_frame=plan)
    >>> scores[["tkey", "f_hscore", "pi", "xi"]].round(3).values.tolist()[:2], facts["completion"]
    ([['t1', 0.9, 0.25, True], ['t2', 0.55, 0.5, False]], 0.5)
    """
    from evaluation.science import ppi

    q, has_probs = judge_distribution(judge_labels)
    scores = ppi.prediction_scores(predictions, labels, None, gold=gold, aggregate=aggregate)
    plan = design_frame.drop_duplicates("tkey", keep="last").set_index("tkey")
    labeled_keys = set(scores.loc[scores["h_hscore"].notna(), "tkey"])  # judged by the judge or not
    keep = scores["tkey"].isin(plan.index) & scores["tkey"].isin(q.index)
    scores = scores[keep].reset_index(drop=True)
    for metric in METRICS:
        scores[f"f_{metric}"] = expected_score(q.loc[scores["tkey"]].to_numpy(), metric)
    sampled = plan["sampled"].astype(bool)
    xi_t, pi_t, r = live_design(plan["pi"].to_numpy(), sampled.to_numpy(), plan.index.isin(labeled_keys))
    scores["pi"] = pd.Series(pi_t, index=plan.index).loc[scores["tkey"]].to_numpy()
    scores["xi"] = pd.Series(xi_t, index=plan.index).loc[scores["tkey"]].to_numpy()
    scores["sampled"] = sampled.loc[scores["tkey"]].to_numpy()
    facts = {
        "n_triplets": len(plan),
        "n_sampled": int(sampled.sum()),
        "n_labeled": int(xi_t.sum()),
        "completion": r,
        "budget": float(plan["pi"].sum()),
        "uniform": bool(np.ptp(plan["pi"].to_numpy()) == 0) if len(plan) else True,
        "judge_has_probs": has_probs,
    }
    return scores, facts


def active_rows(scores: pd.DataFrame, systems=None) -> list[dict]:
    """The ``report.json`` ``active`` rows: one per system and metric (SPEC 12).

    Parameters
    ----------
    scores : DataFrame
        ``active_scores``.
    systems : iterable of str, optional
        The systems, in order (default: order of appearance).

    Returns
    -------
    list of dict
        ``ROW_KEYS``; estimates on the report's scale (Hcorrect in %), None where undefined
        (fewer than two predictions, or no labelled one).

    Examples
    --------
    >>> from evaluation.science import active
    >>> predictions, labels, judge, plan = active._example_frames()
    >>> scores, _ = active.active_scores(predictions, labels, judge, design_frame=plan)
    >>> [(r["system"], r["metric"], r["n_total"], r["n_sampled"], r["n_labeled"], round(r["estimate"], 4))
    ...  for r in active.active_rows(scores)]
    [('a', 'hscore', 3, 2, 1, 0.6167), ('a', 'hcorrect', 3, 2, 1, 63.3333)]
    """
    systems = list(systems) if systems is not None else list(pd.unique(scores["system"]))
    rows = []
    for system in systems:
        part = scores[scores["system"] == system]
        xi, pi = part["xi"].to_numpy(dtype=bool), part["pi"].to_numpy()
        for metric in METRICS:
            e = estimate(part[f"h_{metric}"].to_numpy(), part[f"f_{metric}"].to_numpy(), xi=xi, pi=pi)
            defined = e["estimate"] is not None and e["n_labeled"] > 0
            low, high = interval(e) if defined else (None, None)
            s = SCALE[metric]
            rows.append(
                {
                    "system": system,
                    "metric": metric,
                    "n_total": len(part),
                    "n_sampled": int(part["sampled"].sum()),
                    "n_labeled": int(xi.sum()),
                    "lambda": e["lambda"] if defined else None,
                    "estimate": e["estimate"] * s if defined else None,
                    "ci_low": low * s if defined else None,
                    "ci_high": high * s if defined else None,
                    "gain": e["gain"] if defined else None,
                }
            )
    return rows


def _example_frames():
    """Small inputs of the examples: three triplets of system ``a``, two sampled, one labelled."""
    predictions = pd.DataFrame({"system": ["a", "a", "a"], "tkey": ["t1", "t2", "t3"]})
    labels = pd.DataFrame({"tkey": ["t1"], "annotator": ["ann"], "label": ["correct"]})
    judge = pd.DataFrame(
        {
            "tkey": ["t1", "t2", "t3"],
            "annotator": "judge-1",
            "label": ["correct", "partial", "incorrect"],
            "probs": [
                {"correct": 0.8, "partial": 0.2, "incorrect": 0.0},
                {"correct": 0.3, "partial": 0.5, "incorrect": 0.2},
                None,
            ],
        }
    )
    plan = pd.DataFrame({"tkey": ["t1", "t2", "t3"], "pi": [0.5, 1.0, 0.1], "sampled": [True, True, False]})
    return predictions, labels, judge, plan


def active_section(
    predictions, labels, judge_labels, *, design_frame, systems=None, facts=None, aggregate=human.DEFAULT_AGGREGATE
):
    """The active part of one report: rows, what the design was, and the ``active`` data table.

    Parameters
    ----------
    predictions : DataFrame
        ``system`` and ``tkey`` of each prediction.
    labels : DataFrame or None
        Human labels (``tkey``, ``annotator``, ``label``).
    judge_labels : DataFrame
        One judge's labels (``tkey``, ``label``, optionally ``probs``).
    design_frame : DataFrame
        ``tkey``, ``pi``, ``sampled`` per triplet.
    systems : iterable of str, optional
        The systems, in order.
    facts : dict, optional
        ``gold_keys``: gold triplets, left out of the human sample.
    aggregate : {"mean", "majority"}, default "mean"
        How a triplet's labels make its score (SPEC 3).

    Returns
    -------
    rows : list of dict
        The ``active`` rows.
    design : dict
        ``kind`` (active or uniform), ``reason``, ``n_triplets``, ``budget``, ``n_sampled``,
        ``n_labeled``, ``completion``, ``judge_has_probs`` and ``progress`` ("k of B labelled").
    table : DataFrame
        The ``active`` data table, indexed by system (a row per metric).

    Examples
    --------
    >>> from evaluation.science import active
    >>> predictions, labels, judge, plan = active._example_frames()
    >>> rows, design, table = active.active_section(predictions, labels, judge, design_frame=plan)
    >>> design["kind"], design["progress"], table.shape
    ('active', '1 of 2 sampled triplets labelled (completion-rate rule)', (2, 9))
    """
    scores, d = active_scores(
        predictions,
        labels,
        judge_labels,
        design_frame=design_frame,
        gold=(facts or {}).get("gold_keys"),
        aggregate=aggregate,
    )
    rows = active_rows(scores, systems)
    reason = None
    if d["uniform"]:
        reason = UNIFORM_REASON if not d["judge_has_probs"] else "every triplet had the same chance: uniform design"
    complete = d["n_labeled"] == d["n_sampled"]
    design = {
        "kind": "uniform" if d["uniform"] else "active",
        "reason": reason,
        **{k: d[k] for k in ("n_triplets", "budget", "n_sampled", "n_labeled", "completion", "judge_has_probs")},
        "progress": f"{d['n_labeled']} of {d['n_sampled']} sampled triplets labelled"
        + ("" if complete else " (completion-rate rule)"),
    }
    table = pd.DataFrame(rows, columns=list(ROW_KEYS)).set_index("system")  # one index level: plain LaTeX
    return rows, design, table


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
    >>> from evaluation.science.active import labels_to_settle
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


def active_conclusions(predictions, labels, judge_labels, *, design_frame, metric="hscore", facts=None) -> dict:
    """What the live page shows of an active design: estimates now, and labels that would settle each pair.

    Parameters
    ----------
    predictions : DataFrame
        ``system`` and ``tkey`` of each prediction.
    labels : DataFrame or None
        Human labels (``tkey``, ``annotator``, ``label``).
    judge_labels : DataFrame
        The design's judge's labels (``probs`` optional).
    design_frame : DataFrame
        ``tkey``, ``pi``, ``sampled``.
    metric : {"hscore", "hcorrect"}, default "hscore"
        The metric shown.
    facts : dict, optional
        ``gold_keys``.

    Returns
    -------
    dict
        ``design`` (as ``active_section``), ``rows`` of the metric (the best estimate first) and
        ``pairs`` (``systems``, ``settled``, ``ahead``, ``more_labels``, ``beyond_sample``: more than
        the sample's unlabelled triplets).

    Examples
    --------
    >>> from evaluation.science import active
    >>> predictions, labels, judge, plan = active._example_frames()
    >>> result = active.active_conclusions(predictions, labels, judge, design_frame=plan)
    >>> result["design"]["progress"], [r["system"] for r in result["rows"]], result["pairs"]
    ('1 of 2 sampled triplets labelled (completion-rate rule)', ['a'], [])
    """
    rows, design, _ = active_section(predictions, labels, judge_labels, design_frame=design_frame, facts=facts)
    rows = [r for r in rows if r["metric"] == metric]
    rows.sort(key=lambda r: -math.inf if r["estimate"] is None else -r["estimate"])
    left = design["n_sampled"] - design["n_labeled"]
    pairs = []
    for i, a in enumerate(rows):
        for b in rows[i + 1 :]:
            more = labels_to_settle(a, b, design["n_labeled"])
            pairs.append(
                {
                    "systems": [a["system"], b["system"]],
                    "settled": more == 0,
                    "ahead": a["system"] if more == 0 else None,
                    "more_labels": more,
                    "beyond_sample": more is not None and more > left,
                }
            )
    return {"design": design, "rows": rows, "pairs": pairs}
