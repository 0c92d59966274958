"""SPEC 16 in the app: the live page's confidence sequences as the background job stores them (done,
settled and tied pairs, the ranking, "you may stop now", how fresh), a crowd study that closes by itself
once its rule is met (the rule run by the background job, never in a participant's request), its
participants in progress finishing the item in hand; active designs refuse the rule."""

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Participant, Study
from bench.kit.crowd import build_study
from evaluation import live_state
from evaluation.models import LiveState
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


def _worker(corpus_id):
    """What the Celery worker does once the judgement's transaction committed (the tests' transaction never
    commits, so the task a judgement asks for is run here)."""
    return live_state.refresh(corpus_id)


def test_live_page_says_stop_once_the_ranking_is_settled(tmp_path, client, make_user, monkeypatch):
    study = build_study(tmp_path, n_questions=80, k=1, slots_per_fold=1)
    client_p, participant = arrive("p1")
    researcher = make_user("res", "researcher")
    client.force_login(researcher)
    url = f"/research/conclusions/panel/?corpus={study.corpus.name}&half_width=0.05"
    panel = client.get(url).content.decode()
    assert 'data-pending="yes"' in panel and 'data-stop="no"' in panel and "You may stop now" not in panel
    assert LiveState.objects.get(corpus=study.corpus).pending  # the page asked the worker, computed nothing
    _worker(study.corpus.pk)
    panel = client.get(url).content.decode()
    assert "few labels: wide" in panel and "[0.000, 1.000]" in panel and 'data-stop="no"' in panel
    for _ in range(110):
        _judge_truthfully(client_p, participant.fold_id)
    stale = client.get(f"/research/api/conclusions/?corpus={study.corpus.name}&half_width=0.05").json()
    assert stale["sequence"]["behind"] == 110 and not stale["sequence"]["stop"]  # the stored ones, until the job
    _worker(study.corpus.pk)
    api = client.get(f"/research/api/conclusions/?corpus={study.corpus.name}&half_width=0.05").json()
    seq = api["sequence"]
    assert sum(r["n"] for r in seq["rows"]) == 110 and all(r["n_total"] == 80 for r in seq["rows"]), seq["rows"]
    assert seq["ranking_settled"] and seq["stop"] and seq["alpha_split"] == pytest.approx(0.025)
    assert [r["system"] for r in seq["rows"]] == ["reference", "sys-a"] and seq["behind"] == 0
    assert seq["tied_pairs"] == [] and seq["tie_margin"] == 0.02 and seq["computed_at"]
    panel = client.get(url).content.decode()
    assert "Computed in the background at" in panel and "why-wider-short" in panel
    assert 'data-stop="yes"' in panel and "You may stop now: these conclusions hold whenever you stop." in panel
    assert "<strong>reference</strong> ahead of sys-a — settled" in panel
    assert "Why wider than a 95% interval?" in panel
    done = client.get(url + "&stop_when=done&half_width=0.0001").content.decode()
    assert 'data-stop="no"' in done  # 55 of 80 labelled alike: never zero width before every one is labelled
    client.cookies["qaeval_language"] = "fr"
    french = client.get(url, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Vous pouvez arrêter maintenant" in french and "quel que soit le moment" in french


def test_a_crowd_study_closes_by_itself_and_participants_finish_their_item(tmp_path, monkeypatch, make_user):
    monkeypatch.setattr(live_state, "CLOSE_EVERY_SECONDS", 0)
    study = build_study(tmp_path, n_questions=60, k=1, slots_per_fold=2, close_when="ranking")
    first, p1 = arrive("first")
    second, p2 = arrive("second")
    assert p1.fold_id == p2.fold_id
    # the second participant opens an item and keeps it in hand
    page = second.get(f"/annotate/{p2.fold_id}/?start=1").content.decode()
    assert 'name="item"' in page
    steps = 0
    while steps < 120:
        assert _judge_truthfully(first, p1.fold_id).status_code == 302
        steps += 1
        _worker(study.corpus_id)  # the background job after the judgement: sequences, then the close rule
        study.refresh_from_db()
        if not study.open:
            break
    assert steps < 120  # closed before the fold's 120 items were done
    response = first.get(f"/annotate/{p1.fold_id}/?start=1")  # their next page: the completion page
    p1.refresh_from_db()
    assert p1.status == Participant.COMPLETED
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
    monkeypatch.setattr(live_state, "CLOSE_EVERY_SECONDS", 0)
    study = build_study(tmp_path, n_questions=40, k=1)
    first, p1 = arrive("first")
    for _ in range(80):
        if _judge_truthfully(first, p1.fold_id) is None:
            break
        _worker(study.corpus_id)
    study.refresh_from_db()
    p1.refresh_from_db()
    assert study.open and study.closed_at is None and p1.status == Participant.COMPLETED  # the whole fold done
    assert Study._meta.get_field("close_when").default == ""


def test_the_rest_path_closes_a_study_too_and_the_api_sets_the_rule(tmp_path, monkeypatch, make_user):
    from tests.annotation.test_study_service import judge_api

    monkeypatch.setattr(live_state, "CLOSE_EVERY_SECONDS", 0)
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
        if response.json().get("study_status") == "completed":  # the judgement after the job closed it
            break
        _worker(participant.study.corpus_id)
    made_study = Study.objects.get(slug="rest")
    participant.refresh_from_db()
    assert not made_study.open and made_study.closed_reason.startswith("ranking settled") and steps < 100
    assert participant.status == Participant.COMPLETED
    assert judge_api(client, participant.fold_id, lambda gold: "correct") is False  # no more labels once completed


def test_no_request_of_a_participant_runs_the_close_rule(tmp_path, monkeypatch, django_capture_on_commit_callbacks):
    """Judgements through the page and the API only ask for the background job (one task per pending
    corpus); the sequences and the close rule run in the worker."""
    from tests.annotation.test_study_service import judge_api

    monkeypatch.setattr(live_state, "CLOSE_EVERY_SECONDS", 0)
    ran, sent = [], []

    def forbidden(*args, **kwargs):
        ran.append(args)
        raise AssertionError("computed in a request")

    monkeypatch.setattr(live_state, "send", lambda corpus_id, countdown=0: sent.append((corpus_id, countdown)))
    study = build_study(tmp_path, n_questions=40, k=1, slots_per_fold=2, close_when="ranking")
    client, participant = arrive("p1")
    client.get(f"/annotate/{participant.fold_id}/?start=1")
    with monkeypatch.context() as m:
        for name in ("close_reason", "close_due_studies", "refresh"):
            m.setattr(live_state, name, forbidden)
        m.setattr("evaluation.science.anytime.advance", forbidden)
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            for _ in range(5):
                assert _judge_truthfully(client, participant.fold_id).status_code == 302
            assert judge_api(client, participant.fold_id, lambda gold: "correct")
        assert ran == [] and len(callbacks) == 1 and sent == [(study.corpus_id, 0)]  # one pending task
    # the worker runs it, and the next arrival asks again
    _worker(study.corpus_id)
    assert not LiveState.objects.get(corpus=study.corpus).pending
    assert LiveState.objects.get(corpus=study.corpus).results[""]["n_labels"] == 6
    with django_capture_on_commit_callbacks(execute=True):
        _judge_truthfully(client, participant.fold_id)
    assert len(sent) == 2


def _active_corpus(tmp_path):
    """A study's corpus whose folds carry an active design record (SPEC 12)."""
    from annotation.models import Fold

    study = build_study(tmp_path, n_questions=20, k=2, slug="act")
    for fold in Fold.objects.filter(corpus=study.corpus, kind=Fold.KIND_TRIPLET):
        fold.params = {**(fold.params or {}), "design": {"kind": "active", "judge": "j", "budget": 10}}
        fold.save(update_fields=["params"])
    return study


def test_an_active_design_refuses_the_close_rule_on_the_form_and_the_api(tmp_path, make_user):
    from django.contrib import admin as django_admin
    from django.test import RequestFactory
    from django.utils import translation

    study = _active_corpus(tmp_path)
    boss = make_user("boss", "admin")
    admin = Client()
    admin.force_login(boss)
    request = RequestFactory().get("/")
    request.user = boss
    StudyForm = django_admin.site._registry[Study].get_form(request)
    body = {"slug": "other", "title": "t", "consent": "c", "corpus": study.corpus.name, "completion_code": "X"}
    refused = admin.post("/api/studies/", {**body, "close_when": "ranking"}, content_type="application/json")
    assert refused.status_code == 400 and "active design" in refused.json()["close_when"][0]
    assert not Study.objects.filter(slug="other").exists()
    assert admin.post("/api/studies/", {**body, "close_when": ""}, content_type="application/json").status_code == 201
    form_data = {**body, "slug": "formed", "slots_per_fold": 1, "idle_minutes": 30, "close_when": "ranking",
                 "language": "en", "tie_margin": 0.02, "corpus": study.corpus.pk}  # fmt: skip
    form = StudyForm(data=form_data)
    assert not form.is_valid() and "active design" in form.errors["close_when"][0]
    with translation.override("fr"):
        french = StudyForm(data=form_data)
        assert not french.is_valid() and "plan actif" in french.errors["close_when"][0]
    # the live page shows no sequence and claims nothing; the job stores none
    live_state.refresh(study.corpus_id)
    stored = LiveState.objects.get(corpus=study.corpus).results[""]
    assert stored["active"] and stored["rows"] == []
    admin_page = admin.get(f"/research/conclusions/panel/?corpus={study.corpus.name}").content.decode()
    assert 'data-active-design="yes"' in admin_page and "You may stop now" not in admin_page


def test_the_close_rule_runs_at_most_once_a_minute_per_study(tmp_path, monkeypatch, django_capture_on_commit_callbacks):
    from datetime import timedelta

    from django.utils import timezone

    study = build_study(tmp_path, n_questions=20, k=1, close_when="ranking")
    asked, sent = [], []
    monkeypatch.setattr(live_state, "close_reason", lambda s, result: asked.append(s.pk))
    monkeypatch.setattr(live_state, "send", lambda corpus_id, countdown=0: sent.append(countdown))
    now = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        live_state.refresh(study.corpus_id, now=now)
        live_state.refresh(study.corpus_id, now=now + timedelta(seconds=20))  # not due: a task for later
    assert asked == [study.pk] and len(sent) == 1 and 39 <= sent[0] <= 41
    with django_capture_on_commit_callbacks(execute=True):
        live_state.refresh(study.corpus_id, now=now + timedelta(seconds=61))
    assert asked == [study.pk, study.pk]
