"""The annotator page: one request saves the judgement and returns the next item (htmx)."""
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from annotation import annotating, judgements, reviewing
from annotation.labels import LABEL_KEYS, LABEL_TITLES, LABEL_VALUES
from annotation.models.flags import FLAG_REASONS
from annotation.views.access import annotator_required

def conflict_response(conflict):
    """409 for a submission id reused with other values (a change is never dropped silently)."""
    return HttpResponse(str(conflict), status=409, content_type="text/plain; charset=utf-8")


BUTTONS = [(key, value, LABEL_TITLES[value]) for key, value in LABEL_KEYS.items()]


def _item_context(request, fold, item, notice=None, review=False):
    progress = annotating.fold_progress(fold, request.user)
    started = progress.done + progress.skipped > 0
    label = annotating.current_label(item, request.user) if item is not None and started else None
    has_previous = started and annotating.previous_item(
        fold, request.user, item.position if item is not None else None) is not None
    return {
        "fold": fold,
        "item": item,
        "label": label,
        "buttons": BUTTONS,
        "progress": progress,
        "submission_id": annotating.new_submission_id(),
        "has_previous": has_previous,
        "notice": notice,
        "label_words": LABEL_TITLES.get(label.value) if label is not None and label.value else None,
        "flag_reasons": FLAG_REASONS,
        "review": review,
        "review_next": reviewing.labelled_after(fold, request.user, item.position) if review and item else None,
    }


def _render_item(request, fold, item, notice=None, status=200, review=False):
    template = "annotation/_item.html" if request.htmx else "annotation/annotate.html"
    return render(request, template, _item_context(request, fold, item, notice, review), status=status)


@annotator_required
@require_GET
def annotate(request, fold_id):
    fold = annotating.get_assigned_fold(request.user, fold_id)
    seen = f"guidelines-seen-{fold.corpus_id}"
    if request.GET.get("start") == "1":
        request.session[seen] = True
    elif fold.corpus.guidelines and not request.session.get(seen) and not annotating.fold_progress(fold, request.user).done:
        return render(request, "annotation/first_run.html", {"fold": fold})  # first run: the corpus's guidelines
    return _render_item(request, fold, annotating.next_item(fold, request.user))


@annotator_required
@require_GET
def show_item(request, fold_id, item_id):
    fold = annotating.get_assigned_fold(request.user, fold_id)
    return _render_item(request, fold, annotating.get_fold_item(fold, item_id), review=request.GET.get("review") == "1")


@annotator_required
@require_GET
def previous(request, fold_id):
    fold = annotating.get_assigned_fold(request.user, fold_id)
    before = request.GET.get("before")
    item = annotating.previous_item(fold, request.user, int(before) if before and before.isdigit() else None)
    if item is None:
        item = annotating.next_item(fold, request.user)
    return _render_item(request, fold, item)


@annotator_required
@require_POST
def judge(request, fold_id):
    fold = annotating.get_assigned_fold(request.user, fold_id)
    item_id = request.POST.get("item", "")
    if not item_id.isdigit():
        return HttpResponseBadRequest("missing item")
    item = annotating.get_fold_item(fold, int(item_id))
    skip = request.POST.get("action") == "skip"
    value = request.POST.get("value")
    if not skip and value not in LABEL_VALUES:
        return HttpResponseBadRequest("label must be one of correct, partial, incorrect")
    try:
        annotating.save_judgement(
            request.user, fold, item, value=value, skip=skip, seconds=request.POST.get("seconds"),
            submission_id=request.POST.get("submission_id"),
        )
    except judgements.SubmissionConflict as conflict:
        return conflict_response(conflict)
    if request.POST.get("review") == "1":  # review mode walks one's labelled items (annotation/reviewing.py)
        nxt = reviewing.labelled_after(fold, request.user, item.position)
        if not request.htmx:
            return redirect(reverse("annotate-item", args=[fold.pk, nxt.pk]) + "?review=1" if nxt else reverse("annotate", args=[fold.pk]))
        return _render_item(request, fold, nxt, review=True)
    nxt = annotating.choose_next(item, skip, request.POST.get("revisit") == "1",
                                 lambda: annotating.next_item(fold, request.user),
                                 lambda position: annotating.item_after(fold, request.user, position))
    if not request.htmx:
        return redirect("annotate", fold_id=fold.pk)
    return _render_item(request, fold, nxt)
