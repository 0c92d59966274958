"""Checking frames, the annotator's side: the loop over a frame fold (next item, progress, saving a
frame check; SPEC 1, paper Table 4) and the rows of all checks for the report.

Mirrors ``annotation.annotating`` (triplet labels): one FrameCheck per (frame annotation, annotator)
under a unique constraint, every change kept as a FrameCheckEvent, a repeated ``submission_id`` is a
no-op, and an annotator only reaches folds of kind ``frame`` assigned to them. A fold or item out of
reach raises :class:`FrameCheckNotFound` (the views answer 404). The statistics over the checks
(Table 4, agreement) are ``evaluation.science.frame_check_stats``.
"""

from __future__ import annotations

import re

from django.db.models import Count, Q
from django.utils.translation import gettext, gettext_lazy

from annotation import annotating, fold_kinds, fold_sql, judgements
from annotation.labels import FRAME_CHECK_VALUES
from annotation.models import Fold, FoldItem
from core import roles
from frames.models import FrameCheck, FrameCheckEvent
from frames.proxy import normalize_text, word_pattern

_RELATED = ("frame_annotation__question", "frame_annotation__frame")


class FrameCheckNotFound(LookupError):
    """No such frame fold among the user's assignments, or no such item in the fold."""


def get_assigned_fold(user, fold_id):
    """The frame fold if it is assigned to ``user``; :class:`FrameCheckNotFound` otherwise."""
    fold = annotating.assigned_folds(user, kind=Fold.KIND_FRAME).filter(pk=fold_id).first()
    if fold is None:
        raise FrameCheckNotFound("no such fold among your assignments")
    return fold


def get_fold_item(fold, handle):
    """The item of ``fold`` an annotator names by its ``handle`` (never its id, as on the triplet pages)."""
    item = FoldItem.objects.filter(handle=handle, fold=fold).select_related(*_RELATED).first()
    if item is None:
        raise FrameCheckNotFound("no such item in this fold")
    return item


def guidelines_news(fold, user):
    """What changed in the corpus guidelines since ``user`` last read them, once (as on the triplet
    pages: ``annotation.annotating.guidelines_news``)."""
    found = fold_sql.assignment(user.pk, fold.pk, kind=Fold.KIND_FRAME, role=roles.ANNOTATOR)
    return annotating.guidelines_news(found[0]) if found else []


def fold_progress(fold, user):
    mine = Q(frame_annotation__checks__annotator=user)
    counts = FoldItem.objects.filter(fold=fold).aggregate(
        total=Count("id", distinct=True),
        done=Count("frame_annotation__checks", filter=mine & Q(frame_annotation__checks__frame_rating__isnull=False)),
        skipped=Count(
            "frame_annotation__checks",
            filter=mine
            & Q(frame_annotation__checks__frame_rating__isnull=True, frame_annotation__checks__skipped=True),
        ),
    )
    return annotating.FoldProgress(done=counts["done"], skipped=counts["skipped"], total=counts["total"])


def judged(fold, annotator):
    """Items of ``fold`` whose frame ``annotator`` has rated (the admin's fold page)."""
    return FrameCheck.objects.filter(
        annotator=annotator, frame_rating__isnull=False, frame_annotation__fold_items__fold=fold
    ).count()


def register_fold_kind():
    """Tell annotation's fold pages about frame folds (``FramesConfig.ready``)."""
    from frames.folds import FrameFoldError, create_frame_folds
    from frames.forms import BuildFrameFoldsForm

    fold_kinds.register(
        Fold.KIND_FRAME,
        fold_kinds.FoldKind(
            progress=fold_progress,
            judged=judged,
            build_action="build_frames",
            build_form=BuildFrameFoldsForm,
            build=create_frame_folds,
            errors=(FrameFoldError,),
            label=gettext_lazy("frame-check folds"),
            page="frame-check",
            readiness=frame_readiness,
        ),
    )


def frame_readiness(corpus):
    """(questions with a predicted frame, None) or, when there are none, (0, (what to do first, where))."""
    from django.urls import reverse

    from core.models import Job
    from frames.models import FrameAnnotation
    from frames.outcomes import DONE

    annotations = FrameAnnotation.objects.filter(question__corpus=corpus)
    done = annotations.filter(outcome=DONE).count()
    if done:
        return done, None
    running = (
        Job.objects.filter(kind="frames", params__corpus=corpus.name, status__in=[Job.CREATED, Job.RUNNING])
        .order_by("-id")
        .first()
    )
    if running:
        return 0, (
            gettext("Frame prediction is under way (job %(pk)s): follow it") % {"pk": running.pk},
            reverse("admin:core_job_change", args=[running.pk]),
        )
    tried = annotations.count()
    text = (
        gettext(
            "Frame prediction gave no usable frame for the %(n)s questions tried: see its job's outcomes, "
            "then predict frames again (another model, endpoint or lexicon)"
        )
        % {"n": tried}
        if tried
        else gettext("No question of this corpus has a predicted frame yet: predict frames first")
    )
    return 0, (text, reverse("admin:annotation_predict_frames", args=[corpus.pk]))


