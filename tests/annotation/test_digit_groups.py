"""A number's digit groups never break apart on the page (issue 32, friction 8): "13 000" in the corpus
is shown with a no-break space ("13" at the end of one line and "000" at the start of the next read as
two numbers); the corpus itself keeps its text, and the answer is still lit in the passage."""

import pytest
from django.test import Client

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.guidelines import keep_digit_groups
from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus, Fold, Question
from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db
NBSP = "\u00a0"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("13 000 hommes", f"13{NBSP}000 hommes"),
        ("1 250 000 euros", f"1{NBSP}250{NBSP}000 euros"),
        ("en 2016 410 votes", "en 2016 410 votes"),  # a year then a number: not one grouped number
        ("12 34 56", "12 34 56"),  # not groups of three
        (f"déjà 13{NBSP}000", f"déjà 13{NBSP}000"),
        ("1 000\n000 ans", f"1{NBSP}000\n000 ans"),  # a line break is not a group separator
        ("", ""),
    ],
)
def test_keep_digit_groups(text, shown):
    assert keep_digit_groups(text) == shown


def test_the_annotate_page_never_breaks_a_number(tmp_path, make_user):
    context = "En 1815, 13 000 soldats et 1 250 000 francs furent engagés dans la bataille."
    write_jsonl(
        tmp_path / "c.jsonl",
        [{"id": "q1", "context": context, "question": "Combien de soldats, 13 000 ?", "answers": ["13 000 soldats"]}],
    )
    write_jsonl(tmp_path / "p.jsonl", [{"question_id": "q1", "system": "s", "answer": "13 000 soldats"}])
    import_corpus(tmp_path / "c.jsonl", "nombres")
    corpus = Corpus.objects.get(name="nombres")
    import_predictions(tmp_path / "p.jsonl", corpus)
    create_folds(corpus, k=1, seed=0, overlap=0)
    annotator = make_user("ann", "annotator")
    fold = Fold.objects.get(corpus=corpus)
    assign_fold(fold, annotator)
    client = Client()
    client.force_login(annotator)
    body = client.get(f"/annotate/{fold.pk}/?start=1").content.decode()
    assert f'<mark class="answer-in-passage">13{NBSP}000 soldats</mark>' in body
    assert f"1{NBSP}250{NBSP}000 francs" in body and f"Combien de soldats, 13{NBSP}000 ?" in body
    assert "13 000" not in body and "250 000" not in body
    assert Question.objects.get(corpus=corpus).context == context  # the corpus keeps its text
