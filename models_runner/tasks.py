"""Celery tasks: thin shells over ``models_runner.jobs.run_body`` and ``models_runner.jobs.judge_body``,
run as resumable Job rows, and the reaper's resume functions that send them again (named in their kinds' records,
``core.job_kinds``).

``run_inference_gpu`` is routed to the ``gpu`` queue (``CELERY_TASK_ROUTES`` in settings), so that
GPU workers (``celery -A config worker -Q gpu``) can run on other machines; ``run_inference`` runs on
the default queue (baseline, openai, and weights on an explicit cpu).
"""

from celery import shared_task

from core.models import Job
from core.runner import STALE_SECONDS, run_job
from models_runner.jobs import judge_body, run_body

# A copy of the task delivered while the job still beats (a broker redelivery, a duplicate) waits
# and tries again: it takes over only if the first worker really stopped.
RETRY_COUNTDOWN = STALE_SECONDS + 10
MAX_TAKEOVER_RETRIES = 24 * 3600 // RETRY_COUNTDOWN


def _run(task, job_id, body=run_body):
    job = run_job(job_id, body)
    if job is not None:
        return job.status
    current = Job.objects.filter(pk=job_id).first()
    if current is not None and current.status == Job.RUNNING and current.resumable:
        raise task.retry(countdown=RETRY_COUNTDOWN, max_retries=MAX_TAKEOVER_RETRIES)
    return getattr(current, "status", None)


@shared_task(bind=True, name="models_runner.tasks.run_inference")
def run_inference(self, job_id):
    return _run(self, job_id)


@shared_task(bind=True, name="models_runner.tasks.run_inference_gpu")
def run_inference_gpu(self, job_id):
    return _run(self, job_id)


@shared_task(bind=True, name="models_runner.tasks.run_judge")
def run_judge(self, job_id):
    """An LLM judge over a corpus's triplets (resumable: a redelivery continues from the saved labels)."""
    return _run(self, job_id, judge_body)


def resume(job):
    """Send the job's task again, to the queue it was started on (the reaper's resume function)."""
    queue = job.params.get("queue") or "default"
    task = run_inference_gpu if queue == "gpu" else run_inference
    task.apply_async(args=[job.pk], queue=queue)


def resume_judge(job):
    """The reaper's resume function for judge runs: continue from the labels already saved."""
    run_judge.apply_async(args=[job.pk], queue=job.params.get("queue") or "default")
