"""Active statistical inference (SPEC section 12): the estimate when humans label where the judge is unsure.

Pure numpy / pandas, no database. The design (q, f, u, the pilot, the residual model, pi, the draw, the
completion-rate rule per phase) is ``annotation.design``; the human metrics come from
``evaluation.science.metric_registry``. This module re-weights the human labels of the drawn sample by ``1 / pi``
(Zrnic & Candes, "Active Statistical Inference", ICML 2024), so the estimate stays valid whatever
the judge's quality.

- ``estimate``: the estimate, its variance and the two control variates lambda and beta (per group);
- ``uniform_variance``: what uniform PPI++ would have given with as many labels, from the same sample;
- ``interval``: its 95% interval;
- ``active_scores``: one row per prediction (human scores, the judge's f, pi, the live xi);
- ``active_rows``: the ``report.json`` ``active`` rows per system and metric.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from annotation.design import MAIN, PILOT, expected_score, judge_distribution, live_design
from evaluation.science import human, metric_registry
from evaluation.science.bounds import clipped

Z95 = 1.96
MIN_LABELLED = 2  # SPEC 16: an active row from fewer labelled items gives no interval (it says so)
MIN_MEASURED = 10  # labelled items below which the gain against uniform PPI++ is not measured
MAX_CONDITION = 1e6  # SPEC 16: S with a larger condition number falls back as a singular one
ROW_KEYS = (
    "system",
    "metric",
    "n_total",
    "n_sampled",
    "n_labeled",
    "lambda",
    "beta",
    "estimate",
    "ci_low",
    "ci_high",
    "gain",
    "clipped",  # SPEC 16: the estimate lay outside [0, 1] and was clipped
    "too_few",  # SPEC 16: fewer than two labelled items, no interval
)


# --- the estimate ----------------------------------------------------------------------------


def estimate(h, f, *, xi, pi, groups=None) -> dict:
    """The active estimate of a mean (SPEC 12), with two control variates.

    w_i = xi_i / pi_i; a_i = f_i (1 - w_i); c_i = 1 - w_i; b_i = h_i w_i (the Horvitz-Thompson
    terms); z_i = b_i + lambda a_i + beta c_i, with (lambda, beta) = -S^-1 (cov(a, b), cov(c, b)), S
    the 2x2 sample covariance of (a, c), not clipped. When S is singular, or its condition number
    exceeds ``MAX_CONDITION`` (SPEC 16), c is dropped (beta = 0, lambda = -cov(a, b) / var(a)), then a
    (lambda = beta = 0: the Horvitz-Thompson estimate).
    theta = mean(z); variance = var(z) / N (ddof=1); gain = var(b) / var(z).

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
    groups : array-like of int, optional
        A group code (0 .. G-1) per item: one estimate per group (a system each), computed at once.

    Returns
    -------
    dict
        ``estimate``, ``variance``, ``lambda``, ``beta``, ``gain``, ``n`` (N) and ``n_labeled`` (sum xi):
        floats (arrays of G with ``groups``); ``estimate`` etc. None (NaN with ``groups``) for N < 2.

    Raises
    ------
    ValueError
        When a labelled item has pi <= 0 or no human score.

    Examples
    --------
    >>> from evaluation.science.active import estimate
    >>> xi, pi = [True, True, False, False, True], [0.5, 0.5, 0.25, 0.25, 0.8]
    >>> e = estimate([1.0, 0.0, 0.5, 1.0, 0.5], [0.9, 0.2, 0.6, 0.8, 0.4], xi=xi, pi=pi)
    >>> [round(e[k], 4) for k in ("estimate", "variance", "lambda", "beta", "gain")]
    [0.6881, 0.0076, 2.6387, -1.1517, 19.7051]
    """
    h, f = np.asarray(h, dtype=float), np.asarray(f, dtype=float)
    xi, pi = np.asarray(xi, dtype=bool), np.asarray(pi, dtype=float)
    if (xi & ~(pi > 0)).any() or np.isnan(np.where(xi, h, 0.0)).any():
        raise ValueError("every labelled item needs pi > 0 and a human score")
    w = np.where(xi, 1.0 / np.where(xi, pi, 1.0), 0.0)
    terms = {"a": f * (1 - w), "c": 1 - w, "b": np.where(xi, h, 0.0) * w}
    one = groups is None
    groups = np.zeros(len(f), dtype=np.intp) if one else np.asarray(groups, dtype=np.intp)
    size = int(groups.max()) + 1 if len(groups) else int(one)  # one estimate of nothing: undefined
    n = np.bincount(groups, minlength=size).astype(float)
    out = _control_variates(terms, groups, n)
    out["n"], out["n_labeled"] = n.astype(int), np.bincount(groups, weights=xi, minlength=size).astype(int)
    if not one:
        return out
    return {
        k: (int(v[0]) if k in ("n", "n_labeled") else (float(v[0]) if n[0] >= 2 and np.isfinite(v[0]) else None))
        for k, v in out.items()
    }


def _control_variates(terms, groups, n):
    """theta, variance, lambda, beta and gain per group from the terms a, c, b (see ``estimate``)."""
    size = len(n)
    dof = np.where(n >= 2, n - 1, np.nan)
    means = {k: np.bincount(groups, weights=v, minlength=size) / np.where(n > 0, n, 1) for k, v in terms.items()}
    centred = {k: v - means[k][groups] for k, v in terms.items()}

    def cov(x, y):
        return np.bincount(groups, weights=centred[x] * centred[y], minlength=size) / dof

    s_aa, s_cc, s_ac, s_ab, s_cb, s_bb = (
        cov("a", "a"),
        cov("c", "c"),
        cov("a", "c"),
        cov("a", "b"),
        cov("c", "b"),
        cov("b", "b"),
    )
    det = s_aa * s_cc - s_ac**2
    half_trace = (s_aa + s_cc) / 2
    spread = np.sqrt(np.maximum(half_trace**2 - det, 0.0))
    smallest = half_trace - spread  # the eigenvalues of S are half_trace +- spread
    full = (det > 0) & (smallest > 0) & ((half_trace + spread) <= MAX_CONDITION * np.where(smallest > 0, smallest, 1.0))
    only_a = ~full & (s_aa > np.maximum(s_bb, 1e-300) / MAX_CONDITION)  # var(a) ~ 0 next to var(b): drop a too
    safe = np.where(full, det, 1.0)
    lam = np.where(
        full, -(s_cc * s_ab - s_ac * s_cb) / safe, np.where(only_a, -s_ab / np.where(only_a, s_aa, 1.0), 0.0)
    )
    beta = np.where(full, -(s_aa * s_cb - s_ac * s_ab) / safe, 0.0)
    var_z = s_bb + 2 * lam * s_ab + 2 * beta * s_cb + lam**2 * s_aa + 2 * lam * beta * s_ac + beta**2 * s_cc
    var_z = np.where(var_z > 1e-12 * s_bb, var_z, 0.0)  # below: rounding of an exact fit (a handful of labels)
    theta = means["b"] + lam * means["a"] + beta * means["c"]
    # var(b) / var(z); undefined (NaN) when the control variates fit b exactly, 1 when b does not vary
    gain = np.where(var_z > 0, s_bb / np.where(var_z > 0, var_z, 1.0), np.where(s_bb > 0, np.nan, 1.0))
    variance = np.where(n > 0, var_z / np.where(n > 0, n, 1), np.nan)  # a group of no item: undefined
    return {"estimate": theta, "variance": variance, "lambda": lam, "beta": beta, "gain": gain}


def interval(e: dict) -> tuple:
    """(low, high): the estimate +- 1.96 sqrt(variance), None when undefined. While predictions remain
    unlabelled (``n_labeled`` < ``n``) the variance is at least 1 / (n_labeled + 1)^2, that of a mean of
    the labels with one more that disagrees (SPEC 16): never [x, x].

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
    variance = max(e["variance"], 0.0)
    n, labelled = e.get("n"), e.get("n_labeled")
    if n is not None and labelled is not None and 0 < labelled < n:  # SPEC 16: never zero width
        variance = max(variance, 1 / (labelled + 1) ** 2)  # a mean of the labels with one that disagrees
    half = Z95 * math.sqrt(variance)
    return e["estimate"] - half, e["estimate"] + half


