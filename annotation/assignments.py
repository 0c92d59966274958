"""Assigning folds to annotators: never the same item twice to one annotator (``folds.assignment_conflict``)."""

from __future__ import annotations

from collections import defaultdict

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from annotation import fold_kinds
from annotation.fold_store import FoldError
from annotation.folds import assign_round_robin, assignment_conflict
from annotation.models import Assignment, Fold, FoldItem
from core import roles


def fold_item_sets(folds):
    """``{fold id: set of its items}``, gold left out: each item as ``(field, id)``, the ``FoldItem``
    field its fold's kind names (``annotation.fold_kinds``: a triplet, a frame prediction, a question)."""
    sets = defaultdict(set)
    fields = {fold.kind: fold_kinds.get(fold.kind).item for fold in folds}
    # Gold triplets are in every fold on purpose (annotation/gold.py): one label per annotator anyway.
    items = FoldItem.objects.filter(fold__in=folds).exclude(triplet__gold__isnull=False)
    names = sorted(set(fields.values()))
    for fold_id, kind, *ids in items.values_list("fold_id", "fold__kind", *(f"{name}_id" for name in names)):
        sets[fold_id].add((fields[kind], ids[names.index(fields[kind])]))
    return {f.pk: sets[f.pk] for f in folds}


@transaction.atomic
def assign_fold(fold, user):
    """Assign one fold to one annotator, refusing if they would see a triplet twice."""
    mine = list(Fold.objects.filter(assignments__annotator=user, corpus=fold.corpus, kind=fold.kind))
    sets = fold_item_sets([*mine, fold])
    clash = assignment_conflict(sets, [f.pk for f in mine], fold.pk)
    if clash:
        raise FoldError(
            _(
                "%(user)s already has %(n)s of this fold's items in another fold; "
                "an annotator never judges the same item twice"
            )
            % {"user": user.username, "n": len(clash)}
        )
    return Assignment.objects.get_or_create(fold=fold, annotator=user)[0]


@transaction.atomic
def assign_all(corpus, users, *, per_fold=1, kind=Fold.KIND_TRIPLET):
    """Give every fold of ``kind`` that nobody has ``per_fold`` of ``users`` (round robin)."""
    folds = list(Fold.objects.filter(corpus=corpus, kind=kind).order_by("index"))
    unassigned = [f for f in folds if not f.assignments.exists()]
    if not unassigned:
        return {}
    users = list(users)
    if not users:
        raise FoldError(_("no annotators to assign"))
    sets = fold_item_sets(folds)
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
    Assignment.objects.bulk_create([Assignment(fold_id=f, annotator=by_pk[u]) for f, us in plan.items() for u in us])
    return plan


def annotators():
    """The active members of the ``annotator`` group, by username; crowd-study participants left out
    (their folds come from their study, never from an admin's assignment)."""
    users = get_user_model().objects.filter(groups__name=roles.ANNOTATOR, is_active=True)
    return users.exclude(groups__name=roles.PARTICIPANT).order_by("username")
