"""A French admin's job and lexicon pages in Chromium at 1366 and 390 px (issue 32): the job named in
words, its message and result keys in French, no page wider than the window. Screenshots go to
``FRENCH_SCREENSHOTS`` (default /tmp/french)."""

import os
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from annotation.importers import WROTE_QUESTIONS
from core.models import Job
from tests.browser_fixtures import login

SHOTS = Path(os.environ.get("FRENCH_SCREENSHOTS", "/tmp/french"))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1366, 390])
def test_a_french_admin_reads_a_job_in_french(browser, live_server, make_user, width):
    from core.models import UserPreference

    boss = make_user("boss", "admin")
    boss.is_superuser = True
    boss.save()
    UserPreference.objects.create(user=boss, language="fr")
    job = Job.objects.create(
        kind="import_corpus",
        status=Job.SUCCEEDED,
        message=WROTE_QUESTIONS % {"done": 857, "total": 857},
        result={"corpus": "piaf-small", "questions": 857, "new_triplets": 857, "without_reference": 0},
        progress_done=857,
        progress_total=857,
    )
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        login(page, live_server, "boss")
        page.goto(f"{live_server.url}{reverse('admin:core_job_change', args=[job.pk])}")
        expect(page.locator("#content > h2")).to_have_text(f"Tâche {job.pk}\u00a0: import de corpus (réussie)")
        status = page.locator("#job-status")
        expect(status).to_contain_text("857 questions écrites sur 857")
        expect(status).to_contain_text("nouveaux triplets")
        expect(status).to_contain_text("100\u202f% · 857 / 857")
        assert "new_triplets" not in status.inner_text() and "import_corpus" not in page.inner_text("#content")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"admin-job-{width}.png"), full_page=True)
        page.goto(f"{live_server.url}{reverse('admin:core_job_changelist')}")
        expect(page.locator("#result_list")).to_contain_text("import de corpus")
        page.screenshot(path=str(SHOTS / f"admin-jobs-{width}.png"), full_page=True)
    finally:
        context.close()
