"""A crowd study to test with: a generated corpus (one answer per question, so every triplet is one
item), K folds, optional gold items in every fold, and a Study row. Used by the unit tests, the
browser tests, the parallel-arrivals test and ``bench/crowd_load.py``."""

from __future__ import annotations

import json

CONSENT = "## What you do\n\nYou judge **answers**. <script>alert(1)</script>\n\n- paid by the minute\n"


def write_study_corpus(folder, n_questions):
    corpus, preds = folder / "crowd-corpus.jsonl", folder / "crowd-preds.jsonl"
    with open(corpus, "w", encoding="utf-8") as f:
        for i in range(n_questions):
            f.write(
                json.dumps(
                    {
                        "id": f"c{i}",
                        "context": f"Item {i} of the study is the river number {i}.",
                        "question": f"Which river is item {i}?",
                        "answers": [f"river number {i}"],
                    }
                )
                + "\n"
            )
    with open(preds, "w", encoding="utf-8") as f:
        for i in range(n_questions):
            f.write(json.dumps({"question_id": f"c{i}", "system": "sys-a", "answer": f"lake {i}"}) + "\n")
    return corpus, preds


def build_study(folder, *, n_questions=8, k=4, gold=0, slug="pilot", **settings):
    """A study over a fresh corpus ``<slug>-corpus``: ``n_questions`` questions with the reference and
    one system (two triplets per question), ``k`` folds, the first ``gold`` reference triplets made gold
    (expected ``correct``) and put into every fold. ``settings`` go to the Study (open by default)."""
    from annotation import gold as gold_module
    from annotation.fold_store import create_folds
    from annotation.importers import import_corpus, import_predictions
    from annotation.models import Corpus, GoldItem, Study, Triplet

    corpus_file, preds_file = write_study_corpus(folder, n_questions)
    name = f"{slug}-corpus"
    import_corpus(corpus_file, name)
    corpus = Corpus.objects.get(name=name)
    import_predictions(preds_file, corpus)
    golden = list(
        Triplet.objects.filter(question__corpus=corpus, answer__startswith="river")
        .order_by("question__position")
        .values_list("pk", flat=True)[:gold]
    )
    GoldItem.objects.bulk_create([GoldItem(triplet_id=t, expected="correct") for t in golden])
    create_folds(corpus, k=k, seed=0, overlap=0)
    if gold:
        gold_module.interleave_gold(corpus)
    defaults = {
        "title": "Judge answers to questions",
        "consent": CONSENT,
        "completion_code": "C0DE42",
        "completion_url": "https://app.prolific.com/submissions/complete?cc={code}",
        "open": True,
    }
    return Study.objects.create(slug=slug, corpus=corpus, **{**defaults, **settings})
