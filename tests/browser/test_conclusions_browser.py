"""The live conclusions page (SPEC 10) in headless Chromium: it updates by itself (htmx polling) after
human labels are added, at 1366 and 390 px wide."""

import os

import pytest

from annotation.importers import import_corpus, import_labels, import_predictions
from annotation.models import Corpus
from evaluation.live_state import refresh
from models_runner.judging import import_judge_labels
from tests.browser_fixtures import login
from tests.conftest import write_jsonl

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SCREENSHOTS = os.environ.get("CONCLUSIONS_SCREENSHOTS", "/tmp/conclusions")
N = 60
SYSTEMS = {"strong": 0.9, "middle": 0.6, "weak": 0.2}  # share of questions answered right


def right(system, i):
    return (i * 7919 % 100) < 100 * SYSTEMS[system]


@pytest.fixture
def judged_corpus(tmp_path):
    qs = [
        {"id": f"q{i}", "context": f"Team {i} won.", "question": f"Who won {i}?", "answers": [f"Team {i}"]}
        for i in range(N)
    ]
    preds, judge = [], []
    for system in SYSTEMS:
        for i in range(N):
            answer = f"Team {i}" if right(system, i) else f"{system} {i}"
            preds.append({"question_id": f"q{i}", "system": system, "answer": answer})
    import_corpus(write_jsonl(tmp_path / "c.jsonl", qs), "live", reference_system=False)
    corpus = Corpus.objects.get(name="live")
    import_predictions(write_jsonl(tmp_path / "p.jsonl", preds), corpus)
    seen = set()
    for p in preds:
        key = (p["question_id"], p["answer"])
        if key not in seen:
            seen.add(key)
            judge.append(
                {**p, "annotator": "gpt-judge", "label": "correct" if p["answer"].startswith("Team") else "incorrect"}
            )
            judge[-1].pop("system")
    import_judge_labels(write_jsonl(tmp_path / "j.jsonl", judge), corpus)
    return corpus, preds


def human_labels(tmp_path, preds, questions, name):
    rows, seen = [], set()
    for p in preds:
        i = int(p["question_id"][1:])
        if i in questions and (p["question_id"], p["answer"]) not in seen:
            seen.add((p["question_id"], p["answer"]))
            rows.append(
                {
                    "question_id": p["question_id"],
                    "answer": p["answer"],
                    "annotator": "ann",
                    "label": "correct" if p["answer"].startswith("Team") else "incorrect",
                }
            )
    return write_jsonl(tmp_path / name, rows)


def test_live_page_updates_when_labels_arrive(page, live_server, judged_corpus, make_user, tmp_path, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    monkeypatch.setattr("evaluation.live.POLL_SECONDS", 1)
    # SPEC 16: the sequences come from the background job; here it runs when the page asks for it
    monkeypatch.setattr("evaluation.live_state.send", lambda corpus_id, countdown=0: refresh(corpus_id))
    corpus, preds = judged_corpus
    import_labels(human_labels(tmp_path, preds, range(6), "l1.jsonl"), corpus)
    make_user("res", "researcher")
    login(page, live_server, "res")
    page.goto(f"{live_server.url}/research/conclusions/?corpus=live&half_width=0.05")
    before = int(page.get_attribute("#conclusions", "data-n-human"))
    assert before > 0
    assert page.locator("tr[data-system]").count() == 3
    page.click("#live-details summary")  # issue 45: the planning figures are behind "Details"
    assert "judge gpt-judge" in page.inner_text("#conclusions")
    needed_before = page.inner_text("tr[data-system=weak] td.needed")

    import_labels(human_labels(tmp_path, preds, range(6, 40), "l2.jsonl"), corpus)
    page.wait_for_function(f"Number(document.querySelector('#conclusions')?.dataset.nHuman) > {before}", timeout=15000)
    after = int(page.get_attribute("#conclusions", "data-n-human"))
    assert after > before
    assert page.inner_text("tr[data-system=weak] td.needed") != needed_before
    page.wait_for_function(
        "document.querySelector('#conclusions').innerText.includes('strong ahead of weak — settled')", timeout=15000
    )
    assert "Computed in the background at" in page.inner_text("#conclusions")
    assert page.locator("ul.pairs li.settled").count() >= 2

    os.makedirs(SCREENSHOTS, exist_ok=True)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.screenshot(path=f"{SCREENSHOTS}/conclusions-1366.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=f"{SCREENSHOTS}/conclusions-390.png", full_page=True)
    assert page.evaluate("document.querySelectorAll('script:not([src])').length") == 0  # no inline script
