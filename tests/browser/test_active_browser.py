"""The active design (SPEC 12) as a researcher sees it in headless Chromium: the report page's
*Active estimates* card after the prediction-powered one, and the live conclusions' active card with
"k of B labelled" and the labels that would settle each pair; at 1366 and 390 px wide (screenshots
under /tmp for a look)."""

import os

import pytest
from django.core.management import call_command

from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus, FoldItem, Label, Triplet
from evaluation.jobs import start_report
from evaluation.tasks import build_report
from models_runner.judging import import_judge_labels
from tests.browser_fixtures import login
from tests.evaluation.test_report_active import files

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SCREENSHOTS = os.environ.get("REPORT_SCREENSHOTS", "/tmp")


def test_active_cards_on_the_report_and_live_pages(page, live_server, make_user, tmp_path, settings, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    settings.MEDIA_ROOT = tmp_path / "media"
    paths = files(tmp_path)
    import_corpus(paths["corpus"], "act")
    corpus = Corpus.objects.get(name="act")
    import_predictions(paths["predictions"], corpus)
    import_judge_labels(paths["judge"], corpus)
    call_command("build_folds", corpus="act", k=2, seed=0, overlap=0, design="active", budget="20", judge="j")
    sampled = list(FoldItem.objects.filter(fold__corpus=corpus).values_list("triplet_id", flat=True))
    ann = make_user("ann", "annotator")
    done = sampled[: 2 * len(sampled) // 3]
    for tid in done:
        t = Triplet.objects.get(pk=tid)
        Label.objects.create(triplet=t, annotator=ann, value="correct" if t.answer.startswith("a") else "incorrect")
    researcher = make_user("res", "researcher")
    job = start_report(corpus, researcher, n_boot=0, figures=False, judge="j")
    build_report(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    login(page, live_server, "res")
    progress = f"{len(done)} of {len(sampled)} sampled triplets labelled"
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/research/reports/{job.pk}/")
        card = page.locator("#active-estimates")
        assert card.is_visible() and progress in card.inner_text()
        assert "active design" in card.locator("h2").inner_text()
        assert page.locator("#active-hscore tbody tr").count() == 2  # sys and reference
        box = card.bounding_box()
        assert box["width"] <= width  # the card fits the page; wide tables scroll inside it
        card.screenshot(path=f"{SCREENSHOTS}/active_report_{width}.png")
        page.goto(f"{live_server.url}/research/conclusions/?corpus=act")
        quote = page.locator(".card.quote")  # issue 45: the design's estimates are the numbers to quote, on top
        assert quote.is_visible() and page.locator(".card.quote tbody tr").count() == 2
        assert progress in page.inner_text("#verdict")
        page.click("#live-details summary")
        live = page.locator("#active-live")
        live.wait_for()
        text = live.inner_text()
        assert progress in text and "Labels that would settle each pair" in text
        assert "sys vs reference" in text or "reference vs sys" in text
        assert live.bounding_box()["width"] <= width
        live.screenshot(path=f"{SCREENSHOTS}/active_live_{width}.png")
