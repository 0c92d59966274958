"""After a bulk load PostgreSQL's planner statistics are refreshed (issue 46): without them a fresh
database's planner believes the tables it just received are empty, and the live page's count of
predictions in folds ran for more than 20 minutes on SQuAD dev's study (a nested loop)."""

import time

import pytest
from django.db import connection

from annotation import sql
from annotation.fold_store import create_folds
from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus

TABLES = ("annotation_question", "annotation_prediction", "annotation_triplet", "annotation_folditem")


def _analyses():
    """{table: manual ANALYZE count} (autovacuum's own are counted apart)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, analyze_count FROM pg_stat_user_tables WHERE relname = ANY(%s)", [list(TABLES)])
        return dict(cursor.fetchall())


def _grown(before, wait=10.0):
    """The tables analyzed since ``before`` (statistics reach the views within a second or so)."""
    deadline = time.monotonic() + wait
    while True:
        now = _analyses()
        grown = {t for t in TABLES if now.get(t, 0) > before.get(t, 0)}
        if grown == set(TABLES) or time.monotonic() > deadline:
            return grown
        time.sleep(0.5)


@pytest.mark.django_db(transaction=True)
def test_a_bulk_import_analyzes_its_tables_once_committed_and_a_small_one_does_not(squad_small, monkeypatch):
    if connection.vendor != "postgresql":
        pytest.skip("planner statistics are PostgreSQL's (DATABASE_URL=postgres://...)")
    monkeypatch.setattr(sql, "ANALYZE_ROWS", 10**9)
    before = _analyses()
    import_corpus(squad_small / "corpus.jsonl", "small-load")
    assert _grown(before, wait=2.0) == set()  # below the threshold: nothing
    monkeypatch.setattr(sql, "ANALYZE_ROWS", 1000)
    before = _analyses()
    import_corpus(squad_small / "corpus.jsonl", "analyzed")  # 1,057 questions
    corpus = Corpus.objects.get(name="analyzed")
    import_predictions(squad_small / "predictions.jsonl", corpus)  # 10,570 predictions
    create_folds(corpus, k=2, seed=0)
    assert _grown(before) == set(TABLES)