# --- the report section ----------------------------------------------------------------------


def active_scores(
    predictions, labels, judge_labels, *, design_frame, gold=None, aggregate=human.DEFAULT_AGGREGATE, human_scores=None
):
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
        ``tkey``, ``pi``, ``sampled`` of each triplet of the design; with ``phase`` (``pilot`` /
        ``main``) and ``p1`` the completion rates apply per phase, else the design is one phase.
    gold : iterable of str, optional
        Gold triplet keys: their human labels are not drawn by the design and are left out.
    aggregate : {"mean", "majority"}, default "mean"
        How a triplet's labels make its score (SPEC 3).
    human_scores : DataFrame, optional
        ``ppi.prediction_scores`` of the same predictions and labels with the same ``gold`` and
        ``aggregate``, when the caller computed them already (only their ``h_*`` columns are read);
        default computed here.

    Returns
    -------
    scores : DataFrame
        ``system``, ``tkey``, ``h_*``, ``f_*`` (each human metric of the registry), ``pi`` (under the
        completion rates), ``sampled`` and ``xi``; only predictions whose triplet is in the design
        and has a judge label.
    facts : dict
        ``n_sampled`` and ``n_labeled`` triplets, ``completion`` r, ``rates`` (per phase),
        ``n_pilot`` and ``n_pilot_labeled`` (None without phases), ``budget`` (sum of pi),
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
    scores = human_scores
    if scores is None:
        scores = ppi.prediction_scores(predictions, labels, None, gold=gold, aggregate=aggregate)
    plan = design_frame.drop_duplicates("tkey", keep="last").set_index("tkey")
    keys = metric_registry.human_keys()
    labeled_keys = set(scores.loc[scores[f"h_{keys[0]}"].notna(), "tkey"])  # judged by the judge or not
    keep = scores["tkey"].isin(plan.index) & scores["tkey"].isin(q.index)
    scores = scores[keep].reset_index(drop=True)
    at_q = q.index.get_indexer(scores["tkey"])  # one hash pass each, reused by every column
    at_plan = plan.index.get_indexer(scores["tkey"])
    q_rows = q.to_numpy()[at_q]
    for metric in keys:
        scores[f"f_{metric}"] = expected_score(q_rows, metric_registry.label_values(metric))
    sampled = plan["sampled"].astype(bool)
    phased = "phase" in plan and "p1" in plan and plan["phase"].notna().any()
    phase = plan["phase"].to_numpy(dtype=object) if phased else None
    p1 = plan["p1"].fillna(0.0).to_numpy(dtype=float) if phased else None
    labeled = plan.index.isin(labeled_keys)
    xi_t, pi_t, rates = live_design(plan["pi"].to_numpy(), sampled.to_numpy(), labeled, phase=phase, p1=p1)
    scores["pi"] = pi_t[at_plan]
    scores["xi"] = xi_t[at_plan]
    scores["sampled"] = sampled.to_numpy()[at_plan]
    pilot = sampled.to_numpy() & (phase == PILOT) if phased else None
    facts = {
        "n_triplets": len(plan),
        "n_sampled": int(sampled.sum()),
        "n_labeled": int(xi_t.sum()),
        "completion": rates["all"],
        "rates": {k: v for k, v in rates.items() if k != "all"} if phased else None,
        "n_pilot": int(pilot.sum()) if phased else None,
        "n_pilot_labeled": int((pilot & labeled).sum()) if phased else None,
        "n_main": int((sampled.to_numpy() & (phase == MAIN)).sum()) if phased else None,
        "budget": float(plan["pi"].sum()),
        "uniform": bool(np.ptp(plan["pi"].to_numpy()) == 0) if len(plan) else True,
        "judge_has_probs": has_probs,
    }
    return scores, facts


