"""Recovering jobs whose worker died, and the health of the job machinery.

``reap_stale_jobs`` (every ``JOB_REAP_SECONDS`` on each worker, see ``core.worker``, and
``manage.py reap_jobs``) takes the running jobs silent for ``JOB_STALE_SECONDS``: a job whose kind
has a resume function goes back to ``created`` and its task is sent again (it continues where the
saved work stops); any other job is marked ``failed`` -- its body ran inside a transaction, so
nothing was applied.

``resend_lost_jobs`` (same rounds) takes the jobs still ``created`` ``JOB_RESEND_SECONDS`` after
their task was sent: the broker lost the message before any worker took it (a Redis restarted
without persistence), so it is sent again -- once per round of that length, whichever reaper gets
there first (a conditional update), and the job's message says so. A copy that arrives while the job
already runs is a no-op (a job starts only from ``created``).

Resume functions are registered, not imported by hand: the app that owns a resumable kind names its
resume function in the kind's record (``core.job_kinds``: ``resume="frames.tasks:resume"``, imported
on first use), and ``resumers()`` reads them all.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from core import job_kinds
from core.models import Job, WorkerBeat
from core.runner import LOST, broker_problem

log = logging.getLogger(__name__)
# A job's progress message once its worker was lost and it was sent again (core.job_kinds translates it).
QUEUED_AGAIN = gettext_noop("worker lost while running; queued again to resume (attempt %(attempt)s)")


def resumers():
    """Every resumable kind -> its resume function(job), which sends the job's task again (the
    ``resume`` of each kind's record in ``core.job_kinds``)."""
    return {kind: record.resumer() for kind, record in job_kinds.registered().items() if record.resume}


def stale_jobs(seconds=None):
    seconds = settings.JOB_STALE_SECONDS if seconds is None else seconds
    stale = timezone.now() - timedelta(seconds=seconds)
    return Job.objects.filter(status=Job.RUNNING).filter(Q(heartbeat_at__lt=stale) | Q(heartbeat_at__isnull=True))


def reap_stale_jobs(seconds=None):
    """Recover running jobs whose heartbeat went silent: resume the resumable ones, fail the others.

    Safe with several reapers at once: each change is conditional on the heartbeat it saw.
    Returns ``{"resumed": [ids], "failed": [ids], "cancelled": [ids]}``.
    """
    known = resumers()
    out = {"resumed": [], "failed": [], "cancelled": []}
    for job in stale_jobs(seconds).order_by("pk"):
        resume = known.get(job.kind) if job.resumable else None
        outcome = _reap(job, resume)
        if outcome:
            out[outcome].append(job.pk)
    return out


#: A queue's workers are taken as idle this long after their last job ended (the time to take the next).
IDLE_GRACE_SECONDS = 30


def lost_jobs(seconds=None):
    """Jobs still waiting for a worker ``seconds`` (``JOB_RESEND_SECONDS``) after their task was sent:
    candidates for ``really_lost`` (a job queued behind busy workers waits that long too)."""
    seconds = settings.JOB_RESEND_SECONDS if seconds is None else seconds
    before = timezone.now() - timedelta(seconds=seconds)
    waiting = Job.objects.filter(status=Job.CREATED, cancel_requested=False).exclude(task_name="")
    return waiting.filter(Q(sent_at__lt=before) | Q(sent_at__isnull=True, created_at__lt=before))


def job_queue(job):
    """The Celery queue a job's task was sent to (``celery``: the default)."""
    return (job.task_options or {}).get("queue") or "celery"


def really_lost(job, now=None):
    """Whether the broker lost ``job``'s task, rather than the job waiting behind busy workers.

    Lost when a job of its queue sent after it has started (the queue is first in, first out: a worker
    passed it by), or when no job of its queue runs and none ended in the last ``IDLE_GRACE_SECONDS``
    (its workers are free and did not take it). Otherwise it is waiting for a free worker."""
    now = now or timezone.now()
    sent = job.sent_at or job.created_at
    fresh = now - timedelta(seconds=settings.JOB_STALE_SECONDS)
    others = Job.objects.exclude(pk=job.pk).filter(
        Q(status=Job.RUNNING) | Q(started_at__gt=sent) | Q(finished_at__gt=now - timedelta(seconds=IDLE_GRACE_SECONDS))
    )
    others = [
        o
        for o in others.only(
            "status", "sent_at", "created_at", "started_at", "heartbeat_at", "finished_at", "task_options"
        )
        if job_queue(o) == job_queue(job)
    ]
    if any(o.started_at and (o.sent_at or o.created_at) > sent for o in others):
        return True
    busy = any(o.status == Job.RUNNING and o.heartbeat_at and o.heartbeat_at >= fresh for o in others)
    ended_lately = any(o.finished_at and o.finished_at > now - timedelta(seconds=IDLE_GRACE_SECONDS) for o in others)
    return not busy and not ended_lately


