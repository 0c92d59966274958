from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from annotation import exports
from annotation.export_safety import attachment
from annotation.models import Corpus
from annotation.views.access import researcher_required


def _corpus(request):
    name = request.GET.get("corpus")
    return get_object_or_404(Corpus, name=name) if name else None


def _stream(lines, filename, content_type):
    response = StreamingHttpResponse(lines, content_type=content_type)
    response["Content-Disposition"] = attachment(filename)
    response["Cache-Control"] = "no-store"
    return response


@researcher_required
@require_GET
def labels(request):
    corpus = _corpus(request)
    stem = f"labels-{corpus.name}" if corpus else "labels"
    rows = exports.label_rows(corpus)
    if request.GET.get("format") == "csv":
        return _stream(exports.csv_lines(rows, exports.LABEL_COLUMNS), f"{stem}.csv", "text/csv; charset=utf-8")
    return _stream(exports.jsonl_lines(rows), f"{stem}.jsonl", "application/x-ndjson; charset=utf-8")


@researcher_required
@require_GET
def triplet_map(request):
    corpus = _corpus(request)
    stem = f"triplet-map-{corpus.name}" if corpus else "triplet-map"
    return _stream(exports.jsonl_lines(exports.triplet_map_rows(corpus)), f"{stem}.jsonl", "application/x-ndjson; charset=utf-8")


@researcher_required
@require_GET
def judge_labels(request):
    """An automatic judge's labels (SPEC 10), apart from the human ones: labels JSONL whose
    ``annotator`` is the judge. ``?judge=NAME`` (default: every judge, one after the other)."""
    from models_runner.judging import judge_label_rows
    from models_runner.models import Judge

    corpus = _corpus(request)
    name = request.GET.get("judge")
    judges = [get_object_or_404(Judge, name=name)] if name else list(Judge.objects.all())
    stem = "-".join(["judge-labels", *([name] if name else []), *([corpus.name] if corpus else [])])
    rows = (row for judge in judges for row in judge_label_rows(judge, corpus))
    return _stream(exports.jsonl_lines(rows), f"{stem}.jsonl", "application/x-ndjson; charset=utf-8")


@researcher_required
@require_GET
def flags(request):
    """Annotators' flags with their comments and the label they gave (CSV or JSONL, like the labels)."""
    corpus = _corpus(request)
    stem = f"flags-{corpus.name}" if corpus else "flags"
    rows = exports.flag_rows(corpus)
    if request.GET.get("format") == "csv":
        return _stream(exports.csv_lines(rows, exports.FLAG_COLUMNS), f"{stem}.csv", "text/csv; charset=utf-8")
    return _stream(exports.jsonl_lines(rows), f"{stem}.jsonl", "application/x-ndjson; charset=utf-8")
