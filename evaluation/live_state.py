"""SPEC 16 in the background: the live confidence sequences carried forward and the close rule, never in
a request.

After a participant's judgement (``annotation.studies.labels_arrived``) or when the live page finds
the stored sequences behind the labels, ``request_refresh`` marks the corpus's ``LiveState`` pending
and, once the transaction commits, sends the Celery task ``evaluation.tasks.refresh_live`` (one
pending task per corpus at a time: a burst of arrivals sends one). The task runs ``refresh``: it
reads the labels in arrival order, carries each system's capital forward from the stored state
(``anytime.advance``: only the labels that arrived since; a system whose past changed is recomputed),
stores the rows the live page and the close rule read, with the page's fixed 95% intervals (SPEC 10,
per judge and human aggregate asked for, every metric: ``fixed_parts``) and the id of the newest label
read (the page counts only the labels after it, ``arrived_since``), then asks the close rule of every open study
of the corpus with one, at most once per ``CLOSE_EVERY_SECONDS`` per study (a study not due yet gets
a later task). A corpus with an active design (SPEC 12) gets no sequence (SPEC 16).
"""

from __future__ import annotations

import itertools
import logging
from datetime import timedelta

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotation import studies
from annotation.counted import counted_labels
from annotation.fold_store import fold_design
from annotation.models import Corpus, Label, Study
from evaluation import judge_inputs
from evaluation.models import LiveState
from evaluation.report.context import clean
from evaluation.science import active, anytime, human, live_parts, ppi
from evaluation.science.rows import records

log = logging.getLogger(__name__)
TASK = "evaluation.tasks.refresh_live"
CLOSE_EVERY_SECONDS = 60  # a study's close rule runs at most once a minute


def request_refresh(corpus_id, judge=None, aggregate=None):
    """Ask for the corpus's sequences to be carried forward by the background job (``judge``: a judge's
    name the live page asked for, ``aggregate`` a human aggregate, kept among those computed). Cheap:
    one row written, one task sent after the commit unless one is pending already. Never raises (a
    participant's judgement is saved whatever the queue's state)."""
    try:
        with transaction.atomic():  # a savepoint: two arrivals creating the row at once roll back only this
            row, _ = LiveState.objects.get_or_create(corpus_id=corpus_id)
            if judge and judge not in row.judges:
                LiveState.objects.filter(pk=row.pk).update(judges=[*row.judges, judge][-5:])
            if aggregate and aggregate != human.DEFAULT_AGGREGATE and aggregate not in row.aggregates:
                LiveState.objects.filter(pk=row.pk).update(aggregates=[*row.aggregates, aggregate][-3:])
            pending = LiveState.objects.filter(pk=row.pk, pending=False).update(pending=True)
        if pending:
            transaction.on_commit(lambda: send(corpus_id))
    except Exception:  # the live page's freshness is never worth a participant's error page
        log.warning("live sequences: refresh of corpus %s not requested", corpus_id, exc_info=True)


def send(corpus_id, countdown=0):
    """Send the task (``countdown`` seconds from now); on a broker error the corpus is no longer
    pending, so that the next arrival tries again."""
    from core.runner import task_named

    try:
        task_named(TASK).apply_async(args=[corpus_id], countdown=countdown)
    except Exception:
        LiveState.objects.filter(corpus_id=corpus_id).update(pending=False)
        log.warning("live sequences: task for corpus %s not sent", corpus_id, exc_info=True)


