"""The annotator's work loop over one fold: which item is next, progress, and saving a judgement.

Kept apart from the views so that the browser page, the REST API and the load benchmark share one
implementation. Guarantees:
- one Label row per (triplet, annotator), whatever the number of tabs or repeated clicks: the
  upsert runs under the unique constraint, and a repeated ``submission_id`` is a no-op;
- every change is kept as a LabelEvent (history), the Label holds the latest value;
- an annotator works only on folds assigned to them (``get_assigned_fold``, ``open_fold``); any
  other fold or item raises ``NotFound``, which the pages and the API answer with 404.

The judge round trip (``judge``) never counts or scans the annotator's past: progress and the
position to search the next item from live on the ``Assignment`` row, recounted when the fold is
opened (``refresh_progress``) and moved in the transaction that saves each label.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count, F, Q

from annotation import guidelines, judgements, sql
from annotation.models import Assignment, Corpus, Fold, FoldItem, Label, LabelEvent
from core import roles
from stats.labels import LABEL_VALUES


class NotFound(LookupError):
    """No such fold among the user's assignments, or no such item in the fold.

    The pages answer 404 (``core.middleware.DomainErrorMiddleware``), the API 404 with the
    message as ``detail``; neither hints whether the fold exists for someone else.
    """


def get_assigned_fold(user, fold_id, kind=Fold.KIND_TRIPLET):
    """The fold if it is assigned to ``user``; ``NotFound`` otherwise (no hint that it exists)."""
    fold = Fold.objects.filter(pk=fold_id, kind=kind, assignments__annotator=user).select_related("corpus").first()
    if fold is None:
        raise NotFound("no such fold among your assignments")
    return fold


def open_fold(user, fold_id, kind=Fold.KIND_TRIPLET):
    """``user``'s Assignment of the fold, with the fold and the annotator role checked in one query.

    ``PermissionDenied`` (403) when ``user`` is not an annotator (as ``annotator_required``),
    ``NotFound`` (404) when the fold is not theirs. Progress counters that were never counted are counted here.
    """
    found = sql.assignment(user.pk, fold_id, kind=kind, role=roles.ANNOTATOR)
    if found is None:
        if not roles.is_annotator(user):
            raise PermissionDenied
        raise NotFound("no such fold among your assignments")
    assignment, in_role = found
    if not in_role:
        raise PermissionDenied
    if assignment.done is None:
        refresh_progress(assignment)
    return assignment


def _id(obj):
    return getattr(obj, "pk", obj)


def get_fold_item(fold, item_id, user=None):
    """The item of ``fold``; with ``user``, also their label (``my_label``) and whether they judged
    an item before it (``has_previous``)."""
    item = sql.fold_item("by_id", _id(fold), _id(user), item_id)
    if item is None:
        raise NotFound("no such item in this fold")
    return item


def item_by_handle(fold, handle, user=None):
    """The item of ``fold`` that annotators name ``handle`` (URLs, forms, the API), as ``get_fold_item``."""
    item = sql.fold_item("by_handle", _id(fold), _id(user), handle)
    if item is None:
        raise NotFound("no such item in this fold")
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
        skipped=Count(
            "triplet__labels", filter=mine & Q(triplet__labels__value__isnull=True, triplet__labels__skipped=True)
        ),
    )
    return FoldProgress(done=counts["done"], skipped=counts["skipped"], total=counts["total"])


def assignment_progress(assignment):
    """Progress from the counters of the Assignment (no query)."""
    return FoldProgress(done=assignment.done or 0, skipped=assignment.skipped, total=assignment.total)


def refresh_progress(assignment):
    """Recount the Assignment's counters and cursor from the labels (when the annotator opens a fold).

    Labels written outside the judge loop (imports, the admin) and items appended to the fold are
    taken into account here. The Assignment row is locked while counting, so a judgement committed
    meanwhile is either counted or adds itself to the new value, never lost.
    """
    with transaction.atomic():
        Assignment.objects.select_for_update().filter(pk=assignment.pk).values_list("pk").first()
        progress = fold_progress(assignment.fold, assignment.annotator_id)
        todo = sql.fold_item("todo_from", assignment.fold_id, assignment.annotator_id, 0)
        cursor = todo.position if todo is not None else progress.total and _last_position(assignment.fold_id) + 1
        Assignment.objects.filter(pk=assignment.pk).update(
            done=progress.done, skipped=progress.skipped, total=progress.total, cursor=cursor
        )
    assignment.done, assignment.skipped, assignment.total, assignment.cursor = (
        progress.done,
        progress.skipped,
        progress.total,
        cursor,
    )
    assignment.recounted = True
    return progress


def recounted(assignment):
    """``refresh_progress`` unless this request recounted the Assignment already (``open_fold`` does for
    a fold opened for the first time): the first page of a new annotator or participant counts once."""
    if not getattr(assignment, "recounted", False):
        refresh_progress(assignment)
    return assignment


def _last_position(fold_id):
    return (
        FoldItem.objects.filter(fold_id=fold_id).order_by("-position").values_list("position", flat=True).first() or 0
    )


def next_item(fold, user):
    """First item without a judgement; when only skipped ones are left, the first skipped one.

    Searches the whole fold (a page open, the API); the judge loop searches from the cursor.
    The item carries ``my_label`` and ``has_previous``.
    """
    return sql.fold_item("todo_from", _id(fold), _id(user), 0) or sql.fold_item("first_skipped", _id(fold), _id(user))


def previous_item(fold, user, before_position=None):
    """The judged item just before ``before_position`` (or the last judged one): for going back."""
    before = before_position if before_position is not None else 2**31 - 1
    return sql.fold_item("judged_before", _id(fold), _id(user), before)


def item_after(fold, user, position):
    return sql.fold_item("after", _id(fold), _id(user), position)


def choose_next(item, *, skip, revisit, next_todo, after):
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


def judge(assignment, item, *, value=None, skip=False, seconds=0.0, submission_id=None, revisit=False, source="ui"):
    """Save the judgement of ``item`` and choose the item to show next, in one transaction.

    Returns ``(label, changed, next_item)``; ``next_item`` (or None when the fold is finished) carries
    ``my_label`` and ``has_previous``, and ``assignment`` holds the new progress. The next item to do
    is searched from ``assignment.cursor`` on, so the cost does not grow with the annotator's past.
    """
    fold_id, user = assignment.fold_id, assignment.annotator_id
    outcome = {}

    def on_saved(before, row):
        d_done, d_skipped = _progress_delta(before, judgements.state(row, ("value",)))
        todo = sql.fold_item("todo_from", fold_id, user, assignment.cursor)
        if todo is None and assignment.cursor:
            # Nothing left after the cursor: items added to the fold meanwhile (late predictions,
            # gold items) may sit before it, so look once from the start before saying "finished".
            todo = sql.fold_item("todo_from", fold_id, user, 0)
        first = todo if todo is not None else sql.fold_item("first_skipped", fold_id, user)
        nxt = choose_next(
            item,
            skip=skip,
            revisit=revisit,
            next_todo=lambda: first,
            after=lambda position: item_after(fold_id, user, position),
        )
        cursor = todo.position if todo is not None else assignment.cursor
        if (d_done, d_skipped, cursor) != (0, 0, assignment.cursor):
            sql.move_assignment(assignment.pk, d_done=d_done, d_skipped=d_skipped, cursor=cursor)
            assignment.done += d_done
            assignment.skipped += d_skipped
            assignment.cursor = cursor
        outcome["next"] = nxt

    label, changed = save_judgement(
        user,
        assignment.fold,
        item,
        value=value,
        skip=skip,
        seconds=seconds,
        submission_id=submission_id,
        source=source,
        on_saved=on_saved,
    )
    if outcome["next"] is None and changed:  # the fold is done: its labels may complete an active design's pilot
        _maybe_open_main(fold_id)
    return label, changed, outcome["next"]


def _progress_delta(before, after):
    """Change of (done, skipped) when a label goes from ``before`` (None: no label) to ``after``."""
    judged_before, skipped_before = before if before is not None else (False, False)
    judged_after, skipped_after = after
    return int(judged_after) - int(judged_before), int(skipped_after) - int(skipped_before)


def guidelines_news(assignment):
    """What changed in the corpus guidelines since the annotator last read them: ``(kind, line)``
    pairs (``guidelines.changes``), given once; the new text counts as read from then on, for every
    fold of theirs in the corpus. When their reading is not known yet (a fold opened before the
    platform recorded it), the current text is recorded and nothing is announced."""
    changed = getattr(assignment, "guidelines_changed", False)
    if changed is False:
        return []
    corpus_id = assignment.fold.corpus_id
    current = Corpus.objects.filter(pk=corpus_id).values_list("guidelines", flat=True).first() or ""
    # Not known yet (None) needs no read: nothing is announced then.
    seen = changed and Assignment.objects.filter(pk=assignment.pk).values_list("guidelines_seen", flat=True).first()
    Assignment.objects.filter(annotator_id=assignment.annotator_id, fold__corpus_id=corpus_id).update(
        guidelines_seen=current
    )
    assignment.guidelines_changed = False
    return guidelines.changes(seen, current) if changed and seen != current else []


def current_label(item, user):
    return Label.objects.filter(triplet_id=item.triplet_id, annotator=user).first()


def new_submission_id():
    return uuid.uuid4().hex


def save_judgement(user, fold, item, *, value=None, source="ui", on_saved=None, **submission):
    """Record a label (or a skip) for ``item``; returns ``(label, changed)``.

    ``value`` is one of correct / partial / incorrect; ``submission`` holds ``skip`` (keeps an
    existing value untouched), ``seconds`` and ``submission_id`` (:class:`judgements.Submission`).
    Without ``on_saved`` (the REST API) the progress counters of the assignment are moved here, in
    the same transaction; ``judge`` moves them itself together with the cursor.
    """
    sent = judgements.Submission({"value": value}, **submission)
    if not sent.skip and value not in LABEL_VALUES:
        raise ValueError(f"label must be one of {', '.join(LABEL_VALUES)}")
    user_id = getattr(user, "pk", user)

    def move_counters(before, row):
        d_done, d_skipped = _progress_delta(before, judgements.state(row, ("value",)))
        if d_done or d_skipped:
            Assignment.objects.filter(fold=fold, annotator_id=user_id, done__isnull=False).update(
                done=F("done") + d_done, skipped=F("skipped") + d_skipped
            )

    label, changed = judgements.save(
        Label,
        LabelEvent,
        "label",
        keys={"triplet_id": item.triplet_id, "annotator_id": user_id},
        sent=sent,
        fold=fold,
        defaults={"source": source},
        on_saved=on_saved or move_counters,
    )
    if on_saved is None and changed and not sent.skip:  # the REST API; the page checks at the end of a fold
        _maybe_open_main(fold.pk)
    return label, changed


def _maybe_open_main(fold_id):
    """A label may complete the pilot of an active design: open its main sample (SPEC 12)."""
    fold = Fold.objects.filter(pk=fold_id).select_related("corpus").first()
    plan = fold.params.get("design") if fold is not None and isinstance(fold.params, dict) else None
    if not plan or "p1" not in plan or plan.get("main_open"):
        return
    from annotation.fold_store import open_main_if_ready

    open_main_if_ready(fold.corpus)


def assigned_folds(user, kind=None):
    qs = (
        Fold.objects.filter(assignments__annotator=user)
        .select_related("corpus")
        .order_by("corpus__name", "kind", "index")
    )
    if kind:
        qs = qs.filter(kind=kind)
    return qs
