"""Celery shell of the frame proxy: the job body is ``frames.jobs.frame_job_body``, run as a Job row.

Celery's autodiscovery imports this module in the worker (``frames`` is an installed app).
"""

from celery import shared_task

from core.runner import run_job
from frames import jobs


@shared_task(name="annotation.frame_tasks.predict_frames")
def predict_frames(job_id):
    job = run_job(job_id, jobs.frame_job_body)
    return job.status if job else None


def resume(job):
    """The reaper's resume function: send the frame job again (it skips questions already done)."""
    predict_frames.apply_async(args=[job.pk])


# The reaper's resume function of each resumable kind (read by ``core.reaper.resumers``).
RESUMERS = {jobs.JOB_KIND: resume}
