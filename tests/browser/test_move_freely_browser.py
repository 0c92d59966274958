"""Moving freely in Chromium (issue 12, point 2): `?` overlay, item list, jump, review mode; screenshots
at 1366 and 390 px wide (/tmp/h12_*.png) to look at."""

import pytest

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import Label
from tests.browser_fixtures import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def settled(page, n):
    page.wait_for_function(f"window.settled === {n}")


def test_overlay_list_jump_and_review_with_the_keyboard(page, live_server, tiny_corpus, make_user, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    total = fold.items.count()
    page.set_viewport_size({"width": 1366, "height": 900})
    login(page, live_server, "ann")
    page.goto(f"{live_server.url}/annotate/{fold.pk}/")
    page.wait_for_load_state("load")
    page.evaluate("window.settled = 0; document.body.addEventListener('htmx:afterSettle', () => window.settled++)")
    assert page.inner_text("#current-label") == "Not judged yet"

    page.keyboard.press("?")
    page.wait_for_selector("dialog#shortcuts[open]")
    assert "Partially correct" in page.inner_text("dialog#shortcuts")
    page.keyboard.press("1")  # keys do nothing while the overlay is open
    assert Label.objects.count() == 0
    page.keyboard.press("Escape")
    page.wait_for_selector("dialog#shortcuts", state="hidden")

    page.keyboard.press("1")
    settled(page, 1)
    page.keyboard.press("3")
    settled(page, 2)
    page.screenshot(path="/tmp/h12_annotate_1366.png")
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path="/tmp/h12_annotate_390.png")
    page.set_viewport_size({"width": 1366, "height": 900})

    page.keyboard.press("l")
    page.wait_for_selector("#item-table")
    assert page.inner_text("#item-count") == f"{total} of {total} items shown."
    page.select_option("#show", "judged")
    page.select_option("#label", "incorrect")
    page.click("button:text-is('Filter')")
    page.wait_for_function("document.querySelector('#item-count')?.textContent.startsWith('1 of')")
    assert "Incorrect" in page.inner_text("#item-table tbody")
    page.screenshot(path="/tmp/h12_items_1366.png")
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path="/tmp/h12_items_390.png")
    page.set_viewport_size({"width": 1366, "height": 900})

    page.fill("#jump", "1")
    page.press("#jump", "Enter")
    page.wait_for_url(f"**/annotate/{fold.pk}/item/*/")
    assert page.inner_text("#current-label") == "Correct"

    page.goto(f"{live_server.url}/annotate/{fold.pk}/review/")
    page.wait_for_selector("#review-banner")
    page.wait_for_load_state("load")
    assert page.inner_text("#current-label") == "Correct"
    page.keyboard.press("n")  # keep it, next labelled item
    page.wait_for_function("document.querySelector('#current-label')?.textContent === 'Incorrect'")
    page.wait_for_load_state("load")
    page.evaluate("window.settled = 0; document.body.addEventListener('htmx:afterSettle', () => window.settled++)")
    page.keyboard.press("2")  # change it in review mode
    page.wait_for_selector("text=Review finished")
    assert sorted(Label.objects.values_list("value", flat=True)) == ["correct", "partial"]
