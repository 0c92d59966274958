"""A real Celery worker killed with SIGKILL in the middle of a job leaves nothing half-done.

- import: the worker dies while pass 2 is writing predictions (inside the import's transaction);
  after the reaper runs at the next worker start, the job is ``failed`` and not one row of the file
  is in the database, so the same file imports cleanly afterwards;
- inference (a resumable job): the worker dies between batches; the redelivered task on a new
  worker resumes, and every question ends with exactly one prediction of the system;
- a task delivered twice for one job runs once (a job starts only from ``created``).
"""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.importers import import_corpus
from annotation.models import Corpus, Prediction, System, Triplet
from annotation.tasks import import_file
from core.models import Job
from core.runner import STALE_SECONDS, create_job

from .conftest import wait_for, write_corpus

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]

N_QUESTIONS, N_SYSTEMS = 1500, 40


@pytest.fixture
def big_import(tmp_path):
    write_corpus(tmp_path / "corpus.jsonl", N_QUESTIONS, N_SYSTEMS, tmp_path / "predictions.jsonl", seed=7)
    import_corpus(tmp_path / "corpus.jsonl", "big")
    return Corpus.objects.get(name="big"), tmp_path / "predictions.jsonl"


def import_job(corpus, path):
    return create_job(
        "import_predictions", {"kind": "predictions", "corpus": corpus.name, "path": str(path), "file": path.name}
    )


def job(pk):
    return Job.objects.get(pk=pk)


def snapshot(corpus):
    return (
        Prediction.objects.filter(question__corpus=corpus).count(),
        Triplet.objects.filter(question__corpus=corpus).count(),
        System.objects.exclude(name="reference").count(),
    )


def test_worker_killed_during_import_applies_nothing_and_the_reaper_fails_the_job(big_import, workers):
    corpus, path = big_import
    before = snapshot(corpus)
    assert before == (N_QUESTIONS, N_QUESTIONS, 0)  # the reference answers only
    worker = workers.start()
    j = import_job(corpus, path)
    import_file.apply_async(args=[j.pk], queue=workers.queue)
    # Progress is written on a second connection while the import holds its transaction:
    # wait until pass 2 has written some batches, then kill the worker outright.
    wait_for(lambda: job(j.pk).message.startswith("wrote"), 90, "the import to be writing rows")
    mid = job(j.pk)
    worker.kill()
    assert mid.status == Job.RUNNING and 0 < mid.progress_done < N_QUESTIONS * N_SYSTEMS, mid.message
    assert snapshot(corpus) == before, "rows of an unfinished import are visible"
    assert job(j.pk).status == Job.RUNNING  # nobody has noticed yet

    # Time passes (the heartbeat goes stale); the next worker reaps the dead job when it starts.
    Job.objects.filter(pk=j.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=STALE_SECONDS + 5))
    workers.start()
    dead = wait_for(lambda: (lambda x: x if x.status == Job.FAILED else None)(job(j.pk)), 30, "the reaper")
    assert "worker lost" in dead.error
    assert snapshot(corpus) == before, "a killed import left rows behind"

    # Nothing half-applied blocks the same file: it imports cleanly on the new worker.
    again = import_job(corpus, path)
    import_file.apply_async(args=[again.pk], queue=workers.queue)
    done = wait_for(lambda: (lambda x: x if x.status in Job.FINISHED else None)(job(again.pk)), 120, "the re-import")
    assert done.status == Job.SUCCEEDED, done.error
    assert snapshot(corpus)[0] == N_QUESTIONS + N_QUESTIONS * N_SYSTEMS
    assert snapshot(corpus)[2] == N_SYSTEMS


def test_a_task_delivered_twice_runs_once(tmp_path, workers):
    write_corpus(tmp_path / "c.jsonl", 200, 5, tmp_path / "p.jsonl")
    import_corpus(tmp_path / "c.jsonl", "twice")
    corpus = Corpus.objects.get(name="twice")
    workers.start()  # two threads: both deliveries can run at the same moment
    j = import_job(corpus, tmp_path / "p.jsonl")
    for _ in range(3):
        import_file.apply_async(args=[j.pk], queue=workers.queue)
    done = wait_for(lambda: (lambda x: x if x.status in Job.FINISHED else None)(job(j.pk)), 60, "the import")
    time.sleep(1.0)  # let the other deliveries be consumed
    done = job(j.pk)
    assert done.status == Job.SUCCEEDED, done.error
    assert done.attempts == 1
    assert Prediction.objects.filter(question__corpus=corpus).count() == 200 + 200 * 5
    # A finished job is never started again, whoever sends its task.
    import_file.apply_async(args=[j.pk], queue=workers.queue)
    time.sleep(1.5)
    assert job(j.pk).attempts == 1 and job(j.pk).finished_at == done.finished_at


