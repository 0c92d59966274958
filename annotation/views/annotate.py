"""The annotator page: one request saves the judgement and returns the next item (htmx).

The judge request is the hot path (an annotator sends thousands): ``annotating.open_fold`` checks
role and assignment and reads the progress counters in one query, ``annotating.judge`` saves the
label and finds the next item (with its label and "has a previous item") from the annotator's
cursor in one transaction; nothing here counts or scans the annotator's past. Review mode
(``annotation/reviewing.py``) walks one's labelled items instead.
"""

import functools
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseBadRequest, HttpResponseNotAllowed
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.cache import add_never_cache_headers
from django.utils.translation import gettext as _

from annotation import annotating, fold_store, judgements, reviewing, studies
from annotation.label_titles import LABEL_KEYS, LABEL_TITLES
from annotation.models.flags import FLAG_REASONS
from annotation.views import study
from core import ids, roles
from stats.labels import LABEL_VALUES

BUTTONS = [(key, value, LABEL_TITLES[value]) for key, value in LABEL_KEYS.items()]


@functools.cache
def _choices(language):
    """``(buttons, flag reasons)`` with their titles translated into ``language`` once per process:
    the fragment sent for every judgement translated the same seven lazy titles each time."""
    with translation.override(language):
        return (
            tuple((key, value, str(title)) for key, value, title in BUTTONS),
            tuple((value, str(title)) for value, title in FLAG_REASONS),
        )


def _item_context(request, assignment, item, *, notice=None, review=False):
    progress = annotating.assignment_progress(assignment)
    started = progress.done + progress.skipped > 0
    news = annotating.guidelines_news(assignment)
    label = item.my_label if item is not None and started else None
    fold = assignment.fold
    buttons, flag_reasons = _choices(translation.get_language())
    return {
        "fold": fold,
        "item": item,
        "label": label,
        "buttons": buttons,
        "progress": progress,
        "submission_id": annotating.new_submission_id(),
        "has_previous": started and (item.has_previous if item is not None else True),
        "notice": notice,
        "label_words": LABEL_TITLES.get(label.value) if label is not None and label.value else None,
        "flag_reasons": flag_reasons,
        "review": review,
        # an active design's pilot labelled, its main sample not drawn yet: more items come to this fold
        "more_coming": item is None and not review and _main_sample_pending(fold),
        "review_next": reviewing.labelled_after(fold, request.user, item.position) if review and item else None,
        "guidelines_news": news,
        # the guidelines panel beside #work is refreshed with the news (htmx out-of-band swap)
        "guidelines_now": fold.corpus.guidelines if news and request.htmx else None,
    }


def _main_sample_pending(fold):
    meta = fold_store.fold_design(fold.corpus) if fold.kind == fold.KIND_TRIPLET else None
    return bool(meta and "p1" in meta and not meta.get("main_open"))


def _render_item(request, assignment, item, *, notice=None, status=200, review=False):
    return render(
        request,
        "annotation/_item.html" if request.htmx else "annotation/annotate.html",
        _item_context(request, assignment, item, notice=notice, review=review),
        status=status,
    )


def fold_view(*methods):
    """``annotator_required`` + ``require_http_methods`` for a view of one of the user's folds, in one query.

    The view gets the user's Assignment (``annotating.open_fold``: 403 without the annotator role,
    404 for a fold that is not theirs). Same answers as the separate decorators: 403, then 405, then 404.
    """

    def decorator(view):
        @login_required
        @wraps(view)
        def wrapped(request, fold_id, *args, **kwargs):
            if request.method not in methods:
                if not roles.is_annotator(request.user):
                    raise PermissionDenied
                return HttpResponseNotAllowed(methods)
            try:
                assignment = annotating.open_fold(request.user, fold_id)
            except annotating.NotFound:
                participant = study.current_participant(request)
                if participant is None:
                    raise
                return study.page_for(request, participant)  # the slot is gone: their study page says why
            response = view(request, assignment, *args, **kwargs)
            if request.method == "GET":  # Back must ask the server again: never a stale item (issue 45)
                add_never_cache_headers(response)
            return response

        return wrapped

    return decorator


