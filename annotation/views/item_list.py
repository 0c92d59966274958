"""The annotator's item list of a fold (filters, jump to an item) and review mode."""

from django.http import HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from annotation import annotating, reviewing
from annotation.label_titles import LABEL_TITLES
from core import ids
from core.permissions import annotator_required


@annotator_required
@require_safe
def item_list(request, fold_id):
    fold = annotating.get_assigned_fold(request.user, fold_id)
    rows = reviewing.item_rows(fold, request.user)
    jump = request.GET.get("jump", "").strip()
    error = None
    if jump:
        number = ids.parse_int(jump)
        row = reviewing.find_number(rows, number) if number is not None else None
        if row is not None:
            return redirect("annotate-item", fold_id=fold.pk, handle=row.handle)
        error = _("There is no item %(jump)s in this fold: see the list below.") % {"jump": jump[:20]}
    show, label = request.GET.get("show", "all"), request.GET.get("label") or None
    try:
        shown = reviewing.filter_rows(rows, show, label)
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc))
    return render(
        request,
        "annotation/item_list.html",
        {
            "fold": fold,
            "rows": shown,
            "total": len(rows),
            "show": show,
            "label": label,
            "error": error,
            "filters": reviewing.FILTERS,
            "labels": LABEL_TITLES,
        },
        status=400 if error else 200,
    )


@annotator_required
@require_safe
def review(request, fold_id):
    """Start review mode at the first labelled item."""
    fold = annotating.get_assigned_fold(request.user, fold_id)
    first = reviewing.labelled_after(fold, request.user)
    if first is None:
        return redirect("annotate", fold_id=fold.pk)
    return redirect(reverse("annotate-item", args=[fold.pk, first.handle]) + "?review=1")