def test_worker_killed_during_inference_resumes_without_duplicates(tmp_path, workers):
    from models_runner.inference import prepare_run
    from models_runner.models import InferenceRun
    from models_runner.tasks import run_inference
    from tests.openai_stub import OpenAIStub

    n = 60
    write_corpus(tmp_path / "c.jsonl", n)
    import_corpus(tmp_path / "c.jsonl", "infer")
    corpus = Corpus.objects.get(name="infer")

    def slow(body):
        time.sleep(0.05)
        return "number 1"

    with OpenAIStub(slow) as stub:
        run = prepare_run(
            corpus,
            "stub-llm",
            "openai",
            options={"model": "stub", "base_url": stub.base_url, "max_retries": 0},
            batch_size=2,
            queue=workers.queue,
        )
        env = {"OPENAI_API_KEY": "test-key"}
        worker = workers.start(**env)
        run_inference.apply_async(args=[run.job_id], queue=workers.queue)

        def answering():
            current = job(run.job_id)
            assert current.status not in Job.FINISHED, f"{current.status}: {current.error}\n{worker.output()}"
            return InferenceRun.objects.get(pk=run.pk).questions_done >= 10

        wait_for(answering, 60, "some batches answered")
        worker.kill()
        saved = Prediction.objects.filter(system=run.system).count()
        assert 10 <= saved < n
        # The broker redelivers the unacknowledged task once the worker is gone; the heartbeat is stale by then.
        Job.objects.filter(pk=run.job_id).update(heartbeat_at=timezone.now() - timedelta(seconds=STALE_SECONDS + 5))
        workers.start(**env)
        run_inference.apply_async(args=[run.job_id], queue=workers.queue)
        done = wait_for(
            lambda: (lambda x: x if x.status in Job.FINISHED else None)(job(run.job_id)), 90, "the resumed run"
        )
        assert done.status == Job.SUCCEEDED, done.error
        assert done.attempts == 2
        answered = list(Prediction.objects.filter(system=run.system).values_list("question_id", flat=True))
        assert len(answered) == n and len(set(answered)) == n
        assert done.result["skipped_existing"] >= saved  # the second attempt did not answer them again
        # what the killed attempt saved counts too: questions_done is every question, once (issue 27)
        assert InferenceRun.objects.get(pk=run.pk).questions_done == n


def test_worker_killed_during_a_report_leaves_no_report_and_the_job_failed(
    big_import, workers, client, django_user_model
):
    from annotation.importers import import_predictions
    from core.roles import ensure_groups
    from evaluation import files
    from evaluation.jobs import start_report
    from evaluation.tasks import build_report

    corpus, path = big_import
    import_predictions(path, corpus)  # 1,500 questions x 40 systems: several seconds of report work
    from unittest import mock

    worker = workers.start()
    with mock.patch("evaluation.jobs.enqueue", lambda job, task: job):  # sent below, to this test's queue
        j = start_report(corpus, n_boot=2000, figures=True)
    build_report.apply_async(args=[j.pk], queue=workers.queue)
    wait_for(lambda: job(j.pk).status == Job.RUNNING, 60, "the report to start")
    worker.kill()
    assert job(j.pk).status == Job.RUNNING

    Job.objects.filter(pk=j.pk).update(heartbeat_at=timezone.now() - timedelta(seconds=STALE_SECONDS + 5))
    workers.start()
    dead = wait_for(lambda: (lambda x: x if x.status == Job.FAILED else None)(job(j.pk)), 30, "the reaper")
    assert "worker lost" in dead.error
    # A report that did not finish is never served, even if some files reached the disk.
    assert files.file_names(dead) == [] and files.load_json(dead) is None
    researcher = django_user_model.objects.create_user("res", password="pw-for-tests-1")
    researcher.groups.add(ensure_groups()["researcher"])
    client.force_login(researcher)
    assert client.get(f"/research/api/reports/{j.pk}/report.json").status_code == 409
