"""The annotator's last frictions (issue 27 points 2, 3, 4, 10), in headless Chromium at 1366 and 390 px.

- 2: the session ends; a key press lands on the login page, which says the session ended and the
  chosen label is kept; after logging in again the item page confirms it is saved (once).
- 3: keys pressed while a save is in flight are queued in order, shown as queued, and each applied
  to the item that comes next: three keys, three labels, in order.
- 4: the answer is lit in the passage on word and number boundaries ("41" not inside "141").
- 10: guidelines edited mid-fold: the next item says "Guidelines changed" with what changed, once.

Screenshots go to ``$QAEVAL_SHOTS`` (default: the test's tmp_path).
"""

import os
import re
import time

import pytest
from django.contrib.sessions.models import Session

from annotation import annotating
from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus, Label
from tests.browser_fixtures import login
from tests.conftest import write_jsonl

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = [1366, 390]
PASSAGES = [
    ("p1", "He ran 141 yards in the first half, then 41 more after the break.", "How far after the break?", "41"),
    ("p2", "Le taux est de 14,2 % chez les 14 ans, dit l'armée.", "Quel âge ?", "14"),
    ("p3", "Warsaw is the capital of Poland.", "What is the capital?", "Warsaw"),
    ("p4", "Il y a 100 000 habitants, dont 000 inscrits.", "Combien d'inscrits ?", "000"),
]


@pytest.fixture
def fold_for(page, live_server, make_user, tmp_path, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    rows = [{"id": i, "context": c, "question": q, "answers": [a]} for i, c, q, a in PASSAGES]
    import_corpus(write_jsonl(tmp_path / "c.jsonl", rows), "frictions")
    corpus = Corpus.objects.get(name="frictions")
    preds = [{"question_id": i, "system": "sys", "answer": f"{a} (or so)"} for i, _, _, a in PASSAGES]
    import_predictions(write_jsonl(tmp_path / "p.jsonl", preds), corpus)
    fold = create_folds(corpus, k=1, seed=0, overlap=0)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    shots = os.environ.get("QAEVAL_SHOTS") or str(tmp_path)

    def start(width, shown="#answer"):
        page.set_viewport_size({"width": width, "height": 900 if width > 500 else 844})
        login(page, live_server, "ann")
        page.goto(f"{live_server.url}/annotate/{fold.pk}/")
        page.wait_for_selector(shown)
        page.wait_for_load_state("load")
        return page

    def shot(name, width):
        page.screenshot(path=f"{shots}/i27_{name}_{width}.png", full_page=True)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} at {width} px overflows by {overflow} px"

    return {"fold": fold, "ann": ann, "corpus": corpus, "start": start, "shot": shot, "live_server": live_server}


def progress(page, n, total):
    page.wait_for_function(f"document.querySelector('#progress-count')?.textContent === '{n} / {total}'", timeout=20000)


