"""Database shell over ``annotation.dedup`` and ``annotation.folds``: triplets, folds, assignments."""
from __future__ import annotations

import random
from collections import defaultdict

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.models import Count, F
from django.utils import timezone

from annotation.bulk import insert_rows
from annotation.dedup import POLICIES, build_triplets, normalize_answer
from annotation.folds import assign_round_robin, assignment_conflict, build_folds, interleave
from annotation.models import Assignment, Fold, FoldItem, Label, Prediction, Triplet

BATCH = 2000


class FoldError(ValueError):
    pass


def _noop(*args, **kwargs):
    pass


CORPUS_LOCK = 7301  # advisory lock namespace: (CORPUS_LOCK, corpus id)


def lock_corpus(corpus_id):
    """Serialise the writers of one corpus's predictions and triplets until the transaction ends.

    PostgreSQL: a transaction-level advisory lock, so two jobs (model runs, imports) never create the
    same triplet or prediction at once; the second sees the first's rows once it gets the lock. SQLite
    already serialises writers (one write transaction at a time, ``BEGIN IMMEDIATE``).
    """
    assert connection.in_atomic_block, "lock_corpus must run inside a transaction"
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [CORPUS_LOCK, int(corpus_id)])


@transaction.atomic
def triplets_for(corpus, rows):
    """Map ``(key, question_id, answer)`` rows to triplet ids, creating the triplets that are missing.

    Returns ``({key: triplet_id}, number_of_new_triplets)``. Rows should come reference first, so
    that the reference gives the displayed spelling when a group mixes variants.
    """
    lock_corpus(corpus.pk)
    question_ids = sorted({r[1] for r in rows})
    existing = {}
    for chunk in _chunks(question_ids, BATCH):
        for tid, qid, norm in Triplet.objects.filter(question_id__in=chunk).values_list("id", "question_id", "normalized_answer"):
            existing[(qid, norm)] = tid
    groups = build_triplets(rows, corpus.dedup_policy)
    new = [g for g in groups if (g.question_key, g.normalized) not in existing]
    created = Triplet.objects.bulk_create(
        [Triplet(question_id=g.question_key, answer=g.answer, normalized_answer=g.normalized) for g in new],
        batch_size=BATCH,
    )
    for group, triplet in zip(new, created):
        existing[(group.question_key, group.normalized)] = triplet.pk
    mapping = {}
    for group in groups:
        tid = existing[(group.question_key, group.normalized)]
        for key in group.prediction_keys:
            mapping[key] = tid
    return mapping, len(created)


@transaction.atomic
def assign_triplets(corpus, progress=_noop, source="model run"):
    """Give every prediction of the corpus without a triplet its triplet, creating new ones.

    Incremental: existing triplets are reused, so predictions imported or generated later join the
    triplets (and labels) already there. Returns ``{"new_triplets", "linked_predictions"}``.
    """
    lock_corpus(corpus.pk)
    pending = list(
        Prediction.objects.filter(question__corpus=corpus, triplet__isnull=True)
        .order_by("question__position", "id")
        .values_list("id", "question_id", "answer", "system__kind")
    )
    if not pending:
        return {"new_triplets": 0, "linked_predictions": 0}
    pending.sort(key=lambda p: p[3] != "reference")
    mapping, n_new = triplets_for(corpus, [(pid, qid, answer) for pid, qid, answer, _ in pending])
    progress(message=f"linking {len(pending)} predictions to triplets")
    updates = [Prediction(id=pid, triplet_id=tid) for pid, tid in mapping.items()]
    Prediction.objects.bulk_update(updates, ["triplet"], batch_size=BATCH)
    return {"new_triplets": n_new, "linked_predictions": len(updates), "added_to_folds": extend_folds_if_any(corpus, source)}


def extend_folds_if_any(corpus, source="import"):
    """New triplets join the corpus's folds (beside their question) once folds exist; else 0."""
    if not Fold.objects.filter(corpus=corpus, kind=Fold.KIND_TRIPLET).exists():
        return 0
    return extend_folds(corpus, source)


