"""A FrameNet lexicon uploaded in the admin (issue 27, point 6): an archive of the framenet_v17
layout becomes a lexicon through a background job; a bad archive fails the job in words and
imports nothing; the upload is removed whatever the outcome."""

import io
import tarfile
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from core.models import Job
from frames.framenet import SHIPPED_LEXICON
from frames.models import FrameLexicon

pytestmark = pytest.mark.django_db


def zipped(root=SHIPPED_LEXICON, prefix="framenet_v17/", extra=None):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for path in root.rglob("*"):
            if path.is_file():
                z.write(path, prefix + str(path.relative_to(root)))
        for name, text in (extra or {}).items():
            z.writestr(name, text)
    return buffer.getvalue()


def upload(admin_client, settings, tmp_path, name, data, filename, capture):
    from config.celery import app

    settings.UPLOAD_DIR = tmp_path / "uploads"
    app.conf.task_always_eager = True
    try:
        with capture(execute=True):
            resp = admin_client.post(
                reverse("admin:frames_framelexicon_upload"),
                {"name": name, "file": SimpleUploadedFile(filename, data)},
            )
    finally:
        app.conf.task_always_eager = False
    assert resp.status_code == 302, resp.content.decode()[-800:]
    job = Job.objects.get(kind="frames_lexicon", params__name=name)
    assert list((tmp_path / "uploads").iterdir()) == []  # the upload is removed once read
    return job


def test_a_zipped_lexicon_is_imported_by_a_job(admin_client, settings, tmp_path, django_capture_on_commit_callbacks):
    job = upload(admin_client, settings, tmp_path, "mini-web", zipped(), "fn.zip", django_capture_on_commit_callbacks)
    assert job.status == Job.SUCCEEDED, job.error
    lexicon = FrameLexicon.objects.get(name="mini-web")
    assert job.result["frames"] == lexicon.frames.count() > 0
    page = admin_client.get(reverse("admin:core_job_change", args=[job.pk])).content.decode()
    assert "Predict frames for a corpus" in page
    assert "Upload a lexicon" in admin_client.get(reverse("admin:frames_framelexicon_changelist")).content.decode()


def test_a_tar_gz_lexicon_too(admin_client, settings, tmp_path, django_capture_on_commit_callbacks):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as t:
        t.add(SHIPPED_LEXICON, arcname="framenet_v17")
    job = upload(
        admin_client, settings, tmp_path, "mini-tar", buffer.getvalue(), "fn.tgz", django_capture_on_commit_callbacks
    )
    assert job.status == Job.SUCCEEDED, job.error
    assert FrameLexicon.objects.filter(name="mini-tar").exists()


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"not an archive at all", "not a zip or tar archive"),
        (zipped(extra={"../evil.txt": "x"}), "would leave the folder"),
        (zipped(root=SHIPPED_LEXICON / "frame", prefix="frames/"), "no frameIndex.xml"),
    ],
)
def test_bad_archives_fail_in_words_and_import_nothing(
    admin_client, settings, tmp_path, django_capture_on_commit_callbacks, data, said
):
    job = upload(admin_client, settings, tmp_path, "bad", data, "bad.zip", django_capture_on_commit_callbacks)
    assert job.status == Job.FAILED and said in job.error and str(tmp_path) not in job.error
    assert not FrameLexicon.objects.filter(name="bad").exists()


def test_the_form_refuses_a_missing_file(admin_client):
    resp = admin_client.post(reverse("admin:frames_framelexicon_upload"), {"name": "x"})
    assert resp.status_code == 200 and "This field is required" in resp.content.decode()
    assert not Job.objects.exists()
