"""Celery tasks of the annotation app: thin shells over the job bodies of ``annotation.jobs``."""

from celery import shared_task

from annotation.jobs import import_body
from core.runner import run_job


@shared_task(name="annotation.tasks.import_file")
def import_file(job_id):
    job = run_job(job_id, import_body)
    return job.status if job else None


@shared_task(name="annotation.tasks.purge")
def purge():
    """The daily retention run (SPEC 18; CELERY_BEAT_SCHEDULE): what ``manage.py purge`` does."""
    from annotation import retention

    return retention.purge()
