"""Running background jobs: one Job row per job, claimed atomically, with progress and cancel.

A Celery task is a thin shell: ``run_job(job_id, body)``. ``body(job, progress)`` does the work and
returns a JSON-able result dict. Guarantees:

- A job starts only from ``created`` (``UPDATE ... WHERE status='created'``), so a task delivered
  twice runs once. A *resumable* job (inference) may also be re-claimed when its worker stopped
  beating for ``STALE_SECONDS``: the body then continues where the saved work stops.
- An exception marks the job ``failed`` with the error text; ``JobCancelled`` marks it ``cancelled``.
- A non-resumable job whose worker died is marked ``failed`` by ``reap_stale_jobs`` (run at worker
  start and by ``manage.py reap_jobs``): its body ran inside a transaction, so nothing was applied.
"""
from __future__ import annotations

import logging
import os
import socket
import time
import traceback
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from annotation.models import Job

log = logging.getLogger(__name__)
STALE_SECONDS = 120


class JobCancelled(Exception):
    pass


def create_job(kind, params=None, user=None, total=0, resumable=False):
    return Job.objects.create(
        kind=kind, params=params or {}, created_by=user if getattr(user, "pk", None) else None,
        progress_total=total, resumable=resumable,
    )


def enqueue(job, task, **options):
    """Send ``task(job.id)`` once the surrounding transaction commits."""

    def send():
        result = task.apply_async(args=[job.id], **options)
        Job.objects.filter(pk=job.pk, celery_task_id="").update(celery_task_id=result.id or "")

    transaction.on_commit(send)
    return job


def claim(job_id, worker=None):
    """Atomically move a job to ``running``. Returns the Job, or None if someone else has it."""
    now = timezone.now()
    stale = now - timedelta(seconds=STALE_SECONDS)
    worker = worker or f"{socket.gethostname()}:{os.getpid()}"
    claimable = Q(status=Job.CREATED) | Q(
        status=Job.RUNNING, resumable=True, cancel_requested=False, heartbeat_at__lt=stale
    )
    updated = Job.objects.filter(claimable, pk=job_id).update(
        status=Job.RUNNING, started_at=now, heartbeat_at=now, worker=worker, attempts=F("attempts") + 1
    )
    if not updated:
        return None
    return Job.objects.get(pk=job_id)


class Progress:
    """Progress reporting from inside a job body; also the place where cancel is noticed."""

    def __init__(self, job, min_interval=0.5):
        self.job = job
        self.min_interval = min_interval
        self._last = 0.0

    def __call__(self, done=None, total=None, message=None, force=False):
        fields = {"heartbeat_at": timezone.now()}
        if done is not None:
            self.job.progress_done = fields["progress_done"] = int(done)
        if total is not None:
            self.job.progress_total = fields["progress_total"] = int(total)
        if message is not None:
            self.job.message = fields["message"] = str(message)[:500]
        now = time.monotonic()
        if force or now - self._last >= self.min_interval:
            alias = progress_alias()
            if alias is None:
                return  # inside a write transaction on SQLite: the row would stay invisible anyway
            self._last = now
            Job.objects.using(alias).filter(pk=self.job.pk).update(**fields)
            self.check_cancel(alias)

    def check_cancel(self, alias="default"):
        if Job.objects.using(alias).filter(pk=self.job.pk, cancel_requested=True).exists():
            raise JobCancelled("cancelled on request")


def progress_alias():
    """The connection progress is written on: a second one while the job holds a transaction."""
    if not connection.in_atomic_block:
        return "default"
    return "jobs" if "jobs" in settings.DATABASES else None


def run_job(job_id, body):
    job = claim(job_id)
    if job is None:
        current = Job.objects.filter(pk=job_id).first()
        if current and current.status == Job.RUNNING and not current.resumable and _is_stale(current):
            _finish(current, Job.FAILED, error="worker lost while running; nothing was applied")
        log.info("job %s not claimable (status %s): skipped", job_id, getattr(current, "status", "missing"))
        return None
    progress = Progress(job)
    try:
        result = body(job, progress)
    except JobCancelled as exc:
        _finish(job, Job.CANCELLED, error=str(exc))
    except Exception as exc:  # the job row is the user's only window on the failure
        if getattr(exc, "user_facing", False):  # bad input: the message says it all
            log.info("job %s failed: %s", job_id, exc)
            _finish(job, Job.FAILED, error=str(exc), result={"error": getattr(exc, "as_dict", lambda: {})()})
        else:
            log.exception("job %s failed", job_id)
            _finish(job, Job.FAILED, error=f"{exc}\n\n{traceback.format_exc(limit=8)}")
    else:
        _finish(job, Job.SUCCEEDED, result=result or {})
    return Job.objects.get(pk=job_id)


def _is_stale(job):
    return job.heartbeat_at is None or job.heartbeat_at < timezone.now() - timedelta(seconds=STALE_SECONDS)


def _finish(job, status, result=None, error=""):
    fields = {"status": status, "finished_at": timezone.now(), "error": error}
    if result is not None:
        fields["result"] = result
    if status == Job.SUCCEEDED:
        fields["message"] = "done"
        if job.progress_total:
            fields["progress_done"] = job.progress_total
    Job.objects.filter(pk=job.pk).update(**fields)


def request_cancel(job):
    """Cancel a job: at once if it has not started, else at its next progress report."""
    Job.objects.filter(pk=job.pk, status=Job.CREATED).update(
        status=Job.CANCELLED, cancel_requested=True, finished_at=timezone.now(), error="cancelled before start"
    )
    Job.objects.filter(pk=job.pk, status=Job.RUNNING).update(cancel_requested=True)
    job.refresh_from_db()
    return job


def reap_stale_jobs(seconds=STALE_SECONDS):
    """Mark running, non-resumable jobs whose worker stopped beating as failed. Returns the count."""
    stale = timezone.now() - timedelta(seconds=seconds)
    return Job.objects.filter(status=Job.RUNNING, resumable=False).filter(
        Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True)
    ).update(status=Job.FAILED, finished_at=timezone.now(), error="worker lost while running; nothing was applied")
