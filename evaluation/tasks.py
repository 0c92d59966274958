"""Celery tasks of the evaluation app: thin shells over ``evaluation.jobs`` (reports, study imports)."""

from celery import shared_task

from core.runner import run_job
from evaluation.jobs import report_body, study_import_body


@shared_task(name="evaluation.tasks.build_report")
def build_report(job_id):
    job = run_job(job_id, report_body)
    return job.status if job else None


@shared_task(name="evaluation.tasks.import_study_archive")
def import_study_archive(job_id):
    job = run_job(job_id, study_import_body)
    return job.status if job else None
