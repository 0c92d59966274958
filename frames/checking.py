"""Frame checks, one kind of human check (``frames.human_checks``; SPEC 1, paper Table 4): an annotator
rates the frame the proxy predicted for a question, and its frame elements, each full / partial /
erroneous. This module is the kind's record (:data:`FRAME_CHECK`) and what only it needs: the
question cut into trigger and FE marks, the ratings' check, the readiness of a corpus, the rows of
the report. The statistics over the checks (Table 4, agreement) are
``evaluation.science.frame_check_stats``.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext, gettext_lazy, ngettext_lazy
from django.utils.translation import gettext as _

from annotation import fold_kinds, pseudonyms
from annotation.label_titles import FRAME_CHECK_TITLES
from annotation.models import Fold
from frames import human_checks
from frames.folds import FrameFoldError, create_frame_folds
from frames.forms import BuildFrameFoldsForm
from frames.models import FrameCheck, FrameCheckEvent
from frames.proxy import normalize_text, word_pattern
from stats.labels import FRAME_CHECK_VALUES

# The keys of the page: 1/2/3 rate the frame, 4/5/6 its FEs.
FRAME_BUTTONS = [(k, v, FRAME_CHECK_TITLES[v]) for k, v in zip(("1", "2", "3"), FRAME_CHECK_VALUES)]
FE_BUTTONS = [(k, v, FRAME_CHECK_TITLES[v]) for k, v in zip(("4", "5", "6"), FRAME_CHECK_VALUES)]


class FrameCheckNotFound(human_checks.CheckNotFound):
    """No such frame fold among the user's assignments, or no such item in the fold."""


def _elements(annotation):
    """Predicted FEs with their definitions: [(name, span, core_type, definition)]."""
    defs = {}
    if annotation.frame_id:
        defs = {fe.name: fe for fe in annotation.frame.elements.all()}
    return [
        (name, span, getattr(defs.get(name), "core_type", ""), getattr(defs.get(name), "definition", ""))
        for name, span in (annotation.frame_elements or {}).items()
    ]


def save_frame_check(
    user, fold, item, *, frame_rating=None, fe_rating=None, skip=False, seconds=0.0, submission_id=None
):
    """Record a rating pair (or a skip) for ``item``; returns ``(check, changed)``.

    Both ratings are one of full / partial / erroneous; ``skip`` keeps existing ratings untouched.
    """
    answer = {"frame_rating": frame_rating, "fe_rating": fe_rating}
    return FRAME_CHECK.save(user, fold, item, answer=answer, skip=skip, seconds=seconds, submission_id=submission_id)


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
    rows = list(
        checks.order_by("id").values_list(
            "frame_annotation_id",
            "frame_annotation__question__external_id",
            "annotator__username",
            "frame_rating",
            "fe_rating",
        )
    )
    names = pseudonyms.annotator_labels(row[2] for row in rows)  # SPEC 18: reports say A01..An
    return [
        {"item": fa, "question_id": qid, "annotator": names[who], "frame_rating": fr, "fe_rating": er}
        for fa, qid, who, fr, er in rows
    ]


class FrameChecks(human_checks.CheckKind):
    """Frame checks: the item is a frame prediction, the verdict two ratings (keys 1/2/3 and 4/5/6)."""

    name, item, guidelines, not_found = Fold.KIND_FRAME, "frame_annotation", True, FrameCheckNotFound
    model, event_model, related = FrameCheck, FrameCheckEvent, ("frame_annotation__question", "frame_annotation__frame")
    build_form, build, errors = BuildFrameFoldsForm, staticmethod(create_frame_folds), (FrameFoldError,)
    readiness, label = staticmethod(frame_readiness), gettext_lazy("frame-check folds")
    words = fold_kinds.PageWords(
        title=gettext_lazy("Frame-check folds"),
        intro=gettext_lazy(
            "Built from the questions whose frame prediction succeeded (Corpora → Predict frames in the admin)."
        ),
        build=gettext_lazy("Build frame-check folds"),
        ready=ngettext_lazy("%(n)s question with a predicted frame.", "%(n)s questions with a predicted frame.", "n"),
        assign=gettext_lazy("Assign every unassigned frame-check fold, round robin"),
    )

    def read(self, post):
        return {"frame_rating": post.get("frame_rating"), "fe_rating": post.get("fe_rating")}

    def clean(self, item, answer):
        """Both ratings, each one of full / partial / erroneous."""
        ratings = answer.get("frame_rating"), answer.get("fe_rating")
        if not all(r in FRAME_CHECK_VALUES for r in ratings):
            raise ValueError(_("rate both the frame and the frame elements: full, partial or erroneous"))
        return dict(zip(("frame_rating", "fe_rating"), ratings))

    def shown(self, item, check):
        """The question with the trigger and the FEs marked, the predicted frame, its FEs, the buttons."""
        annotation = item.frame_annotation
        question = annotation.question
        return {
            "fa": annotation,
            "question": question,
            "segments": question_segments(question.question, annotation.trigger, annotation.frame_elements),
            "elements": _elements(annotation),
            "frame_buttons": FRAME_BUTTONS,
            "fe_buttons": FE_BUTTONS,
        }

    def rows(self, corpus):
        return frame_check_rows(corpus)


FRAME_CHECK = FrameChecks()
