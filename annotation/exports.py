"""Researcher exports: all labels (JSONL per SPEC 9, or CSV) and the triplet map. Streaming rows."""

from __future__ import annotations

import csv
import io
import json

from annotation.counted import counted_labels
from annotation.models import Flag, Label, Prediction, Triplet
from core.export_safety import csv_row

LABEL_COLUMNS = ["question_id", "answer", "annotator", "label", "corpus", "triplet_id", "seconds_spent", "updated_at"]


def label_rows(corpus=None, include_excluded=False):
    qs = (
        counted_labels(corpus, include_excluded=include_excluded)  # issue 44: excluded participants out unless asked
        .select_related("triplet__question__corpus", "annotator")
        .prefetch_related("events")
    )
    if corpus is not None:
        qs = qs.filter(triplet__question__corpus=corpus)
    for label in qs.order_by(
        "triplet__question__corpus__name", "triplet__question__position", "triplet_id", "annotator__username"
    ).iterator(chunk_size=2000):
        q = label.triplet.question
        yield {
            "question_id": q.external_id,
            "answer": label.triplet.answer,
            "annotator": label.annotator.username,
            "label": label.value,
            "corpus": q.corpus.name,
            "triplet_id": label.triplet_id,
            "seconds_spent": round(label.seconds_spent, 2),
            "updated_at": label.updated_at.isoformat(),
            # every judgement in order, so that import_labels recreates the history (JSONL only)
            "history": [
                {"label": e.value, "skipped": e.skipped, "seconds": round(e.seconds, 2), "at": e.created_at.isoformat()}
                for e in label.events.all()
            ],
        }


FLAG_COLUMNS = [
    "question_id",
    "answer",
    "annotator",
    "label",
    "reason",
    "comment",
    "resolved",
    "corpus",
    "triplet_id",
    "created_at",
]


def flag_rows(corpus=None):
    """Every flag, with the label its annotator gave the item (empty if none): the flags export."""
    qs = Flag.objects.select_related("triplet__question__corpus", "annotator")
    if corpus is not None:
        qs = qs.filter(triplet__question__corpus=corpus)
    given = {
        (t, a): v
        for t, a, v in Label.objects.filter(triplet__flags__isnull=False).values_list(
            "triplet_id", "annotator_id", "value"
        )
    }
    for flag in qs.order_by("triplet__question__corpus__name", "triplet__question__position", "created_at", "id"):
        q = flag.triplet.question
        yield {
            "question_id": q.external_id,
            "answer": flag.triplet.answer,
            "annotator": flag.annotator.username,
            "label": given.get((flag.triplet_id, flag.annotator_id)),
            "reason": flag.reason,
            "comment": flag.comment,
            "resolved": flag.resolved,
            "corpus": q.corpus.name,
            "triplet_id": flag.triplet_id,
            "created_at": flag.created_at.isoformat(),
        }


def jsonl_lines(rows):
    for row in rows:
        yield json.dumps(row, ensure_ascii=False) + "\n"


def csv_lines(rows, columns):
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    yield buffer.getvalue()
    for row in rows:
        buffer.seek(0)
        buffer.truncate()
        writer.writerow(csv_row(row))
        yield buffer.getvalue()


def triplet_map_rows(corpus=None):
    """One row per triplet: its question, the displayed answer and every prediction behind it."""
    triplets = Triplet.objects.select_related("question__corpus")
    preds = Prediction.objects.filter(triplet__isnull=False)
    if corpus is not None:
        triplets = triplets.filter(question__corpus=corpus)
        preds = preds.filter(question__corpus=corpus)
    behind = {}
    for tid, system, answer in preds.values_list("triplet_id", "system__name", "answer").iterator(chunk_size=5000):
        behind.setdefault(tid, []).append({"system": system, "answer": answer})
    for t in triplets.order_by("question__corpus__name", "question__position", "id").iterator(chunk_size=2000):
        yield {
            "triplet_id": t.pk,
            "corpus": t.question.corpus.name,
            "question_id": t.question.external_id,
            "answer": t.answer,
            "predictions": behind.get(t.pk, []),
        }


def design_rows(corpus):
    """The corpus's active design (SPEC 12), one line per triplet with a chance, in the design-file format
    of the offline report (``manage.py report ... --design FILE``): ``question_id``, ``answer``, ``pi``,
    ``sampled``, and the ``phase`` (``pilot``, ``main`` or null) and ``p1`` that make the completion
    rates apply per phase."""
    triplets = (
        Triplet.objects.filter(question__corpus=corpus, design_pi__isnull=False)
        .order_by("question__position", "id")
        .values_list("question__external_id", "answer", "design_pi", "design_sampled", "design_phase", "design_p1")
    )
    for qid, answer, pi, sampled, phase, p1 in triplets.iterator(chunk_size=5000):
        row = {"question_id": qid, "answer": answer, "pi": pi, "sampled": bool(sampled)}
        if p1 is not None:
            row.update(phase=phase, p1=p1)
        yield row
