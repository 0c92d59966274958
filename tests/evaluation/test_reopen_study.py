"""Issue 45, point 2: a study that closed by itself (SPEC 16) is not a trap.

- Its participants cut short see that the study ended early, and still get their code (en, fr); the
  admin's table says who was cut short.
- Reopening asks what to change (its rule, its target, its slots) and refuses a reopening into an
  immediate close (the rule is asked on the current labels): nothing changes then.
- The study page links to the live conclusions of its corpus, with its rule and target."""

import pytest
from django.test import Client
from django.urls import reverse

from annotation import studies
from annotation.models import Participant, Study
from bench.kit.crowd import build_study
from core import i18n
from evaluation import live_state
from tests.annotation.test_study_service import arrive
from tests.evaluation.test_anytime_live import _judge_truthfully

pytestmark = pytest.mark.django_db


@pytest.fixture
def self_closed(tmp_path, monkeypatch, make_user):
    monkeypatch.setattr(live_state, "CLOSE_EVERY_SECONDS", 0)
    study = build_study(tmp_path, n_questions=60, k=1, slots_per_fold=2, close_when="ranking")
    client, participant = arrive("first")
    for _ in range(120):
        _judge_truthfully(client, participant.fold_id)
        live_state.refresh(study.corpus_id)  # the background job after the judgement (SPEC 16)
        study.refresh_from_db()
        if not study.open:
            break
    assert not study.open and study.closed_at is not None
    response = client.get(f"/annotate/{participant.fold_id}/?start=1")  # their next page: the completion page
    participant.refresh_from_db()
    assert participant.status == Participant.COMPLETED
    admin = Client()
    admin.force_login(make_user("boss", "admin"))
    return {"study": study, "client": client, "participant": participant, "done": response, "admin": admin}


def test_a_participant_cut_short_is_told_the_study_ended_early_and_gets_the_code(self_closed):
    client, location = self_closed["client"], self_closed["done"]["Location"]
    page = client.get(location).content.decode()
    assert 'id="ended-early"' in page and "the study ended early" in page and "C0DE42" in page
    Study.objects.filter(pk=self_closed["study"].pk).update(language="fr")  # a French study's pages
    page = Client().get(location).content.decode()
    assert "l’étude s’est terminée plus tôt que prévu" not in page  # another browser: no participant here
    session = client.session
    session[i18n.SESSION_KEY] = "fr"  # the participant's pages in French (as a French study starts them)
    session.save()
    page = client.get(location).content.decode()
    assert "l’étude s’est terminée plus tôt que prévu" in page and "C0DE42" in page
    admin_page = self_closed["admin"].get(reverse("study-admin", args=[self_closed["study"].slug])).content.decode()
    assert "completed: cut short when the study closed by itself" in admin_page


def test_a_participant_who_finished_is_not_told_it_ended_early(self_closed):
    study, participant = self_closed["study"], self_closed["participant"]
    Participant.objects.filter(pk=participant.pk).update(ended_at=study.closed_at.replace(year=2000))
    participant.refresh_from_db()
    assert not studies.ended_early(study, participant)
    assert 'id="ended-early"' not in self_closed["client"].get(self_closed["done"]["Location"]).content.decode()


def test_reopening_as_it_is_or_into_an_immediate_close_is_refused(self_closed):
    study, admin = self_closed["study"], self_closed["admin"]
    url = reverse("study-admin", args=[study.slug])
    page = admin.get(url).content.decode()
    assert 'id="study-reopen"' in page and 'value="open"' not in page  # no plain "Open" button: the form asks
    refused = admin.post(url, {"action": "open"}, follow=True).content.decode()
    assert "change its close rule, its target or its slots" in refused
    same = admin.post(url, {"action": "reopen", "close_when": "ranking", "slots_per_fold": "2"})
    assert same.status_code == 400 and "change its close rule" in same.content.decode()
    more_slots = admin.post(url, {"action": "reopen", "close_when": "ranking", "slots_per_fold": "5"})
    text = more_slots.content.decode()
    assert more_slots.status_code == 400 and "it would close again at once (ranking settled: reference" in text
    assert 'name="slots_per_fold" value="5"' in text  # what was typed stays
    bad = admin.post(url, {"action": "reopen", "close_when": "done", "close_width": "1,5", "slots_per_fold": "2"})
    assert bad.status_code == 400 and 'value="1,5"' in bad.content.decode()
    study.refresh_from_db()
    assert not study.open and study.closed_at is not None and study.slots_per_fold == 2
    admin.cookies["qaeval_language"] = "fr"
    french = admin.post(url, {"action": "reopen", "close_when": "ranking", "slots_per_fold": "5"}).content.decode()
    assert "elle se refermerait aussitôt (classement tranché : reference &gt; sys-a" in french


def test_reopening_with_a_rule_that_is_not_met_opens_it(self_closed):
    study, admin = self_closed["study"], self_closed["admin"]
    url = reverse("study-admin", args=[study.slug])
    opened = admin.post(url, {"action": "reopen", "close_when": "", "slots_per_fold": "3"}, follow=True)
    assert "the study is open again" in opened.content.decode()
    study.refresh_from_db()
    assert study.open and study.closed_at is None and study.closed_reason == "" and study.slots_per_fold == 3
    assert study.close_when == ""
    assert "closed" not in Client().get(f"/study/{study.slug}/?PROLIFIC_PID=late").content.decode().lower()


def test_the_study_page_links_to_its_live_conclusions(self_closed):
    study = self_closed["study"]
    page = self_closed["admin"].get(reverse("study-admin", args=[study.slug])).content.decode()
    live = f"/research/conclusions/?corpus={study.corpus.name}&amp;stop_when=ranking"
    assert f'id="study-live-link" href="{live}"' in page
    Study.objects.filter(pk=study.pk).update(close_when="done", close_width=0.05)
    page = self_closed["admin"].get(reverse("study-admin", args=[study.slug])).content.decode()
    assert "stop_when=done&amp;half_width=0.05" in page