def uniform_variance(h, f, *, xi, pi) -> float | None:
    """The variance uniform PPI++ (SPEC 10) would have had with as many labels, estimated from the sample.

    The population variance of the residual h - beta - lambda f at the best (beta, lambda) is
    estimated from the labelled items weighted by 1 / pi (weighted least squares of h on (1, f));
    with n labels out of N, uniform sampling gives that variance times (1 / n - 1 / N). Divided by
    the active ``estimate``'s variance it is the design's measured gain over uniform PPI++.

    Parameters
    ----------
    h, f, xi, pi : array-like
        As ``estimate``.

    Returns
    -------
    float or None
        None with fewer than ``MIN_MEASURED`` (10) labelled items: too few to measure anything.

    Examples
    --------
    >>> from evaluation.science.active import uniform_variance
    >>> import numpy as np
    >>> h, f = np.tile([1.0, 0.0, 0.5, 1.0], 5), np.tile([0.9, 0.2, 0.6, 0.8], 5)
    >>> xi, pi = np.arange(20) % 4 != 2, np.tile([0.5, 0.5, 0.25, 0.8], 5)
    >>> round(uniform_variance(h, f, xi=xi, pi=pi) * 1e5, 1)
    5.9
    """
    h, f = np.asarray(h, dtype=float), np.asarray(f, dtype=float)
    xi, pi = np.asarray(xi, dtype=bool), np.asarray(pi, dtype=float)
    n, big_n = int(xi.sum()), len(f)
    if n < MIN_MEASURED:
        return None
    w = 1.0 / pi[xi]
    x = np.column_stack([np.ones(n), f[xi]])
    coef = np.linalg.lstsq(x * np.sqrt(w)[:, None], h[xi] * np.sqrt(w), rcond=None)[0]
    resid = h[xi] - x @ coef
    sigma2 = float((w * resid**2).sum() / w.sum()) * n / (n - 1)
    return sigma2 * (1 / n - 1 / big_n)


