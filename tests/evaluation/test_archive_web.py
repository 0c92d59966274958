"""Study archives from the Django admin and the API (SPEC 14): export a corpus as a download, import
an archive as a background job (through the Celery task, eager) with progress, refusals named on the
job with nothing written, and the upload removed once the job ends."""

import io
import zipfile
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Corpus, Label, LabelEvent
from core.models import Job
from evaluation.archive import restore
from tests import study_fill

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss(client, make_user, tiny_corpus):
    from annotation.assignments import assign_fold
    from annotation.fold_store import create_folds

    user = make_user("admin", "admin")
    user.is_superuser = True
    user.save()
    for n, fold in enumerate(create_folds(tiny_corpus, k=2, seed=0, overlap=1.0)):
        assign_fold(fold, make_user(f"ann{n}", "annotator"))
    study_fill.fill("tiny", crowd=False)
    client.force_login(user)
    return client


@pytest.fixture
def eager(settings):
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


def _uploads():
    folder = Path(settings.UPLOAD_DIR)
    return sorted(folder.iterdir()) if folder.exists() else []


def test_admin_exports_a_corpus_and_imports_the_archive_as_a_job(
    boss, eager, tiny_corpus, django_capture_on_commit_callbacks
):
    page = boss.get("/admin/evaluation/studyarchive/")
    assert page.status_code == 200 and b"Import a study archive" in page.content
    resp = boss.post(
        "/admin/evaluation/studyarchive/", {"action": "export_archive", "_selected_action": [tiny_corpus.pk]}
    )
    assert resp.status_code == 200 and resp["Content-Type"] == "application/zip"
    assert 'filename="tiny.study.zip"' in resp["Content-Disposition"]
    data = resp.content
    manifest, _ = restore.read_archive(io.BytesIO(data))
    assert manifest["corpus"] == "tiny" and manifest["members"]["rows/annotation.Label.jsonl"]["rows"] > 0
    with django_capture_on_commit_callbacks(execute=True):
        resp = boss.post(
            "/admin/evaluation/studyarchive/import/",
            {"file": SimpleUploadedFile("tiny.study.zip", data), "corpus": "tiny-moved"},
        )
    assert resp.status_code == 302
    job = Job.objects.get(kind="import_study")
    assert job.status == Job.SUCCEEDED, job.error
    assert job.result["corpus"] == "tiny-moved"
    moved = Corpus.objects.get(name="tiny-moved")
    assert Label.objects.filter(triplet__question__corpus=moved).count() == job.result["rows"]["annotation.Label"]
    assert _uploads() == []  # the stored upload is removed once the job ended
    # a name that exists is refused by the form, before any job
    again = boss.post(
        "/admin/evaluation/studyarchive/import/", {"file": SimpleUploadedFile("t.zip", data), "corpus": "tiny"}
    )
    assert again.status_code == 200 and b"a corpus named &#x27;tiny&#x27; exists already" in again.content


def test_api_downloads_and_imports_and_a_bad_archive_fails_its_job_naming_the_problem(
    boss, eager, tiny_corpus, django_capture_on_commit_callbacks
):
    resp = boss.get(f"/research/api/studies/{tiny_corpus.pk}/archive/")
    assert resp.status_code == 200
    data = b"".join(resp.streaming_content) if resp.streaming else resp.content
    assert zipfile.ZipFile(io.BytesIO(data)).testzip() is None
    assert boss.get(f"/research/api/studies/{2**63}/archive/").status_code == 404
    assert boss.get("/research/api/studies/987654/archive/").status_code == 404
    before = (Corpus.objects.count(), Label.objects.count(), LabelEvent.objects.count())
    with django_capture_on_commit_callbacks(execute=True):
        resp = boss.post(
            "/research/api/studies/import/", {"file": SimpleUploadedFile("cut.zip", data[:-100]), "corpus": "cut"}
        )
    assert resp.status_code == 202, resp.content
    job = Job.objects.get(pk=resp.json()["id"])
    assert job.status == Job.FAILED and job.error.startswith("cut.zip: not a readable zip archive")
    assert (Corpus.objects.count(), Label.objects.count(), LabelEvent.objects.count()) == before
    assert _uploads() == []
    bad = boss.post("/research/api/studies/import/", {"file": SimpleUploadedFile("x.zip", data), "corpus": "a b"})
    assert bad.status_code == 400 and "corpus" in bad.json()
    taken = boss.post("/research/api/studies/import/", {"file": SimpleUploadedFile("x.zip", data), "corpus": "tiny"})
    assert taken.status_code == 400 and "exists already" in str(taken.json())
    with django_capture_on_commit_callbacks(execute=True):
        resp = boss.post("/research/api/studies/import/", {"file": SimpleUploadedFile("ok.zip", data), "corpus": "ok"})
    assert Job.objects.get(pk=resp.json()["id"]).status == Job.SUCCEEDED
    assert Corpus.objects.filter(name="ok").exists()
