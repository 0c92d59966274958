"""Answers and contexts of any length on both databases (issue 44 point 1).

A triplet is unique by a fixed-size key of its answer (SHA-256 of the normalized answer): before, the
unique index held the answer itself and PostgreSQL refused any entry over about 2.7 KB ("index row
size 3216 exceeds btree version 4 maximum 2704 for index uniq_triplet_per_question"), so one long
answer blocked every later model run of its corpus. Here answers (and contexts) of 3 KB, 100 KB and
1 MB of incompressible text go through every path: the CLI, the admin upload, the REST import, a
model run, a study archive's round trip and the report. Run on PostgreSQL with ``DATABASE_URL``.
"""

import io
import json
import random
import string
from unittest import mock

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from annotation import triplet_store
from annotation.dedup import answer_key
from annotation.models import Corpus, Prediction, Question, Triplet
from annotation.tasks import import_file
from core.models import Job
from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db

SIZES = [3_000, 100_000, 1_000_000]


def long_text(n, seed, *, spaces=True):
    """``n`` characters no compression shortens (random letters; a space in about six characters
    when ``spaces``), starting with a capital (the baseline's salient word)."""
    letters = string.ascii_letters + (" " * 10 if spaces else "")
    text = "Z" + "".join(random.Random(seed).choices(letters, k=n - 2)) + "z"
    return text.replace("  ", " a")


def corpus_file(path, answer, context):
    return write_jsonl(path, [{"id": "q1", "context": context, "question": "Which river?", "answers": [answer]}])


def stored_answers(corpus):
    return sorted(len(a) for a in Triplet.objects.filter(question__corpus=corpus).values_list("answer", flat=True))


@pytest.mark.parametrize("size", SIZES)
def test_long_answers_through_the_cli_and_the_report(tmp_path, size, capsys, make_user, settings):
    reference, other = long_text(size, 1), long_text(size, 2)
    context = long_text(size, 3) + " " + reference
    call_command("import_corpus", str(corpus_file(tmp_path / "c.jsonl", reference, context)), corpus="lng")
    corpus = Corpus.objects.get(name="lng")
    assert Question.objects.get(corpus=corpus).context == context
    predictions = write_jsonl(
        tmp_path / "p.jsonl",
        [
            {"question_id": "q1", "system": "same", "answer": "  " + reference + " "},  # the reference's triplet
            {"question_id": "q1", "system": "other", "answer": other},
        ],
    )
    call_command("import_predictions", str(predictions), corpus="lng")
    assert "2 predictions" in capsys.readouterr().out
    triplets = Triplet.objects.filter(question__corpus=corpus)
    assert triplets.count() == 2 and stored_answers(corpus) == sorted([len(reference), len(other)])
    assert {t.answer_key for t in triplets} == {answer_key(reference), answer_key(other)}
    same = Prediction.objects.get(system__name="same")
    assert same.triplet == Prediction.objects.get(system__name="reference").triplet
    # a label on the long answer reaches the report
    from annotation.models import Label
    from tests.evaluation.test_app import run_report

    settings.MEDIA_ROOT = tmp_path / "media"
    Label.objects.create(triplet=same.triplet, annotator=make_user("ann", "annotator"), value="correct")
    job = run_report(corpus, make_user("res", "researcher"), figures=False, n_boot=20)
    assert job.status == Job.SUCCEEDED, job.error
    from evaluation.jobs import report_dir

    rows = {r["system"]: r for r in json.loads((report_dir(job.pk) / "report.json").read_text())["systems"]}
    assert rows["same"]["hscore"] == 1.0 and rows["reference"]["hscore"] == 1.0


