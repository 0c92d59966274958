"""An open-domain corpus end to end (issue 11 point 3): imported with no passage, folds, labelled in
Chromium, then reported."""

import pytest

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus, Label
from evaluation.report.config import ReportConfig
from evaluation.report.pipeline import compute_report
from evaluation.report_inputs import read_inputs
from tests.annotation.test_open_domain import PREDICTIONS, QUESTIONS
from tests.browser_fixtures import login
from tests.conftest import write_jsonl

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_open_domain_corpus_end_to_end(page, live_server, make_user, tmp_path):
    import_corpus(write_jsonl(tmp_path / "open.jsonl", QUESTIONS), "open")
    corpus = Corpus.objects.get(name="open")
    import_predictions(write_jsonl(tmp_path / "p.jsonl", PREDICTIONS), corpus)
    fold = create_folds(corpus, k=1, overlap=0)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    total = fold.items.count()
    login(page, live_server, "ann")
    page.goto(f"{live_server.url}/annotate/{fold.pk}/")
    page.wait_for_selector("#answer")
    page.wait_for_load_state("load")
    assert page.inner_text("#no-passage") == "No passage: judge with general knowledge."
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 800})
        page.screenshot(path=str(tmp_path / f"open-{width}.png"))
    good = {"Shakespeare", "Lima", "8", "William Shakespeare", "eight"}
    for i in range(total):
        answer = page.inner_text("#answer")
        page.keyboard.press("1" if answer in good else "3")
        if i + 1 < total:
            page.wait_for_function(f"document.querySelector('#progress-count')?.textContent === '{i + 1} / {total}'")
    page.wait_for_function(f"document.querySelector('#progress-count')?.textContent === '{total} / {total}'")
    assert Label.objects.filter(annotator=ann, value__isnull=False).count() == total
    q, p, l = read_inputs(corpus).tables
    rows = {r["system"]: r for r in compute_report(q, p, l, config=ReportConfig(n_boot=0)).data["systems"]}
    assert rows["open-a"]["hscore"] == 1.0 and rows["open-b"]["hscore"] == 0.0 and rows["reference"]["hscore"] == 1.0