def refresh(corpus_id, *, now=None):
    """The background job: carry the corpus's sequences forward, store them, ask the close rules.

    Parameters
    ----------
    corpus_id : int
        The corpus.
    now : datetime, optional
        The time recorded (default now).

    Returns
    -------
    dict or None
        The stored results by judge name (``""``: none), None for a corpus that no longer exists.
    """
    LiveState.objects.filter(corpus_id=corpus_id).update(pending=False)  # arrivals from now on send again
    corpus = Corpus.objects.filter(pk=corpus_id).first()
    if corpus is None:
        return None
    now = now or timezone.now()
    row, _ = LiveState.objects.get_or_create(corpus=corpus)
    last = counted_labels(corpus).aggregate(last=Max("id"))["last"]  # read first: a label of both counts as new
    predictions, labels = judge_inputs.snapshot(corpus)
    judges = judge_inputs.corpus_judges(corpus)
    default = judge_inputs.pick_judge(corpus, judges=judges)
    names = list(dict.fromkeys([default.name if default else "", *(n for n in row.judges if n)]))
    states, results = anytime.unpack(row.state), {}
    active, facts = bool(fold_design(corpus)), judge_inputs.sample_facts(corpus)
    aggregates = list(dict.fromkeys([human.DEFAULT_AGGREGATE, *(a for a in row.aggregates if a in human.AGGREGATES)]))
    for name in names:
        judge = judge_inputs.pick_judge(corpus, name, judges=judges) if name else None
        if name and judge is None:
            continue
        jl = judge_inputs.judge_labels(corpus, judge) if judge else None
        result = {"n_labels": len(labels), "computed_at": now.isoformat(), "has_judge": jl is not None, "rows": []}
        result["active"], result["last_label"] = active, last or 0
        inputs = (predictions, labels, judge, jl)
        result["fixed"] = {a: fixed_parts(corpus, inputs, aggregate=a, facts=facts) for a in aggregates}
        if not active and len(predictions):
            scores = ppi.live_scores(predictions, labels, jl, facts={"gold_keys": facts["gold_keys"]})
            rows, states[name] = anytime.advance(states.get(name), scores, arrival=labels["tkey"].to_numpy())
            result["rows"] = clean(records(rows))
        results[name] = result
    states = {k: v for k, v in states.items() if k in results}
    LiveState.objects.filter(pk=row.pk).update(results=results, state=anytime.pack(states), computed_at=now)
    close_due_studies(corpus, results.get(names[0]), now=now)
    return results


def fixed_parts(corpus, inputs, *, aggregate=human.DEFAULT_AGGREGATE, facts=None):
    """The live page's fixed 95% intervals (SPEC 10) of one judge and human aggregate, every metric at
    once, as plain data to store: ``live_parts.conclusion_parts`` with ``n_labels`` and ``active`` (the active
    design's figures by metric, ``active.active_conclusions``; None without a design), or
    ``{"refused": True}`` when ``ds`` is refused (too few answers with two labels, SPEC 17). Computed
    by ``refresh``, or by the page itself once when nothing is stored yet for this judge and aggregate.

    Parameters
    ----------
    corpus : annotation.models.Corpus
        The corpus.
    inputs : tuple
        ``judge_inputs.snapshot``'s predictions and labels, the judge (or None) and its labels (or None).
    aggregate : str, default "mean"
        The human aggregate (``human.AGGREGATES``).
    facts : dict, optional
        ``judge_inputs.sample_facts`` (default read here).

    Returns
    -------
    dict
        Plain JSON data.
    """
    predictions, labels, judge, jl = inputs
    facts = judge_inputs.sample_facts(corpus) if facts is None else facts
    try:
        scores = ppi.live_scores(predictions, labels, jl, facts=facts, aggregate=aggregate)
    except ValueError:  # the one refusal of a valid choice: too few answers with two labels
        return {"refused": True, "n_labels": len(labels)}
    has_judge = jl is not None and not jl.empty
    parts = live_parts.conclusion_parts(scores, has_judge=has_judge, facts=facts)
    parts["n_labels"], parts["active"] = len(labels), None
    if facts["design_meta"]:
        design_inputs = (predictions, labels, scores if has_judge else None)  # gold left out: the active h
        found = {m: _active(corpus, design_inputs, metric=m, loaded=(judge, jl), facts=facts) for m in ppi.METRICS}
        parts["active"] = None if any(v is None for v in found.values()) else found
    return clean(parts)


def _active(corpus, inputs, *, metric, loaded=(None, None), facts):
    """The active design's live figures (``active.active_conclusions``), None without a design.
    ``inputs``: predictions, labels and the page's scores when their gold labels are left out (else
    None: computed here); ``loaded``: (judge, its labels) read already, reused when it is the design's
    judge; ``facts``: ``judge_inputs.sample_facts`` (``gold_keys``, ``design_meta``)."""
    from models_runner.models import Judge

    meta = facts["design_meta"]
    plan = judge_inputs.design_frame(corpus) if meta else None
    if not meta or plan is None:
        return None
    judge = Judge.objects.filter(name=meta.get("judge")).first()
    same = judge is not None and loaded[0] is not None and loaded[0].pk == judge.pk
    judge_labels = loaded[1] if same else judge_inputs.judge_labels(corpus, judge)
    if judge_labels is None:
        return None
    predictions, labels, scores = inputs
    result = active.active_conclusions(
        predictions,
        labels,
        judge_labels,
        design_frame=plan,
        metric=metric,
        facts={"gold_keys": facts["gold_keys"], "design_meta": meta},
        human_scores=scores,
    )
    result["judge"] = judge.name
    return result


