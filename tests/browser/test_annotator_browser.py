"""An annotator logs in, labels with the keyboard and sees progress move; labels reach the database."""

import pytest

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import Label, LabelEvent
from tests.browser_fixtures import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_annotator_labels_with_keyboard(page, live_server, tiny_corpus, make_user, tmp_path):
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    total = fold.items.count()
    login(page, live_server, "ann")
    assert f"0 / {total}" in page.inner_text("table.data")
    page.click("text=Start")
    page.wait_for_selector("#answer")
    page.wait_for_load_state("load")  # the key handlers come with the script at the end of the page
    page.evaluate("window.settled = 0; document.body.addEventListener('htmx:afterSettle', () => window.settled++)")
    first_answer = page.inner_text("#answer")
    assert page.inner_text("#progress-count") == f"0 / {total}"

    page.keyboard.press("1")  # correct
    page.wait_for_function(f"document.querySelector('#progress-count')?.textContent === '1 / {total}'")
    page.wait_for_function("window.settled === 1")
    second_answer = page.inner_text("#answer")
    page.keyboard.press("3")  # incorrect
    page.wait_for_function(f"document.querySelector('#progress-count')?.textContent === '2 / {total}'")
    page.wait_for_function("window.settled === 2")
    page.keyboard.press("s")  # skip the third
    page.wait_for_function("document.querySelector('#work .progress-label')?.textContent.includes('1 skipped')")
    page.wait_for_function("window.settled === 3")
    page.screenshot(path=str(tmp_path / "annotate.png"))

    labels = {l.triplet.answer: l for l in Label.objects.select_related("triplet")}
    assert labels[first_answer].value == "correct"
    assert labels[second_answer].value == "incorrect"
    assert labels[first_answer].seconds_spent > 0
    assert sum(1 for l in labels.values() if l.skipped and l.value is None) == 1

    # go back (B) to the skipped item, which is now the last judged position, and change it
    page.keyboard.press("b")
    page.wait_for_selector("input[name=revisit]", state="attached")
    page.wait_for_function("window.settled === 4")
    back_answer = page.inner_text("#answer")
    page.keyboard.press("2")
    page.wait_for_function(f"document.querySelector('#progress-count')?.textContent === '3 / {total}'")
    label = Label.objects.get(triplet__answer=back_answer, annotator=ann)
    assert label.value == "partial" and not label.skipped
    assert list(LabelEvent.objects.filter(label=label).values_list("skipped", flat=True)) == [True, False]
    assert Label.objects.count() == 3
