"""The Django admin's own pages: import upload and frame prediction start background jobs."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from core.models import Job
from frames.models import FrameLexicon

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, make_user):
    user = make_user("boss", "admin")
    user.is_superuser = True
    user.save()
    client.force_login(user)
    return client


def test_admin_upload_starts_an_import_job(admin_client, django_capture_on_commit_callbacks, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    from config.celery import app

    app.conf.task_always_eager = True
    try:
        line = b'{"id": "a1", "context": "C", "question": "Q?", "answers": ["x"]}\n'
        with django_capture_on_commit_callbacks(execute=True):
            resp = admin_client.post(
                "/admin/annotation/corpus/import/",
                {"kind": "corpus", "corpus": "uploaded", "file": SimpleUploadedFile("c.jsonl", line)},
            )
        assert resp.status_code == 302
        job = Job.objects.get()
        assert job.kind == "import_corpus" and job.status == Job.SUCCEEDED, job.error
        bad = b'{"id": "a2", "context": "C"}\n'
        with django_capture_on_commit_callbacks(execute=True):
            admin_client.post(
                "/admin/annotation/corpus/import/",
                {"kind": "corpus", "corpus": "uploaded", "file": SimpleUploadedFile("bad.jsonl", bad)},
            )
        failed = Job.objects.order_by("-id").first()
        assert failed.status == Job.FAILED and failed.error == "bad.jsonl:1: field 'question': missing required field"
    finally:
        app.conf.task_always_eager = False


def test_admin_frame_prediction_form_creates_a_resumable_job(
    admin_client, tiny_corpus, django_capture_on_commit_callbacks
):
    from frames import jobs as frame_jobs
    from frames import lexicon_store

    lexicon_store.ensure_shipped_lexicon()
    assert FrameLexicon.objects.exists()
    page = admin_client.get(f"/admin/annotation/corpus/{tiny_corpus.pk}/predict-frames/")
    assert page.status_code == 200 and b"paper&#x27;s two prompts" in page.content
    with django_capture_on_commit_callbacks(execute=False):
        resp = admin_client.post(
            f"/admin/annotation/corpus/{tiny_corpus.pk}/predict-frames/",
            {
                "lexicon": lexicon_store.SHIPPED_NAME,
                "model": "m",
                "base_url": "http://127.0.0.1:9/v1",
                "api_key_env": "LLM_KEY_K",
            },
        )
    assert resp.status_code == 302
    job = Job.objects.get(kind=frame_jobs.JOB_KIND)
    assert job.resumable and job.params["corpus"] == "tiny" and job.status == Job.CREATED