def active_rows(scores: pd.DataFrame, systems=None) -> list[dict]:
    """The ``report.json`` ``active`` rows: one per system and human metric (SPEC 12).

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
    [('a', 'hscore', 3, 2, 1, 1.0), ('a', 'hcorrect', 3, 2, 1, 100.0)]
    """
    systems = list(systems) if systems is not None else list(pd.unique(scores["system"]))
    where = _positions(scores)
    columns = {k: scores[k].to_numpy() for k in scores.columns if k.startswith(("h_", "f_"))}
    all_xi, all_pi, all_sampled = (
        scores["xi"].to_numpy(dtype=bool),
        scores["pi"].to_numpy(),
        scores["sampled"].to_numpy(),
    )
    rows = []
    for system in systems:
        at = where.get(system, np.array([], dtype=int))
        part = {"sampled": all_sampled[at]}
        xi, pi = all_xi[at], all_pi[at]
        for metric in metric_registry.human_keys():
            e = estimate(columns[f"h_{metric}"][at], columns[f"f_{metric}"][at], xi=xi, pi=pi)
            defined = e["estimate"] is not None and e["n_labeled"] > 0
            enough = defined and e["n_labeled"] >= MIN_LABELLED  # else no interval: "too few labels"
            low, high = interval(e) if enough else (None, None)
            mean, low, high, flag = clipped(e["estimate"] if defined else None, low, high)
            s = metric_registry.get(metric).scale
            rows.append(
                {
                    "system": system,
                    "metric": metric,
                    "n_total": len(at),
                    "n_sampled": int(part["sampled"].sum()),
                    "n_labeled": int(xi.sum()),
                    "lambda": e["lambda"] if defined else None,
                    "beta": e["beta"] * s if defined else None,
                    "estimate": mean * s if defined else None,
                    "ci_low": low * s if enough else None,
                    "ci_high": high * s if enough else None,
                    "gain": e["gain"] if defined else None,
                    "clipped": flag,  # SPEC 16: the estimate lay outside [0, 1]
                    "too_few": e["n_labeled"] < MIN_LABELLED,  # no interval: the page says so
                }
            )
    return rows


