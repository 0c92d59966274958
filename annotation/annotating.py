"""The annotator's work loop over one fold: which item is next, progress, and saving a judgement.

Kept apart from the views so that the browser page, the REST API and the load benchmark share one
implementation. Guarantees:
- one Label row per (triplet, annotator), whatever the number of tabs or repeated clicks: the
  upsert runs under the unique constraint, and a repeated ``submission_id`` is a no-op;
- every change is kept as a LabelEvent (history), the Label holds the latest value;
- an annotator works only on folds assigned to them (``get_assigned_fold``).
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db.models import Exists, OuterRef
from django.db.models import Count, Q
from django.http import Http404

from annotation import judgements
from annotation.labels import LABEL_VALUES
from annotation.models import Assignment, Fold, FoldItem, Label, LabelEvent



def get_assigned_fold(user, fold_id, kind=Fold.KIND_TRIPLET):
    """The fold if it is assigned to ``user``; 404 otherwise (no hint that it exists)."""
    fold = Fold.objects.filter(pk=fold_id, kind=kind, assignments__annotator=user).select_related("corpus").first()
    if fold is None:
        raise Http404("no such fold among your assignments")
    return fold


def get_fold_item(fold, item_id):
    item = FoldItem.objects.filter(pk=item_id, fold=fold).select_related("triplet__question").first()
    if item is None:
        raise Http404("no such item in this fold")
    return item


@dataclass
class FoldProgress:
    done: int
    skipped: int
    total: int

    @property
    def percent(self):
        return round(100 * self.done / self.total) if self.total else 100

    @property
    def finished(self):
        return self.done >= self.total


def fold_progress(fold, user):
    # One query (it runs on every judgement): a fold holds a triplet once, an annotator has one label per triplet.
    mine = Q(triplet__labels__annotator=user)
    counts = FoldItem.objects.filter(fold=fold).aggregate(
        total=Count("id", distinct=True),
        done=Count("triplet__labels", filter=mine & Q(triplet__labels__value__isnull=False)),
        skipped=Count("triplet__labels", filter=mine & Q(triplet__labels__value__isnull=True, triplet__labels__skipped=True)),
    )
    return FoldProgress(done=counts["done"], skipped=counts["skipped"], total=counts["total"])


def next_item(fold, user):
    """First item without a judgement; when only skipped ones are left, the first skipped one."""
    mine = Label.objects.filter(triplet_id=OuterRef("triplet_id"), annotator=user)
    items = FoldItem.objects.filter(fold=fold).select_related("triplet__question").order_by("position")
    todo = items.filter(~Exists(mine)).first()
    if todo is not None:
        return todo
    return items.filter(Exists(mine.filter(value__isnull=True))).first()


def previous_item(fold, user, before_position=None):
    """The judged item just before ``before_position`` (or the last judged one): for going back."""
    items = FoldItem.objects.filter(fold=fold, triplet__labels__annotator=user).select_related("triplet__question")
    if before_position is not None:
        items = items.filter(position__lt=before_position)
    return items.order_by("-position").first()


def item_after(fold, user, position):
    return FoldItem.objects.filter(fold=fold, position__gt=position).select_related("triplet__question").order_by("position").first()


def choose_next(item, skip, revisit, next_todo, after):
    """The item to show once ``item`` has been judged (same rule for every task type).

    ``next_todo()`` gives the first item still to do, ``after(position)`` the item following a
    position. Going back and changing (``revisit``) steps forward through judged items until it
    meets the next one to do; a skip never shows the skipped item again straight away.
    """
    nxt = next_todo()
    if revisit:
        following = after(item.position)
        if following is not None and nxt is not None and following.position < nxt.position:
            return following
        return nxt
    if nxt is not None and nxt.pk == item.pk and skip:
        return after(item.position) or nxt
    return nxt


def current_label(item, user):
    return Label.objects.filter(triplet_id=item.triplet_id, annotator=user).first()


def new_submission_id():
    return uuid.uuid4().hex


def save_judgement(user, fold, item, value=None, skip=False, seconds=0.0, submission_id=None, source="ui"):
    """Record a label (or a skip) for ``item``; returns ``(label, changed)``.

    ``value`` is one of correct / partial / incorrect; ``skip`` keeps an existing value untouched.
    """
    if not skip and value not in LABEL_VALUES:
        raise ValueError(f"label must be one of {', '.join(LABEL_VALUES)}")
    return judgements.save(
        Label, LabelEvent, "label", {"triplet_id": item.triplet_id, "annotator": user}, {"value": value},
        skip=skip, fold=fold, seconds=seconds, submission_id=submission_id, defaults={"source": source},
    )


def assigned_folds(user, kind=None):
    qs = Fold.objects.filter(assignments__annotator=user).select_related("corpus").order_by("corpus__name", "kind", "index")
    if kind:
        qs = qs.filter(kind=kind)
    return qs


def is_assigned(user, fold):
    return Assignment.objects.filter(fold=fold, annotator=user).exists()
