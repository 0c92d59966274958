"""An annotator checks derived attributes in headless Chromium (issue 26 point 4): keyboard for the
verdict and the distance class, a click on a word of the passage for a corrected trigger; at 1366 and
390 px wide, with screenshots."""

import os

import pytest

from annotation.assignments import assign_fold
from frames.attribute_checks import create_attribute_folds
from frames.models import AttributeCheck
from tests.browser_fixtures import login
from tests.frames.fixtures import add_derivations, framed_corpus  # noqa: F401  (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = os.environ.get("ATTRIBUTE_CHECK_SCREENSHOTS", "/tmp")


@pytest.mark.parametrize("width", [1366, 390])
def test_check_attributes_with_keyboard_and_click(page, live_server, framed_corpus, make_user, monkeypatch, width):  # noqa: F811
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    page.set_viewport_size({"width": width, "height": 900})
    add_derivations(framed_corpus)
    fold = create_attribute_folds(framed_corpus, k=1)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    login(page, live_server, "ann")
    page.click("text=Start")
    page.wait_for_selector("#passage")
    page.wait_for_load_state("load")
    page.evaluate("window.settled = 0; document.body.addEventListener('htmx:afterSettle', () => window.settled++)")
    first = fold.items.order_by("position").first().question
    assert page.locator("#passage .k-trigger").inner_text() == "about"
    assert page.locator("#passage .k-answer").inner_text() == "Paragraph"
    assert page.locator('.rate[data-group="dist_class"].active').inner_text().endswith("1 arc")  # the parser's
    page.screenshot(path=f"{SHOTS}/attribute_check_{width}.png", full_page=True)
    # the page never scrolls sideways
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")

    page.keyboard.press("n")  # not the trigger: the hint asks for a click, Save waits for it
    assert page.locator("#attribute-hint").is_visible() and page.locator("#save-check").is_disabled()
    page.locator("#passage .w", has_text="Paragraph").first.click()  # any word; here the first one
    page.keyboard.press("2")
    assert page.locator("#passage .chosen").inner_text() == "Paragraph"
    page.screenshot(path=f"{SHOTS}/attribute_check_{width}_chosen.png", full_page=True)
    page.keyboard.press("Enter")
    page.wait_for_function("window.settled === 1")
    check = AttributeCheck.objects.get(annotator=ann)
    start = first.context.index("Paragraph")
    assert (check.question_id, check.trigger_verdict, check.trigger_start, check.trigger_end, check.dist_class) == (
        first.pk,
        "other",
        start,
        start + len("Paragraph"),
        "2+",
    )
    assert page.inner_text("#progress-count") == "1 / 4"

    page.keyboard.press("y")
    page.keyboard.press("Enter")
    page.wait_for_function("window.settled === 2")
    assert AttributeCheck.objects.filter(annotator=ann, trigger_verdict="correct").count() == 1
