from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_safe

from annotation import fold_kinds
from annotation.annotating import assigned_folds
from core import roles


@login_required
@require_safe
def home(request):
    folds = []
    if roles.is_annotator(request.user):
        folds = [
            (fold, fold_kinds.progress_of(fold, request.user), reverse(fold_kinds.get(fold.kind).page, args=[fold.pk]))
            for fold in assigned_folds(request.user)
        ]
    return render(request, "annotation/home.html", {"folds": folds})
