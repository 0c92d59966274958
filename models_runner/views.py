"""Pages of the models_runner app: the download of an automatic judge's labels."""

from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_safe

from annotation import exports
from annotation.models import Corpus
from core.export_safety import streamed_download
from core.permissions import researcher_required
from models_runner.judging import judge_label_rows
from models_runner.models import Judge


@researcher_required
@require_safe
def judge_labels(request):
    """An automatic judge's labels (SPEC 10), apart from the human ones: labels JSONL whose
    ``annotator`` is the judge. ``?judge=NAME`` (default: every judge, one after the other);
    ``?corpus=NAME`` (default: every corpus)."""
    corpus_name = request.GET.get("corpus")
    corpus = get_object_or_404(Corpus, name=corpus_name) if corpus_name else None
    name = request.GET.get("judge")
    judges = [get_object_or_404(Judge, name=name)] if name else list(Judge.objects.all())
    stem = "-".join(["judge-labels", *([name] if name else []), *([corpus.name] if corpus else [])])
    rows = (row for judge in judges for row in judge_label_rows(judge, corpus))
    return streamed_download(exports.jsonl_lines(rows), f"{stem}.jsonl", "application/x-ndjson; charset=utf-8")
