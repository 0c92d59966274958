from django.http import HttpResponseBadRequest
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from annotation import exports
from annotation.models import Corpus
from core.export_safety import streamed_download
from core.permissions import researcher_required


def _corpus(request):
    name = request.GET.get("corpus")
    return get_object_or_404(Corpus, name=name) if name else None


@researcher_required
@require_safe
def labels(request):
    corpus = _corpus(request)
    stem = f"labels-{corpus.name}" if corpus else "labels"
    rows = exports.label_rows(corpus, include_excluded=request.GET.get("excluded") == "1")
    if request.GET.get("format") == "csv":
        return streamed_download(
            exports.csv_lines(rows, exports.LABEL_COLUMNS), f"{stem}.csv", "text/csv; charset=utf-8"
        )
    return streamed_download(exports.jsonl_lines(rows), f"{stem}.jsonl", "application/x-ndjson; charset=utf-8")


@researcher_required
@require_safe
def triplet_map(request):
    corpus = _corpus(request)
    stem = f"triplet-map-{corpus.name}" if corpus else "triplet-map"
    return streamed_download(
        exports.jsonl_lines(exports.triplet_map_rows(corpus)), f"{stem}.jsonl", "application/x-ndjson; charset=utf-8"
    )


@researcher_required
@require_safe
def flags(request):
    """Annotators' flags with their comments and the label they gave (CSV or JSONL, like the labels)."""
    corpus = _corpus(request)
    stem = f"flags-{corpus.name}" if corpus else "flags"
    rows = exports.flag_rows(corpus)
    if request.GET.get("format") == "csv":
        return streamed_download(
            exports.csv_lines(rows, exports.FLAG_COLUMNS), f"{stem}.csv", "text/csv; charset=utf-8"
        )
    return streamed_download(exports.jsonl_lines(rows), f"{stem}.jsonl", "application/x-ndjson; charset=utf-8")


@researcher_required
@require_safe
def design(request):
    """The active design of ``?corpus=NAME`` (required), as the offline report's design file (SPEC 12)."""
    corpus = _corpus(request)
    if corpus is None:
        return HttpResponseBadRequest(_("give a corpus: ?corpus=NAME"))
    return streamed_download(
        exports.jsonl_lines(exports.design_rows(corpus)),
        f"design-{corpus.name}.jsonl",
        "application/x-ndjson; charset=utf-8",
    )
