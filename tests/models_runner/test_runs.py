"""Inference runs as jobs: predictions, resume without duplicates, cancel, triplets and folds, the
CLI (sync and through Celery), the admin start form."""

import functools
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.fold_store import create_folds
from annotation.models import FoldItem, Prediction, System, Triplet
from core.models import Job
from core.runner import request_cancel, run_job
from models_runner import inference, jobs
from models_runner.backends import QAItem, create_backend
from models_runner.models import InferenceRun
from tests.models_runner.conftest import QUESTIONS


@pytest.fixture
def eager():
    from config.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


def run_now(run, body=jobs.run_body):
    return run_job(run.job_id, body)


def test_baseline_run_writes_predictions_and_triplets(corpus):
    run = inference.prepare_run(corpus, "lexical", "baseline", batch_size=2)
    job = run_now(run)
    assert job.status == Job.SUCCEEDED, job.error
    preds = Prediction.objects.filter(system__name="lexical")
    assert preds.count() == len(QUESTIONS)
    assert not preds.filter(triplet__isnull=True).exists()
    system = System.objects.get(name="lexical")
    assert system.kind == System.KIND_MODEL and system.meta["backend"] == "baseline"
    run.refresh_from_db()
    assert run.questions_done == len(QUESTIONS) and run.device == "cpu" and run.revision == "lexical-v1"
    assert run.duration_s > 0 and run.throughput_qps == pytest.approx(run.questions_done / run.duration_s)
    assert job.progress_done == job.progress_total == len(QUESTIONS)
    assert job.result["answered_now"] == len(QUESTIONS) and job.result["linked_predictions"] == len(QUESTIONS)
    # Same answers as the backend gives directly.
    direct = create_backend("baseline").load()
    for p in preds.select_related("question"):
        assert p.answer == direct.answer([QAItem(0, p.question.question, p.question.context)])[0]
        assert p.triplet.question_id == p.question_id


def test_predictions_join_the_reference_triplets_and_the_folds(corpus):
    job = run_now(inference.prepare_run(corpus, "lexical", "baseline"))
    assert job.status == Job.SUCCEEDED
    # Same normalized answer as the reference -> same triplet; different -> a new triplet.
    for p in Prediction.objects.filter(system__name="lexical").select_related("question"):
        ref = Prediction.objects.get(system__name="reference", question=p.question)
        assert (p.triplet_id == ref.triplet_id) == (" ".join(p.answer.split()) == " ".join(ref.answer.split()))
    folds = create_folds(corpus, k=2, seed=1, overlap=0)
    in_folds = set(FoldItem.objects.filter(fold__in=folds).values_list("triplet_id", flat=True))
    assert set(Prediction.objects.filter(system__name="lexical").values_list("triplet_id", flat=True)) <= in_folds
    assert in_folds == set(Triplet.objects.filter(question__corpus=corpus).values_list("id", flat=True))


def test_resume_skips_answered_questions_and_never_duplicates(corpus):
    run = inference.prepare_run(corpus, "lexical", "baseline", batch_size=2)
    first = list(corpus.questions.order_by("position")[:2])
    for q in first:  # as if a killed worker had saved its first batch
        Prediction.objects.create(system=run.system, question=q, answer="saved before the crash")
    job = run_now(run)
    assert job.status == Job.SUCCEEDED
    assert job.result["skipped_existing"] == 2 and job.result["answered_now"] == len(QUESTIONS) - 2
    assert Prediction.objects.filter(system=run.system).count() == len(QUESTIONS)
    assert Prediction.objects.filter(system=run.system, answer="saved before the crash").count() == 2


def test_questions_done_counts_what_a_killed_attempt_saved(corpus):
    """Issue 27: a worker killed after its batch's predictions were written but before the run's
    counter moved (PostgreSQL autocommit) left 1,049 counted for 1,057 predictions; the count is now
    the run's own predictions over all attempts, and throughput follows from it."""
    run = inference.prepare_run(corpus, "lexical", "baseline", batch_size=2)
    first = list(corpus.questions.order_by("position")[:2])
    for q in first:  # the killed attempt's saved batch: written by this run, never counted
        Prediction.objects.create(system=run.system, question=q, answer="saved", meta={"run": run.pk})
    other = inference.prepare_run(corpus, "lexical-2", "baseline", batch_size=2)
    job = run_now(run)
    assert job.status == Job.SUCCEEDED
    run.refresh_from_db()
    assert Prediction.objects.filter(system=run.system).count() == len(QUESTIONS)
    assert run.questions_done == len(QUESTIONS)  # 2 saved by the killed attempt + the rest now
    assert run.throughput_qps == pytest.approx(run.questions_done / run.duration_s)
    assert other.questions_done == 0


