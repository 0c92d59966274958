"""The researcher's report pages in French in Chromium (issue 25): a browser that asks for French gets
the reports list and a report's page in French (headings, choices, intervals with a decimal comma,
figure titles), at 1366 and 390 px, none wider than the window; screenshots under
``FRENCH_SCREENSHOTS`` (default /tmp/french) for a look. The report's files stay in English."""

import os
from pathlib import Path

import pytest

from evaluation.jobs import start_report
from evaluation.tasks import build_report
from tests.browser.test_report_browser import labelled_corpus
from tests.browser_fixtures import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SCREENSHOTS = Path(os.environ.get("FRENCH_SCREENSHOTS", "/tmp/french"))


@pytest.fixture
def report_job(tmp_path, settings, make_user, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    settings.MEDIA_ROOT = tmp_path / "media"
    corpus = labelled_corpus(tmp_path)
    job = start_report(corpus, make_user("chercheuse", "researcher"), n_boot=40, figures=True, adjudicated=True)
    build_report(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    return job


def shot(page, width, name):
    page.wait_for_load_state("load")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)
    assert page.evaluate("document.documentElement.lang") == "fr", name
    return page.evaluate("document.documentElement.scrollWidth")


@pytest.mark.parametrize("width", [1366, 390])
def test_reports_and_a_report_in_french(browser, live_server, report_job, width):
    context = browser.new_context(viewport={"width": width, "height": 844}, locale="fr-FR", bypass_csp=True)
    page = context.new_page()
    wide = {}
    try:
        login(page, live_server, "chercheuse")
        page.goto(f"{live_server.url}/research/")
        scroll = shot(page, width, "reports")
        if scroll > width:
            wide["reports"] = scroll
        assert page.get_by_role("heading", name="Rapports", exact=True).is_visible()
        assert page.get_by_role("heading", name="Nouveau rapport").is_visible()
        assert page.get_by_role("button", name="Calculer le rapport").is_visible()
        body = page.inner_text("main") if page.locator("main").count() else page.inner_text("body")
        for english in ("New report", "Recent reports", "Compute report", "No report yet"):
            assert english not in body, english

        page.goto(f"{live_server.url}/research/reports/{report_job.pk}/")
        scroll = shot(page, width, "report")
        if scroll > width:
            wide["report"] = scroll
        assert page.get_by_role("heading", name="Choix qui changent les chiffres").is_visible()
        assert page.get_by_role("heading", name="Systèmes", exact=True).is_visible()
        # every score's interval, labelled in French, its bounds with a decimal comma
        intervals = page.locator("#systems-table small.ci").all_text_contents()  # the label is for screen readers
        assert intervals and all(t.startswith(("IC à 95\u00a0% ", "IC à 95 % ")) for t in intervals)
        assert any("," in t for t in intervals) and not any(
            c.isdigit() and d == "." and e.isdigit() for t in intervals for c, d, e in zip(t, t[1:], t[2:])
        )
        titles = page.locator(".figure-card h2").all_inner_texts()
        assert titles and all(t.startswith("Figure ") for t in titles)
        assert any("de chaque système par partition d’accord de ROVER" in t for t in titles), titles
        assert "— terminé" in page.inner_text("#report-progress")  # the job's step, in French
        caption = page.inner_text("#systems-caption")  # French words and typography, not the file's English
        assert caption.startswith(("Choix\u00a0: ", "Choix : ")), caption
        assert "étiquettes moyennées\u202f; " in caption and "labels mean" not in caption, caption
        text = page.inner_text("body")
        for english in ("Choices that change the numbers", "Systems", "Agreement between annotators", "95% CI", "done"):
            assert english not in text, english
        # the figures drawn in French (issue 32): the page's French copies, loaded, their words in French
        images = page.locator(".figure-card img")
        sources = [images.nth(i).get_attribute("src") for i in range(images.count())]
        assert sources and all(s.endswith(".fr.svg") for s in sources), sources
        assert all(images.nth(i).evaluate("img => img.naturalWidth > 0") for i in range(images.count()))
        svg = page.context.request.get(f"{live_server.url}{sources[0]}").text()
        assert "par partition d’accord de ROVER" in svg and "per ROVER agreement partition" not in svg
        images.first.scroll_into_view_if_needed()
        page.locator(".figure-card").first.screenshot(path=str(SCREENSHOTS / f"figure3-{width}.png"))
        # a file of the report, fetched in French, is the English paper-format file
        href = page.locator('a[href$=".tex"]').first.get_attribute("href")
        tex = page.context.request.get(f"{live_server.url}{href}")
        assert tex.ok and "Choices: " in tex.text() and "labels mean; " in tex.text() and "Choix" not in tex.text()
    finally:
        context.close()
    assert wide == {}, f"wider than {width} px: {wide}"
