"""A crowd participant's whole path in headless Chromium, at desktop (1366 px) and phone (390 px)
widths: consent, the annotate page and its keys, the completion code and link; resume in the same
browser, refusal from another one, a closed and a full study, the place given back after idling,
the stop on gold items, the admin's study page. Every page screenshotted is also checked with axe-core
(no serious or critical violation). Screenshots go to $CROWD_SHOTS (default: the test's tmp folder)."""

import os
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from annotation.models import FoldItem, Label, Participant, Study
from bench.kit.crowd import build_study
from tests.browser.test_accessibility_browser import axe_violations
from tests.browser_fixtures import WIDTHS, contexts_maker, login, screenshot_taker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(params=list(WIDTHS))
def width(request):
    return request.param


@pytest.fixture
def open_browser(browser, width):
    """A new browser (its own cookies) at the test's width; closed at the end."""
    make, close = contexts_maker(browser, width)
    yield make
    close()


@pytest.fixture
def shot(tmp_path, width):
    # no serious or critical axe-core violation on any page screenshotted
    folder = Path(os.environ.get("CROWD_SHOTS") or tmp_path)
    return screenshot_taker(folder, lambda name: f"crowd_{name}_{width}", axe_violations)


def link(live_server, pid, slug="pilot"):
    return f"{live_server.url}/study/{slug}/?PROLIFIC_PID={pid}&STUDY_ID=prolific-s1&SESSION_ID=sess-{pid}"


def consent(page, live_server, pid, slug="pilot"):
    page.goto(link(live_server, pid, slug))
    page.check("#consent-yes")
    page.click("#consent-form button[type=submit]")
    page.wait_for_load_state("load")


def press_label(page, value_for):
    """Press the key of the label ``value_for(is_gold)`` on the item shown; wait for the next page."""
    item = page.input_value("input[name=item]")
    gold = FoldItem.objects.filter(handle=item, triplet__gold__isnull=False).exists()
    key = {"correct": "1", "partial": "2", "incorrect": "3"}[value_for(gold)]
    page.keyboard.press(key)
    page.wait_for_function(
        f"!document.querySelector('input[name=item]') || document.querySelector('input[name=item]').value !== '{item}'"
    )


def test_whole_path_consent_to_completion_code(live_server, open_browser, shot, tmp_path):
    study = build_study(tmp_path, n_questions=2, k=1)
    page = open_browser()
    page.goto(link(live_server, "5f1a2b3c4d5e6f7a8b9c0d1e"))
    assert page.inner_text("#study-consent h2") == "What you do"
    shot(page, "consent")
    page.click("#consent-form button[type=submit]")  # the box is required: nothing is sent
    assert not Participant.objects.exists()
    page.check("#consent-yes")
    page.click("#consent-form button[type=submit]")
    page.wait_for_selector("#answer")
    shot(page, "annotate")
    total = FoldItem.objects.filter(fold__corpus=study.corpus).count()
    for _ in range(total):
        press_label(page, lambda gold: "correct")
    page.wait_for_selector("#completion-code")
    assert page.inner_text("#completion-code") == "C0DE42"
    assert page.get_attribute("#completion-link", "href") == "https://app.prolific.com/submissions/complete?cc=C0DE42"
    shot(page, "completed")
    assert Participant.objects.get().status == "completed" and Label.objects.count() == total


def test_resume_refusal_from_another_browser_and_reset(live_server, open_browser, shot, tmp_path):
    build_study(tmp_path, n_questions=4, k=2)
    page = open_browser()
    consent(page, live_server, "P1")
    page.wait_for_selector("#answer")
    press_label(page, lambda gold: "partial")
    page.context.clear_cookies(name="sessionid")  # the session is gone; the browser's binding is not
    again = page.context.new_page()
    again.goto(link(live_server, "P1"))
    again.wait_for_selector("#answer")
    assert again.inner_text("#progress-count").startswith("1 / ")
    shot(again, "resumed")
    other = open_browser()
    other.goto(link(live_server, "P1"))
    assert "in use in another browser" in other.inner_text("#study-state")
    shot(other, "refused")
    Participant.objects.filter(external_id="P1").update(browser_token="")  # what the admin's reset does
    other.goto(link(live_server, "P1"))
    other.wait_for_selector("#answer")
    assert other.inner_text("#progress-count").startswith("1 / ")


def test_closed_and_full_studies(live_server, open_browser, shot, tmp_path):
    study = build_study(tmp_path, n_questions=2, k=1, slots_per_fold=1)
    first = open_browser()
    consent(first, live_server, "P1")
    first.wait_for_selector("#answer")
    late = open_browser()
    late.goto(link(live_server, "P2"))  # said before the consent page
    assert "This study is full" in late.inner_text("#study-state")
    shot(late, "full")
    Study.objects.filter(pk=study.pk).update(open=False)
    late.goto(link(live_server, "P3"))
    assert "This study is closed" in late.inner_text("#study-state")
    shot(late, "closed")
    late.goto(f"{live_server.url}/study/pilot/?STUDY_ID=x")
    assert "no valid participant id" in late.inner_text("#study-state")
    shot(late, "missing")
    assert list(Participant.objects.values_list("external_id", flat=True)) == ["P1"]


def test_idle_participant_sees_the_place_given_back(live_server, open_browser, shot, tmp_path):
    build_study(tmp_path, n_questions=4, k=1, slots_per_fold=1, idle_minutes=5)
    idle = open_browser()
    consent(idle, live_server, "sleepy")
    idle.wait_for_selector("#answer")
    press_label(idle, lambda gold: "correct")
    past = timezone.now() - timedelta(minutes=6)
    sleepy = Participant.objects.get(external_id="sleepy")
    Participant.objects.filter(pk=sleepy.pk).update(consented_at=past, slot_at=past)
    Label.objects.filter(annotator=sleepy.user).update(updated_at=past)
    newcomer = open_browser()
    consent(newcomer, live_server, "newcomer")
    newcomer.wait_for_selector("#answer")
    idle.keyboard.press("1")  # back at the keyboard: the place is gone, the page says so
    idle.wait_for_selector("#study-state[data-state=idle]")
    assert "Every label you gave is kept" in idle.inner_text("#study-state")
    shot(idle, "idle")
    assert Label.objects.filter(annotator=sleepy.user).count() == 1


def test_screening_stops_politely_after_two_wrong_gold_items(live_server, open_browser, shot, tmp_path, make_user):
    study = build_study(tmp_path, n_questions=4, k=1, gold=3, min_gold_accuracy=0.7)
    page = open_browser()
    consent(page, live_server, "careless")
    page.wait_for_selector("#answer")
    for _ in range(FoldItem.objects.filter(fold__corpus=study.corpus).count()):
        press_label(page, lambda gold: "incorrect" if gold else "correct")
        if page.locator("#study-state").count():
            break
    page.wait_for_selector("#study-state[data-state=excluded]")
    assert "Thank you for your time" in page.inner_text("#study-state")
    shot(page, "excluded")
    assert Participant.objects.get().status == "excluded"
    make_user("boss", "admin")
    admin = open_browser()
    login(admin, live_server, "boss")
    admin.goto(f"{live_server.url}/studies/pilot/")
    row = admin.locator("#participants tbody tr").first.inner_text()
    assert "careless" in row and "excluded" in row and "0.00 (2)" in row  # SPEC 17: two misses (was 3 items)
    shot(admin, "admin_page")
