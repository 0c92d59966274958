"""Admin pages of quality control: adjudication of overlap items where annotators disagree."""

from django.contrib import messages
from django.core.exceptions import ObjectDoesNotExist
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from annotation import quality_data
from annotation.labels import LABEL_TITLES
from annotation.models import Corpus
from core.permissions import admin_required


@admin_required
@require_http_methods(["GET", "POST"])
def adjudicate(request, corpus_id):
    corpus = get_object_or_404(Corpus, pk=corpus_id)
    if request.method == "POST":
        triplet = request.POST.get("triplet", "")
        try:
            if not (triplet.isascii() and triplet.isdigit() and len(triplet) <= 18):
                raise ValueError("missing triplet")
            decision = quality_data.adjudicate(corpus, int(triplet), value=request.POST.get("value"), user=request.user)
            messages.success(request, f"final label of triplet {decision.triplet_id}: {LABEL_TITLES[decision.value]}")
        except (ValueError, ObjectDoesNotExist) as exc:
            messages.error(request, f"not saved: {exc}")
        return redirect(reverse("adjudicate", args=[corpus.pk]))
    return render(
        request,
        "annotation/adjudicate.html",
        {
            "corpus": corpus,
            "items": quality_data.open_disagreements(corpus),
            "labels": LABEL_TITLES,
            "decided": len(quality_data.decisions(corpus)),
        },
    )