def measured_gains(scores: pd.DataFrame, rows: list[dict]) -> list[dict]:
    """Per system and human metric: how many times fewer labels the design needed than uniform PPI++
    would have for the same interval, measured on the data itself (``uniform_variance`` / variance).

    Parameters
    ----------
    scores : DataFrame
        ``active_scores``.
    rows : list of dict
        ``active_rows`` of the same scores.

    Returns
    -------
    list of dict
        ``system``, ``metric``, ``vs_uniform_ppi`` (None when undefined).

    Examples
    --------
    >>> from evaluation.science import active
    >>> predictions, labels, judge, plan = active._example_frames()
    >>> scores, _ = active.active_scores(predictions, labels, judge, design_frame=plan)
    >>> active.measured_gains(scores, active.active_rows(scores))[0]
    {'system': 'a', 'metric': 'hscore', 'vs_uniform_ppi': None}
    """
    out = []
    where = _positions(scores)
    all_xi, all_pi = scores["xi"].to_numpy(dtype=bool), scores["pi"].to_numpy()
    for row in rows:
        at = where.get(row["system"], np.array([], dtype=int))
        h, f = scores[f"h_{row['metric']}"].to_numpy()[at], scores[f"f_{row['metric']}"].to_numpy()[at]
        xi, pi = all_xi[at], all_pi[at]
        uniform = uniform_variance(h, f, xi=xi, pi=pi)
        active = estimate(h, f, xi=xi, pi=pi)["variance"] if uniform is not None else None
        ratio = uniform / active if uniform is not None and active else None
        out.append({"system": row["system"], "metric": row["metric"], "vs_uniform_ppi": ratio})
    return out


