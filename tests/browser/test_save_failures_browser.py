"""A failed save is never silent (issue 12, point 1), in headless Chromium.

Each case presses a label key while the save cannot succeed, checks that the page says so next to
the buttons with the item and the chosen label kept, then lets the save through and checks that
exactly one judgement was stored, under the submission id the page was rendered with.
"""

import re

import pytest
from django.contrib.sessions.models import Session

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import Label, LabelEvent
from tests.browser_fixtures import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def annotating(page, live_server, tiny_corpus, make_user, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    login(page, live_server, "ann")
    page.goto(f"{live_server.url}/annotate/{fold.pk}/")
    page.wait_for_selector("#answer")
    page.wait_for_load_state("load")
    return {"fold": fold, "ann": ann, "total": fold.items.count(), "page": page, "live_server": live_server}


def shown(page):
    return {
        "answer": page.inner_text("#answer"),
        "item": page.input_value("input[name=item]"),
        "submission_id": page.input_value("input[name=submission_id]"),
    }


def expect_kept(page, before, words, label_class):
    page.wait_for_selector(".save-status", state="visible")
    status = page.inner_text(".save-status")
    assert status.startswith("Not saved") and words in status, status
    assert page.get_attribute(".save-status", "role") == "alert"
    assert page.inner_text("#answer") == before["answer"]
    assert page.input_value("input[name=item]") == before["item"]
    assert page.locator(f"button.{label_class}.pending").count() == 1, page.evaluate(
        "sessionStorage.getItem('qaeval.pendingSave')"
    )
    return status


def expect_saved_once(ctx, before, value):
    page, total = ctx["page"], ctx["total"]
    page.wait_for_function(f"document.querySelector('#progress-count')?.textContent === '1 / {total}'", timeout=20000)
    assert page.locator(".save-status").count() == 0
    label = Label.objects.get(annotator=ctx["ann"])
    assert str(label.triplet_id) and label.value == value
    events = list(LabelEvent.objects.filter(label=label).values_list("submission_id", flat=True))
    assert events == [before["submission_id"]]


def test_offline_keeps_the_label_and_sends_it_when_back_online(annotating):
    page = annotating["page"]
    before = shown(page)
    page.context.set_offline(True)
    page.keyboard.press("1")
    status = expect_kept(page, before, "offline", "correct")
    assert "Correct" in status and "when the connection is back" in status
    assert Label.objects.count() == 0
    page.screenshot(path="/tmp/h12_offline_1366.png")
    page.context.set_offline(False)
    expect_saved_once(annotating, before, "correct")


def test_server_stopped_then_back_retries_with_the_same_submission_id(annotating):
    page = annotating["page"]
    before = shown(page)
    page.route("**/judge/", lambda route: route.abort("connectionrefused"))
    page.keyboard.press("3")
    status = expect_kept(page, before, "the server cannot be reached", "incorrect")
    assert "sent again automatically in" in status
    assert Label.objects.count() == 0
    page.unroute("**/judge/")
    expect_saved_once(annotating, before, "incorrect")


def test_a_lost_response_is_retried_without_a_duplicate(annotating):
    """The save reached the server but the answer was lost: the retry is a no-op on the server."""
    page = annotating["page"]
    before = shown(page)
    lost = []

    def deliver_then_drop(route):
        route.fetch()  # the server stores the judgement...
        lost.append(1)
        route.abort("connectionreset")  # ...and the page never hears back

    page.route("**/judge/", deliver_then_drop, times=1)
    page.keyboard.press("2")
    expect_kept(page, before, "the server cannot be reached", "partial")
    assert lost and Label.objects.get().value == "partial"
    expect_saved_once(annotating, before, "partial")


def test_a_server_error_is_shown_and_retried(annotating):
    page = annotating["page"]
    before = shown(page)
    # the server fails until the page has been seen saying so (with times=1 the retry 2 s later could
    # succeed and hide the message before a loaded machine's browser was polled), then recovers
    page.route("**/judge/", lambda route: route.fulfill(status=500, body="boom"))
    page.keyboard.press("1")
    expect_kept(page, before, "the server answered with an error (500)", "correct")
    page.unroute("**/judge/")
    expect_saved_once(annotating, before, "correct")


def test_a_changed_choice_while_unsaved_is_sent_with_a_new_id(annotating):
    page = annotating["page"]
    before = shown(page)
    page.route("**/judge/", lambda route: route.abort("connectionrefused"))
    page.keyboard.press("1")
    expect_kept(page, before, "cannot be reached", "correct")
    page.keyboard.press("3")  # the annotator changes their mind while it is not saved
    expect_kept(page, before, "cannot be reached", "incorrect")
    page.unroute("**/judge/")
    page.wait_for_function(
        f"document.querySelector('#progress-count')?.textContent === '1 / {annotating['total']}'", timeout=20000
    )
    label = Label.objects.get()
    assert label.value == "incorrect" and label.events.count() == 1


def test_cleared_cookies_go_to_login_and_back_to_the_same_item_with_the_label(annotating):
    page = annotating["page"]
    before = shown(page)
    page.context.clear_cookies()
    page.keyboard.press("3")  # 403 (CSRF cookie gone), then the session check finds no session
    page.wait_for_url(re.compile(r"/login/\?next="))
    assert f"/annotate/{annotating['fold'].pk}/item/{before['item']}/" in page.url.replace("%2F", "/")
    assert Label.objects.count() == 0
    page.fill("#id_username", "ann")
    page.fill("#id_password", "pw-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/annotate/\d+/item/\d+/"))
    expect_saved_once(annotating, before, "incorrect")


