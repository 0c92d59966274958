from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_GET

from annotation import fold_kinds
from core import roles
from annotation.annotating import assigned_folds


@login_required
@require_GET
def home(request):
    folds = []
    if roles.is_annotator(request.user):
        folds = [(fold, fold_kinds.progress_of(fold, request.user)) for fold in assigned_folds(request.user)]
    return render(request, "annotation/home.html", {"folds": folds})