def next_item(fold, user):
    """First item not rated yet; when only skipped ones are left, the first skipped one."""
    items = FoldItem.objects.filter(fold=fold).select_related(*_RELATED).order_by("position")
    todo = items.exclude(frame_annotation__checks__annotator=user).first()
    if todo is not None:
        return todo
    return items.filter(
        frame_annotation__checks__annotator=user, frame_annotation__checks__frame_rating__isnull=True
    ).first()


def previous_item(fold, user, before_position=None):
    items = FoldItem.objects.filter(fold=fold, frame_annotation__checks__annotator=user).select_related(*_RELATED)
    if before_position is not None:
        items = items.filter(position__lt=before_position)
    return items.order_by("-position").first()


def item_after(fold, position):
    return (
        FoldItem.objects.filter(fold=fold, position__gt=position).select_related(*_RELATED).order_by("position").first()
    )


def current_check(item, user):
    return FrameCheck.objects.filter(frame_annotation_id=item.frame_annotation_id, annotator=user).first()


def save_frame_check(
    user, fold, item, *, frame_rating=None, fe_rating=None, skip=False, seconds=0.0, submission_id=None
):
    """Record a rating pair (or a skip) for ``item``; returns ``(check, changed)``.

    Both ratings are one of full / partial / erroneous; ``skip`` keeps existing ratings untouched.
    """
    if not skip and (frame_rating not in FRAME_CHECK_VALUES or fe_rating not in FRAME_CHECK_VALUES):
        raise ValueError(f"frame and FE ratings must each be one of {', '.join(FRAME_CHECK_VALUES)}")
    return judgements.save(
        FrameCheck,
        FrameCheckEvent,
        "frame_check",
        keys={"frame_annotation_id": item.frame_annotation_id, "annotator": user},
        sent=judgements.Submission(
            {"frame_rating": frame_rating, "fe_rating": fe_rating},
            skip=skip,
            seconds=seconds,
            submission_id=submission_id,
        ),
        fold=fold,
    )


def question_segments(question, trigger="", frame_elements=None):
    """The question cut into ``(text, kind, name)`` pieces for display: kind ``trigger``, ``fe`` or ``""``.

    Pure. The trigger is found as a whole word; each FE span where it first occurs, case-insensitive;
    overlapping spans keep the earlier (then longer) one.
    """
    text = question or ""
    marks = []
    if trigger:
        m = word_pattern(trigger).search(normalize_text(text))
        if m:
            marks.append((m.start(), m.end(), "trigger", trigger))
    for name, given in (frame_elements or {}).items():
        span = (given or "").strip()
        if not span:
            continue
        m = re.search(re.escape(normalize_text(span)), normalize_text(text), re.IGNORECASE)
        if m:
            marks.append((m.start(), m.end(), "fe", name))
    marks.sort(key=lambda x: (x[0], -(x[1] - x[0])))
    pieces, pos = [], 0
    for start, end, kind, name in marks:
        if start < pos:
            continue
        if start > pos:
            pieces.append((text[pos:start], "", ""))
        pieces.append((text[start:end], kind, name))
        pos = end
    if pos < len(text):
        pieces.append((text[pos:], "", ""))
    return pieces


def frame_check_rows(corpus, lexicon=None):
    """Rows for ``evaluation.science.frame_check_stats``: ``{item, question_id, annotator, frame_rating,
    fe_rating}``."""
    checks = FrameCheck.objects.filter(frame_annotation__question__corpus=corpus)
    if lexicon is not None:
        checks = checks.filter(frame_annotation__lexicon=lexicon)
    return [
        {"item": fa, "question_id": qid, "annotator": who, "frame_rating": fr, "fe_rating": er}
        for fa, qid, who, fr, er in checks.order_by("id").values_list(
            "frame_annotation_id",
            "frame_annotation__question__external_id",
            "annotator__username",
            "frame_rating",
            "fe_rating",
        )
    ]
