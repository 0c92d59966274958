"""Celery tasks of the evaluation app: thin shells over ``evaluation.jobs`` (reports, study imports) and
``evaluation.live_state`` (the live sequences and the close rule, SPEC 16)."""

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


@shared_task(name="evaluation.tasks.refresh_live")
def refresh_live(corpus_id):
    """SPEC 16: carry the live sequences of a corpus forward and ask its studies' close rules (no Job row:
    a cache of the labels, refreshed after they arrive; ``evaluation.live_state``)."""
    from evaluation.live_state import refresh

    refresh(corpus_id)
