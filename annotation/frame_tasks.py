"""Celery task of the frame proxy: a thin shell over ``frame_jobs.frame_job_body`` run as a Job row.

Imported by ``AnnotationConfig.ready()`` so that the worker registers it (Celery's autodiscovery
only imports ``<app>.tasks``).
"""
from celery import shared_task

from annotation import frame_jobs
from core.reaper import register_resumer
from core.runner import create_job, enqueue, run_job


@shared_task(name="annotation.frame_tasks.predict_frames")
def predict_frames(job_id):
    job = run_job(job_id, frame_jobs.frame_job_body)
    return job.status if job else None


register_resumer(frame_jobs.JOB_KIND, lambda job: predict_frames.apply_async(args=[job.pk]))


def start_frame_job(corpus, lexicon=frame_jobs.SHIPPED_NAME, model=None, base_url=None, force=False, limit=None,
                    fe_hint=False, api_key_env=None, requests_per_minute=None, user=None):
    """Create the Job row and queue the task once the current transaction commits.

    Resumable: each question is committed on its own, so a redelivered task continues the work.
    """
    params = frame_jobs.job_params(corpus, lexicon=lexicon, model=model, base_url=base_url, force=force,
                                   limit=limit, fe_hint=fe_hint, api_key_env=api_key_env,
                                   requests_per_minute=requests_per_minute)
    job = create_job(frame_jobs.JOB_KIND, params=params, user=user, resumable=True)
    return enqueue(job, predict_frames)