@pytest.mark.parametrize("size", SIZES)
def test_long_answers_through_rest_and_the_admin_upload(tmp_path, size, client, make_user, settings):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    client.force_login(make_user("boss", "admin"))
    reference = long_text(size, 4)
    line = json.dumps({"id": "q1", "context": "c " + reference, "question": "Which?", "answers": [reference]})
    with mock.patch("annotation.jobs.enqueue", lambda job, task: job):
        response = client.post(
            "/api/imports/",
            {"kind": "corpus", "corpus": "rest", "file": SimpleUploadedFile("c.jsonl", line.encode())},
        )
        assert response.status_code == 202, response.content
        assert import_file(response.json()["id"]) == "succeeded", Job.objects.get(pk=response.json()["id"]).error
        answers = [long_text(size, 5), long_text(size, 6)]
        text = "\n".join(
            json.dumps({"question_id": "q1", "system": f"s{i}", "answer": a}) for i, a in enumerate(answers)
        )
        response = client.post(
            "/admin/annotation/corpus/import/",
            {
                "kind": "predictions",
                "corpus": "rest",
                "format": "",
                "file": SimpleUploadedFile("p.jsonl", text.encode()),
            },
        )
        assert response.status_code == 302, response.content[:2000]
        job = Job.objects.latest("pk")
        assert import_file(job.pk) == "succeeded", Job.objects.get(pk=job.pk).error
    assert stored_answers(Corpus.objects.get(name="rest")) == [size] * 3


@pytest.mark.parametrize("size", SIZES)
def test_a_long_model_answer_and_the_runs_after_it(tmp_path, size):
    """A model run whose answer is long links it; a run after it, of short answers, links too."""
    from core.runner import run_job
    from models_runner import inference, jobs

    word = long_text(size, 7, spaces=False)  # one word: the baseline's answer next to the question's words
    context = f"The river is {word} ."
    call_command("import_corpus", str(corpus_file(tmp_path / "c.jsonl", "short", context)), corpus="runs")
    corpus = Corpus.objects.get(name="runs")
    options = {"window": 4, "max_answer_words": 1}
    job = run_job(inference.prepare_run(corpus, "long-run", "baseline", options=options).job_id, jobs.run_body)
    assert job.status == Job.SUCCEEDED, job.error
    long_prediction = Prediction.objects.get(system__name="long-run")
    assert long_prediction.answer == word and long_prediction.triplet.answer == word
    Question.objects.filter(corpus=corpus).update(context="The river is Seine .")
    job = run_job(inference.prepare_run(corpus, "next-run", "baseline", options=options).job_id, jobs.run_body)
    assert job.status == Job.SUCCEEDED, job.error
    assert Prediction.objects.get(system__name="next-run").triplet.answer == "Seine"


@pytest.mark.parametrize("size", SIZES)
def test_long_answers_through_a_study_archive(tmp_path, size):
    from evaluation.archive import collect, restore

    reference = long_text(size, 8)
    call_command("import_corpus", str(corpus_file(tmp_path / "c.jsonl", reference, "c " + reference)), corpus="arc")
    buffer = io.BytesIO()
    collect.export_study(Corpus.objects.get(name="arc"), buffer)
    restore.import_study(io.BytesIO(buffer.getvalue()), "arc-copy")
    copy = Triplet.objects.get(question__corpus__name="arc-copy")
    assert copy.answer == reference and copy.answer_key == answer_key(reference)
    assert Question.objects.get(corpus__name="arc-copy").context == "c " + reference


def test_the_key_is_the_unique_index_and_the_text_is_compared_on_collision(tiny_corpus):
    triplet = Triplet.objects.filter(question__corpus=tiny_corpus).first()
    with pytest.raises(IntegrityError), transaction.atomic():  # same answer, same question: refused
        Triplet.objects.create(question=triplet.question, answer="x", normalized_answer=triplet.normalized_answer)
    # a key that two different answers would share (a SHA-256 collision, forged here) is refused, not merged
    forged = {(triplet.question_id, "another answer"): triplet.pk}
    with (
        mock.patch.object(triplet_store, "_triplet_ids", return_value=forged),
        mock.patch.object(triplet_store, "answer_key", return_value="same key"),
        transaction.atomic(),
        pytest.raises(triplet_store.AnswerKeyCollision, match="share the key"),
    ):
        triplet_store.triplets_for(tiny_corpus, [(1, triplet.question_id, "a third answer")])


