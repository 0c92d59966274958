"""Researcher pages: start a report, watch its progress (htmx polling), see tables and figures,
download every file. Researchers and admins only; annotators get 403."""

from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import get_language
from django.views.decorators.http import require_http_methods, require_safe

from annotation import privacy
from annotation.models import Corpus
from core.permissions import researcher_required
from core.reaper import health
from evaluation import files
from evaluation.forms import ReportForm
from evaluation.jobs import start_report_from
from evaluation.render.page import downloads, figure_titles, report_page


@researcher_required
@require_http_methods(["GET", "POST"])
def reports(request):
    form = ReportForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        d = form.cleaned_data
        job = start_report_from(d, request.user)
        return redirect("report-detail", pk=job.pk)
    jobs = files.report_jobs()[:30]
    return render(
        request,
        "evaluation/reports.html",
        {"form": form, "jobs": jobs, "health": health(), "designed": _designed_corpora()},
        status=400 if request.method == "POST" else 200,
    )


def _designed_corpora():
    """Names of the corpora whose folds were built by a design (their design file is a download)."""
    from annotation.models import Fold

    rows = Fold.objects.filter(kind=Fold.KIND_TRIPLET, params__has_key="design").values_list("corpus__name", flat=True)
    return sorted(set(rows))


def _waiting_health(job):
    """Why a job still waits (broker down, no worker): checked only while it has not started."""
    return health() if job.status == job.CREATED else None


def _job(pk):
    return get_object_or_404(files.report_jobs(), pk=pk)


@researcher_required
@require_safe
def report_detail(request, pk):
    job = _job(pk)
    names = files.file_names(job)
    data = files.load_json(job)
    context = {
        "job": job,
        "health": _waiting_health(job),
        "files": downloads(names),
        "data": data,
        "page": report_page(data) if data else None,
        "figures": figure_titles(names, data or {}, get_language()),
        "erased_since": _erased_since(job),
    }
    return render(request, "evaluation/report_detail.html", context)


def _erased_since(job):
    """Participants of the report's corpus erased after it was computed (SPEC 18), 0 when none."""
    corpus = Corpus.objects.filter(name=(job.params or {}).get("corpus", "")).first()
    return privacy.erasures_after(corpus, job.finished_at) if corpus is not None and job.finished_at else 0


@researcher_required
@require_safe
def report_progress(request, pk):
    job = _job(pk)
    response = render(request, "evaluation/_progress.html", {"job": job, "health": _waiting_health(job)})
    if job.status in job.FINISHED and request.headers.get("HX-Request"):
        response["HX-Refresh"] = "true"  # reload the page once: tables and figures appear
    return response


@researcher_required
@require_safe
def report_file(request, pk, name):
    job = _job(pk)
    path = files.file_path(job, name)
    if path is None:
        raise Http404("no such file in this report")
    inline = name.endswith((".png", ".svg"))
    return FileResponse(
        open(path, "rb"), content_type=files.content_type(name), as_attachment=not inline, filename=name
    )