CHUNK = 5_000  # label ids read at a time by ``arrived_since``


def arrived_since(corpus, last_label):
    """How many labels that count arrived in ``corpus`` after the label id ``last_label`` (the newest the
    stored results had read; None: every label). The labels newer than it are read by id (the primary
    key's range), a chunk at a time, and only they are matched with the corpus: no walk over the
    corpus's questions, which the database would choose for one query joining both."""
    found, after = 0, last_label or 0
    while True:
        newer = Label.objects.filter(pk__gt=after, value__isnull=False).order_by("pk").values_list("pk", flat=True)
        ids = list(newer[:CHUNK])
        if not ids:
            return found
        found += counted_labels(corpus).filter(pk__in=ids).count()
        after = ids[-1]


def close_due_studies(corpus, result, *, now):
    """Ask the close rule of each open study of ``corpus`` that has one and was not asked in the last
    ``CLOSE_EVERY_SECONDS``; a study not due yet gets a task when it is."""
    due_before = now - timedelta(seconds=CLOSE_EVERY_SECONDS)
    wait = None
    for study in Study.objects.filter(corpus=corpus, open=True).exclude(close_when=""):
        if study.close_checked_at is not None and study.close_checked_at > due_before:
            left = (study.close_checked_at - due_before).total_seconds()
            wait = left if wait is None else min(wait, left)
            continue
        Study.objects.filter(pk=study.pk).update(close_checked_at=now)
        reason = close_reason(study, result)
        if reason:
            studies.close(study, reason)
    if wait is not None and LiveState.objects.filter(corpus=corpus, pending=False).update(pending=True):
        transaction.on_commit(lambda: send(corpus.pk, countdown=wait))


def close_reason(study, result):
    """Why ``study`` should close by itself now (SPEC 16), or None: its rule ``close_when`` (the ranking
    settled, every adjacent pair apart or tied within its ``tie_margin``, or every system done within
    ``close_width``) met by the stored Hscore sequences of its corpus (``result``: ``refresh``'s, with
    the judge with the most labels when there is one). Never with an active design.

    Parameters
    ----------
    study : annotation.models.Study
        A study with a close rule.
    result : dict or None
        The stored result the rule reads.

    Returns
    -------
    str or None
        The reason, in English, as the study page records it.
    """
    if not result or result.get("active") or not result["rows"]:
        return None
    live = anytime.live_from_rows(
        result["rows"],
        has_judge=result["has_judge"],
        metric="hscore",
        half_width=study.close_width,
        stop_when=study.close_when,
        margin=study.tie_margin,
    )
    if not live["stop"]:
        return None
    how = "Hscore confidence sequences" + (" with the judge" if result["has_judge"] else "")
    how += f", alpha 0.05 split over {len(live['rows'])} systems"
    if study.close_when == "ranking":
        tied = {frozenset(p["systems"]) for p in live["tied_pairs"]}
        order = live["rows"][0]["system"]
        for above, below in itertools.pairwise(live["rows"]):
            apart = not above["cs_low"] <= below["cs_high"]
            order += (" > " if apart or frozenset((above["system"], below["system"])) not in tied else " ≈ ") + below[
                "system"
            ]
        names = "; ".join(" and ".join(sorted(p)) for p in sorted(tied, key=sorted))
        ties = f"; tied within {live['tie_margin']:g}: {names}" if tied else ""
        return f"ranking settled: {order}{ties} ({how})"
    return f"every system done: half-width at most {live['half_width']:g} ({how})"


def close_reason_now(study):
    """Why ``study`` would close by its rule now, on the sequences stored for its corpus (computed first
    when none is stored), or None: asked when an admin reopens a study that closed by itself
    (``annotation.studies.reopen``, through ``annotation.studies.LIVE``), in the admin's request."""
    corpus = Corpus.objects.get(pk=study.corpus_id)
    judge = judge_inputs.pick_judge(corpus)
    stored = LiveState.objects.filter(corpus=corpus).values_list("results", flat=True).first()
    if not stored:
        stored = refresh(corpus.pk) or {}
    return close_reason(study, stored.get(judge.name if judge is not None else ""))