def resend_lost_jobs(seconds=None):
    """Send again the task of every job a worker never took (``lost_jobs`` that are ``really_lost``);
    returns their ids. A job behind busy workers keeps waiting, told so (``Job.state_note``)."""
    return [job.pk for job in lost_jobs(seconds).order_by("pk") if really_lost(job) and resend(job)]


def resend(job):
    """Send ``job``'s task again, if it is still as the caller read it; True when sent.

    Safe with several reapers at once: the re-send is conditional on the ``sent_at`` and ``resends``
    read, so one reaper sends, the others skip it until ``JOB_RESEND_SECONDS`` have passed again."""
    from celery import current_app

    now = timezone.now()
    message = _("its task never reached a worker: sent again (%(n)d) at %(time)s") % {
        "n": job.resends + 1,
        "time": now.strftime("%Y-%m-%d %H:%M:%S UTC"),
    }
    seen = Job.objects.filter(pk=job.pk, status=Job.CREATED, sent_at=job.sent_at, resends=job.resends)
    if not seen.update(sent_at=now, resends=job.resends + 1, message=message[:500]):
        return False  # another reaper sent it, or a worker took it meanwhile
    task = current_app.tasks.get(job.task_name)
    try:
        if task is not None:
            task.apply_async(args=[job.pk], **job.task_options)
        else:
            current_app.send_task(job.task_name, args=[job.pk], **job.task_options)
    except Exception:  # broker unreachable: the next round tries again
        log.exception("could not re-send job %s", job.pk)
        Job.objects.filter(pk=job.pk, sent_at=now).update(sent_at=job.sent_at, resends=job.resends)
        return False
    log.warning("job %s (%s): never taken by a worker, its task sent again", job.pk, job.kind)
    return True


def _reap(job, resume):
    """Cancel, resume or fail one stale job, if its heartbeat is still the one seen: the outcome, or None."""
    same = Job.objects.filter(pk=job.pk, status=Job.RUNNING, heartbeat_at=job.heartbeat_at)
    now = timezone.now()
    if job.cancel_requested:
        cancelled = same.update(status=Job.CANCELLED, finished_at=now, error=f"{LOST}; cancelled on request")
        return "cancelled" if cancelled else None
    if resume is not None and job.attempts < settings.JOB_MAX_ATTEMPTS:
        message = QUEUED_AGAIN % {"attempt": job.attempts + 1}
        if not same.update(status=Job.CREATED, worker="", message=message, sent_at=now):
            return None
        try:
            resume(job)
        except Exception:  # broker unreachable: leave it running and stale, the next round retries
            log.exception("could not re-send job %s", job.pk)
            Job.objects.filter(pk=job.pk, status=Job.CREATED).update(status=Job.RUNNING)
            return None
        log.warning("job %s (%s): worker lost, sent again to resume", job.pk, job.kind)
        return "resumed"
    if same.update(status=Job.FAILED, finished_at=now, error=_lost_error(job, resume)):
        log.warning("job %s (%s): worker lost, marked failed", job.pk, job.kind)
        return "failed"
    return None


def _lost_error(job, resume):
    if resume is not None:
        return f"{LOST} {job.attempts} times; the saved work is kept: start the job again to continue"
    if job.resumable:
        return f"{LOST}; the saved work is kept: start the job again to continue"
    return f"{LOST}; nothing was applied: start the job again"


def worker_seen(name, queues=""):
    """Called by each worker's reaper every round: the worker is alive (for ``health``)."""
    WorkerBeat.objects.update_or_create(name=name[:200], defaults={"seen_at": timezone.now(), "queues": queues[:500]})
    WorkerBeat.objects.filter(seen_at__lt=timezone.now() - timedelta(days=1)).delete()


def health():
    """Can jobs run now? The broker answers, and which workers beat recently."""
    window = max(3 * settings.JOB_REAP_SECONDS, 30)
    recent = WorkerBeat.objects.filter(seen_at__gte=timezone.now() - timedelta(seconds=window)).order_by("name")
    workers = [{"name": w.name, "queues": w.queues, "seen_at": w.seen_at} for w in recent]
    problem = broker_problem()
    if problem:
        message = _("The task queue (Celery broker) is unreachable: new jobs cannot start.")
    elif not workers:
        message = _("No worker has been seen in the last %(seconds)d s: jobs will wait until one starts.") % {
            "seconds": round(window)
        }
    else:
        message = ""
    return {
        "ok": not problem and bool(workers),
        "broker_ok": problem is None,
        "broker_error": problem or "",
        "workers": workers,
        "message": message,
    }
