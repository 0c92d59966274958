"""Open-domain corpora (issue 11 point 3): no passage. Import (JSONL and SQuAD JSON), the annotator
page, the report and the frame proxy work with the question alone."""

import json
import re

import pytest
from django.urls import reverse

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.importers import import_corpus, import_labels, import_predictions
from annotation.interchange import InterchangeError
from annotation.models import Corpus, Question
from evaluation.report.config import ReportConfig
from evaluation.report.pipeline import compute_report
from evaluation.report_inputs import read_inputs
from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db

QUESTIONS = [
    {"id": "o1", "question": "Who wrote Hamlet?", "answers": ["William Shakespeare"]},  # no context key
    {"id": "o2", "context": "", "question": "What is the capital of Peru?", "answers": ["Lima"]},  # empty
    {"id": "o3", "context": None, "question": "How many legs has a spider?", "answers": ["eight", "8"]},
]
PREDICTIONS = [
    {"question_id": "o1", "system": "open-a", "answer": "Shakespeare"},
    {"question_id": "o1", "system": "open-b", "answer": "Marlowe"},
    {"question_id": "o2", "system": "open-a", "answer": "Lima"},
    {"question_id": "o2", "system": "open-b", "answer": "Cusco"},
    {"question_id": "o3", "system": "open-a", "answer": "8"},
    {"question_id": "o3", "system": "open-b", "answer": "six"},
]


@pytest.fixture
def open_corpus(tmp_path):
    import_corpus(write_jsonl(tmp_path / "open.jsonl", QUESTIONS), "open")
    corpus = Corpus.objects.get(name="open")
    import_predictions(write_jsonl(tmp_path / "p.jsonl", PREDICTIONS), corpus)
    return corpus


def test_jsonl_and_squad_json_without_passage_import(open_corpus, tmp_path):
    assert list(Question.objects.filter(corpus=open_corpus).values_list("context", flat=True)) == ["", "", ""]
    squad = tmp_path / "open.json"
    squad.write_text(
        json.dumps(
            {
                "data": [
                    {
                        "title": "Quiz",
                        "paragraphs": [
                            {
                                "context": "",
                                "qas": [
                                    {
                                        "id": "s1",
                                        "question": "Who painted the Mona Lisa?",
                                        "answers": [{"text": "Leonardo da Vinci", "answer_start": -1}],
                                    }
                                ],
                            },
                            {"qas": [{"id": "s2", "question": "Largest planet?", "answers": [{"text": "Jupiter"}]}]},
                        ],
                    }
                ]
            }
        )
    )
    assert import_corpus(squad, "open-squad")["questions"] == 2
    assert set(Question.objects.filter(corpus__name="open-squad").values_list("context", flat=True)) == {""}


def test_a_context_that_is_not_text_is_still_an_error(tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", [{"id": "x", "context": 5, "question": "Q?", "answers": ["a"]}])
    with pytest.raises(InterchangeError, match=r"c\.jsonl:1: field 'context': expected a string"):
        import_corpus(path, "bad")


def test_annotator_page_says_there_is_no_passage(open_corpus, tiny_corpus, make_user, client):
    ann = make_user("ann", "annotator")
    for corpus in (open_corpus, tiny_corpus):
        assign_fold(create_folds(corpus, k=1, overlap=0)[0], ann)
    client.force_login(ann)
    open_fold = open_corpus.folds.get()
    html = client.get(reverse("annotate", args=[open_fold.pk])).content.decode()
    assert "No passage: judge with general knowledge." in html
    assert re.search(r'<h2 class="question">(Who wrote Hamlet|What is the capital of Peru|How many legs)', html)
    html = client.get(reverse("annotate", args=[tiny_corpus.folds.get().pk])).content.decode()
    assert "No passage" not in html and 'class="context"' in html


def test_report_on_an_open_domain_corpus(open_corpus, tmp_path):
    good = {"Shakespeare", "Lima", "8", "William Shakespeare", "eight"}
    rows = [
        {
            "question_id": p["question_id"],
            "answer": p["answer"],
            "annotator": who,
            "label": "correct" if p["answer"] in good else "incorrect",
        }
        for p in PREDICTIONS
        for who in ("r1", "r2")
    ]
    import_labels(write_jsonl(tmp_path / "l.jsonl", rows), open_corpus)
    q, p, l = read_inputs(open_corpus).tables
    data = compute_report(q, p, l, config=ReportConfig(n_boot=0)).data
    systems = {r["system"]: r for r in data["systems"]}
    assert systems["open-a"]["hscore"] == 1.0 and systems["open-b"]["hscore"] == 0.0
    assert systems["open-a"]["em"] == 2 / 3 and systems["open-b"]["em"] == 0.0  # "Shakespeare" is not EM
    assert data["agreement"]["alpha_nominal"] == 1.0


def test_frame_proxy_needs_only_the_question(monkeypatch):
    from tests.frames.test_frame_jobs import EXPECTED, SCRIPT, responder, run
    from tests.openai_stub import OpenAIStub

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    corpus = Corpus.objects.create(name="open-frames")
    for i, text in enumerate(SCRIPT):
        Question.objects.create(
            corpus=corpus, external_id=f"q{i}", position=i, context="", question=text, answers=["x"]
        )
    with OpenAIStub(responder) as stub:
        job = run(corpus, stub)
    assert job.result["outcomes"] == EXPECTED, job.error
    game = Question.objects.get(corpus=corpus, question="Which team won the game in 2016?")
    assert (game.frame, game.frame_elements) == ("Competition", ["Participants", "Time", "Competition"])
