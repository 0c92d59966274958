"""Celery task of the evaluation app: a thin shell over ``evaluation.jobs.report_body``."""

from celery import shared_task

from core.runner import run_job
from evaluation.jobs import report_body


@shared_task(name="evaluation.tasks.build_report")
def build_report(job_id):
    job = run_job(job_id, report_body)
    return job.status if job else None
