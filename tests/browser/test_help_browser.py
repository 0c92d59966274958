"""Guidelines, answer highlight and flags in Chromium (issue 12, point 3)."""

import pytest

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import Flag, Label
from tests.browser_fixtures import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_first_run_guidelines_highlight_and_flag_with_the_keyboard(
    page, live_server, tiny_corpus, make_user, monkeypatch
):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    tiny_corpus.guidelines = "# Our rules\n\nJudge **only** the answer.\n\n<script>window.pwned = 1</script>"
    tiny_corpus.save()
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    assign_fold(fold, make_user("ann", "annotator"))
    login(page, live_server, "ann")
    page.goto(f"{live_server.url}/annotate/{fold.pk}/")
    assert page.inner_text("h1").startswith("Before you start")
    assert page.evaluate("window.pwned") is None and "<script>" in page.inner_text("#corpus-guidelines")
    page.click("text=I have read them: start")
    page.wait_for_selector("#answer")
    page.wait_for_load_state("load")
    assert "Judge only the answer." in page.inner_text("#corpus-guidelines")
    answer = page.inner_text("#answer")
    marks = page.locator("mark.answer-in-passage").all_inner_texts()
    assert all(m.lower() == answer.lower() for m in marks)

    page.keyboard.press("f")
    page.wait_for_selector("dialog#flag-dialog[open]")
    page.select_option("#flag-reason", "passage_wrong")
    page.fill("#flag-comment", "the passage is about 123")  # digits typed here are not shortcuts
    page.click("text=Send the flag")
    page.wait_for_selector("dialog#flag-dialog", state="hidden")
    page.wait_for_selector(".flag-saved")
    flag = Flag.objects.get()
    assert (flag.reason, flag.comment) == ("passage_wrong", "the passage is about 123")
    assert Label.objects.count() == 0
    page.screenshot(path="/tmp/h12_flagged_1366.png")
