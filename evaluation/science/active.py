"""Active statistical inference (SPEC section 12): the report's rows when humans label where the judge is unsure.

Pure numpy / pandas, no database. The design (q, f, u, the pilot, the residual model, pi, the draw, the
completion-rate rule per phase) is ``stats.design``, the estimate itself (the labels of the drawn
sample re-weighted by ``1 / pi``, Zrnic & Candes, "Active Statistical Inference", ICML 2024) is
``stats.active``; the human metrics come from ``evaluation.science.metric_registry``.

- ``active_scores``: one row per prediction (human scores, the judge's f, pi, the live xi);
- ``active_rows``: the ``report.json`` ``active`` rows per system and metric;
- ``measured_gains``: the design's gain over uniform PPI++, measured on the sample;
- ``active_section`` / ``active_conclusions``: the report's section and the live page's figures.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from evaluation.science import human, metric_registry, ppi
from evaluation.science.rows import ActiveRow, as_json, keys, records
from stats.active import estimate, interval_variance, labels_to_settle, uniform_variance
from stats.design import MAIN, PILOT, expected_score, judge_distribution, live_design
from stats.intervals import clipped, normal

MIN_LABELLED = 2  # SPEC 16: an active row from fewer labelled items gives no interval (it says so)
ROW_KEYS = keys(ActiveRow)  # the ``active`` row's keys


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


def active_rows(scores: pd.DataFrame, systems=None) -> list[ActiveRow]:
    """The ``report.json`` ``active`` rows: one per system and human metric (SPEC 12).

    Parameters
    ----------
    scores : DataFrame
        ``active_scores``.
    systems : iterable of str, optional
        The systems, in order (default: order of appearance).

    Returns
    -------
    list of ActiveRow
        Estimates on the report's scale (Hcorrect in %), None where undefined (fewer than two
        predictions, or no labelled one); ``evaluation.science.rows.as_json``: the keys ``ROW_KEYS``.

    Examples
    --------
    >>> from evaluation.science import active
    >>> predictions, labels, judge, plan = active._example_frames()
    >>> scores, _ = active.active_scores(predictions, labels, judge, design_frame=plan)
    >>> [(r.system, r.metric, r.n_total, r.n_sampled, r.n_labeled, round(r.estimate, 4))
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
            low, high = normal(e["estimate"], interval_variance(e)) if enough else (None, None)
            mean, low, high, flag = clipped(e["estimate"] if defined else None, low, high)
            s = metric_registry.get(metric).scale
            rows.append(
                ActiveRow(
                    system=system,
                    metric=metric,
                    n_total=len(at),
                    n_sampled=int(part["sampled"].sum()),
                    n_labeled=int(xi.sum()),
                    lambda_=e["lambda"] if defined else None,
                    beta=e["beta"] * s if defined else None,
                    estimate=mean * s if defined else None,
                    ci_low=low * s if enough else None,
                    ci_high=high * s if enough else None,
                    gain=e["gain"] if defined else None,
                    clipped=flag,  # SPEC 16: the estimate lay outside [0, 1]
                    too_few=e["n_labeled"] < MIN_LABELLED,  # no interval: the page says so
                )
            )
    return rows


def measured_gains(scores: pd.DataFrame, rows: list[ActiveRow]) -> list[dict]:
    """Per system and human metric: how many times fewer labels the design needed than uniform PPI++
    would have for the same interval, measured on the data itself (``uniform_variance`` / variance).

    Parameters
    ----------
    scores : DataFrame
        ``active_scores``.
    rows : list of ActiveRow
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
        at = where.get(row.system, np.array([], dtype=int))
        h, f = scores[f"h_{row.metric}"].to_numpy()[at], scores[f"f_{row.metric}"].to_numpy()[at]
        xi, pi = all_xi[at], all_pi[at]
        uniform = uniform_variance(h, f, xi=xi, pi=pi)
        active = estimate(h, f, xi=xi, pi=pi)["variance"] if uniform is not None else None
        ratio = uniform / active if uniform is not None and active else None
        out.append({"system": row.system, "metric": row.metric, "vs_uniform_ppi": ratio})
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
    rows : list of ActiveRow
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
    return pd.DataFrame(records(rows), columns=list(ROW_KEYS)).set_index("system")  # one index level: plain LaTeX


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
    rows = [{**as_json(r), "vs_uniform_ppi": measured.get(r.system)} for r in rows if r.metric == metric]
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
