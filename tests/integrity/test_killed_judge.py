"""A real Celery worker killed with SIGKILL in the middle of an LLM judge run (SPEC 10): the redelivered
task on a new worker resumes from the saved labels; every triplet ends with exactly one label of the
judge, and the labels feed the report's prediction-powered rows."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus, Triplet
from core.models import Job
from core.runner import STALE_SECONDS, run_job

from .conftest import wait_for, write_corpus

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def job(pk):
    return Job.objects.get(pk=pk)


def test_worker_killed_during_a_judge_run_resumes_without_duplicates(tmp_path, workers, monkeypatch):
    from evaluation import files
    from evaluation.jobs import report_body, start_report
    from models_runner import judging
    from models_runner.models import Judge, JudgeLabel, JudgeRun
    from models_runner.tasks import run_judge
    from tests.openai_stub import OpenAIStub

    write_corpus(tmp_path / "c.jsonl", 40, 2, tmp_path / "p.jsonl", seed=3)
    import_corpus(tmp_path / "c.jsonl", "judged")
    corpus = Corpus.objects.get(name="judged")
    import_predictions(tmp_path / "p.jsonl", corpus)
    n = Triplet.objects.filter(question__corpus=corpus).count()

    def slow(body):
        time.sleep(0.05)
        return "correct" if "Proposed answer: number" in body["messages"][-1]["content"] else "incorrect"

    with OpenAIStub(slow) as stub:
        judge = Judge.objects.create(
            name="stub-judge", parameters={"model": "stub", "base_url": stub.base_url, "max_retries": 0}
        )
        env = {"OPENAI_API_KEY": "test-key"}
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        run = judging.prepare_judge_run(corpus, judge, batch_size=2)
        worker = workers.start(**env)
        run_judge.apply_async(args=[run.job_id], queue=workers.queue)

        def judging_some():
            current = job(run.job_id)
            assert current.status not in Job.FINISHED, f"{current.status}: {current.error}\n{worker.output()}"
            return JudgeRun.objects.get(pk=run.pk).triplets_done >= 10

        wait_for(judging_some, 60, "some batches judged")
        worker.kill()
        saved = JudgeLabel.objects.filter(judge=judge).count()
        assert 10 <= saved < n
        assert job(run.job_id).status == Job.RUNNING
        # The heartbeat goes stale; the redelivered task on a new worker takes over.
        Job.objects.filter(pk=run.job_id).update(heartbeat_at=timezone.now() - timedelta(seconds=STALE_SECONDS + 5))
        workers.start(**env)
        run_judge.apply_async(args=[run.job_id], queue=workers.queue)
        done = wait_for(
            lambda: (lambda x: x if x.status in Job.FINISHED else None)(job(run.job_id)), 90, "the resumed judge run"
        )
    assert done.status == Job.SUCCEEDED, done.error
    assert done.attempts == 2 and done.result["skipped_existing"] >= saved
    judged = list(JudgeLabel.objects.filter(judge=judge).values_list("triplet_id", flat=True))
    assert len(judged) == n and len(set(judged)) == n

    report = run_job(start_report(corpus, n_boot=0, figures=False).pk, report_body)
    assert report.status == Job.SUCCEEDED, report.error
    data = files.load_json(report)
    assert data["judge"]["name"] == "stub-judge" and data["judge"]["n_labels"] == n
    rows = [r for r in data["ppi"] if r["metric"] == "hscore"]
    assert {r["system"] for r in rows} == {"reference", "sys00", "sys01"}
    assert all(r["n_total"] == 40 and r["n_human"] == 0 for r in rows)  # no human label yet: judge only
