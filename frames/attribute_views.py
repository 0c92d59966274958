"""The attribute-check page (issue 26 point 4): an annotator sees the passage with the derived context
trigger and the answer marked, says whether the marked word is the trigger of the question's frame
(yes / no: click the right word / not in the passage) and confirms or corrects the distance class.

Same shape as the frame-check page (``frames.views``). Keys: Y trigger right, N click another word,
A not in the passage; 1 one arc, 2 two or more; Enter saves, S skips, B goes back. Folds of kind
``attribute`` assigned to the user only; a fold or item out of reach is a 404.
"""

from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST, require_safe

from annotation import annotating, judgements
from core import ids
from core.permissions import annotator_required
from frames import attribute_checks as checks
from frames.attributes import dist_class


def _item_context(request, fold, item):
    question = item.question if item else None
    check = checks.current_check(item, request.user) if item else None
    found = checks.marks(question.meta) if question else None
    segments = checks.passage_words(checks.passage_segments(question.context, *found)) if found else []
    return {
        "fold": fold,
        "item": item,
        "question": question,
        "segments": segments,
        "derived_class": dist_class(question.dist) if question else None,
        "check": check,
        "progress": checks.fold_progress(fold, request.user),
        "submission_id": annotating.new_submission_id(),
        "has_previous": checks.previous_item(fold, request.user, item.position if item else None) is not None,
    }


def _render_item(request, fold, item, *, status=200):
    template = "frames/attribute_check_item.html" if request.htmx else "frames/attribute_check.html"
    return render(request, template, _item_context(request, fold, item), status=status)


@annotator_required
@require_safe
def check(request, fold_id):
    fold = checks.get_assigned_fold(request.user, fold_id)
    return _render_item(request, fold, checks.next_item(fold, request.user))


@annotator_required
@require_safe
def show_item(request, fold_id, handle):
    fold = checks.get_assigned_fold(request.user, fold_id)
    return _render_item(request, fold, checks.get_fold_item(fold, handle))


@annotator_required
@require_safe
def previous(request, fold_id):
    fold = checks.get_assigned_fold(request.user, fold_id)
    item = checks.previous_item(fold, request.user, ids.parse_int(request.GET.get("before")))
    return _render_item(request, fold, item or checks.next_item(fold, request.user))


def _position(value):
    """A character position from the form: an int within a PositiveIntegerField's range, else None."""
    number = ids.parse_int(value)
    return number if number is not None and 0 <= number <= 2**31 - 1 else None


@annotator_required
@require_POST
def rate(request, fold_id):
    fold = checks.get_assigned_fold(request.user, fold_id)
    handle = ids.parse_id(request.POST.get("item"))
    if handle is None:
        return HttpResponseBadRequest(gettext("missing item"))
    item = checks.get_fold_item(fold, handle)
    skip = request.POST.get("action") == "skip"
    try:
        checks.save_attribute_check(
            request.user,
            fold,
            item,
            answer={
                "verdict": request.POST.get("trigger_verdict"),
                "start": _position(request.POST.get("trigger_start")),
                "end": _position(request.POST.get("trigger_end")),
                "dist": request.POST.get("dist_class"),
            },
            skip=skip,
            seconds=request.POST.get("seconds"),
            submission_id=request.POST.get("submission_id"),
        )
    except judgements.SubmissionConflict as conflict:
        return HttpResponse(str(conflict), status=409, content_type="text/plain; charset=utf-8")
    except ValueError as error:
        return HttpResponseBadRequest(str(error))
    nxt = annotating.choose_next(
        item,
        skip=skip,
        revisit=request.POST.get("revisit") == "1",
        next_todo=lambda: checks.next_item(fold, request.user),
        after=lambda position: checks.item_after(fold, position),
    )
    if not request.htmx:
        return redirect("attribute-check", fold_id=fold.pk)
    return _render_item(request, fold, nxt)
