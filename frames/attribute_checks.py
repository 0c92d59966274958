"""Attribute checks (issue 26 point 4): humans confirm or correct the derived context trigger and the
distance class (1 arc / 2 or more) of a question (SPEC 15, ``meta.derivation``).

Same shape as frame checks (``frames.checking``): folds of kind ``attribute`` whose items are the
questions with a derived trigger, built with ``annotation.folds.build_folds`` after an optional seeded
sample; one AttributeCheck per (question, annotator), every change kept as an event; an annotator
only reaches attribute folds assigned to them and names items by handle. The statistics are
``evaluation.science.attribute_check_stats``.
"""

from __future__ import annotations

import random
import re

from django.db import transaction
from django.db.models import Count, Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation import annotating, fold_kinds, judgements
from annotation.fold_store import clear_folds, store_fold_plans
from annotation.folds import build_folds
from annotation.models import Fold, FoldItem, Question
from frames.attributes import TRACE_KEY
from frames.models import (
    DIST_CLASSES,
    TRIGGER_ABSENT,
    TRIGGER_OTHER,
    TRIGGER_VERDICTS,
    AttributeCheck,
    AttributeCheckEvent,
)


class AttributeFoldError(ValueError):
    pass


class AttributeCheckNotFound(LookupError):
    """No such attribute fold among the user's assignments, or no such item in the fold."""


def marks(meta):
    """``(trigger, answer)`` character spans ``(start, end)`` of ``meta.derivation``, or None when the
    derivation found no context trigger (nothing to check). Pure.

    >>> marks({"derivation": {"trigger": {"start": 3, "end": 7}, "answer": {"start": 10, "end": 14}}})
    ((3, 7), (10, 14))
    >>> marks({"derivation": {"answer": {"start": 10, "end": 14}}}) is None
    True
    """
    trace = (meta or {}).get(TRACE_KEY) or {}
    trigger, answer = trace.get("trigger"), trace.get("answer")
    if not trigger or not answer:
        return None
    return (trigger["start"], trigger["end"]), (answer["start"], answer["end"])


def checkable(questions):
    """Ids of the ``(id, meta)`` pairs whose derivation has a trigger and an answer, in order. Pure."""
    return [qid for qid, meta in questions if marks(meta) is not None]


def passage_segments(context, trigger, answer):
    """The context cut into ``(start, text, kind)`` pieces, kind ``trigger``, ``answer`` or ``""``. Pure;
    spans outside the text or overlapping an earlier one are ignored.

    >>> passage_segments("Il a gagné le match.", (5, 10), (11, 19))
    [(0, 'Il a ', ''), (5, 'gagné', 'trigger'), (10, ' ', ''), (11, 'le match', 'answer'), (19, '.', '')]
    """
    spans = sorted(
        (s, e, kind) for (s, e), kind in ((trigger, "trigger"), (answer, "answer")) if 0 <= s < e <= len(context)
    )
    pieces, pos = [], 0
    for start, end, kind in spans:
        if start < pos:
            continue
        if start > pos:
            pieces.append((pos, context[pos:start], ""))
        pieces.append((start, context[start:end], kind))
        pos = end
    if pos < len(context):
        pieces.append((pos, context[pos:], ""))
    return pieces


def passage_words(segments):
    """Segments split into ``(start, end, text, kind, is_word)`` pieces, so that each word of the passage
    can be clicked to name the right trigger. Pure.

    >>> passage_words([(0, "Il a", ""), (4, " gagné", "trigger")])[:3]
    [(0, 2, 'Il', '', True), (2, 3, ' ', '', False), (3, 4, 'a', '', True)]
    """
    out = []
    for start, text, kind in segments:
        for m in _WORD.finditer(text):
            out.append((start + m.start(), start + m.end(), m.group(), kind, m.group()[0].isalnum()))
    return out


_WORD = re.compile(r"\w+|\W+")


def plan_attribute_folds(question_ids, *, k=1, seed=0, overlap=0.0, sample=None):
    """FoldPlans over question ids; ``sample``: check only that many, drawn with the seed. Pure."""
    ids = list(question_ids)
    if sample is not None:
        if sample < 1:
            raise AttributeFoldError(_("the sample must hold at least one question"))
        ids = sorted(random.Random(f"attribute-sample:{seed}").sample(ids, min(sample, len(ids))))
    if not ids:
        raise AttributeFoldError(_("no derived attribute to check"))
    return build_folds([(i, i) for i in ids], k=k, seed=seed, policy="by_question", overlap=overlap)


def _candidates(corpus):
    rows = Question.objects.filter(corpus=corpus).order_by("position", "id").values_list("id", "meta")
    return checkable(rows)


@transaction.atomic
def create_attribute_folds(corpus, *, k=1, seed=0, overlap=0.0, sample=None, replace=False):
    """Folds over the corpus's questions whose derivation found a context trigger."""
    clear_folds(
        corpus,
        Fold.KIND_ATTRIBUTE,
        replace=replace,
        judgements=AttributeCheck.objects.all(),
        error=AttributeFoldError,
        what="attribute folds",
    )
    ids = _candidates(corpus)
    if not ids:
        raise AttributeFoldError(
            _(
                "corpus %(name)s has no derived attributes yet: derive them first "
                "(Corpora -> derive attributes... in the admin)"
            )
            % {"name": corpus.name}
        )
    plans = plan_attribute_folds(ids, k=k, seed=seed, overlap=overlap, sample=sample)
    params = {"k": k, "seed": seed, "overlap": overlap, "sample": sample}
    return store_fold_plans(
        corpus, Fold.KIND_ATTRIBUTE, plans, name="attributes", seed=seed, params=params, target="question"
    )