@pytest.mark.parametrize("width", WIDTHS)
def test_session_end_says_so_keeps_the_label_and_confirms_the_save(fold_for, width):
    page = fold_for["start"](width)
    item = page.input_value("input[name=item]")
    Session.objects.all().delete()  # the session ended on the server
    page.keyboard.press("2")
    page.wait_for_url(re.compile(r"/login/\?next="))
    notice = page.inner_text("#session-ended")
    assert "session ended" in notice and "“Partially correct”" in notice and "kept" in notice, notice
    fold_for["shot"]("session_ended_login", width)
    assert Label.objects.count() == 0
    page.fill("#id_username", "ann")
    page.fill("#id_password", "pw-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_selector(".save-confirm", timeout=20000)
    confirm = page.inner_text(".save-confirm")
    assert confirm.startswith("Saved: “Partially correct”") and "logged in again" in confirm, confirm
    fold_for["shot"]("session_ended_saved", width)
    label = Label.objects.get()
    assert label.value == "partial" and fold_for["fold"].items.get(handle=item).triplet_id == label.triplet_id
    page.keyboard.press("1")  # the confirmation goes with the next item
    progress(page, 2, fold_for["fold"].items.count())
    assert page.locator(".save-confirm").count() == 0


@pytest.mark.parametrize("width", WIDTHS)
def test_keys_during_a_slow_save_are_queued_in_order(fold_for, width, monkeypatch):
    slow_judge = annotating.judge

    def judge(*args, **kwargs):
        time.sleep(0.6)  # a slow server: every save takes 0.6 s
        return slow_judge(*args, **kwargs)

    monkeypatch.setattr(annotating, "judge", judge)
    page = fold_for["start"](width)
    posts = []
    page.on("request", lambda r: posts.append(r.headers.get("hx-request")) if "judge" in r.url else None)
    order = [page.input_value("input[name=item]")]
    page.keyboard.press("1")
    page.keyboard.press("2")  # 0-30 ms apart: the first save is in flight
    page.keyboard.press("3")
    page.wait_for_selector(".key-queue")
    assert page.inner_text(".key-queue").startswith("Queued: 2, 3"), page.inner_text(".key-queue")
    fold_for["shot"]("keys_queued", width)
    total = fold_for["fold"].items.count()
    progress(page, 3, total)
    page.wait_for_function("!document.querySelector('#work .key-queue')")
    got = {
        str(h): v
        for h, v in Label.objects.filter(annotator=fold_for["ann"]).values_list("triplet__fold_items__handle", "value")
    }
    items = list(fold_for["fold"].items.order_by("position").values_list("handle", flat=True))
    assert order[0] == str(items[0])
    assert [got.get(str(h)) for h in items[:3]] == ["correct", "partial", "incorrect"], got
    assert Label.objects.count() == 3
    assert posts == ["true"] * 3  # three htmx saves: no key fell through to a plain form submission


@pytest.mark.parametrize("width", WIDTHS)
def test_the_answer_is_lit_on_word_and_number_boundaries(fold_for, width, live_server):
    page = fold_for["start"](width)
    fold = fold_for["fold"]
    seen = {}
    for item in fold.items.select_related("triplet__question"):
        page.goto(f"{live_server.url}/annotate/{fold.pk}/item/{item.handle}/")
        marks = page.locator("mark.answer-in-passage").all_inner_texts()
        seen[(item.triplet.question.external_id, item.triplet.answer)] = marks
        if item.triplet.answer == "41":
            fold_for["shot"]("highlight_41", width)
            context = page.inner_text(".context")
            assert "141 yards" in context
    assert seen[("p1", "41")] == ["41"]
    assert seen[("p2", "14")] == ["14"]  # not in "14,2"
    assert seen[("p3", "Warsaw")] == ["Warsaw"]
    assert seen[("p4", "000")] == ["000"]  # not in "100 000"
    assert seen[("p1", "41 (or so)")] == []


@pytest.mark.parametrize("width", WIDTHS)
def test_guidelines_changed_mid_fold_are_announced_once(fold_for, width):
    corpus = fold_for["corpus"]
    corpus.guidelines = "Judge the answer only.\n\nAn empty answer is incorrect."
    corpus.save()
    page = fold_for["start"](width, shown="a.btn.primary")
    page.click("a.btn.primary")  # the first-run screen: "Start" once the guidelines are read
    page.wait_for_selector("#answer")
    page.wait_for_load_state("load")
    total = fold_for["fold"].items.count()
    page.keyboard.press("1")
    progress(page, 1, total)
    assert page.locator("#guidelines-changed").count() == 0
    corpus.guidelines = "Judge the answer only.\n\nAn empty answer is correct when the passage has none."
    corpus.save()  # an admin edits the guidelines while the annotator works
    page.keyboard.press("3")
    page.wait_for_selector("#guidelines-changed")
    text = page.inner_text("#guidelines-changed")
    assert "Guidelines changed" in text
    assert "Removed: An empty answer is incorrect." in text
    assert "Added: An empty answer is correct when the passage has none." in text
    assert "correct when the passage has none" in page.inner_text("#corpus-guidelines")  # the panel is new too
    fold_for["shot"]("guidelines_changed", width)
    page.keyboard.press("2")
    progress(page, 3, total)
    assert page.locator("#guidelines-changed").count() == 0
    page.reload()
    page.wait_for_selector("#answer")
    assert page.locator("#guidelines-changed").count() == 0