def test_expired_session_goes_to_login_and_back(annotating):
    page = annotating["page"]
    before = shown(page)
    Session.objects.all().delete()  # the session expired on the server; the CSRF cookie is still valid
    page.keyboard.press("2")
    page.wait_for_url(re.compile(r"/login/\?next="))
    page.fill("#id_username", "ann")
    page.fill("#id_password", "pw-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/annotate/\d+/item/\d+/"))
    expect_saved_once(annotating, before, "partial")


def test_csrf_failure_with_a_live_session_refreshes_the_token_and_saves(annotating):
    page = annotating["page"]
    before = shown(page)
    page.evaluate("""() => {
        document.querySelectorAll('input[name=csrfmiddlewaretoken]').forEach(i => i.value = 'x'.repeat(64));
        document.body.setAttribute('hx-headers', JSON.stringify({'X-CSRFToken': 'x'.repeat(64)}));
    }""")
    page.keyboard.press("1")
    expect_saved_once(annotating, before, "correct")


def test_a_label_kept_while_moving_to_another_item_is_sent_from_there(annotating):
    page, live_server, fold = annotating["page"], annotating["live_server"], annotating["fold"]
    before = shown(page)
    page.route("**/judge/", lambda route: route.abort("connectionrefused"))
    page.keyboard.press("2")
    expect_kept(page, before, "cannot be reached", "partial")
    page.unroute("**/judge/")
    other = fold.items.exclude(handle=int(before["item"])).order_by("position").first()
    page.goto(f"{live_server.url}/annotate/{fold.pk}/item/{other.handle}/")
    page.wait_for_load_state("load")
    page.wait_for_function("sessionStorage.getItem('qaeval.pendingSave') === null")
    label = Label.objects.get()
    assert label.value == "partial" and str(label.triplet_id) == str(fold.items.get(handle=before["item"]).triplet_id)
    assert list(label.events.values_list("submission_id", flat=True)) == [before["submission_id"]]


def test_a_flag_error_does_not_touch_a_kept_label_and_a_success_clears_it(annotating):
    page = annotating["page"]
    before = shown(page)
    page.route("**/judge/", lambda route: route.abort("connectionrefused"))
    page.keyboard.press("1")
    expect_kept(page, before, "cannot be reached", "correct")
    page.route("**/flag/", lambda route: route.fulfill(status=400, body="reason: bad"), times=1)
    page.keyboard.press("f")
    page.wait_for_selector("dialog#flag-dialog[open]")
    page.click("text=Send the flag")
    page.wait_for_timeout(300)
    page.keyboard.press("Escape")
    assert page.evaluate("JSON.parse(sessionStorage.getItem('qaeval.pendingSave')).params.value") == "correct"
    page.unroute("**/judge/")
    expect_saved_once(annotating, before, "correct")
    assert page.evaluate("sessionStorage.getItem('qaeval.pendingSave')") is None
