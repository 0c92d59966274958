"""The frame-check page: an annotator rates a predicted frame and its FEs (full / partial / erroneous).

Same shape as the triplet page (``annotation.views.annotate``): one POST saves the ratings and returns
the next item as an htmx fragment; folds of kind ``frame`` assigned to the user only.
Keys: 1/2/3 rate the frame, 4/5/6 rate the FEs; once both are chosen the pair is saved; Enter saves
the choice shown, S skips, B goes back. A fold or item out of reach is a 404.
"""

from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST, require_safe

from annotation import annotating, judgements
from annotation.label_titles import FRAME_CHECK_TITLES
from annotation.labels import FRAME_CHECK_VALUES
from core import ids
from core.permissions import annotator_required
from frames import checking

FRAME_KEYS = dict(zip(("1", "2", "3"), FRAME_CHECK_VALUES))
FE_KEYS = dict(zip(("4", "5", "6"), FRAME_CHECK_VALUES))
FRAME_BUTTONS = [(k, v, FRAME_CHECK_TITLES[v]) for k, v in FRAME_KEYS.items()]
FE_BUTTONS = [(k, v, FRAME_CHECK_TITLES[v]) for k, v in FE_KEYS.items()]


def _conflict_response(conflict):
    """409 for a submission id reused with other values, as on the triplet page (never dropped silently)."""
    return HttpResponse(str(conflict), status=409, content_type="text/plain; charset=utf-8")


def _elements(annotation):
    """Predicted FEs with their definitions: [(name, span, core_type, definition)]."""
    defs = {}
    if annotation.frame_id:
        defs = {fe.name: fe for fe in annotation.frame.elements.all()}
    return [
        (name, span, getattr(defs.get(name), "core_type", ""), getattr(defs.get(name), "definition", ""))
        for name, span in (annotation.frame_elements or {}).items()
    ]


def _item_context(request, fold, item):
    annotation = item.frame_annotation if item else None
    check = checking.current_check(item, request.user) if item else None
    before = item.position if item else None
    news = checking.guidelines_news(fold, request.user)
    return {
        "fold": fold,
        "item": item,
        "fa": annotation,
        "question": annotation.question if annotation else None,
        "segments": checking.question_segments(
            annotation.question.question, annotation.trigger, annotation.frame_elements
        )
        if annotation
        else [],
        "elements": _elements(annotation) if annotation else [],
        "check": check,
        "frame_buttons": FRAME_BUTTONS,
        "fe_buttons": FE_BUTTONS,
        "progress": checking.fold_progress(fold, request.user),
        "submission_id": annotating.new_submission_id(),
        "has_previous": checking.previous_item(fold, request.user, before) is not None,
        "guidelines_news": news,
        # the corpus guidelines beside the item are refreshed with the news (htmx out-of-band swap)
        "guidelines_now": fold.corpus.guidelines if news and request.htmx else None,
    }


def _render_item(request, fold, item, *, status=200):
    template = "frames/frame_check_item.html" if request.htmx else "frames/frame_check.html"
    return render(request, template, _item_context(request, fold, item), status=status)


@annotator_required
@require_safe
def check(request, fold_id):
    fold = checking.get_assigned_fold(request.user, fold_id)
    return _render_item(request, fold, checking.next_item(fold, request.user))


@annotator_required
@require_safe
def show_item(request, fold_id, handle):
    fold = checking.get_assigned_fold(request.user, fold_id)
    return _render_item(request, fold, checking.get_fold_item(fold, handle))


@annotator_required
@require_safe
def previous(request, fold_id):
    fold = checking.get_assigned_fold(request.user, fold_id)
    item = checking.previous_item(fold, request.user, ids.parse_int(request.GET.get("before")))
    return _render_item(request, fold, item or checking.next_item(fold, request.user))


@annotator_required
@require_POST
def rate(request, fold_id):
    fold = checking.get_assigned_fold(request.user, fold_id)
    handle = ids.parse_id(request.POST.get("item"))
    if handle is None:
        return HttpResponseBadRequest(gettext("missing item"))
    item = checking.get_fold_item(fold, handle)
    skip = request.POST.get("action") == "skip"
    frame_rating, fe_rating = request.POST.get("frame_rating"), request.POST.get("fe_rating")
    if not skip and (frame_rating not in FRAME_CHECK_VALUES or fe_rating not in FRAME_CHECK_VALUES):
        return HttpResponseBadRequest(gettext("rate both the frame and the frame elements: full, partial or erroneous"))
    try:
        checking.save_frame_check(
            request.user,
            fold,
            item,
            frame_rating=frame_rating,
            fe_rating=fe_rating,
            skip=skip,
            seconds=request.POST.get("seconds"),
            submission_id=request.POST.get("submission_id"),
        )
    except judgements.SubmissionConflict as conflict:
        return _conflict_response(conflict)
    nxt = annotating.choose_next(
        item,
        skip=skip,
        revisit=request.POST.get("revisit") == "1",
        next_todo=lambda: checking.next_item(fold, request.user),
        after=lambda position: checking.item_after(fold, position),
    )
    if not request.htmx:
        return redirect("frame-check", fold_id=fold.pk)
    return _render_item(request, fold, nxt)