def test_redelivered_task_reclaims_a_stale_job_and_continues(corpus):
    from models_runner.tasks import run_inference

    run = inference.prepare_run(corpus, "lexical", "baseline", batch_size=2)
    Job.objects.filter(pk=run.job_id).update(status=Job.RUNNING, resumable=True)  # a worker died while running it
    Prediction.objects.create(system=run.system, question=corpus.questions.first(), answer="x")
    jobs.mark_worker_dead(run.job)
    assert run_inference.run(run.job_id) == Job.SUCCEEDED
    assert Prediction.objects.filter(system=run.system).count() == len(QUESTIONS)
    assert Job.objects.get(pk=run.job_id).attempts == 1


def test_a_live_job_is_not_taken_over(corpus):
    from celery.exceptions import Retry

    from models_runner.tasks import run_inference

    run = inference.prepare_run(corpus, "lexical", "baseline")
    Job.objects.filter(pk=run.job_id).update(status=Job.RUNNING)
    from django.utils import timezone

    Job.objects.filter(pk=run.job_id).update(heartbeat_at=timezone.now())
    with pytest.raises(Retry):
        run_inference.run(run.job_id)
    assert not Prediction.objects.filter(system=run.system).exists()


def test_cancel_stops_after_the_current_batch(corpus):
    def factory(name, options, **kw):
        backend = create_backend(name, options, **kw)
        answer = backend.answer

        def answer_then_cancel(items):
            out = answer(items)
            request_cancel(Job.objects.get(pk=run.job_id))
            return out

        backend.answer = answer_then_cancel
        return backend

    run = inference.prepare_run(corpus, "lexical", "baseline", batch_size=2)
    job = run_now(run, functools.partial(jobs.run_body, backend_factory=factory))
    assert job.status == Job.CANCELLED
    assert Prediction.objects.filter(system=run.system).count() == 2


def test_bad_runs_are_refused_with_clear_errors(corpus, tmp_path):
    with pytest.raises(inference.RunError, match="no corpus named 'nope'"):
        inference.prepare_run("nope", "s", "baseline")
    with pytest.raises(inference.RunError, match="reserved"):
        inference.prepare_run(corpus, "reference", "baseline")
    with pytest.raises(inference.RunError, match="unknown backend"):
        inference.prepare_run(corpus, "s", "magic")
    with pytest.raises(inference.RunError, match="unknown device 'tpu'"):
        inference.prepare_run(corpus, "s", "baseline", device="tpu")
    with pytest.raises(inference.RunError, match="unknown option"):
        inference.prepare_run(corpus, "s", "baseline", options={"widow": 3})
    System.objects.create(name="imported-one", kind=System.KIND_IMPORTED)
    with pytest.raises(inference.RunError, match="imported answers"):
        inference.prepare_run(corpus, "imported-one", "baseline")
    inference.prepare_run(corpus, "s", "baseline")
    with pytest.raises(inference.RunError, match="a system is one model"):
        inference.prepare_run(corpus, "s", "seq2seq", options={"model": str(tmp_path)})
    # A missing model fails the job with the path in the error, not the web request.
    run = inference.prepare_run(corpus, "t5", "seq2seq", options={"model": str(tmp_path / "missing-t5")}, device="cpu")
    job = run_now(run)
    assert job.status == Job.FAILED and "missing-t5" in job.error


def test_weights_go_to_the_gpu_queue_unless_cpu(settings):
    assert settings.CELERY_TASK_ROUTES["models_runner.tasks.run_inference_gpu"] == {"queue": "gpu"}
    assert inference.queue_for("extractive", "auto") == "gpu"
    assert inference.queue_for("causal", "cuda") == "gpu"
    assert inference.queue_for("seq2seq", "cpu") == "default"
    assert inference.queue_for("baseline", "auto") == "default"
    assert inference.queue_for("openai", "auto") == "default"