@transaction.atomic
def rebuild_triplets(corpus, policy):
    """Re-deduplicate a corpus under another policy. Refused once labels or folds exist."""
    if policy not in POLICIES:
        raise ValueError(f"unknown dedup policy {policy!r}; choose one of {', '.join(POLICIES)}")
    if Label.objects.filter(triplet__question__corpus=corpus).exists():
        raise FoldError("this corpus already has labels: its triplets cannot be rebuilt")
    if Fold.objects.filter(corpus=corpus, kind=Fold.KIND_TRIPLET).exists():
        raise FoldError("this corpus already has folds: delete them before rebuilding triplets")
    Prediction.objects.filter(question__corpus=corpus).update(triplet=None)
    Triplet.objects.filter(question__corpus=corpus).delete()
    corpus.dedup_policy = policy
    corpus.save(update_fields=["dedup_policy"])
    return assign_triplets(corpus)


def triplet_for_answer(corpus, question_id, answer):
    return Triplet.objects.filter(
        question_id=question_id, normalized_answer=normalize_answer(answer, corpus.dedup_policy)
    ).first()


def clear_folds(corpus, kind, replace, judgements, error=None, what="folds"):
    """Make room for new folds of ``kind``: refused if some exist and ``replace`` is off, or if
    ``judgements`` (a queryset of Label / FrameCheck) has any row in them."""
    error = error or FoldError
    existing = Fold.objects.filter(corpus=corpus, kind=kind)
    if existing.exists():
        if not replace:
            raise error(f"corpus {corpus.name} already has {existing.count()} {what} (use replace to rebuild)")
        if judgements.filter(fold__in=existing).exists():
            raise error(f"the existing {what} already have {judgements.model._meta.verbose_name_plural}: "
                        "they cannot be replaced")
        existing.delete()


def store_fold_plans(corpus, kind, plans, name, seed, params, target):
    """Insert ``FoldPlan``s as Fold rows named ``{corpus} {name} {n}`` and their items (``target``:
    the FoldItem field the plan's keys go to, ``triplet`` or ``frame_annotation``)."""
    folds = Fold.objects.bulk_create(
        [Fold(corpus=corpus, kind=kind, index=p.index, name=f"{corpus.name} {name} {p.index + 1}",
              seed=seed, params=params) for p in plans]
    )
    insert_rows(FoldItem, ("fold", "position", target, "is_overlap"),
                [(fold.pk, i, key, o) for fold, plan in zip(folds, plans) for i, (key, _, o) in enumerate(plan.items)])
    return folds


@transaction.atomic
def create_folds(corpus, k=10, seed=0, policy="by_question", overlap=0.1, replace=False):
    """Split the corpus's triplets into K folds (pure ``build_folds``), then bulk insert them."""
    clear_folds(corpus, Fold.KIND_TRIPLET, replace, Label.objects.all())
    pairs = list(
        Triplet.objects.filter(question__corpus=corpus).order_by("question__position", "id").values_list("id", "question_id")
    )
    if not pairs:
        raise FoldError(f"corpus {corpus.name} has no triplets yet: import predictions first")
    plans = build_folds(pairs, k=k, seed=seed, policy=policy, overlap=overlap)
    params = {"k": k, "seed": seed, "policy": policy, "overlap": overlap}
    return store_fold_plans(corpus, Fold.KIND_TRIPLET, plans, "fold", seed, params, "triplet")


@transaction.atomic
def extend_folds(corpus, source="extend"):
    """Give triplets that are in no fold yet a place: their question's fold if it has one, else the
    lightest fold. They are interleaved (``folds.interleave``, seeded by the fold's seed and how
    many times it grew) over the fold's unjudged part, the items after the last one any of its
    annotators has labelled or skipped; the judged head keeps its order. Each fold that grows
    records ``{"n", "at", "source"}`` in ``params["added"]``. Returns the number of items added."""
    folds = {f.pk: f for f in Fold.objects.filter(corpus=corpus, kind=Fold.KIND_TRIPLET).annotate(n=Count("items"))}
    if not folds:
        raise FoldError(f"corpus {corpus.name} has no folds yet")
    loads = {pk: f.n for pk, f in folds.items()}
    home = dict(
        FoldItem.objects.filter(fold__in=folds, is_overlap=False).values_list("triplet__question_id", "fold_id")
    )
    loose = Triplet.objects.filter(question__corpus=corpus).exclude(fold_items__fold__in=folds).order_by("question__position", "id")
    new = defaultdict(list)
    for tid, qid in loose.values_list("id", "question_id"):
        fold_id = home.get(qid) or min(loads, key=lambda f: (loads[f], f))
        home.setdefault(qid, fold_id)
        new[fold_id].append((tid, qid, False))
        loads[fold_id] += 1
    now = timezone.now()
    for fold_id, items in new.items():
        _interleave_into(folds[fold_id], items, source, now)
    return sum(len(items) for items in new.values())


