"""The pages of every kind of human check (``frames.human_checks``): an annotator sees an item with what
a tool derived for it and gives a verdict (frame checks: the frame and its FEs, each full / partial /
erroneous; attribute checks: the context trigger and the distance class).

Same shape as the triplet page (``annotation.views.annotate``): one POST saves the verdict and returns
the next item as an htmx fragment; folds of the kind assigned to the user only. Every view takes the
kind (the ``kind`` keyword ``frames.urls`` gives each kind's URLs). Enter saves the choice shown, S
skips, B goes back; the kind's own keys are in its page's guidelines. A fold or item out of reach is
a 404, an incomplete verdict a 400 with what is missing.
"""

from django.http import HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_POST, require_safe

from annotation import annotating, judgements
from core import ids
from core.permissions import annotator_required
from frames import human_checks


def _item_context(request, kind, fold, *, item):
    check = kind.current_check(item, request.user) if item else None
    news = kind.guidelines_news(fold, request.user) if kind.guidelines else []
    context = {
        "kind": kind,
        "urls": {what: f"{kind.url_name}-{what}" for what in ("item", "previous", "rate")},
        "fold": fold,
        "item": item,
        "check": check,
        "complete": check is not None and getattr(check, kind.verdict) is not None,  # Save (Enter) enabled
        "progress": kind.fold_progress(fold, request.user),
        "submission_id": annotating.new_submission_id(),
        "has_previous": kind.previous_item(fold, request.user, item.position if item else None) is not None,
        "guidelines_news": news,
        # the corpus guidelines beside the item are refreshed with the news (htmx out-of-band swap)
        "guidelines_now": fold.corpus.guidelines if news and request.htmx else None,
    }
    if item:
        context.update(kind.shown(item, check))
    return context


def _render_item(request, kind, fold, *, item):
    page, fragment = kind.templates
    return render(request, fragment if request.htmx else page, _item_context(request, kind, fold, item=item))


@annotator_required
@require_safe
def check(request, fold_id, *, kind):
    kind = human_checks.get(kind)
    fold = kind.get_assigned_fold(request.user, fold_id)
    return _render_item(request, kind, fold, item=kind.next_item(fold, request.user))


@annotator_required
@require_safe
def show_item(request, fold_id, handle, *, kind):
    kind = human_checks.get(kind)
    fold = kind.get_assigned_fold(request.user, fold_id)
    return _render_item(request, kind, fold, item=kind.get_fold_item(fold, handle))


@annotator_required
@require_safe
def previous(request, fold_id, *, kind):
    kind = human_checks.get(kind)
    fold = kind.get_assigned_fold(request.user, fold_id)
    item = kind.previous_item(fold, request.user, ids.parse_int(request.GET.get("before")))
    return _render_item(request, kind, fold, item=item or kind.next_item(fold, request.user))


@annotator_required
@require_POST
def rate(request, fold_id, *, kind):
    kind = human_checks.get(kind)
    fold = kind.get_assigned_fold(request.user, fold_id)
    handle = ids.parse_id(request.POST.get("item"))
    if handle is None:
        return HttpResponseBadRequest(gettext("missing item"))
    item = kind.get_fold_item(fold, handle)
    skip = request.POST.get("action") == "skip"
    try:
        kind.save(
            request.user,
            fold,
            item,
            answer=kind.read(request.POST),
            skip=skip,
            seconds=request.POST.get("seconds"),
            submission_id=request.POST.get("submission_id"),
        )
    except judgements.SubmissionConflict:
        return judgements.conflict_response()
    except ValueError as error:
        return HttpResponseBadRequest(str(error))
    nxt = annotating.choose_next(
        item,
        skip=skip,
        revisit=request.POST.get("revisit") == "1",
        next_todo=lambda: kind.next_item(fold, request.user),
        after=lambda position: kind.item_after(fold, position),
    )
    if not request.htmx:
        return redirect(kind.url_name, fold_id=fold.pk)
    return _render_item(request, kind, fold, item=nxt)
