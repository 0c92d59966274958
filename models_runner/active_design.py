"""The active design of a corpus (SPEC 12, two phases) from a judge's labels: database shell over ``stats.design``.

``plan(corpus, budget=, judge=, seed=)`` draws the **pilot** (xi1 ~ Bernoulli(p1), p1 = rho B / T,
from the stored seed): only the pilot goes into the folds at first, with pi = p1 and phase
``pilot``. ``open_main(corpus, meta)`` runs once every pilot triplet is labelled
(``annotation.fold_store.open_main_if_ready``): it fits the residual model on the labelled pilot
(the human score under the design's metric, the judge's f and u), solves the main chances pi2 and
draws the main sample (seed ``[seed, 2]``); every triplet then has pi = p1 + (1 - p1) pi2, and the
main triplets join the folds. Fewer than 50 labelled pilot triplets or a singular fit give the
uniform design (pi = B / T) and ``meta["reason"]`` says why. A triplet the judge has not labelled
counts as one the judge knows nothing about: q uniform over the three labels (one-hot judges: the
first label, as its other labels carry no uncertainty either).

``late(corpus, tids, meta)`` draws triplets added later by the same rule: the pilot draw seeded by
the design's seed and the triplet id, and once the main sample is open the stored model and c.

Registered as the fold design ``active`` in ``ModelsRunnerConfig.ready()`` (``annotation.fold_designs``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from annotation import human_metrics
from annotation.counted import counted_labels
from annotation.fold_designs import Design, DesignError, Plan
from annotation.models import Triplet
from models_runner.models import Judge, JudgeLabel
from stats import design
from stats.labels import LABEL_VALUES

UNKNOWN_Q = np.full(3, 1 / 3)  # a triplet the judge did not label


def _judge_view(judge, tids, metric, *, judge_has_probs=None):
    """(f, u) of each triplet id (``tids`` order), whether the judge gave probabilities, how many it labelled.
    ``judge_has_probs``: whether the judge gives probabilities at all (default: whether it gave some on
    ``tids``), which decides what a triplet it did not label counts as."""
    rows = list(
        JudgeLabel.objects.filter(judge=judge, triplet_id__in=tids, value__isnull=False).values_list(
            "triplet_id", "value", "probs"
        )
    )
    frame = pd.DataFrame.from_records(rows, columns=["tkey", "label", "probs"])
    q, has_probs = design.judge_distribution(frame)
    probs = has_probs if judge_has_probs is None else judge_has_probs
    full = np.tile(UNKNOWN_Q if probs else np.array([1.0, 0.0, 0.0]), (len(tids), 1))
    known = pd.Index(tids).get_indexer(q.index)
    full[known] = q.to_numpy()
    values = human_metrics.values(metric)
    return design.expected_score(full, values), design.uncertainty(full, values), has_probs, len(rows)


def plan(corpus, *, budget, judge, seed=0, metric="hscore") -> Plan:
    """The pilot of the active design of ``judge`` over ``corpus`` (see the module)."""
    if isinstance(judge, str):
        judge = Judge.objects.filter(name=judge).first() or _refuse(f"no judge named {judge!r}")
    try:
        human_metrics.values(metric)
    except ValueError as exc:
        raise DesignError(str(exc)) from None
    tids = list(Triplet.objects.filter(question__corpus=corpus).order_by("id").values_list("id", flat=True))
    if not tids:
        _refuse(f"corpus {corpus.name} has no triplets yet: import predictions first")
    judged = JudgeLabel.objects.filter(judge=judge, triplet__question__corpus=corpus, value__isnull=False)
    n_judged, has_probs = judged.count(), judged.filter(probs__isnull=False).exists()
    if not n_judged:
        _refuse(f"judge {judge.name!r} has no labels in corpus {corpus.name}: run or import the judge first")
    try:
        b = design.budget_count(budget, len(tids))
        p1 = design.pilot_chance(b, len(tids))
    except ValueError as exc:
        raise DesignError(str(exc)) from None
    xi1 = design.draw(np.full(len(tids), p1), seed)
    meta = {
        "kind": "active",
        "judge": judge.name,
        "metric": metric,
        "budget": b,
        "n_triplets": len(tids),
        "n_judged": n_judged,
        "judge_has_probs": has_probs,
        "seed": seed,
        "rho": design.RHO,
        "alpha": design.ALPHA,
        "p1": p1,
        "n_pilot": int(xi1.sum()),
        "n_sampled": int(xi1.sum()),
        "main_open": False,
        "pilot_labels": None,
        "model": None,
        "c": None,
        "b2": design.main_budget(b, len(tids), p1),
        "reason": None,
    }
    phase = {t: design.PILOT for t, x in zip(tids, xi1) if x}
    return Plan(pi=dict.fromkeys(tids, p1), sampled=dict(zip(tids, xi1.tolist())), meta=meta, phase=phase)


def _pilot_scores(tids, pilot, metric, *, corpus):
    """Each labelled pilot triplet's human score (mean of its labels' values, SPEC 3), NaN elsewhere."""
    values = dict(zip(LABEL_VALUES, human_metrics.values(metric)))
    rows = counted_labels(corpus).filter(triplet_id__in=[t for t, p in zip(tids, pilot) if p])
    frame = pd.DataFrame.from_records(list(rows.values_list("triplet_id", "value")), columns=["tid", "value"])
    means = frame.assign(score=frame["value"].map(values)).groupby("tid")["score"].mean()
    return means.reindex(tids).to_numpy(dtype=float)


def open_main(corpus, meta) -> tuple[dict, dict]:
    """The main draw once the pilot is labelled: ``(meta, {tid: (pi, sampled, phase, p1)})`` of every triplet."""
    rows = list(Triplet.objects.filter(question__corpus=corpus).order_by("id").values_list("id", "design_phase"))
    tids = [t for t, _ in rows]
    pilot = np.array([p == design.PILOT for _, p in rows])
    judge = Judge.objects.filter(name=meta["judge"]).first()
    if judge is None:
        f, u = np.zeros(len(tids)), np.zeros(len(tids))
    else:
        f, u, _, _ = _judge_view(judge, tids, meta["metric"])
    h = _pilot_scores(tids, pilot, meta["metric"], corpus=corpus)
    labelled = pilot & ~np.isnan(h)
    b2 = design.main_budget(meta["budget"], len(tids), meta["p1"])
    pi2, info = design.main_design(f, u, pilot=labelled, h=h, budget=meta["budget"], p1=meta["p1"], alpha=meta["alpha"])
    xi2 = design.draw(pi2, [int(meta["seed"]), 2]) & ~pilot
    pi = design.combine(meta["p1"], pi2)
    meta = {
        **meta,
        "main_open": True,
        "n_triplets": len(tids),
        "pilot_labels": int(labelled.sum()),
        "model": info["model"],
        "c": info["c"],
        "b2": b2,
        "reason": info["reason"],
        "n_main": int(xi2.sum()),
        "n_sampled": int((pilot | xi2).sum()),
    }
    out = {}
    for t, p, is_pilot, x in zip(tids, pi.tolist(), pilot, xi2):
        out[t] = (p, bool(is_pilot or x), design.PILOT if is_pilot else (design.MAIN if x else None), meta["p1"])
    return meta, out


def late(corpus, tids, meta) -> dict:
    """{tid: (pi, sampled, phase, p1)} of triplets added after the design, by its rule (see the module)."""
    tids = sorted(tids)
    p1, seed = float(meta["p1"]), int(meta["seed"])
    xi1 = np.array([np.random.default_rng([seed, int(t)]).random() < p1 for t in tids], dtype=bool)
    if not meta.get("main_open"):
        return {t: (p1, bool(x), design.PILOT if x else None, p1) for t, x in zip(tids, xi1)}
    judge = Judge.objects.filter(name=meta["judge"]).first()
    if judge is None:
        f, u = np.zeros(len(tids)), np.zeros(len(tids))
    else:
        f, u = _judge_view(judge, tids, meta["metric"], judge_has_probs=meta.get("judge_has_probs", True))[:2]
    pi2 = design.late_chance(meta, f, u)
    xi2 = np.array([np.random.default_rng([seed, int(t), 2]).random() < p for t, p in zip(tids, pi2)], dtype=bool)
    pi = design.combine(p1, pi2)
    out = {}
    for t, p, a, b in zip(tids, pi.tolist(), xi1, xi2):
        out[t] = (p, bool(a or b), design.PILOT if a else (design.MAIN if b else None), p1)
    return out


def _refuse(message):
    raise DesignError(message)


#: The design as annotation.fold_designs knows it; ``ModelsRunnerConfig.ready`` registers it by this path,
#: imported on first use (start-up loads neither numpy nor pandas).
def judges(corpus):
    """The judges the design of ``corpus`` can use: those with labels in it, most labels first (the
    Folds page offers them as a list)."""
    from django.db.models import Count

    rows = (
        Judge.objects.filter(labels__triplet__question__corpus=corpus, labels__value__isnull=False)
        .annotate(n=Count("labels"))
        .order_by("-n", "name")
    )
    return [j.name for j in rows]


DESIGN = Design(plan=plan, late=late, open_main=open_main, errors=(DesignError,), judges=judges)
