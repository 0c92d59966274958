"""An annotator flags an item of their fold with a reason and a free comment (listed for admins,
exported with the labels: annotation/exports.py ``flag_rows``)."""

from django import forms
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect
from django.utils.html import format_html
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from annotation import annotating
from annotation.models import Flag
from core import ids
from core.permissions import annotator_required


class FlagForm(forms.ModelForm):
    class Meta:
        model = Flag
        fields = ["reason", "comment"]


@annotator_required
@require_POST
def flag_item(request, fold_id):
    fold = annotating.get_assigned_fold(request.user, fold_id)
    handle = ids.parse_id(request.POST.get("item"))
    if handle is None:
        return HttpResponseBadRequest("missing item")
    item = annotating.item_by_handle(fold, handle)
    form = FlagForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest("; ".join(f"{k}: {' '.join(v)}" for k, v in form.errors.items()))
    flag = form.save(commit=False)
    flag.triplet_id, flag.fold, flag.annotator = item.triplet_id, fold, request.user
    flag.save()
    if not request.htmx:
        return redirect("annotate-item", fold_id=fold.pk, handle=item.handle)
    return HttpResponse(
        format_html(
            '<p class="flag-saved">{}</p>',
            _("Thank you: flag “%(reason)s” saved for an admin to look at.") % {"reason": flag.get_reason_display()},
        )
    )
