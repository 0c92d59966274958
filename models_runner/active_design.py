"""The active design of a corpus (SPEC 12) from a judge's labels: database shell over ``annotation.design``.

``plan(corpus, budget=, judge=, seed=)`` reads the judge's labels (with their ``probs``) of every
triplet, computes each one's uncertainty u, the chance pi of a human label (c solved so that the
chances sum to the budget B, floor pi_min = 0.1 B / T, cap 1) and the seeded draw xi; folds are then
built from the drawn triplets (``annotation.fold_store.create_folds(design=...)``). A triplet the
judge has not labelled (its reply named no label, or it came later) counts as one the judge knows
nothing about: q uniform over the three labels. A judge without probabilities (one-hot labels)
gives the uniform design, pi = B / T, and ``meta["reason"]`` says so.

``late(corpus, tids, meta)`` draws triplets added later (late predictions) by the same rule: the
stored c and pi_min, a draw seeded by the design's seed and the triplet id.

Registered as the fold design ``active`` in ``ModelsRunnerConfig.ready()`` (``annotation.fold_designs``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from annotation import design
from annotation.fold_designs import DesignError, Plan
from annotation.models import Triplet
from models_runner.models import Judge, JudgeLabel

UNKNOWN_Q = np.full(3, 1 / 3)  # a triplet the judge did not label


def _uncertainties(judge, tids, metric, *, unknown=None):
    """u of each triplet id (``tids`` order), whether the judge gave probabilities, how many it labelled.
    ``unknown``: q of a triplet without a label (default: uniform when the judge gives probabilities,
    else one-hot like its other labels)."""
    rows = list(
        JudgeLabel.objects.filter(judge=judge, triplet_id__in=tids, value__isnull=False).values_list(
            "triplet_id", "value", "probs"
        )
    )
    frame = pd.DataFrame.from_records(rows, columns=["tkey", "label", "probs"])
    q, has_probs = design.judge_distribution(frame)
    if unknown is None:
        unknown = UNKNOWN_Q if has_probs else np.array([1.0, 0.0, 0.0])
    full = np.tile(unknown, (len(tids), 1))
    known = pd.Index(tids).get_indexer(q.index)
    full[known] = q.to_numpy()
    return design.uncertainty(full, metric), has_probs, len(rows)


def plan(corpus, *, budget, judge, seed=0, metric="hscore") -> Plan:
    """pi and xi of every triplet of ``corpus`` under the active design of ``judge`` (see the module)."""
    if isinstance(judge, str):
        judge = Judge.objects.filter(name=judge).first() or _refuse(f"no judge named {judge!r}")
    if metric not in design.METRICS:
        _refuse(f"metric must be one of {', '.join(design.METRICS)}")
    tids = list(Triplet.objects.filter(question__corpus=corpus).order_by("id").values_list("id", flat=True))
    if not tids:
        _refuse(f"corpus {corpus.name} has no triplets yet: import predictions first")
    u, _, n_judged = _uncertainties(judge, tids, metric)
    if not n_judged:
        _refuse(f"judge {judge.name!r} has no labels in corpus {corpus.name}: run or import the judge first")
    try:
        b = design.budget_count(budget, len(tids))
        pi, reason = design.design(u, b)
    except ValueError as exc:
        raise DesignError(str(exc)) from None
    xi = design.draw(pi, seed)
    meta = {
        "kind": "uniform" if reason else "active",
        "judge": judge.name,
        "metric": metric,
        "budget": b,
        "n_triplets": len(tids),
        "n_judged": n_judged,
        "n_sampled": int(xi.sum()),
        "seed": seed,
        "reason": reason,
        **_rule(u, pi, design.FLOOR_SHARE * b / len(tids)),
    }
    return Plan(pi=dict(zip(tids, pi.tolist())), sampled=dict(zip(tids, xi.tolist())), meta=meta)


def _rule(u, pi, floor):
    """The rule's constants for late triplets: c (pi / u where neither floor nor cap binds), pi_min
    (raised when the budget needed it) and the uniform chance."""
    if (u == 0).any():
        floor = max(floor, float(pi[u == 0].min()))
    middle = (u > 0) & (pi > floor) & (pi < 1)
    if middle.any():
        c = float(np.median(pi[middle] / u[middle]))
    else:
        c = float(1 / u[u > 0].min()) if (u > 0).any() else 0.0
    return {"c": c, "pi_min": floor, "pi_uniform": float(pi.mean())}


def late(corpus, tids, meta) -> dict:
    """{tid: (pi, sampled)} of triplets added after the design, by its rule (see the module)."""
    tids = sorted(tids)
    if meta.get("kind") == "uniform":
        pi = np.full(len(tids), meta["pi_uniform"])
    else:
        judge = Judge.objects.filter(name=meta["judge"]).first()
        u = design.uncertainty(UNKNOWN_Q)
        if judge is not None:
            u = _uncertainties(judge, tids, meta["metric"], unknown=UNKNOWN_Q)[0]
        pi = np.minimum(1.0, np.maximum(meta["pi_min"], meta["c"] * np.broadcast_to(u, (len(tids),))))
    draws = [np.random.default_rng([int(meta["seed"]), int(t)]).random() < p for t, p in zip(tids, pi)]
    return {t: (float(p), bool(x)) for t, p, x in zip(tids, pi, draws)}


def _refuse(message):
    raise DesignError(message)