def readiness(corpus):
    n = len(_candidates(corpus))
    if n:
        return n, None
    from django.urls import reverse

    return 0, (
        _("No question of this corpus has derived attributes yet: derive attributes first"),
        reverse("admin:annotation_derive_attributes", args=[corpus.pk]),
    )


def get_assigned_fold(user, fold_id):
    fold = annotating.assigned_folds(user, kind=Fold.KIND_ATTRIBUTE).filter(pk=fold_id).first()
    if fold is None:
        raise AttributeCheckNotFound("no such fold among your assignments")
    return fold


def get_fold_item(fold, handle):
    item = FoldItem.objects.filter(handle=handle, fold=fold).select_related("question").first()
    if item is None:
        raise AttributeCheckNotFound("no such item in this fold")
    return item


def fold_progress(fold, user):
    mine = Q(question__attribute_checks__annotator=user)
    counts = FoldItem.objects.filter(fold=fold).aggregate(
        total=Count("id", distinct=True),
        done=Count(
            "question__attribute_checks", filter=mine & Q(question__attribute_checks__trigger_verdict__isnull=False)
        ),
        skipped=Count(
            "question__attribute_checks",
            filter=mine
            & Q(question__attribute_checks__trigger_verdict__isnull=True, question__attribute_checks__skipped=True),
        ),
    )
    return annotating.FoldProgress(done=counts["done"], skipped=counts["skipped"], total=counts["total"])


def judged(fold, annotator):
    return AttributeCheck.objects.filter(
        annotator=annotator, trigger_verdict__isnull=False, question__fold_items__fold=fold
    ).count()


def register_fold_kind():
    """Tell annotation's fold pages about attribute folds (``FramesConfig.ready``)."""
    from frames.forms import BuildAttributeFoldsForm

    fold_kinds.register(
        Fold.KIND_ATTRIBUTE,
        fold_kinds.FoldKind(
            progress=fold_progress,
            judged=judged,
            build_action="build_attributes",
            build_form=BuildAttributeFoldsForm,
            build=create_attribute_folds,
            errors=(AttributeFoldError,),
            label=gettext_lazy("attribute-check folds"),
            page="attribute-check",
            readiness=readiness,
        ),
    )


def next_item(fold, user):
    items = FoldItem.objects.filter(fold=fold).select_related("question").order_by("position")
    todo = items.exclude(question__attribute_checks__annotator=user).first()
    if todo is not None:
        return todo
    return items.filter(
        question__attribute_checks__annotator=user, question__attribute_checks__trigger_verdict__isnull=True
    ).first()


def previous_item(fold, user, before_position=None):
    items = FoldItem.objects.filter(fold=fold, question__attribute_checks__annotator=user).select_related("question")
    if before_position is not None:
        items = items.filter(position__lt=before_position)
    return items.order_by("-position").first()


def item_after(fold, position):
    return (
        FoldItem.objects.filter(fold=fold, position__gt=position)
        .select_related("question")
        .order_by("position")
        .first()
    )


def current_check(item, user):
    return AttributeCheck.objects.filter(question_id=item.question_id, annotator=user).first()


def validate(context_length, *, verdict, start, end, dist):
    """The error message of a verdict, or None. Pure: ``other`` needs a span inside the context.

    >>> validate(20, verdict="other", start=3, end=2, dist="1")
    'mark the right trigger word in the passage'
    >>> validate(20, verdict="correct", start=None, end=None, dist="1") is None
    True
    """
    if verdict not in TRIGGER_VERDICTS:
        return _("say whether the marked word is the trigger")
    if dist not in DIST_CLASSES and verdict != TRIGGER_ABSENT:
        return _("choose the distance class: 1 arc or 2 or more")
    if verdict == TRIGGER_OTHER and (start is None or end is None or not 0 <= start < end <= context_length):
        return _("mark the right trigger word in the passage")
    return None


def save_attribute_check(user, fold, item, *, answer, skip=False, seconds=0.0, submission_id=None):
    """Record a verdict (or a skip) for ``item``; returns ``(check, changed)``. ``answer`` holds
    ``verdict``, ``start``, ``end`` (the right word's characters, for ``other``) and ``dist``;
    ``ValueError`` (its message for the annotator) when it is incomplete or out of the passage."""
    verdict, start, end, dist = (answer.get(k) for k in ("verdict", "start", "end", "dist"))
    if not skip:
        error = validate(len(item.question.context), verdict=verdict, start=start, end=end, dist=dist)
        if error:
            raise ValueError(error)
        if verdict != TRIGGER_OTHER:
            start = end = None
        if verdict == TRIGGER_ABSENT:
            dist = None
    return judgements.save(
        AttributeCheck,
        AttributeCheckEvent,
        "attribute_check",
        keys={"question_id": item.question_id, "annotator": user},
        sent=judgements.Submission(
            {"trigger_verdict": verdict, "trigger_start": start, "trigger_end": end, "dist_class": dist},
            skip=skip,
            seconds=seconds,
            submission_id=submission_id,
        ),
        fold=fold,
    )


def attribute_check_rows(corpus):
    """Rows for ``evaluation.science.attribute_check_stats``."""
    checks = AttributeCheck.objects.filter(question__corpus=corpus).order_by("id")
    return [
        {
            "question_id": qid,
            "annotator": who,
            "derived_dist": dist,
            "trigger_verdict": verdict,
            "dist_class": dclass,
        }
        for qid, who, dist, verdict, dclass in checks.values_list(
            "question__external_id", "annotator__username", "question__dist", "trigger_verdict", "dist_class"
        )
    ]