def _study_stop(request, rule):
    """The participant's study page when ``rule(participant)`` (a rule of ``annotation.studies``) ends
    their work or it had ended already; None to go on."""
    try:
        participant = studies.judging_participant(request.user, request.session[studies.SESSION_KEY])
    except studies.WorkEnded as ended:
        return study.page_for(request, ended.participant)
    if participant is not None and rule(participant):
        return study.page_for(request, participant)
    return None


@fold_view("GET")
def annotate(request, assignment):
    # Opening the page recounts progress and cursor from the labels (imports, admin edits, items added).
    annotating.recounted(assignment)
    fold = assignment.fold
    if studies.SESSION_KEY in request.session:  # a crowd participant (only their study link logs them in)
        ended = _study_stop(request, lambda p: studies.on_open(p, done=assignment.done, total=assignment.total))
        if ended is not None:
            return ended  # finished, or stopped on gold: their study page (the completion code)
    seen = f"guidelines-seen-{fold.corpus_id}"
    if request.GET.get("start") == "1":
        request.session[seen] = True
    elif fold.corpus.guidelines and not request.session.get(seen) and not assignment.done:
        return render(request, "annotation/first_run.html", {"fold": fold})  # first run: the corpus's guidelines
    return _render_item(request, assignment, annotating.next_item(fold, request.user.pk))


@fold_view("GET")
def show_item(request, assignment, handle):
    item = annotating.item_by_handle(assignment.fold, handle, request.user.pk)
    return _render_item(request, assignment, item, review=request.GET.get("review") == "1")


@fold_view("GET")
def previous(request, assignment):
    item = annotating.previous_item(assignment.fold, request.user.pk, ids.parse_int(request.GET.get("before")))
    if item is None:
        item = annotating.next_item(assignment.fold, request.user.pk)
    return _render_item(request, assignment, item)


@fold_view("POST")
def judge(request, assignment):
    handle = ids.parse_id(request.POST.get("item"))
    if handle is None:
        return HttpResponseBadRequest("missing item")
    item = annotating.item_by_handle(assignment.fold, handle)
    skip = request.POST.get("action") == "skip"
    value = request.POST.get("value")
    if not skip and value not in LABEL_VALUES:
        return HttpResponseBadRequest(_("label must be one of correct, partial, incorrect"))
    participant = None
    if studies.SESSION_KEY in request.session:  # ordinary annotators skip the study's rules (no query)
        try:
            participant = studies.judging_participant(request.user, request.session[studies.SESSION_KEY])
        except studies.WorkEnded as ended:
            return study.page_for(request, ended.participant)
    try:
        _label, _changed, nxt = annotating.judge(
            assignment,
            item,
            value=value,
            skip=skip,
            seconds=request.POST.get("seconds"),
            submission_id=request.POST.get("submission_id"),
            revisit=request.POST.get("revisit") == "1",
        )
    except judgements.SubmissionConflict:
        return judgements.conflict_response()
    if participant is not None and studies.after_judgement(
        participant, item, done=assignment.done, total=assignment.total
    ):
        return study.page_for(request, participant)  # completed, or stopped on gold
    fold = assignment.fold
    if request.POST.get("review") == "1":  # review mode walks one's labelled items (annotation/reviewing.py)
        after = reviewing.labelled_after(fold, request.user, item.position)
        if not request.htmx:
            return redirect(
                reverse("annotate-item", args=[fold.pk, after.handle]) + "?review=1"
                if after
                else reverse("annotate", args=[fold.pk])
            )
        nxt = annotating.item_by_handle(fold, after.handle, request.user.pk) if after else None
        return _render_item(request, assignment, nxt, review=True)
    if not request.htmx:
        return redirect("annotate", fold_id=fold.pk)
    return _render_item(request, assignment, nxt)