def test_migration_fills_the_keys_of_existing_triplets(tiny_corpus):
    from importlib import import_module

    from django.apps import apps

    migration = import_module("annotation.migrations.0020_answer_key_positions")
    first = {}  # one triplet of each question loses its key (two keys "" of one question: refused)
    for pk, qid in Triplet.objects.order_by("pk").values_list("pk", "question_id"):
        first.setdefault(qid, pk)
    assert Triplet.objects.filter(pk__in=first.values()).update(answer_key="") == 3
    migration.fill_answer_keys(apps, None)
    for norm, key in Triplet.objects.values_list("normalized_answer", "answer_key"):
        assert key == answer_key(norm)


def test_migration_renumbers_positions_shared_before_the_constraint(tiny_corpus):
    """Questions of one corpus sharing positions (imports that raced before issue 44) are renumbered
    in their order (position, then id) so that the constraint can be added."""
    from importlib import import_module

    from django.apps import apps

    if connection.vendor != "postgresql":
        pytest.skip("dropping a constraint inside the test's transaction: PostgreSQL only")
    migration = import_module("annotation.migrations.0020_answer_key_positions")
    constraint = next(c for c in Question._meta.constraints if c.name == "uniq_question_position")
    with connection.cursor() as cursor:  # the fixture's rows: their deferred checks before ALTER TABLE
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    with connection.schema_editor() as editor:
        editor.remove_constraint(Question, constraint)
    ids = list(Question.objects.filter(corpus=tiny_corpus).order_by("position").values_list("pk", flat=True))
    Question.objects.filter(pk__in=ids).update(position=0)
    migration.renumber_shared_positions(apps, None)
    assert list(Question.objects.filter(corpus=tiny_corpus).order_by("position").values_list("pk", flat=True)) == ids
    assert sorted(Question.objects.filter(corpus=tiny_corpus).values_list("position", flat=True)) == [0, 1, 2]
    with connection.schema_editor() as editor:
        editor.add_constraint(Question, constraint)


@pytest.mark.slow
@pytest.mark.parametrize("megabytes", [8, 30])
def test_answers_of_8_and_30_mb_through_the_cli(tmp_path, megabytes, capsys):
    """The CLI cases of the issue: a reference answer and a prediction of 8 MB / 30 MB each."""
    size = megabytes * 1024 * 1024
    reference = long_text(size, 9)
    call_command("import_corpus", str(corpus_file(tmp_path / "c.jsonl", reference, "")), corpus="huge")
    predictions = write_jsonl(tmp_path / "p.jsonl", [{"question_id": "q1", "system": "big", "answer": reference[::-1]}])
    call_command("import_predictions", str(predictions), corpus="huge")
    assert stored_answers(Corpus.objects.get(name="huge")) == [size, size]
    assert "1 predictions" in capsys.readouterr().out


def test_a_database_refusal_no_rule_foresaw_names_the_file_never_a_traceback(tmp_path, tiny_corpus, settings):
    """The net under the file's rules: whatever the database refuses, the CLI and the job say which
    file, nothing is written, and no traceback reaches the user."""
    from django.core.management import CommandError
    from django.db import DataError

    from annotation import importers
    from annotation.jobs import import_body
    from core.runner import create_job

    path = write_jsonl(tmp_path / "p.jsonl", [{"question_id": "q1", "system": "refused", "answer": "x"}])

    def refuse(*args, **kwargs):
        raise DataError("value too long for type character varying(200)\nCONTEXT: COPY ...")

    before = Prediction.objects.count()
    with mock.patch.object(importers, "insert_rows", refuse):
        with pytest.raises(CommandError, match=r"nothing imported: .*p\.jsonl: the database refused the file"):
            call_command("import_predictions", str(path), corpus="tiny")
        job = create_job(
            "import_predictions", {"kind": "predictions", "corpus": "tiny", "path": str(path), "file": "mine.jsonl"}
        )
        with pytest.raises(Exception) as raised:
            import_body(job, lambda **kw: None)
    assert str(raised.value).startswith(
        "mine.jsonl: the database refused the file, nothing was imported: value too long"
    )
    assert "CONTEXT" not in str(raised.value) and "Traceback" not in str(raised.value)
    assert Prediction.objects.count() == before
