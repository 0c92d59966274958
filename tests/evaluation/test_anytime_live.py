"""SPEC 16 in the app: the live page's confidence sequences (done, settled pairs, the ranking, "you may
stop now"), n_plan from the answer folds or the admin's number, and a crowd study that closes by itself
once its rule is met, its participants in progress finishing the item in hand."""

import pytest
from django.test import Client
from django.urls import reverse

from annotation import studies
from annotation.models import Corpus, Participant, Study
from bench.kit.crowd import build_study
from evaluation import judge_inputs
from tests.annotation.test_study_service import arrive

pytestmark = pytest.mark.django_db


def _judge_truthfully(client, fold_id, html=None):
    """One judgement through the page (opened now, or the ``html`` of a page opened earlier): the reference
    answer ('river ...') right, the system's ('lake ...') wrong."""
    import re

    if html is None:
        page = client.get(f"/annotate/{fold_id}/?start=1")
        html = page.content.decode() if page.status_code == 200 else ""
    found = re.search(r'name="item" value="(\d+)"', html)
    if found is None:
        return None
    value = "correct" if "river number" in html.split('id="answer"', 1)[-1][:80] else "incorrect"
    data = {
        "item": found.group(1),
        "submission_id": re.search(r'name="submission_id" value="(\w+)"', html).group(1),
        "value": value,
        "csrfmiddlewaretoken": re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1),
    }
    return client.post(f"/annotate/{fold_id}/judge/", data)


def test_planned_labels_from_the_answer_folds_or_the_admin(tmp_path):
    study = build_study(tmp_path, n_questions=150, k=3)
    corpus = study.corpus
    assert judge_inputs.planned_labels(corpus) == {"reference": 150, "sys-a": 150}
    small = build_study(tmp_path, n_questions=20, k=2, slug="small")
    assert judge_inputs.planned_labels(small.corpus) == {"reference": 100, "sys-a": 100}  # at least 100
    Corpus.objects.filter(pk=corpus.pk).update(n_plan=400)
    corpus.refresh_from_db()
    assert judge_inputs.planned_labels(corpus) == 400


def test_live_page_says_stop_once_the_ranking_is_settled(tmp_path, client, make_user, monkeypatch):
    study = build_study(tmp_path, n_questions=80, k=1, slots_per_fold=1)
    client_p, participant = arrive("p1")
    researcher = make_user("res", "researcher")
    client.force_login(researcher)
    url = f"/research/conclusions/panel/?corpus={study.corpus.name}&half_width=0.05"
    panel = client.get(url).content.decode()
    assert "too few labels yet" in panel and 'data-stop="no"' in panel and "You may stop now" not in panel
    for _ in range(110):
        _judge_truthfully(client_p, participant.fold_id)
    api = client.get(f"/research/api/conclusions/?corpus={study.corpus.name}&half_width=0.05").json()
    seq = api["sequence"]
    assert all(r["n"] >= 30 for r in seq["rows"]), seq["rows"]
    assert seq["ranking_settled"] and seq["stop"] and seq["alpha_split"] == pytest.approx(0.025)
    assert [r["system"] for r in seq["rows"]] == ["reference", "sys-a"]
    assert {r["n_plan"] for r in seq["rows"]} == {100}
    panel = client.get(url).content.decode()
    assert 'data-stop="yes"' in panel and "You may stop now: these conclusions hold whenever you stop." in panel
    assert "<strong>reference</strong> ahead of sys-a — settled" in panel
    assert "Why wider than a 95% interval?" in panel
    done = client.get(url + "&stop_when=done&half_width=0.0001").content.decode()
    assert 'data-stop="yes"' in done  # every answer labelled alike: both sequences have width 0
    client.cookies["qaeval_language"] = "fr"
    french = client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Vous pouvez arrêter maintenant" in french


