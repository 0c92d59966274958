"""Participants' data (SPEC 18): consent versions, subject access, retention (purge), file modes, the
withdraw link, login logs and the access-log format."""

import io
import json
import os
import runpy
import sqlite3
import stat
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from annotation import privacy, pseudonyms
from annotation.models import ConsentVersion, ErasureTombstone, Label, Participant, Study
from bench.kit.crowd import build_study
from tests.annotation.test_privacy import CANARY, LINK, arrive, database_text

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def var(tmp_path, settings):
    folder = tmp_path / "var"
    (folder / "media").mkdir(parents=True)
    settings.VAR_DIR, settings.MEDIA_ROOT = folder, folder / "media"
    return folder


@pytest.fixture
def study(tmp_path, var):
    return build_study(tmp_path, n_questions=8, k=4)


def test_consent_versions_are_frozen_and_counted_per_version(study, make_user):
    _c, first = arrive()
    v1 = ConsentVersion.objects.get(study=study)
    assert first.consent_version == v1 and first.consent_language == "en"
    assert v1.sha256 == pseudonyms.sha256_text(study.consent) and v1.number == 1
    study.consent = study.consent + "\n\nYour labels are kept for five years."
    study.save()
    study.save()  # saving again without a change makes no new version
    assert list(ConsentVersion.objects.filter(study=study).values_list("number", flat=True)) == [1, 2]
    assert ConsentVersion.objects.get(pk=v1.pk).text != study.consent  # the old text stays as it was
    _c, second = arrive(LINK.replace(CANARY, "SECOND"))
    assert second.consent_version.number == 2
    assert privacy.consent_counts(study) == [
        (1, "en", v1.sha256, 1),
        (2, "en", pseudonyms.sha256_text(study.consent), 1),
    ]
    admin = Client()
    admin.force_login(make_user("boss", "admin"))
    page = admin.get("/studies/pilot/").content.decode()
    assert 'id="consent-versions"' in page and "v2" in page
    # archives carry every version
    from evaluation.archive import collect

    buffer = io.BytesIO()
    manifest = collect.export_study(study.corpus, buffer)
    assert manifest["members"]["rows/annotation.ConsentVersion.jsonl"]["rows"] == 2
    assert manifest["panel_ids"].startswith("removed")


def test_subject_access_gives_that_person_only(study, make_user):
    _c, me = arrive()
    _c, other = arrive(LINK.replace(CANARY, "OTHERPERSON"))
    out = io.StringIO()
    call_command("participant_data", "pilot", CANARY, stdout=out)
    data = json.loads(out.getvalue())
    assert data["participant"]["panel_id"] == CANARY and data["participant"]["code"] == me.code
    assert data["consent"]["version"] == 1 and data["consent"]["text"] == study.consent
    assert len(data["labels"]) == 2 and all(row["history"] for row in data["labels"])
    assert len(data["flags"]) == 1
    assert "OTHERPERSON" not in out.getvalue() and other.code not in out.getvalue()
    assert {row["annotator_id"] for row in data["labels"]} == {me.user_id}
    admin = Client()
    admin.force_login(make_user("boss", "admin"))
    page = admin.get(f"/studies/pilot/participants/{me.code}/data.json")
    assert page.status_code == 200 and page.json()["participant"]["panel_id"] == CANARY
    assert admin.get("/studies/pilot/participants/P-NOBODY/data.json").status_code == 404
    with pytest.raises(Exception, match="no such participant"):
        call_command("participant_data", "pilot", "nobody")


def test_purge_applies_retention_with_time_moved_forward_and_dry_run_changes_nothing(study, settings):
    _c, p = arrive()
    Study.objects.filter(pk=study.pk).update(open=False, identifiers_days_after_close=30)
    call_command("purge", stdout=io.StringIO())  # first seen closed now
    assert Participant.objects.get(pk=p.pk).external_id == CANARY
    later = (timezone.now() + timedelta(days=31)).date().isoformat()
    before = database_text()
    out = io.StringIO()
    call_command("purge", "--dry-run", "--now", later, stdout=out)
    assert f"pilot: {p.code} erased (identity, retention)" in out.getvalue() and "would remove" in out.getvalue()
    assert database_text() == before  # --dry-run changed nothing
    call_command("purge", "--now", later, stdout=io.StringIO())
    kept = Participant.objects.get(pk=p.pk)
    assert kept.external_id == f"~{p.code}" and Label.objects.filter(annotator=kept.user).count() == 2
    assert CANARY not in database_text()
    # data_until: everything goes after that day
    Study.objects.filter(pk=study.pk).update(data_until=timezone.now().date())
    tomorrow = (timezone.now() + timedelta(days=1)).date().isoformat()
    call_command("purge", "--now", tomorrow, stdout=io.StringIO())
    assert not Participant.objects.exists() and not Label.objects.exists()
    assert list(ErasureTombstone.objects.values_list("mode", flat=True)) == ["identity", "withdraw"]