def _interleave_into(fold, new_items, source, now):
    items = list(FoldItem.objects.filter(fold=fold).order_by("position").values_list("id", "position", "triplet_id", "triplet__question_id"))
    judged = set(Label.objects.filter(triplet__fold_items__fold=fold, annotator__assignments__fold=fold)
                 .values_list("triplet_id", flat=True))
    last_judged = max((position for _, position, tid, _ in items if tid in judged), default=-1)
    head = [i for i in items if i[1] <= last_judged]
    tail = [(("old", pk), qid, False) for pk, position, _, qid in items if position > last_judged]
    added = fold.params.get("added", []) if isinstance(fold.params, dict) else []
    order = interleave(tail, [(("new", t), q, o) for t, q, o in new_items], random.Random(f"{fold.seed}:{fold.index}:{len(added)}"))
    start = (head[-1][1] + 1) if head else 0
    top = (items[-1][1] + 1) if items else 0
    # Two steps keep (fold, position) unique: move the tail out of the way, then into its places.
    FoldItem.objects.filter(fold=fold, position__gt=last_judged).update(position=F("position") + top + len(order))
    moved, created = [], []
    for offset, ((kind, key), _, is_overlap) in enumerate(order):
        if kind == "old":
            moved.append(FoldItem(id=key, position=start + offset))
        else:
            created.append(FoldItem(fold=fold, position=start + offset, triplet_id=key, is_overlap=is_overlap))
    FoldItem.objects.bulk_update(moved, ["position"], batch_size=BATCH)
    FoldItem.objects.bulk_create(created, batch_size=BATCH)
    fold.params = {**(fold.params or {}), "added": [*added, {"n": len(created), "at": now.isoformat(), "source": source}]}
    fold.save(update_fields=["params"])


def fold_triplet_sets(folds):
    sets = defaultdict(set)
    # Gold triplets are in every fold on purpose (annotation/gold.py): one label per annotator anyway.
    items = FoldItem.objects.filter(fold__in=folds).exclude(triplet__gold__isnull=False)
    for fold_id, tid, fid in items.values_list("fold_id", "triplet_id", "frame_annotation_id"):
        sets[fold_id].add(tid or ("frame", fid))
    return {f.pk: sets[f.pk] for f in folds}


@transaction.atomic
def assign_fold(fold, user):
    """Assign one fold to one annotator, refusing if they would see a triplet twice."""
    mine = list(Fold.objects.filter(assignments__annotator=user, corpus=fold.corpus, kind=fold.kind))
    sets = fold_triplet_sets(mine + [fold])
    clash = assignment_conflict(sets, [f.pk for f in mine], fold.pk)
    if clash:
        raise FoldError(
            f"{user.username} already has {len(clash)} of this fold's items in another fold; "
            "an annotator never judges the same item twice"
        )
    return Assignment.objects.get_or_create(fold=fold, annotator=user)[0]


@transaction.atomic
def assign_all(corpus, users, per_fold=1, kind=Fold.KIND_TRIPLET):
    folds = list(Fold.objects.filter(corpus=corpus, kind=kind).order_by("index"))
    unassigned = [f for f in folds if not f.assignments.exists()]
    if not unassigned:
        return {}
    users = list(users)
    if not users:
        raise FoldError("no annotators to assign")
    sets = fold_triplet_sets(folds)
    existing = defaultdict(lambda: [0, set()])
    for a in Assignment.objects.filter(fold__in=folds):
        existing[a.annotator_id][0] += 1
        existing[a.annotator_id][1].update(sets[a.fold_id])
    try:
        plan = assign_round_robin(
            {f.pk: sets[f.pk] for f in unassigned}, [u.pk for u in users], per_fold=per_fold, existing=existing
        )
    except ValueError as exc:
        raise FoldError(str(exc)) from None
    by_pk = {u.pk: u for u in users}
    Assignment.objects.bulk_create(
        [Assignment(fold_id=f, annotator=by_pk[u]) for f, us in plan.items() for u in us]
    )
    return plan


def annotators():
    return get_user_model().objects.filter(groups__name="annotator", is_active=True).order_by("username")


def _chunks(seq, n):
    for i in range(0, len(seq), n):
        yield seq[i:i + n]
