"""Issue 45, point 1: the annotate page survives Back (and the back/forward cache), in headless
Chromium at 1366 and 390 px, in English and in French.

- Label an item, open the item list (L), go Back, press another key: it is saved (never a refused
  key), the label is the new one, and no error shows.
- A page whose submission id an earlier save already used (a stale copy, whatever restored it) takes
  the key anyway, with a fresh submission id: the page never shows the 409.

Screenshots go to ``$QAEVAL_SHOTS`` (default: the test's tmp_path).
"""

import os

import pytest

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus, Label, LabelEvent
from tests.browser_fixtures import login
from tests.conftest import write_jsonl

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CASES = [(w, lang) for w in (1366, 390) for lang in ("en", "fr")]
ERRORS = {"en": "Not saved", "fr": "Non enregistré"}


@pytest.fixture
def annotating(page, live_server, make_user, tmp_path, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    rows = [
        {"id": f"q{i}", "context": f"Passage {i} about Warsaw and Paris.", "question": f"Q{i}?", "answers": ["Warsaw"]}
        for i in range(4)
    ]
    import_corpus(write_jsonl(tmp_path / "c.jsonl", rows), "back")
    corpus = Corpus.objects.get(name="back")
    preds = [{"question_id": f"q{i}", "system": "s", "answer": "Paris"} for i in range(4)]
    import_predictions(write_jsonl(tmp_path / "p.jsonl", preds), corpus)
    fold = create_folds(corpus, k=1, seed=0, overlap=0)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    shots = os.environ.get("QAEVAL_SHOTS") or str(tmp_path)

    def start(width, lang):
        page.set_viewport_size({"width": width, "height": 900 if width > 500 else 844})
        page.context.add_cookies([{"name": "qaeval_language", "value": lang, "url": live_server.url}])
        login(page, live_server, "ann")
        page.goto(f"{live_server.url}/annotate/{fold.pk}/?start=1")
        page.wait_for_selector("#judge-form")
        page.wait_for_load_state("load")
        assert page.evaluate("document.documentElement.lang") == lang
        return page

    def shot(name, width, lang):
        page.screenshot(path=f"{shots}/i45_{name}_{width}_{lang}.png", full_page=True)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} at {width} px overflows by {overflow} px"

    return {"fold": fold, "ann": ann, "start": start, "shot": shot, "url": live_server.url}


def shown_item(page):
    return page.input_value("#judge-form input[name=item]")


def moved_past(page, handle):
    """Wait until the form shows another item (a missing form, mid-swap, is not yet another item)."""
    page.wait_for_function(
        "handle => (document.querySelector('#judge-form input[name=item]')?.value ?? handle) !== handle", arg=handle
    )


def label_of(ann, handle):
    row = Label.objects.filter(annotator=ann, triplet__fold_items__handle=int(handle)).first()
    return row.value if row else None


@pytest.mark.parametrize(("width", "lang"), CASES)
def test_back_from_the_item_list_then_a_key_is_saved(annotating, width, lang):
    page, ann = annotating["start"](width, lang), annotating["ann"]
    first = shown_item(page)
    page.keyboard.press("1")
    moved_past(page, first)
    second = shown_item(page)
    page.keyboard.press("l")
    page.wait_for_url("**/items/**")
    page.go_back()
    page.wait_for_selector("#judge-form")
    page.wait_for_load_state("load")
    assert shown_item(page) == second  # the server's state, not the page as first loaded
    page.keyboard.press("3")
    moved_past(page, second)
    assert label_of(ann, first) == "correct" and label_of(ann, second) == "incorrect"
    assert ERRORS[lang] not in page.inner_text("#work")
    annotating["shot"]("back_after_list", width, lang)


@pytest.mark.parametrize(("width", "lang"), CASES)
def test_a_stale_page_takes_the_key_with_a_fresh_submission_id(annotating, width, lang):
    page, ann = annotating["start"](width, lang), annotating["ann"]
    item = shown_item(page)
    used = page.input_value("#judge-form input[name=submission_id]")
    # Another copy of this page (the one Back restored, a second tab) saved "correct" with this id.
    token = page.input_value("#judge-form input[name=csrfmiddlewaretoken]")
    answer = page.request.post(
        page.eval_on_selector("#judge-form", "f => new URL(f.getAttribute('hx-post'), location.href).href"),
        form={"item": item, "value": "correct", "submission_id": used, "csrfmiddlewaretoken": token},
        headers={"HX-Request": "true", "X-CSRFToken": token, "Referer": annotating["url"] + "/"},
    )
    assert answer.ok, answer.text()
    page.keyboard.press("2")  # this stale page still shows the item unjudged, with the used id
    moved_past(page, item)
    assert label_of(ann, item) == "partial"
    events = list(LabelEvent.objects.filter(label__annotator=ann).order_by("pk").values_list("value", "submission_id"))
    assert events[0] == ("correct", used) and events[1][0] == "partial" and events[1][1] != used
    assert ERRORS[lang] not in page.inner_text("#work")
    annotating["shot"]("stale_page_key", width, lang)
