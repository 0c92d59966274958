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