def _positions(scores):
    """{system: positions of its rows}: one hash pass instead of a string comparison per system."""
    return scores.groupby("system", sort=False).indices if len(scores) else {}


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
    predictions,
    labels,
    judge_labels,
    *,
    design_frame,
    systems=None,
    facts=None,
    aggregate=human.DEFAULT_AGGREGATE,
    human_scores=None,
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
        ``gold_keys``: gold triplets, left out of the human sample; ``design_meta``: the platform's
        record of the design (``rho``, ``alpha``, ``model``, ``reason``, ``main_open``).
    aggregate : {"mean", "majority"}, default "mean"
        How a triplet's labels make its score (SPEC 3).
    human_scores : DataFrame, optional
        As ``active_scores``.

    Returns
    -------
    rows : list of dict
        The ``active`` rows.
    design : dict
        ``kind`` (active or uniform), ``reason``, ``n_triplets``, ``budget``, ``n_sampled``,
        ``n_labeled``, ``completion``, ``judge_has_probs``, ``progress`` ("k of B labelled"),
        ``rates`` and ``pilot`` (size, labelled, progress: with phases, else None), ``rho``,
        ``alpha``, ``model`` (the fitted residual model), ``main_open`` and ``gains``
        (``measured_gains``).
    table : DataFrame
        The ``active`` data table, indexed by system (a row per metric).

    Examples
    --------
    >>> from evaluation.science import active
    >>> predictions, labels, judge, plan = active._example_frames()
    >>> rows, design, table = active.active_section(predictions, labels, judge, design_frame=plan)
    >>> design["kind"], design["progress"], table.shape
    ('active', '1 of 2 sampled triplets labelled (completion-rate rule)', (2, 12))
    """
    scores, d = active_scores(
        predictions,
        labels,
        judge_labels,
        design_frame=design_frame,
        gold=(facts or {}).get("gold_keys"),
        aggregate=aggregate,
        human_scores=human_scores,
    )
    rows = active_rows(scores, systems)
    return rows, _design_summary(d, (facts or {}).get("design_meta"), measured_gains(scores, rows)), _table(rows)


def _table(rows):
    return pd.DataFrame(rows, columns=list(ROW_KEYS)).set_index("system")  # one index level: plain LaTeX


def _design_summary(d, meta, gains):
    """``active_design``: what the design was, its pilot and residual model, progress and measured gains."""
    meta = meta or {}
    reason = meta.get("reason")
    if d["uniform"] and not reason and meta.get("p1") is None:
        reason = "every triplet had the same chance: uniform design"
    complete = d["n_labeled"] == d["n_sampled"]
    kind = "uniform" if d["uniform"] else "active"
    if meta.get("p1") is not None:  # the platform's two-phase design: uniform only on its fallback
        kind = "uniform" if meta.get("reason") else "active"
    design = {
        "kind": kind,
        "reason": reason,
        **{k: d[k] for k in ("n_triplets", "budget", "n_sampled", "n_labeled", "completion", "judge_has_probs")},
        "progress": f"{d['n_labeled']} of {d['n_sampled']} sampled triplets labelled"
        + ("" if complete else " (completion-rate rule)"),
        "rates": d["rates"],
        "pilot": None,
        "rho": meta.get("rho"),
        "alpha": meta.get("alpha"),
        "model": meta.get("model"),
        "main_open": meta.get("main_open"),
        "gains": gains,
    }
    if d["n_pilot"] is not None:
        design["pilot"] = {
            "size": d["n_pilot"],
            "labeled": d["n_pilot_labeled"],
            "main": d["n_main"],
            "progress": f"pilot {d['n_pilot_labeled']} of {d['n_pilot']} labelled",
        }
    return design


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


def active_conclusions(
    predictions, labels, judge_labels, *, design_frame, metric="hscore", facts=None, human_scores=None
) -> dict:
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
    human_scores : DataFrame, optional
        As ``active_scores``.

    Returns
    -------
    dict
        ``design`` (as ``active_section``), ``rows`` of the metric (the best estimate first, each with
        ``vs_uniform_ppi``, the measured gain against uniform PPI++) and
        ``pairs`` (``systems``, ``settled``, ``ahead``, ``more_labels``, ``beyond_sample``: more than
        the sample's unlabelled triplets); ``sample_labelled``: the whole drawn sample is labelled. No
        pair is ``settled`` before (SPEC 16: the fixed intervals hold once the sample is labelled).

    Examples
    --------
    >>> from evaluation.science import active
    >>> predictions, labels, judge, plan = active._example_frames()
    >>> result = active.active_conclusions(predictions, labels, judge, design_frame=plan)
    >>> result["design"]["progress"], [r["system"] for r in result["rows"]], result["pairs"]
    ('1 of 2 sampled triplets labelled (completion-rate rule)', ['a'], [])
    """
    rows, design, _ = active_section(
        predictions, labels, judge_labels, design_frame=design_frame, facts=facts, human_scores=human_scores
    )
    measured = {g["system"]: g["vs_uniform_ppi"] for g in design["gains"] if g["metric"] == metric}
    rows = [{**r, "vs_uniform_ppi": measured.get(r["system"])} for r in rows if r["metric"] == metric]
    rows.sort(key=lambda r: -math.inf if r["estimate"] is None else -r["estimate"])
    left = design["n_sampled"] - design["n_labeled"]
    complete = left <= 0  # SPEC 16: no "settled" before the whole drawn sample is labelled
    pairs = []
    for i, a in enumerate(rows):
        for b in rows[i + 1 :]:
            more = labels_to_settle(a, b, design["n_labeled"])
            pairs.append(
                {
                    "systems": [a["system"], b["system"]],
                    "settled": complete and more == 0,
                    "ahead": a["system"] if complete and more == 0 else None,
                    "more_labels": more,
                    "beyond_sample": more is not None and more > left,
                }
            )
    return {"design": design, "rows": rows, "pairs": pairs, "sample_labelled": complete}
