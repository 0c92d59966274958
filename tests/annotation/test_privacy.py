"""Participants' data (SPEC 18, issue 41): a canary panel id reaches no researcher-reachable output;
an erasure leaves no trace of it in the database or the var folder; restores bring nobody back.

The canary arrives through the real pages (entry link, consent, labels, a flag), a report is run
through the site, then a researcher asks every URL the resolver offers (the permission matrix's
list), every report file, and an admin the default archive: the canary is in none of them, and it
is in the admin's payment CSV (the one place it must be).
"""

import io
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client, TestCase, override_settings
from django.urls import resolve, reverse

from annotation import privacy, studies
from annotation.models import ErasureTombstone, Flag, Label, LabelEvent, Participant, Study
from bench.kit.crowd import build_study
from tests.annotation.test_studies import always, judge_next

pytestmark = pytest.mark.django_db

CANARY = "CANARY5f3e9a7b1c2d4e"
LINK = f"/study/pilot/?PROLIFIC_PID={CANARY}&STUDY_ID=CANARYSTUDY&SESSION_ID=CANARYSESSION"


@pytest.fixture
def var(tmp_path, settings):
    """A var folder of the test's own (tombstones file, media: report files)."""
    folder = tmp_path / "var"
    (folder / "media").mkdir(parents=True)
    settings.VAR_DIR = folder
    settings.MEDIA_ROOT = folder / "media"
    return folder


@pytest.fixture
def study(tmp_path, var):
    return build_study(tmp_path, n_questions=8, k=4)


def arrive(link=LINK):
    """The canary's browser: the entry link (redirected to an address without ids), the consent, two
    labels and a flag. Returns the client and the participant."""
    client = Client()
    first = client.get(link)
    assert first.status_code == 302 and first["Location"] == "/study/pilot/"  # the ids left the address
    assert client.get(first["Location"]).status_code == 200
    assert client.post("/study/pilot/", {"consent": "yes"}).status_code == 302
    participant = Participant.objects.get(external_id=link.split("=")[1].split("&")[0])
    for _ in range(2):
        judge_next(client, participant.fold_id, always("partial"))
    item = participant.fold.items.order_by("position").first().handle
    flagged = client.post(f"/annotate/{participant.fold_id}/flag/", {"item": item, "reason": "other", "comment": "?"})
    assert flagged.status_code in (200, 204, 302)
    assert Flag.objects.filter(annotator=participant.user).exists()
    return client, participant


def run_report(client, corpus):
    from config.celery import app

    form = {"corpus": corpus, "alpha": 5, "metric": "hscore", "n_boot": 0, "human_aggregate": "mean"}
    app.conf.task_always_eager = True
    try:
        with override_settings(CELERY_TASK_ALWAYS_EAGER=True), TestCase.captureOnCommitCallbacks(execute=True):
            made = client.post(reverse("reports"), {**form, "significance": "raw"})
    finally:
        app.conf.task_always_eager = False
    assert made.status_code == 302, made.content
    return resolve(made["Location"]).kwargs["pk"]


def body(resp):
    data = b"".join(resp.streaming_content) if resp.streaming else resp.content
    return data + resp.get("Location", "").encode()


def zip_text(data):
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return b"".join(zf.read(name) for name in zf.namelist())


def database_text():
    """Every row of every table, as text (a dump of the whole database)."""
    out = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            out += [repr(row) for row in cursor.fetchall()]
    return "\n".join(out)


def files_text(folder):
    return b"".join(p.read_bytes() for p in Path(folder).rglob("*") if p.is_file())


