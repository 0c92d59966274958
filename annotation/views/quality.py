"""Admin pages of quality control: adjudication of overlap items where annotators disagree."""

from django.contrib import messages
from django.core.exceptions import ObjectDoesNotExist
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from annotation import quality_data, screening
from annotation.label_titles import LABEL_TITLES
from annotation.models import Corpus
from core.ids import parse_id
from core.permissions import admin_required


@admin_required
@require_http_methods(["GET", "POST"])
def adjudicate(request, corpus_id):
    corpus = get_object_or_404(Corpus, pk=corpus_id)
    if request.method == "POST":
        _decide(request, corpus)
        return redirect(reverse("adjudicate", args=[corpus.pk]))
    gold = quality_data.gold_map(corpus)
    items = [
        (triplet, {who: LABEL_TITLES.get(value, value) for who, value in given.items()}, gold.get(triplet.pk))
        for triplet, given in quality_data.open_disagreements(corpus)
    ]
    return render(
        request,
        "annotation/adjudicate.html",
        {"corpus": corpus, "items": items, "labels": LABEL_TITLES, "decided": len(quality_data.decisions(corpus))},
    )


def _decide(request, corpus):
    """Save the final label of one item (and make it gold when asked); say what was saved, in words."""
    triplet = parse_id(request.POST.get("triplet"))
    try:
        if triplet is None:
            raise ValueError(_("no item was given"))
        if request.POST.get("gold"):  # SPEC 17: a gold item is a clear case (checked before anything is saved)
            screening.check_gold_expected(request.POST.get("value"))
        decision = quality_data.adjudicate(corpus, triplet, value=request.POST.get("value"), user=request.user)
    except (ValueError, ObjectDoesNotExist) as exc:
        messages.error(request, _("Not saved: %(error)s") % {"error": exc})
        return
    t, title = decision.triplet, LABEL_TITLES[decision.value]
    words = {"answer": t.answer, "question": t.question.question, "label": title}
    if request.POST.get("gold"):
        quality_data.mark_gold(t, expected=decision.value, user=request.user)
        said = _(
            'Saved: the answer "%(answer)s" to "%(question)s" is %(label)s; it is now a gold item expecting %(label)s.'
        )
    else:
        said = _('Saved: the answer "%(answer)s" to "%(question)s" is %(label)s.')
    messages.success(request, said % words)
