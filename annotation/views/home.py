from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from annotation import fold_kinds
from annotation.annotating import assigned_folds
from core import pages, roles


@login_required
@require_safe
def home(request):
    folds = []
    if roles.is_annotator(request.user):
        folds = [
            (fold, fold_kinds.progress_of(fold, request.user), reverse(fold_kinds.get(fold.kind).page, args=[fold.pk]))
            for fold in assigned_folds(request.user)
        ]
    # the research reports are evaluation's page: their address comes from the app that serves them
    return render(request, "annotation/home.html", {"folds": folds, "research_url": pages.url("research")})
