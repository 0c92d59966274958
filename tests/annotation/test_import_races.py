"""Imports that race (issue 44 point 2): several imports of one corpus at once, in threads (each its
own database connection), end in one clear answer each, question positions unique (a database
constraint), nothing half-written. The threaded tests run on PostgreSQL (``DATABASE_URL=postgres://...``,
as the suite's second pass in ``.ci/run``), where the imports really run at the same moment. On SQLite
the test database is in memory with a shared cache, where a second writer fails at once with "table is
locked" instead of waiting its turn as it does on the file database (``BEGIN IMMEDIATE``, 30 s busy
timeout): they are skipped there.
"""

import threading

import pytest
from django.db import IntegrityError, connection, transaction

from annotation.importers import import_corpus, import_predictions
from annotation.interchange import InterchangeError
from annotation.models import Corpus, Prediction, Question, Triplet
from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db(transaction=True)


def corpus_rows(ids):
    return [
        {"id": i, "context": f"context of {i}", "question": f"What is {i}?", "answers": [f"answer {i}"]} for i in ids
    ]


def needs_postgresql():
    if connection.vendor != "postgresql":
        pytest.skip(
            "imports at once in threads: PostgreSQL (SQLite's in-memory test database locks instead of waiting)"
        )


def at_once(calls):
    """Run each ``(function, args)`` in its own thread, started together: ``[result or exception]``."""
    needs_postgresql()
    start, out = threading.Barrier(len(calls)), [None] * len(calls)

    def run(i, fn, args):
        start.wait()
        try:
            out[i] = fn(*args)
        except Exception as exc:  # the answer each caller gets
            out[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, fn, args)) for i, (fn, args) in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    return out


def test_four_imports_into_one_corpus_get_unique_positions(tmp_path):
    files = [write_jsonl(tmp_path / f"c{k}.jsonl", corpus_rows([f"k{k}-{i}" for i in range(3000)])) for k in range(4)]
    import_corpus(write_jsonl(tmp_path / "seed.jsonl", corpus_rows(["seed"])), "race")
    results = at_once([(import_corpus, (path, "race")) for path in files])
    assert all(isinstance(r, dict) and r["questions"] == 3000 for r in results), results
    positions = list(Question.objects.filter(corpus__name="race").values_list("position", flat=True))
    assert len(positions) == 12001 and sorted(positions) == list(range(12001))
    # each file's questions keep their order, one file after the other
    for k in range(4):
        ordered = Question.objects.filter(corpus__name="race", external_id__startswith=f"k{k}-").order_by("position")
        assert [q.external_id for q in ordered] == [f"k{k}-{i}" for i in range(3000)]


def test_the_same_new_ids_twice_at_once_one_import_and_one_clear_refusal(tmp_path):
    """Two imports of the same new ids into a new corpus (created by both at once): one succeeds,
    the other says which line holds an id already in the corpus; nothing of it is written."""
    a = write_jsonl(tmp_path / "a.jsonl", corpus_rows([f"q{i}" for i in range(2000)]))
    b = write_jsonl(tmp_path / "b.jsonl", corpus_rows(["new-in-b", *(f"q{i}" for i in range(2000))]))
    results = at_once([(import_corpus, (a, "twice")), (import_corpus, (b, "twice"))])
    errors = [r for r in results if isinstance(r, Exception)]
    assert len(errors) == 1 and isinstance(errors[0], InterchangeError), results
    assert not isinstance(errors[0], IntegrityError)
    error = errors[0]
    assert error.field == "id" and "is already in corpus twice" in str(error)
    assert error.line == (1 if error.file == str(a) else 2), str(error)
    assert Corpus.objects.filter(name="twice").count() == 1
    succeeded = next(r for r in results if isinstance(r, dict))
    assert Question.objects.filter(corpus__name="twice").count() == succeeded["questions"]
    assert not (succeeded["questions"] == 2000 and Question.objects.filter(external_id="new-in-b").exists())


def test_the_same_new_corpus_created_twice_at_once_holds_both_files(tmp_path):
    files = [write_jsonl(tmp_path / f"n{k}.jsonl", corpus_rows([f"n{k}-{i}" for i in range(1000)])) for k in range(3)]
    results = at_once([(import_corpus, (path, "born-twice")) for path in files])
    assert all(isinstance(r, dict) for r in results), results
    assert Corpus.objects.filter(name="born-twice").count() == 1
    positions = sorted(Question.objects.filter(corpus__name="born-twice").values_list("position", flat=True))
    assert positions == list(range(3000))


def test_the_same_predictions_twice_at_once_one_clear_refusal(tmp_path):
    import_corpus(write_jsonl(tmp_path / "c.jsonl", corpus_rows([f"q{i}" for i in range(1500)])), "preds")
    corpus = Corpus.objects.get(name="preds")
    rows = [{"question_id": f"q{i}", "system": "twin", "answer": f"a {i % 7}"} for i in range(1500)]
    path = write_jsonl(tmp_path / "p.jsonl", rows)
    results = at_once([(import_predictions, (path, corpus)), (import_predictions, (path, corpus))])
    errors = [r for r in results if isinstance(r, Exception)]
    assert len(errors) == 1 and isinstance(errors[0], InterchangeError), results
    assert errors[0].line == 1 and errors[0].field == "question_id" and "already has a prediction" in str(errors[0])
    assert Prediction.objects.filter(system__name="twin").count() == 1500
    pairs = list(Triplet.objects.filter(question__corpus=corpus).values_list("question_id", "answer_key"))
    assert len(pairs) == len(set(pairs))


def test_positions_are_unique_by_a_database_constraint(tmp_path):
    import_corpus(write_jsonl(tmp_path / "c.jsonl", corpus_rows(["a", "b"])), "constrained")
    corpus = Corpus.objects.get(name="constrained")
    with pytest.raises(IntegrityError), transaction.atomic():
        Question.objects.create(corpus=corpus, external_id="c", position=0, question="?", context="")
    # left empty, a position is the next free one
    assert Question.objects.create(corpus=corpus, external_id="d", question="?", context="").position == 2
