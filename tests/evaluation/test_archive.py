"""Study archives (SPEC 14) in one process: every model covered, a round trip that keeps every row,
label history and resume point, and archives refused with a clear error and nothing written."""

import io
import json
import zipfile

import pytest
from django.apps import apps
from django.conf import settings
from django.core.management import CommandError, call_command

from annotation.annotating import next_item
from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import Assignment, Corpus, Label
from evaluation.archive import collect, insert, restore
from evaluation.archive.format import ArchiveError
from evaluation.files import load_json as report_data
from tests import study_fill
from tests.conftest import REPO


def test_every_model_of_the_project_is_archived_or_listed_with_a_reason():
    """A model added to any app of the project must be reachable from a corpus, referred to by an
    archived model, or listed in NOT_ARCHIVED with its reason; ``plan()`` raises otherwise."""
    archived = {m.label for m in collect.plan()}
    project = set(collect.project_models())
    assert project, "no project models found"
    for label in sorted(project):
        reason = collect.NOT_ARCHIVED.get(label, "")
        assert (label in archived) != bool(reason.strip()), f"{label}: neither archived nor listed with a reason"
        if label in archived:
            member = next(m for m in collect.plan() if m.label == label)
            assert member.owned or member.referenced_by or member.extra or label == collect.JOB, label
    assert set(collect.NOT_ARCHIVED) <= project, "NOT_ARCHIVED names a model that does not exist"
    # independently of project_models(): every installed app that is a folder of this repository
    ours = [a for a in settings.INSTALLED_APPS if (REPO / a.split(".")[0]).is_dir()]
    assert {"core", "annotation", "models_runner", "frames", "evaluation"} <= set(ours)
    tables = {
        m._meta.label for a in ours for m in apps.get_app_config(a.split(".")[-1]).get_models(include_auto_created=True)
    }
    assert {label for label in tables if not apps.get_model(label)._meta.proxy} == project


@pytest.fixture
def study(tiny_corpus, make_user):
    make_user("admin", "admin")
    folds = create_folds(tiny_corpus, k=2, seed=0, overlap=1.0)
    for n, fold in enumerate(folds):
        assign_fold(fold, make_user(f"ann{n}", "annotator"))
    job = study_fill.fill("tiny")
    return tiny_corpus, job


SHARED = {
    "annotation.System",
    "models_runner.Judge",
    "frames.FrameLexicon",
    "frames.FrameDef",
    "frames.FrameElementDef",
    "frames.LexicalUnitDef",
}


def _counts():
    return {m.label: m.model._base_manager.count() for m in collect.plan()}


def _histories(corpus):
    rows = Label.objects.filter(triplet__question__corpus=corpus).order_by("annotator__username", "triplet__answer")
    return [
        (
            label.annotator.username,
            label.triplet.question.external_id,
            label.triplet.answer,
            label.value,
            label.skipped,
            label.seconds_spent,
            label.created_at,
            [(e.value, e.skipped, e.seconds, e.submission_id, e.created_at) for e in label.events.order_by("pk")],
        )
        for label in rows
    ]


def _resume_points(corpus):
    points = {}
    for a in Assignment.objects.filter(fold__corpus=corpus).select_related("fold", "annotator"):
        item = next_item(a.fold, a.annotator) if a.fold.kind == "triplet" else None
        points[(a.annotator.username, a.fold.kind, a.fold.index)] = (
            item and (item.position, item.triplet.answer),
            a.done,
            a.cursor,
        )
    return points


def _export(corpus):
    buffer = io.BytesIO()
    manifest = collect.export_study(corpus, buffer, full=True)  # SPEC 18: with panel ids, to compare all
    return buffer.getvalue(), manifest


@pytest.mark.django_db
def test_round_trip_keeps_rows_history_resume_point_and_report(study):
    """Export, lose the study, import it back: everything as it was (times included, ids aside)."""
    corpus, job = study
    data, manifest = _export(corpus)
    assert "password" not in data.decode("latin-1") and "token" not in manifest["members"]
    assert all(m["rows"] for name, m in manifest["members"].items() if "Label" in name or "Frame" in name)
    assert manifest["members"]["rows/annotation.Participant.jsonl"]["rows"] == 1
    before = study_fill.fingerprint("tiny")  # computes one more report, as the one after will
    histories, resume = _histories(corpus), _resume_points(corpus)
    finished = report_data(job)
    # the same study under another name in the same database: its crowd study's slug is taken
    counts = _counts()
    with pytest.raises(ArchiveError, match=r"annotation\.Study: slug 'tiny-crowd' is taken in this database"):
        restore.import_study(io.BytesIO(data), "tiny-copy")
    assert _counts() == counts
    # the study is lost (the corpus and its jobs deleted), then restored from the archive
    copy_jobs("tiny").delete()
    corpus.delete()
    steps = []
    summary = restore.import_study(io.BytesIO(data), progress=lambda **kw: steps.append(kw))
    assert summary["corpus"] == "tiny" and summary["rows"]["annotation.Label"] == len(histories)
    # progress: one step per model restored, the total known from the first
    assert len(steps) == len(collect.plan()) and {s["total"] for s in steps} == {len(steps) + 1}
    assert [s["done"] for s in steps] == list(range(len(steps)))
    restored = Corpus.objects.get(name="tiny")
    assert _histories(restored) == histories
    assert _resume_points(restored) == resume
    # the finished report came back with its files
    assert report_data(copy_jobs("tiny").filter(kind="report").first()) == finished
    after = study_fill.fingerprint("tiny")
    assert after == before
    # the restored study exports to the same rows
    _, manifest2 = _export(restored)
    assert {k: v["rows"] for k, v in manifest2["members"].items() if v["rows"] is not None} == {
        k: v["rows"] + (1 if k.endswith("core.Job.jsonl") else 0)  # the report of the fingerprint
        for k, v in manifest["members"].items()
        if v["rows"] is not None
    }


