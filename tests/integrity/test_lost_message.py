"""A queued job whose task message the broker lost before any worker took it is sent again by the
reaper and runs (issue 33, point 2): PostgreSQL + Redis + a real Celery worker.

The message is killed for real: the job is queued while no worker listens, then its queue's list is
deleted from Redis (what a Redis restarted without persistence does). The worker, started with a
short ``QAEVAL_JOB_RESEND_SECONDS``, finds the job still ``created`` and sends it again, once."""

import pytest
import redis
from django.conf import settings

from annotation.importers import import_corpus
from annotation.models import Corpus, Prediction
from annotation.tasks import import_file
from core.models import Job
from core.runner import create_job, enqueue

from .conftest import wait_for, write_corpus

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_job_whose_message_was_lost_is_sent_again_and_runs(tmp_path, workers):
    write_corpus(tmp_path / "corpus.jsonl", 20, 2, tmp_path / "predictions.jsonl", seed=3)
    import_corpus(tmp_path / "corpus.jsonl", "lost-msg")
    corpus = Corpus.objects.get(name="lost-msg")
    path = tmp_path / "predictions.jsonl"
    job = create_job("import_predictions", {"kind": "predictions", "corpus": corpus.name, "path": str(path)})
    enqueue(job, import_file, queue=workers.queue)  # sent at once (no transaction around it)
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    assert broker.llen(workers.queue) == 1  # the message is there ...
    broker.delete(workers.queue)  # ... and the broker loses it
    queued = Job.objects.get(pk=job.pk)
    assert queued.status == Job.CREATED and queued.task_name == "annotation.tasks.import_file"
    assert queued.task_options == {"queue": workers.queue} and queued.sent_at is not None

    workers.start(QAEVAL_JOB_RESEND_SECONDS="3", QAEVAL_JOB_REAP_SECONDS="1")
    done = wait_for(
        lambda: (lambda j: j if j.status in Job.FINISHED else None)(Job.objects.get(pk=job.pk)), 90, "the job to end"
    )
    assert done.status == Job.SUCCEEDED, done.error
    assert done.resends == 1 and done.attempts == 1  # sent again once, run once
    assert Prediction.objects.filter(question__corpus=corpus).exclude(system__name="reference").count() == 40
