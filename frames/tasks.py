"""Celery shells of the frame proxy (``frames.jobs.frame_job_body``) and of the attribute derivation
(``frames.attribute_jobs.attribute_job_body``, SPEC 15), each run as a Job row.

Celery's autodiscovery imports this module in the worker (``frames`` is an installed app).
"""

from celery import shared_task

from core.runner import run_job
from frames import attribute_jobs, jobs, lexicon_jobs


@shared_task(name="annotation.frame_tasks.predict_frames")
def predict_frames(job_id):
    job = run_job(job_id, jobs.frame_job_body)
    return job.status if job else None


def resume(job):
    """The reaper's resume function: send the frame job again (it skips questions already done)."""
    predict_frames.apply_async(args=[job.pk])


@shared_task(name="frames.tasks.derive_attributes")
def derive_attributes(job_id):
    job = run_job(job_id, attribute_jobs.attribute_job_body)
    return job.status if job else None


def resume_attributes(job):
    """The reaper's resume function of a derivation: send it again (it wrote nothing before finishing)."""
    derive_attributes.apply_async(args=[job.pk])


@shared_task(name="frames.tasks.import_lexicon_upload")
def import_lexicon_upload(job_id):
    job = run_job(job_id, lexicon_jobs.lexicon_job_body)
    return job.status if job else None