def copy_jobs(name):
    from django.db.models import Q

    from core.models import Job

    corpus = Corpus.objects.filter(name=name).first()
    return Job.objects.filter(Q(params__corpus=name) | Q(params__corpus_id=getattr(corpus, "pk", 0))).order_by("pk")


def _zip_with(data, change):
    """A copy of the archive ``data`` with its members passed through ``change(name, bytes)``."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            blob = change(name, src.read(name))
            if blob is not None:
                dst.writestr(name, blob)
    return out.getvalue()


def _flip(data, member):
    def change(name, blob):
        if name != member:
            return blob
        return blob[:10] + bytes([blob[10] ^ 1]) + blob[11:]

    return _zip_with(data, change)


def _newer(data):
    def change(name, blob):
        if name != "manifest.json":
            return blob
        manifest = json.loads(blob)
        manifest["schema"]["annotation"] = ["9999_from_the_future"]
        return json.dumps(manifest).encode()

    return _zip_with(data, change)


@pytest.mark.django_db
def test_bad_archives_are_refused_with_the_problem_named_and_nothing_written(study, tmp_path):
    corpus, _ = study
    data, _ = _export(corpus)
    label_member = "rows/annotation.Label.jsonl"
    cases = {
        "truncated": (data[: len(data) // 2], "not a readable zip archive, truncated or corrupt"),
        "one byte": (_flip(data, label_member), f"archive member {label_member} was altered"),
        "missing": (_zip_with(data, lambda n, b: None if n == label_member else b), f"{label_member} is missing"),
        "newer": (_newer(data), "newer schema (migration annotation.9999_from_the_future is unknown here)"),
        "exists": (data, "a corpus named 'tiny' exists already"),
        "not a zip": (b"hello", "not a readable zip archive"),
    }
    before = _counts()
    for case, (blob, message) in cases.items():
        path = tmp_path / f"{case.replace(' ', '-')}.zip"
        path.write_bytes(blob)
        with pytest.raises(CommandError) as caught:
            call_command("import_study", str(path), corpus=None if case == "exists" else "fresh")
        assert message in str(caught.value), (case, str(caught.value))
        assert str(caught.value).startswith("nothing imported:")
        assert _counts() == before, case
    # a byte changed inside the stored zip (its CRC no longer matches) names the member too
    raw = bytearray(data)
    at = raw.find(b"rows/annotation.Label.jsonl") + 200
    raw[at] ^= 0xFF
    with pytest.raises(ArchiveError) as caught:
        restore.import_study(io.BytesIO(bytes(raw)), "fresh")
    assert "archive member" in str(caught.value) or "not a readable zip" in str(caught.value)
    assert _counts() == before


def _with_member(data, name, blob):
    """The archive ``data`` with one more member, listed in its manifest with the right SHA-256."""
    from evaluation.archive import format as archive

    def change(member, content):
        if member != "manifest.json":
            return content
        manifest = json.loads(content)
        manifest["members"][name] = archive.describe(blob)
        return archive.encode_manifest(manifest)

    out = io.BytesIO(_zip_with(data, change))
    with zipfile.ZipFile(out, "a") as zf:
        zf.writestr(name, blob)
    return out.getvalue()


@pytest.mark.django_db
def test_files_outside_their_job_folder_and_oversized_archives_are_refused(study, settings, tmp_path):
    corpus, job = study
    data, _ = _export(corpus)
    corpus.delete()
    before = _counts()
    for name in (
        f"files/report/{job.pk}/../../../escaped.txt",
        f"files/report/{job.pk}//tmp/escaped.txt",
        "files/report/999999/report.json",
        "files/other/1/x",
    ):
        with pytest.raises(ArchiveError, match="not a file of an archived job"):
            restore.import_study(io.BytesIO(_with_member(data, name, b"x")))
        assert _counts() == before, name
    assert not (tmp_path / "escaped.txt").exists() and not list(tmp_path.parent.glob("escaped.txt"))
    settings.MAX_ARCHIVE_BYTES = 1000
    with pytest.raises(ArchiveError, match="bytes once unpacked, more than QAEVAL_MAX_ARCHIVE_BYTES"):
        restore.import_study(io.BytesIO(data))
    assert _counts() == before


@pytest.mark.django_db
def test_failure_midway_writes_nothing(study, monkeypatch):
    corpus, _ = study
    data, _ = _export(corpus)
    corpus.delete()
    before = _counts()
    real = insert.insert_batch

    def failing(member, rows, maps, *, context):
        if member.label == "annotation.LabelEvent":
            raise ArchiveError("disk full (simulated)")
        return real(member, rows, maps, context=context)

    monkeypatch.setattr(insert, "insert_batch", failing)
    with pytest.raises(ArchiveError, match="disk full"):
        restore.import_study(io.BytesIO(data))
    assert _counts() == before and not Corpus.objects.filter(name="tiny").exists()
