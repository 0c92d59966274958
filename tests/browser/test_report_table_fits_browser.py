"""The report's systems table fits its card (issue 32, friction 1): with the small SQuAD demo's ten real
systems, the reference and ROVER, every score and its interval, and a partly labelled system's coverage
bounds, the table is no wider than its card at 1366 px (no horizontal scroll hides F1 and EM); at 390 px
each system is a card that shows every score with its name (Hscore, F1, EM on the first screen of that
card), nothing hidden to the right. Screenshots under /tmp/frictions-shots (QAEVAL_SHOTS)."""

import json
import os
import re
from pathlib import Path

import pytest

from annotation.importers import import_corpus, import_labels, import_predictions
from annotation.models import Corpus
from evaluation.jobs import start_report
from evaluation.tasks import build_report
from tests.browser_fixtures import login
from tests.conftest import SQUAD_SMALL, require, write_jsonl

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path(os.environ.get("QAEVAL_SHOTS", "/tmp/frictions-shots"))
N_QUESTIONS = 120


def _norm(text):
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def squad_demo_report(tmp_path, user):
    """The first questions of the SQuAD small demo with its ten systems' answers, labelled by one
    annotator (right when the answer matches a reference), every answer of `dcr` after the first 40
    questions left unlabelled (coverage bounds); the report with bootstrap intervals."""
    require((SQUAD_SMALL / "corpus.jsonl").exists(), f"shared data not found at {SQUAD_SMALL}")
    lines = (SQUAD_SMALL / "corpus.jsonl").read_text(encoding="utf-8").splitlines()[:N_QUESTIONS]
    questions = {json.loads(line)["id"]: json.loads(line) for line in lines}
    preds = [
        p
        for p in map(json.loads, (SQUAD_SMALL / "predictions.jsonl").read_text(encoding="utf-8").splitlines())
        if p["question_id"] in questions
    ]
    order = {qid: i for i, qid in enumerate(questions)}
    labels, seen = [], set()
    for p in preds + [{"question_id": q, "answer": a} for q, r in questions.items() for a in r["answers"][:1]]:
        key = (p["question_id"], p["answer"])
        if key in seen or not p["answer"].strip() or (p.get("system") == "dcr" and order[p["question_id"]] >= 40):
            continue
        seen.add(key)
        right = _norm(p["answer"]) in {_norm(a) for a in questions[p["question_id"]]["answers"]}
        labels.append(
            {
                **dict(zip(("question_id", "answer"), key)),
                "annotator": "ann1",
                "label": "correct" if right else "incorrect",
            }
        )
    files = [
        write_jsonl(tmp_path / n, rows)
        for n, rows in (("c.jsonl", questions.values()), ("p.jsonl", preds), ("l.jsonl", labels))
    ]
    import_corpus(files[0], "squad-head")
    corpus = Corpus.objects.get(name="squad-head")
    import_predictions(files[1], corpus)
    import_labels(files[2], corpus)
    job = start_report(corpus, user, n_boot=50, figures=False)
    build_report(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    return job


def test_every_score_is_visible_at_1366_and_on_a_phone(page, live_server, make_user, tmp_path, settings, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    settings.MEDIA_ROOT = tmp_path / "media"
    job = squad_demo_report(tmp_path, make_user("res", "researcher"))
    login(page, live_server, "res")
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900 if width > 500 else 844})
        page.goto(f"{live_server.url}/research/reports/{job.pk}/")
        table = page.locator("#systems-table")
        rows = table.locator("tbody tr")
        assert rows.count() == 12  # ten systems, the reference and ROVER
        sizes = page.evaluate(
            """() => { const t = document.querySelector('#systems-table');
                       const card = t.closest('.card'); const box = t.parentElement;
                       return {table: t.getBoundingClientRect().width, scroll: box.scrollWidth, client: box.clientWidth,
                               card: card.clientWidth, page: document.documentElement.scrollWidth}; }"""
        )
        print(width, sizes)
        table.scroll_into_view_if_needed()
        page.screenshot(path=str(SHOTS / f"report-systems-{width}.png"), full_page=True)
        assert sizes["table"] <= sizes["card"], sizes
        assert sizes["scroll"] <= sizes["client"] + 1, f"a horizontal scroll hides part of the table: {sizes}"
        assert sizes["page"] <= width, sizes
        # every score of every row is inside the viewport's width, and says which score it is
        for i in range(rows.count()):
            cells = rows.nth(i).locator("td")
            for j in range(cells.count()):
                box = cells.nth(j).bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, (i, j, box)
        first = rows.first
        for metric in ("Hscore", "F1", "EM"):
            cell = first.locator(f"td[data-label='{metric}']")
            assert cell.count() == 1 and cell.is_visible(), metric
            if width < 500:
                assert metric in cell.inner_text()  # on a phone each score carries its name
