"""A FrameNet lexicon uploaded in the admin (issue 27, point 6): an archive of the framenet_v17
layout becomes a lexicon through a background job; a bad archive fails the job in words and
imports nothing; the upload is removed whatever the outcome."""

import io
import os
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


# --- zip and tar bombs (issue 33, point 8) -----------------------------------------------------------

MIB = 1024 * 1024


def zeros_zip(path, size, member="framenet_v17/frame/bomb.xml", *, lie=False):
    """A small zip whose ``member`` inflates to ``size`` bytes (with ``lie``, its headers say 1,000)."""
    with (
        zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z,
        z.open(member, "w", force_zip64=False) as out,
    ):
        for _ in range(size // MIB):
            out.write(b"\0" * MIB)
    if lie:
        raw = bytearray(path.read_bytes())
        for signature, offset, head in ((b"PK\x01\x02", 24, 46), (b"PK\x03\x04", 22, 30)):
            at = raw.find(signature)
            while at >= 0:
                if raw[at + head :].startswith(member.encode()):
                    raw[at + offset : at + offset + 4] = (1000).to_bytes(4, "little")
                at = raw.find(signature, at + 4)
        path.write_bytes(bytes(raw))
    return path


def zeros_tgz(path, size, member="framenet_v17/frame/bomb.xml"):
    class Zeros(io.RawIOBase):
        left = size

        def readinto(self, b):
            n = min(len(b), self.left)
            b[:n] = b"\0" * n
            self.left -= n
            return n

    with tarfile.open(path, "w:gz", compresslevel=9) as t:
        info = tarfile.TarInfo(member)
        info.size = size
        t.addfile(info, Zeros())
    return path


MEASURE = """
import os, sys, threading, time
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.test_settings")
os.environ["QAEVAL_MAX_LEXICON_BYTES"] = sys.argv[3]
import django; django.setup()
from frames.lexicon_jobs import LexiconUploadError, unpack

def rss():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) // 1024

def disk():
    return sum(os.path.getsize(os.path.join(d, n)) for d, _s, names in os.walk(sys.argv[2]) for n in names)

idle, peak, most, done = rss(), [0], [0], threading.Event()
def sample():
    while not done.is_set():
        peak[0], most[0] = max(peak[0], rss()), max(most[0], disk())
        time.sleep(0.005)
sampler = threading.Thread(target=sample); sampler.start()
try:
    unpack(sys.argv[1], sys.argv[2], original_name="bomb")
    outcome = "unpacked"
except LexiconUploadError as exc:
    outcome = "refused: " + str(exc)
done.set(); sampler.join()
print(idle, max(peak[0], rss()), max(most[0], disk()))
print(outcome)
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("case", "build"),
    [
        ("zip bomb", lambda p: zeros_zip(p / "bomb.zip", 1024 * MIB)),
        ("zip bomb, lying headers", lambda p: zeros_zip(p / "bomb.zip", 1024 * MIB, lie=True)),
        ("tar.gz bomb", lambda p: zeros_tgz(p / "bomb.tar.gz", 1024 * MIB)),
    ],
)
def test_a_bomb_never_fills_memory_or_disk(tmp_path, case, build):
    """1 GiB inside a file of about 1 MiB, the limit 64 MiB: refused; the unpacking process grows by
    less than 300 MiB and the folder never holds more than twice the limit (sampled every 5 ms)."""
    import subprocess
    import sys

    from tests.conftest import REPO

    limit = 64 * MIB
    archive = build(tmp_path)
    assert archive.stat().st_size < 4 * MIB
    folder = tmp_path / "unpacked"
    folder.mkdir()
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(archive), str(folder), str(limit)], cwd=REPO, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    sizes, outcome = out.stdout.strip().split("\n", 1)
    idle, peak, disk = map(int, sizes.split())
    print(f"{case}: idle {idle} MiB, peak {peak} MiB (+{peak - idle}), disk at most {disk / MIB:.1f} MiB: {outcome}")
    assert outcome.startswith("refused: bomb: "), outcome
    assert peak - idle < 300 and disk < 2 * limit, (peak - idle, disk)


def test_a_bomb_fails_the_job_in_words(admin_client, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.MAX_LEXICON_BYTES = 8 * MIB
    data = zeros_zip(tmp_path / "b.zip", 64 * MIB).read_bytes()
    job = upload(admin_client, settings, tmp_path, "bomb", data, "bomb.zip", django_capture_on_commit_callbacks)
    assert job.status == Job.FAILED and "more than QAEVAL_MAX_LEXICON_BYTES once unpacked" in job.error
    assert "bomb.zip" in job.error and not FrameLexicon.objects.filter(name="bomb").exists()


def test_too_many_members_are_refused(admin_client, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.MAX_LEXICON_MEMBERS = 50
    data = zipped(extra={f"framenet_v17/empty/{i}.xml": "" for i in range(60)})
    job = upload(admin_client, settings, tmp_path, "many", data, "many.zip", django_capture_on_commit_callbacks)
    assert job.status == Job.FAILED and "more members than QAEVAL_MAX_LEXICON_MEMBERS" in job.error


# --- limits sized to what a lexicon is (issue 44, point 4) ----------------------------------------


def test_the_default_limit_is_sized_to_a_lexicon():
    """256 MiB (a lexicon's read files are some tens of MiB), not the 2 GiB a bomb could fill before."""
    from config import settings as config

    assert config.MAX_LEXICON_BYTES == 256 * MIB or "QAEVAL_MAX_LEXICON_BYTES" in os.environ


def test_members_the_import_does_not_read_are_never_written(tmp_path):
    """A bomb in ``lu/`` (a folder the import never reads) takes no disk: only frameIndex.xml,
    luIndex.xml and frame/*.xml are unpacked."""
    from frames.lexicon_jobs import unpack

    archive = zeros_zip(tmp_path / "lu-bomb.zip", 64 * MIB, member="framenet_v17/lu/lu1.xml")
    with zipfile.ZipFile(archive, "a") as z:
        z.writestr("framenet_v17/frameIndex.xml", "<frameIndex/>")
        z.writestr("framenet_v17/frame/Attack.xml", "<frame/>")
        z.writestr("framenet_v17/fulltext/big.xml", "x" * 1000)
    folder = tmp_path / "out"
    folder.mkdir()
    unpack(archive, folder, original_name="lu-bomb.zip")
    written = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    assert written == ["framenet_v17/frame/Attack.xml", "framenet_v17/frameIndex.xml"]


def test_a_lexicon_with_unread_folders_imports(admin_client, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.MAX_LEXICON_BYTES = 8 * MIB
    data = zipped(extra={"framenet_v17/lu/lu1.xml": "x" * (9 * MIB), "framenet_v17/fulltext/a.xml": "<a/>"})
    job = upload(admin_client, settings, tmp_path, "big-lu", data, "fn.zip", django_capture_on_commit_callbacks)
    assert job.status == Job.SUCCEEDED, job.error
    assert FrameLexicon.objects.filter(name="big-lu").exists()