def test_run_system_command_sync(corpus, capsys, extractive_model):
    call_command(
        "run_system",
        "--corpus",
        "mini",
        "--system",
        "lexical",
        "--backend",
        "baseline",
        "--batch-size",
        "3",
        "--sync",
        "--option",
        "window=8",
    )
    out = capsys.readouterr().out
    result = json.loads(out.strip().splitlines()[-1])
    assert result["answered_now"] == len(QUESTIONS) and result["batch_size"] == 3
    assert InferenceRun.objects.get(system__name="lexical").parameters == {"window": 8}
    call_command(
        "run_system",
        "--corpus",
        "mini",
        "--system",
        "bert-tiny",
        "--backend",
        "extractive",
        "--model",
        str(extractive_model),
        "--device",
        "cpu",
        "--sync",
    )
    run = InferenceRun.objects.get(system__name="bert-tiny")
    assert run.revision.startswith("sha256:") and run.model_path == str(extractive_model)
    assert Prediction.objects.filter(system=run.system, triplet__isnull=False).count() == len(QUESTIONS)
    with pytest.raises(CommandError, match="missing --system"):
        call_command("run_system", "--corpus", "mini", "--backend", "baseline")


def test_run_system_command_enqueues_a_celery_task(corpus, capsys, eager, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        call_command("run_system", "--corpus", "mini", "--system", "lexical", "--backend", "baseline")
    out = capsys.readouterr().out
    run = InferenceRun.objects.get()
    assert f"job {run.job_id} queued on default" in out
    assert Job.objects.get(pk=run.job_id).status == Job.SUCCEEDED
    assert Prediction.objects.filter(system__name="lexical").count() == len(QUESTIONS)


def test_admin_starts_a_run_and_shows_progress(corpus, client, make_user, eager, django_capture_on_commit_callbacks):
    client.force_login(make_user("boss", "admin"))
    page = client.get(reverse("admin:models_runner_start"))
    assert page.status_code == 200 and b"Start the run" in page.content
    bad = client.post(
        reverse("admin:models_runner_start"),
        {"corpus": "mini", "system": "x", "backend": "baseline", "batch_size": 4, "device": "auto", "options": "{oops"},
    )
    assert bad.status_code == 200 and b"not valid JSON" in bad.content
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("admin:models_runner_start"),
            {
                "corpus": "mini",
                "system": "lexical-admin",
                "backend": "baseline",
                "batch_size": 4,
                "device": "auto",
                "options": '{"window": 6}',
            },
        )
    run = InferenceRun.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(f"/{run.pk}/change/")
    assert run.job.created_by.username == "boss"
    assert Prediction.objects.filter(system__name="lexical-admin", triplet__isnull=False).count() == len(QUESTIONS)
    listing = client.get(reverse("admin:models_runner_inferencerun_changelist"))
    assert listing.status_code == 200 and b"5 / 5" in listing.content and b"Start a run" in listing.content
    assert client.get(reverse("admin:models_runner_inferencerun_change", args=[run.pk])).status_code == 200


def test_only_staff_reach_the_admin_form(corpus, client, make_user):
    client.force_login(make_user("res", "researcher"))
    assert client.get(reverse("admin:models_runner_start")).status_code == 302


def test_a_run_after_folds_exist_adds_its_new_triplets_to_the_folds(corpus):
    folds = create_folds(corpus, k=2, seed=1, overlap=0)
    before = FoldItem.objects.count()
    run = inference.prepare_run(corpus, "late-lexical", "baseline", batch_size=2)
    job = run_now(run)
    assert job.status == Job.SUCCEEDED, job.error
    in_folds = set(FoldItem.objects.filter(fold__in=folds).values_list("triplet_id", flat=True))
    mine = set(Prediction.objects.filter(system=run.system).values_list("triplet_id", flat=True))
    assert mine <= in_folds and FoldItem.objects.count() > before
    assert in_folds == set(Triplet.objects.filter(question__corpus=corpus).values_list("id", flat=True))