def test_the_canary_reaches_no_researcher_output_but_the_admins_payment_csv(study, make_user):
    from tests.core.test_permissions import QUERY, site_urls, url_kwargs

    _client, participant = arrive()
    assert CANARY not in participant.user.username and participant.code.startswith("P-")
    researcher, admin = Client(), Client()
    researcher.force_login(make_user("res", "researcher"))
    admin.force_login(make_user("boss", "admin"))
    report = run_report(researcher, study.corpus.name)
    world = {
        "fold": participant.fold_id,
        "item": participant.fold.items.first().handle,
        "corpus": study.corpus_id,
        "assignment": participant.user.assignments.first().pk,
        "frame_fold": participant.fold_id,
        "frame_item": participant.fold.items.first().handle,
        "attribute_fold": participant.fold_id,
        "attribute_item": participant.fold.items.first().handle,
        "report": report,
        "run": 0,
        "study": "pilot",
        "code": participant.code,
    }
    asked = []
    for name, _pattern in site_urls():
        path = reverse(name, kwargs=url_kwargs(name, world))
        for query in {QUERY.get(name, ""), f"?corpus={study.corpus.name}", "?format=csv", "?format=jsonl"}:
            resp = researcher.get(path + query)
            asked.append((name, resp.status_code))
            assert CANARY.encode() not in body(resp), f"{name}{query} shows the canary"
    assert sum(code == 200 for _n, code in asked) > 40  # the researcher did read pages, not only refusals
    from core.models import Job
    from evaluation import files

    names = files.file_names(Job.objects.get(pk=report))
    assert "report.json" in names and len(names) > 3
    for name in names:
        resp = researcher.get(reverse("report-file", args=[report, name]))
        assert resp.status_code == 200 and CANARY.encode() not in body(resp), name
    from evaluation.report_inputs import read_inputs

    labels = read_inputs(study.corpus).labels
    assert set(labels["annotator"]) == {"A01"}  # reports and paper tables name annotators A01..An
    archive = admin.get(reverse("api-study-archive", args=[study.corpus_id]))
    assert archive.status_code == 200 and CANARY.encode() not in zip_text(body(archive))
    full = admin.get(reverse("api-study-archive", args=[study.corpus_id]) + "?full=1")
    assert CANARY.encode() in zip_text(body(full))
    with zipfile.ZipFile(io.BytesIO(body(full))) as zf:
        assert b"personal data" in zf.read("manifest.json")
    payment = body(admin.get(reverse("study-participants-csv", args=["pilot"])))
    assert CANARY.encode() in payment and participant.code.encode() in payment


def test_withdraw_erases_every_trace_and_the_person_sees_they_withdrew(study, var, make_user):
    _client, participant = arrive()
    researcher = Client()
    researcher.force_login(make_user("res", "researcher"))
    run_report(researcher, study.corpus.name)
    assert list((var / "media").rglob("report.json"))  # the var folder holds the report's files
    assert CANARY in database_text()
    user_id = participant.user_id
    out = io.StringIO()
    call_command("erase_participant", "pilot", CANARY, mode="withdraw", reason="asked by email", stdout=out)
    assert f"{participant.code} erased (withdraw)" in out.getvalue() and CANARY not in out.getvalue()
    assert CANARY not in database_text()
    assert CANARY.encode() not in files_text(var)
    assert not Label.objects.filter(annotator_id=user_id).exists()
    assert not LabelEvent.objects.filter(label__annotator_id=user_id).exists()
    assert not Flag.objects.filter(annotator_id=user_id).exists() and not Participant.objects.exists()
    stone = ErasureTombstone.objects.get()
    assert stone.mode == "withdraw" and stone.counts["labels"] == 2 and stone.counts["flags"] == 1
    assert (var / "erasures.jsonl").stat().st_mode & 0o777 == 0o600
    back = Client().get(LINK, follow=True)
    assert back.status_code == 200 and "You withdrew from this study" in back.content.decode()
    again = Client().post(LINK, {"consent": "yes"})
    assert again.status_code == 200 and not Participant.objects.exists()


def test_identity_keeps_the_labels_under_the_pseudonym(study, var):
    _client, participant = arrive()
    call_command("erase_participant", "pilot", participant.code, mode="identity", reason="retention by hand")
    kept = Participant.objects.get(pk=participant.pk)
    assert kept.external_id == f"~{participant.code}" and kept.panel_study == kept.panel_session == ""
    assert Label.objects.filter(annotator_id=participant.user_id).count() == 2
    assert CANARY not in database_text() and CANARY.encode() not in files_text(var)
    assert "You withdrew" in Client().get(LINK, follow=True).content.decode()


def test_a_restored_archive_does_not_bring_the_erased_person_back(study, var, make_user):
    from evaluation.archive import collect, restore

    _client, participant = arrive()
    old = io.BytesIO()
    collect.export_study(study.corpus, old, full=True)  # the worst case: taken before, with panel ids
    privacy.erase(participant, "withdraw", "asked")
    study.corpus.delete()
    summary = restore.import_study(io.BytesIO(old.getvalue()))
    assert summary["erased"] == 1
    assert not Participant.objects.filter(study__slug="pilot").exists()
    assert CANARY not in database_text()
    assert "You withdrew" in Client().get(LINK, follow=True).content.decode()


