"""On a phone (390 x 844) the label buttons are on the first screen, no scrolling (issue 32, friction 8):
the annotate page with PIAF's longest paragraphs and questions (the French demo's corpus), and the
attribute-check page with a long passage; at 1366 px too. Screenshots under /tmp/frictions-shots."""

import json
import os
from pathlib import Path

import pytest

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus, Question
from frames.attribute_checks import create_attribute_folds
from tests.browser_fixtures import login
from tests.conftest import SHARED_DATA, require, write_jsonl
from tests.frames.fixtures import add_derivations, framed_corpus  # noqa: F401  (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path(os.environ.get("QAEVAL_SHOTS", "/tmp/frictions-shots"))
PIAF_SMALL = SHARED_DATA / "piaf-v1.1" / "small" / "corpus.jsonl"
SIZES = [(390, 844), (1366, 768)]


def on_first_screen(page, selector, height):
    assert page.evaluate("window.scrollY") == 0
    boxes = [b.bounding_box() for b in page.locator(selector).all()]
    assert boxes, selector
    return all(b["y"] >= 0 and b["y"] + b["height"] <= height for b in boxes), boxes


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_label_buttons_on_the_first_screen_of_the_annotate_page(page, live_server, make_user, tmp_path, width, height):
    require(PIAF_SMALL.exists(), f"shared data not found at {PIAF_SMALL}")
    rows = [json.loads(line) for line in PIAF_SMALL.read_text(encoding="utf-8").splitlines()]
    longest = sorted(rows, key=lambda r: len(r["context"]) + 4 * len(r["question"]), reverse=True)[:4]
    write_jsonl(tmp_path / "c.jsonl", longest)
    preds = [{"question_id": r["id"], "system": "s", "answer": r["answers"][0] + " et la suite"} for r in longest]
    write_jsonl(tmp_path / "p.jsonl", preds)
    import_corpus(tmp_path / "c.jsonl", "piaf-long")
    corpus = Corpus.objects.get(name="piaf-long")
    import_predictions(tmp_path / "p.jsonl", corpus)
    fold = create_folds(corpus, k=1, seed=0, overlap=0)[0]
    assign_fold(fold, make_user("ann", "annotator"))
    page.set_viewport_size({"width": width, "height": height})
    login(page, live_server, "ann")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for n in range(3):
        page.goto(f"{live_server.url}/annotate/{fold.pk}/?start=1")
        page.wait_for_selector("#answer")
        ok, boxes = on_first_screen(page, "#judge-form button[name=value]", height)
        page.screenshot(path=str(SHOTS / f"annotate-buttons-{width}-{n}.png"))
        assert ok, boxes
        page.keyboard.press("1")
        page.wait_for_function(f"document.querySelector('#progress-count')?.textContent.startsWith('{n + 1} ')")


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_rating_buttons_on_the_first_screen_of_the_attribute_check_page(
    page,
    live_server,
    framed_corpus,  # noqa: F811
    make_user,
    monkeypatch,
    width,
    height,
):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    add_derivations(framed_corpus)
    # a paragraph as long as PIAF's longest (about 1,000 characters): the derived offsets stay where they are
    tail = " Une phrase de plus dans ce long paragraphe, comme il y en a dans les articles." * 12
    for q in Question.objects.filter(corpus=framed_corpus):
        q.context += tail
        q.save(update_fields=["context"])
    fold = create_attribute_folds(framed_corpus, k=1)[0]
    assign_fold(fold, make_user("ann", "annotator"))
    page.set_viewport_size({"width": width, "height": height})
    login(page, live_server, "ann")
    page.click("text=Start")
    page.wait_for_selector("#passage")
    ok, boxes = on_first_screen(page, "#attribute-check-form button.rate, #save-check", height)
    page.screenshot(path=str(SHOTS / f"attribute-buttons-{width}.png"))
    assert ok, boxes