def test_purge_removes_old_login_logs_and_expired_sessions(study, settings):
    from axes.models import AccessLog
    from django.contrib.sessions.models import Session

    settings.QAEVAL_LOG_DAYS = 10
    AccessLog.objects.create(username="someone", ip_address="10.0.0.1", user_agent="x")
    AccessLog.objects.filter(username="someone").update(attempt_time=timezone.now() - timedelta(days=11))
    AccessLog.objects.create(username="recent", ip_address="10.0.0.2", user_agent="y")
    Session.objects.create(session_key="old", session_data="x", expire_date=timezone.now() - timedelta(days=1))
    with pytest.raises(Exception, match="not an ISO date"):
        call_command("purge", "--now", "tomorrow")
    call_command("purge", stdout=io.StringIO())
    assert list(AccessLog.objects.values_list("username", flat=True)) == ["recent"]
    assert not Session.objects.filter(session_key="old").exists()


def test_no_participant_user_agent_in_the_login_log(study, settings):
    from axes.models import AccessLog

    settings.AXES_ENABLED = True
    client = Client(HTTP_USER_AGENT="CanaryBrowser/1.0")
    client.get(LINK)
    client.post("/study/pilot/", {"consent": "yes"})
    p = Participant.objects.get(external_id=CANARY)
    assert "CanaryBrowser" not in database_text()
    rows = AccessLog.objects.filter(username=p.user.username)
    assert rows.exists() and all(row.user_agent == "" for row in rows)  # the login is logged, its browser not


def test_the_withdraw_link_asks_first_then_erases_and_logs_out(study):
    client, p = arrive()
    page = client.get(f"/annotate/{p.fold_id}/?start=1").content.decode()
    assert 'id="withdraw-link"' in page
    ask = client.get("/withdraw/")
    assert ask.status_code == 200 and "everything this study holds about you is deleted" in ask.content.decode()
    unsure = client.post("/withdraw/", {})
    assert unsure.status_code == 400 and Participant.objects.filter(pk=p.pk).exists()
    done = client.post("/withdraw/", {"confirm": "yes"})
    assert done.status_code == 200 and "You withdrew from this study" in done.content.decode()
    assert not Participant.objects.exists() and ErasureTombstone.objects.get().reason == "withdrawn by the participant"
    assert client.get(f"/annotate/{p.fold_id}/").status_code == 302  # logged out
    assert "You withdrew" in Client().get(LINK, follow=True).content.decode()


def test_withdraw_in_identity_mode_and_returned_as_the_study_says(study, make_user):
    Study.objects.filter(pk=study.pk).update(withdraw_mode="identity", returned_mode="withdraw")
    client, p = arrive()
    assert "stay, under a pseudonym" in client.get("/withdraw/").content.decode()
    client.post("/withdraw/", {"confirm": "yes"})
    assert Label.objects.filter(annotator_id=p.user_id).count() == 2 and CANARY not in database_text()
    _c, q = arrive(LINK.replace(CANARY, "LEAVER"))
    admin = Client()
    admin.force_login(make_user("boss", "admin"))
    admin.post("/studies/pilot/", {"action": "returned", "participant": "LEAVER"})
    assert not Participant.objects.filter(pk=q.pk).exists() and not Label.objects.filter(annotator_id=q.user_id)


def test_backups_and_archives_are_0600_and_hold_no_token(study, var, tmp_path, make_user):
    from rest_framework.authtoken.models import Token

    from core.management.commands.backup import backup_sqlite

    Token.objects.create(user=make_user("robot", "researcher"))
    source = tmp_path / "live.sqlite3"
    live = sqlite3.connect(source)
    live.executescript(
        "CREATE TABLE authtoken_token (key TEXT, user_id INT); INSERT INTO authtoken_token VALUES ('SECRETTOKEN', 1);"
    )
    live.commit()
    live.close()
    target = tmp_path / "copy.sqlite3"
    backup_sqlite(str(source), str(target))
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    assert b"SECRETTOKEN" not in target.read_bytes()
    out = tmp_path / "study.zip"
    call_command("export_study", corpus=study.corpus.name, out=str(out), stdout=io.StringIO())
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    with zipfile.ZipFile(out) as zf:
        assert all(Token.objects.get().key.encode() not in zf.read(n) for n in zf.namelist())


def test_the_shipped_access_log_format_writes_no_query_string():
    conf = runpy.run_path(str(REPO / "config" / "gunicorn.conf.py"))
    fmt = conf["access_log_format"]
    assert "%(U)s" in fmt and "%(r)s" not in fmt and "%(q)s" not in fmt and "%(a)s" not in fmt
    assert "%(f)s" not in fmt  # the referer may hold a study link's query


def test_the_daily_job_is_scheduled_and_runs_the_purge(study):
    from django.conf import settings

    from annotation import tasks

    entry = settings.CELERY_BEAT_SCHEDULE["purge-daily"]
    assert entry["task"] == tasks.purge.name and entry["schedule"] == 24 * 3600
    _c, p = arrive()
    Study.objects.filter(pk=study.pk).update(data_until=timezone.now().date() - timedelta(days=1))
    lines = tasks.purge.apply().get()
    assert lines == [f"pilot: {p.code} erased (withdraw, retention)"] and not Participant.objects.exists()


def test_the_completion_page_offers_the_withdraw_link_to_its_participant_only(study):
    client, p = arrive()
    Participant.objects.filter(pk=p.pk).update(status="completed")
    page = client.get("/study/pilot/")
    assert page.status_code == 200 and 'id="completion-code"' in page.content.decode()
    assert 'id="withdraw-link"' in page.content.decode()
    stranger = Client().get("/withdraw/")
    assert stranger.status_code == 404 and "holds no participation" in stranger.content.decode()
