"""An annotator rates one frame check with the keyboard in headless Chromium; the row reaches the DB."""

import os

import pytest

from annotation.assignments import assign_fold
from frames.folds import create_frame_folds
from frames.models import FrameCheck
from tests.browser_fixtures import login
from tests.frames.fixtures import framed_corpus  # noqa: F401  (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SCREENSHOT = os.environ.get("FRAME_CHECK_SCREENSHOT", "/tmp/frame_check.png")


def test_rate_frame_check_with_keyboard(page, live_server, framed_corpus, make_user, monkeypatch):  # noqa: F811
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # restored afterwards, so it never leaks
    fold = create_frame_folds(framed_corpus, k=1)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    login(page, live_server, "ann")
    assert "0 / 4" in page.inner_text("table.data")
    page.click("text=Start")
    page.wait_for_selector("#frame-name")
    page.wait_for_load_state("load")  # the key handlers are in scripts at the end of the page
    # count htmx swaps that have settled (new buttons are live only then)
    page.evaluate("window.settled = 0; document.body.addEventListener('htmx:afterSettle', () => window.settled++)")
    first = fold.items.order_by("position").first().frame_annotation
    assert page.inner_text("#frame-name") == first.frame.name
    assert page.inner_text("#frame-trigger") == first.trigger
    assert first.frame.definition in page.inner_text("#frame-definition")
    for name, span in first.frame_elements.items():
        assert span in page.inner_text("#frame-elements") and name in page.inner_text("#frame-elements")
    assert page.locator("#frame-question mark.trigger").inner_text() == first.trigger
    page.screenshot(path=SCREENSHOT, full_page=True)

    page.keyboard.press("1")  # frame: full; nothing sent yet
    assert page.locator('.rate[data-group="frame"].active').inner_text().endswith("Full")
    assert page.inner_text("#progress-count") == "0 / 4"
    page.keyboard.press("5")  # FEs: partial -> saved, next question
    page.wait_for_function("window.settled === 1")
    assert page.inner_text("#progress-count") == "1 / 4"
    check = FrameCheck.objects.get(annotator=ann)
    assert (check.frame_annotation_id, check.frame_rating, check.fe_rating) == (first.pk, "full", "partial")
    assert check.seconds_spent > 0 and check.events.count() == 1
    assert page.inner_text("#frame-name") != first.frame.name

    page.keyboard.press("b")  # back to the first one: its ratings are shown; change the FEs, Enter saves
    page.wait_for_function("window.settled === 2")
    assert page.locator("input[name=revisit]").count() == 1
    assert page.inner_text("#frame-name") == first.frame.name
    page.keyboard.press("6")  # one group chosen on this visit: not sent yet
    assert page.locator('.rate[data-group="fe"].active').inner_text().endswith("Erroneous")
    assert check.events.count() == 1
    page.keyboard.press("Enter")
    page.wait_for_function("window.settled === 3")
    assert page.locator("input[name=revisit]").count() == 0
    check.refresh_from_db()
    assert (check.frame_rating, check.fe_rating) == ("full", "erroneous") and check.events.count() == 2


def test_frame_check_saved_offline_is_kept_and_sent_when_back(page, live_server, framed_corpus, make_user, monkeypatch):  # noqa: F811
    """Issue 12 point 1 on the frame-check page: the same never-silent save as the answer page."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    fold = create_frame_folds(framed_corpus, k=1)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    login(page, live_server, "ann")
    page.goto(f"{live_server.url}/frames/check/{fold.pk}/")
    page.wait_for_selector("#frame-name")
    page.wait_for_load_state("load")
    first_name = page.inner_text("#frame-name")
    sub = page.input_value("input[name=submission_id]")
    page.context.set_offline(True)
    page.keyboard.press("1")
    page.keyboard.press("5")
    page.wait_for_selector(".save-status", state="visible")
    assert page.inner_text(".save-status").startswith("Not saved: you are offline")
    assert page.inner_text("#frame-name") == first_name and FrameCheck.objects.count() == 0
    page.context.set_offline(False)
    page.wait_for_function("document.querySelector('#progress-count')?.textContent === '1 / 4'", timeout=20000)
    check = FrameCheck.objects.get(annotator=ann)
    assert (check.frame_rating, check.fe_rating) == ("full", "partial")
    assert list(check.events.values_list("submission_id", flat=True)) == [sub]
