"""A study shaped like the published one (issue 11): an open-domain corpus, a dozen systems, three
annotators whose labels file spells answers its own way. In through the commands, no glue."""

import json
import random

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.models import Corpus, Label
from evaluation.report.config import ReportConfig
from evaluation.report.pipeline import compute_report
from evaluation.report_inputs import read_inputs
from evaluation.science.metrics import normalize_squad
from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db

WORDS = [
    "Paris",
    "the Nile",
    "Mount Everest",
    "J. R. R. Tolkien",
    "1969",
    "Marie Curie",
    "Pacific Ocean",
    "Leonardo da Vinci",
    "Jupiter",
    "Tokyo",
    "the Amazon",
    "Shakespeare",
]


def test_published_study_files_import_and_report(tmp_path, capsys):
    rng = random.Random(0)
    questions = [
        {"id": f"q{i}", "question": f"Question number {i}?", "answers": [WORDS[i % len(WORDS)]]} for i in range(40)
    ]
    systems = [f"system-{s:02d}" for s in range(12)]
    predictions = [
        {
            "question_id": q["id"],
            "system": s,
            "answer": q["answers"][0]
            if rng.random() < 0.6
            else rng.choice([w for w in WORDS if w != q["answers"][0]]) + "!",
        }
        for q in questions
        for s in systems
    ]
    labels = []
    for p in predictions[::3]:
        gold = questions[int(p["question_id"][1:])]["answers"][0]
        for annotator in ("A1", "A2", "A3"):
            labels.append(
                {
                    "question_id": p["question_id"],
                    "answer": normalize_squad(p["answer"]),  # as published
                    "annotator": annotator,
                    "label": "correct" if p["answer"] == gold else "incorrect",
                }
            )
    labels = list({(l["question_id"], l["answer"], l["annotator"]): l for l in labels}.values())
    labels.append({"question_id": "q0", "answer": "an answer no system gave", "annotator": "A1", "label": "correct"})
    corpus_file = write_jsonl(tmp_path / "questions.jsonl", questions)
    write_jsonl(tmp_path / "answers.jsonl", predictions)
    write_jsonl(tmp_path / "labels.jsonl", labels)

    call_command("import_corpus", str(corpus_file), "--corpus", "study")
    call_command("import_predictions", str(tmp_path / "answers.jsonl"), "--corpus", "study")
    call_command(
        "import_labels",
        str(tmp_path / "labels.jsonl"),
        "--corpus",
        "study",
        "--match",
        "squad",
        "--rejects",
        str(tmp_path / "rejects.jsonl"),
        "--annotator-prefix",
        "study-",
    )
    out = capsys.readouterr().out
    n_ok = len(labels) - 1
    assert f"{n_ok} labels ({n_ok} new, 0 changed) from 3 annotators (3 new, inactive); 1 lines rejected" in out
    assert [json.loads(x)["line"] for x in (tmp_path / "rejects.jsonl").read_text().splitlines()] == [len(labels)]
    assert set(get_user_model().objects.values_list("username", "is_active")) == {
        ("study-A1", False),
        ("study-A2", False),
        ("study-A3", False),
    }
    assert Label.objects.count() == n_ok
    q, p, l = read_inputs(Corpus.objects.get(name="study")).tables
    data = compute_report(q, p, l, config=ReportConfig(n_boot=0)).data
    rows = {r["system"]: r for r in data["systems"]}
    assert set(systems) <= set(rows) and rows["reference"]["hscore"] == 1.0
    assert data["agreement"]["alpha_nominal"] == 1.0 and data["agreement"]["n_labels"] == n_ok