def test_a_crowd_study_closes_by_itself_and_participants_finish_their_item(tmp_path, monkeypatch, make_user):
    monkeypatch.setattr(studies, "CLOSE_CHECK_SECONDS", 0)
    study = build_study(tmp_path, n_questions=60, k=1, slots_per_fold=2, close_when="ranking")
    first, p1 = arrive("first")
    second, p2 = arrive("second")
    assert p1.fold_id == p2.fold_id
    # the second participant opens an item and keeps it in hand
    page = second.get(f"/annotate/{p2.fold_id}/?start=1").content.decode()
    assert 'name="item"' in page
    steps = 0
    while steps < 120:
        response = _judge_truthfully(first, p1.fold_id)
        steps += 1
        p1.refresh_from_db()
        if p1.status != Participant.ACTIVE and p1.status != Participant.CONSENTED:
            break
    study.refresh_from_db()
    assert p1.status == Participant.COMPLETED and steps < 120  # closed before the fold's 120 items were done
    assert response["Location"] == "/study/pilot/"
    assert "C0DE42" in first.get(response["Location"]).content.decode()
    assert not study.open and study.closed_at is not None
    assert study.closed_reason.startswith("ranking settled: reference > sys-a (Hscore confidence sequences")
    # the second one finishes the item in hand (the label is kept), then sees the completion page
    labels_before = p2.user.labels.exclude(value=None).count()
    finish = _judge_truthfully(second, p2.fold_id, html=page)
    p2.refresh_from_db()
    assert p2.status == Participant.COMPLETED and p2.user.labels.exclude(value=None).count() == labels_before + 1
    assert finish["Location"] == "/study/pilot/"
    # nobody new enters; the study page records when and why
    assert "closed" in Client().get(f"/study/{study.slug}/?PROLIFIC_PID=late", follow=True).content.decode().lower()
    admin = Client()
    admin.force_login(make_user("boss", "admin"))
    text = admin.get(reverse("study-admin", args=[study.slug])).content.decode()
    assert 'id="study-closed-by-itself"' in text and "ranking settled: reference &gt; sys-a" in text


def test_a_study_without_the_option_never_closes_by_itself(tmp_path, monkeypatch):
    monkeypatch.setattr(studies, "CLOSE_CHECK_SECONDS", 0)
    study = build_study(tmp_path, n_questions=40, k=1)
    first, p1 = arrive("first")
    for _ in range(80):
        if _judge_truthfully(first, p1.fold_id) is None:
            break
    study.refresh_from_db()
    p1.refresh_from_db()
    assert study.open and study.closed_at is None and p1.status == Participant.COMPLETED  # the whole fold done
    assert Study._meta.get_field("close_when").default == ""


def test_the_rest_path_closes_a_study_too_and_the_api_sets_the_rule(tmp_path, monkeypatch, make_user):
    from tests.annotation.test_study_service import judge_api

    monkeypatch.setattr(studies, "CLOSE_CHECK_SECONDS", 0)
    admin = Client()
    admin.force_login(make_user("boss", "admin"))
    study = build_study(tmp_path, n_questions=50, k=1, slots_per_fold=1, open=False)
    refused = admin.post(
        "/api/studies/",
        {"slug": "other", "title": "t", "consent": "c", "corpus": study.corpus.name, "completion_code": "X",
         "close_when": "whenever"},
        content_type="application/json",
    )  # fmt: skip
    assert refused.status_code == 400 and "close_when" in refused.json()
    made = admin.post(
        "/api/studies/",
        {"slug": "rest", "title": "t", "consent": "c", "corpus": study.corpus.name, "completion_code": "X",
         "close_when": "ranking", "open": True},
        content_type="application/json",
    )  # fmt: skip
    assert made.status_code == 201 and made.json()["close_when"] == "ranking" and made.json()["closed_at"] is None
    client = Client()
    client.get("/study/rest/?PROLIFIC_PID=api-1", follow=True)
    token = client.cookies["csrftoken"].value
    client.post("/study/rest/?PROLIFIC_PID=api-1", {"consent": "yes", "csrfmiddlewaretoken": token})
    participant = Participant.objects.get(external_id="api-1")
    client.get(f"/annotate/{participant.fold_id}/?start=1")  # the CSRF cookie of the API calls

    steps = 0
    while steps < 100:
        nxt = client.get(f"/api/my/folds/{participant.fold_id}/next/")
        if nxt.status_code != 200 or nxt.json()["item"] is None:
            break
        item = nxt.json()["item"]
        label = "correct" if item["answer"].startswith("river") else "incorrect"
        response = client.post(
            f"/api/my/folds/{participant.fold_id}/judge/",
            {"item": item["item_id"], "label": label},
            content_type="application/json",
            HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
        )
        steps += 1
        assert response.status_code == 200
        if response.json().get("study_status") == "completed":  # the judgement that closed the study
            break
    made_study = Study.objects.get(slug="rest")
    participant.refresh_from_db()
    assert not made_study.open and made_study.closed_reason.startswith("ranking settled") and steps < 100
    assert participant.status == Participant.COMPLETED
    assert judge_api(client, participant.fold_id, lambda gold: "correct") is False  # no more labels once completed