def test_a_restored_backup_is_erased_again_by_the_next_purge(study, var):
    """A backup older than the erasure holds the person and not the tombstone: the tombstone in the var
    folder makes the next purge (daily) erase them again."""
    _client, participant = arrive()
    privacy.erase(participant, "withdraw", "asked")
    ErasureTombstone.objects.all().delete()  # as in the older backup: no tombstone, the person is there
    studies.admit(study, (CANARY, "CANARYSTUDY", "CANARYSESSION"), token="t")
    out = io.StringIO()
    call_command("purge", stdout=out)
    assert "re-applied 1 erasure" in out.getvalue() and not Participant.objects.exists()


def test_every_delete_path_goes_through_the_erasure_service(study, var, make_user):
    admin = Client()
    boss = make_user("boss", "admin")
    boss.is_superuser = True  # as load_demo makes the admin
    boss.save()
    admin.force_login(boss)
    paths = []
    for i, do in enumerate(
        (
            lambda p: admin.post(reverse("admin:annotation_participant_delete", args=[p.pk]), {"post": "yes"}),
            lambda p: admin.post(reverse("admin:auth_user_delete", args=[p.user_id]), {"post": "yes"}),
            lambda p: admin.post(
                reverse("api-study-participant-erase", args=["pilot", p.code]),
                {"mode": "withdraw", "reason": "api"},
                content_type="application/json",
            ),
            lambda p: admin.post(
                reverse("study-admin", args=["pilot"]),
                {"action": "erase", "participant": p.code, "mode": "withdraw", "reason": "page"},
            ),
        )
    ):
        _client, p = arrive(LINK.replace(CANARY, f"{CANARY}{i}"))
        resp = do(p)
        paths.append(resp.status_code)
        assert not Participant.objects.filter(pk=p.pk).exists() and not Label.objects.filter(annotator_id=p.user_id)
    assert ErasureTombstone.objects.count() == 4, paths
    _client, p = arrive(LINK.replace(CANARY, f"{CANARY}s"))
    gone = admin.post(reverse("admin:annotation_study_delete", args=[study.pk]), {"post": "yes"})
    assert gone.status_code == 302, gone.content.decode()[-3000:]
    assert not Study.objects.exists() and ErasureTombstone.objects.filter(code=p.code).exists()
    assert CANARY not in database_text()


def test_erase_refuses_bad_input_and_changes_nothing(study, var, make_user):
    _client, p = arrive()
    admin = Client()
    admin.force_login(make_user("boss", "admin"))
    url = reverse("api-study-participant-erase", args=["pilot", p.code])
    assert admin.post(url, {"mode": "burn", "reason": "x"}, content_type="application/json").status_code == 400
    assert admin.post(url, {"mode": "withdraw"}, content_type="application/json").status_code == 400
    for who in ("P-NOBODY", CANARY):  # URLs name the pseudonym only: a panel id there would reach access logs
        gone = reverse("api-study-participant-erase", args=["pilot", who])
        assert admin.post(gone, {"mode": "withdraw", "reason": "x"}, content_type="application/json").status_code == 404
    page = admin.post(reverse("study-admin", args=["pilot"]), {"action": "erase", "participant": p.code}, follow=True)
    assert "nothing changed" in page.content.decode()
    assert Participant.objects.filter(pk=p.pk).exists() and not ErasureTombstone.objects.exists()
    with pytest.raises(privacy.EraseError):
        privacy.erase(p, "burn", "x")


def test_a_report_computed_before_an_erasure_says_so(study, make_user):
    _client, participant = arrive()
    researcher = Client()
    researcher.force_login(make_user("res", "researcher"))
    report = run_report(researcher, study.corpus.name)
    page = researcher.get(reverse("report-detail", args=[report])).content.decode()
    assert 'id="erased-since"' not in page
    privacy.erase(participant, "identity", "asked")
    page = researcher.get(reverse("report-detail", args=[report])).content.decode()
    assert "Computed before 1 participant was erased" in page
    later = run_report(researcher, study.corpus.name)
    assert 'id="erased-since"' not in researcher.get(reverse("report-detail", args=[later])).content.decode()
