"""The reaper's decisions (in-process; the killed-worker tests in tests/integrity run it for real).

A running job whose heartbeat is silent: a kind with a registered resume function goes back to
``created`` and its task is sent again; any other job is failed with a clear message; a job that
asked to be cancelled is cancelled; after ``JOB_MAX_ATTEMPTS`` a resumable job is failed too.
Several reapers at once act once. The pages and the API say "stalled" while it waits.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from core import reaper
from core.models import Job
from core.reaper import reap_stale_jobs
from core.runner import create_job

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    calls = []
    monkeypatch.setattr(reaper, "resumers", lambda: {"resumable-kind": lambda job: calls.append(job.pk)})
    return calls


def running(kind, resumable=False, silent=120, attempts=1, **fields):
    job = create_job(kind, resumable=resumable)
    Job.objects.filter(pk=job.pk).update(
        status=Job.RUNNING,
        attempts=attempts,
        worker="host:1",
        heartbeat_at=timezone.now() - timedelta(seconds=silent),
        **fields,
    )
    return Job.objects.get(pk=job.pk)


def test_resumable_kind_is_sent_again_others_fail(sent):
    resumable = running("resumable-kind", resumable=True)
    plain = running("report")
    unregistered = running("other", resumable=True)
    fresh = running("report", silent=1)
    out = reap_stale_jobs()
    assert out == {"resumed": [resumable.pk], "failed": [plain.pk, unregistered.pk], "cancelled": []}
    assert sent == [resumable.pk]
    back = Job.objects.get(pk=resumable.pk)
    assert back.status == Job.CREATED and "queued again to resume" in back.message
    failed = Job.objects.get(pk=plain.pk)
    assert (
        failed.status == Job.FAILED and failed.error.startswith("worker lost") and "nothing was applied" in failed.error
    )
    assert "saved work is kept" in Job.objects.get(pk=unregistered.pk).error
    assert Job.objects.get(pk=fresh.pk).status == Job.RUNNING
    # a second reaper (another worker) finds nothing left to do
    assert reap_stale_jobs() == {"resumed": [], "failed": [], "cancelled": []}
    assert sent == [resumable.pk]


def test_cancel_requested_and_too_many_attempts(sent, settings):
    cancel = running("resumable-kind", resumable=True, cancel_requested=True)
    worn = running("resumable-kind", resumable=True, attempts=settings.JOB_MAX_ATTEMPTS)
    out = reap_stale_jobs()
    assert out["cancelled"] == [cancel.pk] and out["failed"] == [worn.pk] and sent == []
    assert f"{settings.JOB_MAX_ATTEMPTS} times" in Job.objects.get(pk=worn.pk).error


def test_a_failed_resend_leaves_the_job_for_the_next_round(monkeypatch):
    def broker_down(job):
        raise ConnectionError("broker down")

    monkeypatch.setattr(reaper, "resumers", lambda: {"resumable-kind": broker_down})
    job = running("resumable-kind", resumable=True)
    assert reap_stale_jobs()["resumed"] == []
    assert Job.objects.get(pk=job.pk).status == Job.RUNNING  # still stale: retried next round


def test_the_api_and_the_page_say_stalled(client, make_user, settings):
    from evaluation.jobs import JOB_KIND

    job = running(JOB_KIND, silent=settings.JOB_STALE_SECONDS + 5)
    client.force_login(make_user("res", "researcher"))
    data = client.get(f"/api/jobs/{job.pk}/").json()
    assert data["status"] == "running" and data["stalled"] is True
    assert "marked failed automatically" in data["state_note"]
    page = client.get(f"/research/reports/{job.pk}/").content.decode()
    assert "its worker stopped answering" in page
    body = client.get(f"/research/api/reports/{job.pk}/report.json")
    assert body.status_code == 409 and body.json()["stalled"] is True


def test_the_platform_registers_its_resumable_kinds_with_their_real_tasks(monkeypatch):
    """Inference (to its own queue), frame prediction and LLM judge runs are re-sent by the reaper."""
    import models_runner.tasks as runner_tasks
    from frames.tasks import predict_frames

    assert {"inference", "frames", "judge"} <= set(reaper.resumers())
    sent = []
    for task in (runner_tasks.run_inference, runner_tasks.run_inference_gpu, runner_tasks.run_judge, predict_frames):
        monkeypatch.setattr(
            task, "apply_async", lambda args, queue=None, _name=task.name: sent.append((_name, args[0], queue))
        )
    gpu = running("inference", resumable=True, params={"queue": "gpu"})
    judge = running("judge", resumable=True, params={"queue": "default"})
    frames = running("frames", resumable=True)
    assert sorted(reap_stale_jobs()["resumed"]) == sorted([gpu.pk, judge.pk, frames.pk])
    assert ("models_runner.tasks.run_inference_gpu", gpu.pk, "gpu") in sent
    assert ("models_runner.tasks.run_judge", judge.pk, "default") in sent
    assert any(name.endswith("predict_frames") and pk == frames.pk for name, pk, _ in sent)


# --- a job whose task message the broker lost before any worker took it (issue 33, point 2) -----------


def waiting(kind="report", sent_ago=700, **fields):
    """A job ``created`` and never taken, its task sent ``sent_ago`` seconds ago (the message was lost)."""
    job = create_job(kind)
    fields = {"task_name": "tests.never_run", "sent_at": timezone.now() - timedelta(seconds=sent_ago), **fields}
    Job.objects.filter(pk=job.pk).update(**fields)
    return Job.objects.get(pk=job.pk)


@pytest.fixture
def broker(monkeypatch):
    """The broker as the reaper sees it: every task sent is recorded, none runs."""
    from celery import current_app

    calls = []
    monkeypatch.setattr(current_app, "send_task", lambda name, args, **options: calls.append((name, args, options)))
    return calls


def test_a_job_never_taken_is_sent_again_after_the_stated_time_once_at_a_time(broker, settings):
    settings.JOB_RESEND_SECONDS = 600
    lost = waiting(task_options={"queue": "gpu"})
    recent = waiting(sent_ago=30)  # its message may still be on its way: left alone
    running_job = waiting(status=Job.RUNNING, attempts=1, heartbeat_at=timezone.now())
    cancelled = waiting(cancel_requested=True)
    assert reaper.resend_lost_jobs() == [lost.pk]
    assert broker == [("tests.never_run", [lost.pk], {"queue": "gpu"})]  # to the queue it was sent to
    again = Job.objects.get(pk=lost.pk)
    assert again.status == Job.CREATED and again.resends == 1
    assert "never reached a worker: sent again (1)" in again.message
    # the next rounds (this reaper or another worker's) do not send it again before the stated time
    assert reaper.resend_lost_jobs() == [] and len(broker) == 1
    # ... and after it, once more, and the job counts it
    Job.objects.filter(pk=lost.pk).update(sent_at=timezone.now() - timedelta(seconds=601))
    assert reaper.resend_lost_jobs() == [lost.pk] and len(broker) == 2
    assert "sent again (2)" in Job.objects.get(pk=lost.pk).message
    from core.serializers import JobSerializer

    assert JobSerializer(Job.objects.get(pk=lost.pk)).data["resends"] == 2  # the API says so too
    for other in (recent, running_job, cancelled):
        assert Job.objects.get(pk=other.pk).resends == 0


def test_two_reapers_that_saw_the_same_lost_job_send_it_once(broker):
    lost = waiting()
    seen = list(reaper.lost_jobs())  # both reapers read the job ...
    assert [j.pk for j in seen] == [lost.pk]
    assert reaper.resend_lost_jobs() == [lost.pk]  # ... the first sends it ...
    assert reaper.resend(seen[0]) is False  # ... the second, with its stale view, does not
    assert len(broker) == 1


def test_a_broker_still_down_leaves_the_job_to_the_next_round(monkeypatch):
    from celery import current_app

    def down(*args, **kwargs):
        raise ConnectionError("broker down")

    monkeypatch.setattr(current_app, "send_task", down)
    lost = waiting()
    assert reaper.resend_lost_jobs() == []
    assert Job.objects.get(pk=lost.pk).resends == 0 and reaper.resend_lost_jobs() == []


def test_the_resent_import_runs_to_the_end(tiny_corpus, tmp_path, settings):
    """A real task (an import) whose message was lost: re-sent, it runs (eagerly here; on a real worker
    and Redis in tests/integrity/test_lost_message.py)."""
    from celery import current_app

    from annotation.models import Prediction

    preds = tmp_path / "p.jsonl"
    preds.write_text('{"question_id": "q1", "system": "late", "answer": "Paris"}\n')
    job = create_job("import_predictions", {"kind": "predictions", "corpus": tiny_corpus.name, "path": str(preds)})
    Job.objects.filter(pk=job.pk).update(
        task_name="annotation.tasks.import_file", sent_at=timezone.now() - timedelta(hours=1)
    )
    current_app.conf.task_always_eager = True
    try:
        assert reaper.resend_lost_jobs() == [job.pk]
    finally:
        current_app.conf.task_always_eager = False
    done = Job.objects.get(pk=job.pk)
    assert (done.status, done.resends, done.attempts) == (Job.SUCCEEDED, 1, 1), done.error
    assert Prediction.objects.filter(system__name="late").count() == 1


# --- a job queued behind busy workers is not lost (issue 44) ------------------------------------------


def test_a_job_behind_busy_workers_waits_told_so_until_it_is_really_lost(broker, settings):
    settings.JOB_RESEND_SECONDS = 600
    queued = waiting(task_options={"queue": "default"})
    busy = waiting(status=Job.RUNNING, heartbeat_at=timezone.now(), sent_ago=900, task_options={"queue": "default"})
    elsewhere = waiting(status=Job.RUNNING, heartbeat_at=timezone.now(), task_options={"queue": "gpu"})
    # its queue's worker is busy: it waits, and says so, however long that takes
    assert reaper.resend_lost_jobs() == [] and broker == []
    job = Job.objects.get(pk=queued.pk)
    assert job.resends == 0 and job.state_note == "waiting for a free worker" and "never reached" not in job.message
    # the worker has just finished: a moment to take the next message
    now = timezone.now()
    Job.objects.filter(pk=busy.pk).update(status=Job.SUCCEEDED, finished_at=now - timedelta(seconds=5))
    assert reaper.resend_lost_jobs() == []
    # free for longer than the grace and the job still not taken: the broker lost it
    Job.objects.filter(pk=busy.pk).update(finished_at=now - timedelta(seconds=reaper.IDLE_GRACE_SECONDS + 5))
    assert reaper.resend_lost_jobs() == [queued.pk]
    assert "never reached a worker" in Job.objects.get(pk=queued.pk).message
    assert Job.objects.get(pk=elsewhere.pk).resends == 0


def test_a_job_passed_by_a_later_one_of_its_queue_is_lost_even_while_workers_are_busy(broker, settings):
    settings.JOB_RESEND_SECONDS = 600
    queued = waiting(task_options={"queue": "default"})
    later = waiting(status=Job.RUNNING, heartbeat_at=timezone.now(), sent_ago=100, task_options={"queue": "default"})
    Job.objects.filter(pk=later.pk).update(started_at=timezone.now())
    assert reaper.resend_lost_jobs() == [queued.pk]
