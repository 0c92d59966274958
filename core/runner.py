"""Running background jobs: one Job row per job, claimed atomically, with progress and cancel.

A Celery task is a thin shell: ``run_job(job_id, body)``. ``body(job, progress)`` does the work and
returns a JSON-able result dict. Guarantees:

- A job starts only from ``created`` (``UPDATE ... WHERE status='created'``), so a task delivered
  twice runs once. A *resumable* job (inference) may also be re-claimed when its worker stopped
  beating for ``STALE_SECONDS``: the body then continues where the saved work stops.
- An exception marks the job ``failed`` with the error text; ``JobCancelled`` marks it ``cancelled``.
- While a body runs, a thread beats ``heartbeat_at`` every ``JOB_HEARTBEAT_SECONDS``: a silent
  heartbeat means the process died (SIGKILL, OOM, machine lost), not that the job is slow.
- An exception that is a ``core.errors.UserFacingError`` (bad input) fails the job with its message
  alone; any other one with the traceback too (admins read it, researchers see its first line).
- ``core.reaper.reap_stale_jobs`` (every ``JOB_REAP_SECONDS`` on each worker, see ``core.worker``,
  and ``manage.py reap_jobs``) takes the running jobs silent for ``JOB_STALE_SECONDS``.

Each app starts its jobs from ``<app>/jobs.py`` (the bodies and the ``start_*`` functions); its
``<app>/tasks.py`` holds only the Celery shells that call ``run_job``.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import traceback
from datetime import timedelta
from importlib import import_module

from django.conf import settings
from django.db import connection, connections, transaction
from django.db.models import F, Q
from django.utils import timezone
from rest_framework.exceptions import APIException

from core.errors import UserFacingError
from core.models import Job

log = logging.getLogger(__name__)
STALE_SECONDS = settings.JOB_STALE_SECONDS
LOST = "worker lost while running"
# The ``apply_async`` options a job's task is sent again with (plain JSON: the queue, its routing).
RESEND_OPTIONS = ("queue", "routing_key", "priority")


class JobCancelled(Exception):
    pass


def create_job(kind, params=None, *, user=None, total=0, resumable=False):
    """A new Job row (status ``created``); ``enqueue`` sends its task."""
    return Job.objects.create(
        kind=kind,
        params=params or {},
        created_by=user if getattr(user, "pk", None) else None,
        progress_total=total,
        resumable=resumable,
    )


class BrokerUnavailable(APIException, UserFacingError):
    """The task queue cannot be reached: nothing was started (503 in the API, a message on pages)."""

    status_code = 503
    default_code = "broker_unavailable"


def broker_problem(timeout=2.0):
    """None if the Celery broker accepts a connection now, else the reason in words."""
    from celery import current_app as app  # the app of config.celery, set up with the settings

    if settings.CELERY_TASK_ALWAYS_EAGER:
        return None
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=timeout)
    except Exception as exc:  # kombu wraps the transport's own errors; any of them means "not now"
        return f"{type(exc).__name__}: {exc}"[:300]
    return None


def _unavailable(problem):
    log.warning("broker unreachable, job not started: %s", problem)  # the address stays in the server log
    return BrokerUnavailable(
        "The task queue (Celery broker) is unreachable, so nothing was started; try again when it is back."
    )


def task_named(name):
    """The Celery task registered under ``name`` (``"evaluation.tasks.build_report"``).

    A job's ``start_*`` function sends its Celery shell by name, so the shells import the job bodies
    and never the other way round. A name not yet registered in this process is looked for in the
    module it names (``evaluation.tasks``), then in every installed app's ``tasks`` module (Celery's
    autodiscovery: a task registered under an older name), so a web process loads only the shells it sends.
    """
    from celery import current_app
    from django.apps import apps

    if name not in current_app.tasks:
        module = name.rpartition(".")[0]
        if any(module == f"{config.name}.tasks" for config in apps.get_app_configs()):
            import_module(module)
    if name not in current_app.tasks:
        current_app.autodiscover_tasks([config.name for config in apps.get_app_configs()], force=True)
    return current_app.tasks[name]


def enqueue(job, task, **options):
    """Send ``task(job.id)`` once the surrounding transaction commits; ``task`` is a Celery task or
    the name it is registered under (:func:`task_named`).

    The broker is checked first: when it is down the job row is removed and ``BrokerUnavailable``
    raised, so no job waits "created" for a task that was never sent. If the broker fails between
    the check and the send, the row is marked failed with the reason.
    """
    if isinstance(task, str):
        task = task_named(task)
    problem = broker_problem()
    if problem:
        Job.objects.filter(pk=job.pk).delete()
        raise _unavailable(problem)
    # What was sent, so that the reaper can send it again if the broker loses it (core.reaper).
    sent = {"task_name": task.name, "task_options": {k: v for k, v in options.items() if k in RESEND_OPTIONS}}
    Job.objects.filter(pk=job.pk).update(**sent)

    def send():
        try:
            result = task.apply_async(args=[job.id], **options)
        except Exception as exc:
            Job.objects.filter(pk=job.pk, status=Job.CREATED).update(
                status=Job.FAILED, finished_at=timezone.now(), error="not started: the task queue was unreachable"
            )
            raise _unavailable(f"{type(exc).__name__}: {exc}"[:300]) from exc
        Job.objects.filter(pk=job.pk, celery_task_id="").update(celery_task_id=result.id or "", sent_at=timezone.now())

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

    def __call__(self, done=None, total=None, message=None, *, force=False):
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
            _finish(current, Job.FAILED, error=f"{LOST}; nothing was applied: start the job again")
        log.info("job %s not claimable (status %s): skipped", job_id, getattr(current, "status", "missing"))
        return None
    progress = Progress(job)
    try:
        with Heartbeat(job.pk):
            result = body(job, progress)
    except JobCancelled as exc:
        _finish(job, Job.CANCELLED, error=str(exc))
    except Exception as exc:  # the job row is the user's only window on the failure
        if isinstance(exc, UserFacingError):  # bad input: the message says it all
            log.info("job %s failed: %s", job_id, exc)
            _finish(job, Job.FAILED, error=str(exc), result={"error": exc.as_dict()})
        else:
            log.exception("job %s failed", job_id)
            _finish(job, Job.FAILED, error=f"{exc}\n\n{traceback.format_exc(limit=8)}")
    else:
        _finish(job, Job.SUCCEEDED, result=result or {})
    return Job.objects.get(pk=job_id)


def _is_stale(job):
    return job.heartbeat_at is None or job.heartbeat_at < timezone.now() - timedelta(seconds=STALE_SECONDS)


def _finish(job, status, *, result=None, error=""):
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


class Heartbeat:
    """Keeps ``Job.heartbeat_at`` fresh from a thread of the process running the body, on its own
    connection, so that a live job (however long one step takes) is never taken for a dead one."""

    def __init__(self, job_id, every=None):
        self.job_id = job_id
        self.every = settings.JOB_HEARTBEAT_SECONDS if every is None else every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True, name=f"job-{job_id}-heartbeat")

    def _beat(self):
        try:
            while not self._stop.wait(self.every):
                try:
                    Job.objects.filter(pk=self.job_id, status=Job.RUNNING).update(heartbeat_at=timezone.now())
                except Exception:  # a missed beat (SQLite busy under a long write) must not kill the job
                    log.warning("heartbeat of job %s missed", self.job_id, exc_info=True)
        finally:
            connections.close_all()  # this thread's connections only

    def __enter__(self):
        if self.every > 0:
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)
