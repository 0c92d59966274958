"""A running job's page never contradicts itself (issue 32, friction 2): the status panel's poll also
updates, out of band, the heading ("Job 3: corpus import (running)") and the fields below it that change
while the job runs (status, progress, message, worker, times). And the page shows an upload by its file
name, never its path on the server (friction 8)."""

import os
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from core.models import Job
from core.runner import create_job
from tests.browser_fixtures import login

pytestmark = pytest.mark.django_db

SHOTS = Path(os.environ.get("QAEVAL_SHOTS", "/tmp/frictions-shots"))
UPLOAD = "/srv/qaeval/var/uploads/3f9c-squad-dev.jsonl"


@pytest.fixture
def boss(make_user):
    user = make_user("boss", "admin")
    user.is_superuser = True
    user.save()
    return user


def test_the_poll_carries_the_heading_and_the_live_fields(client, boss):
    client.force_login(boss)
    job = create_job("import_corpus", {"corpus": "squad dev", "path": UPLOAD, "file": "squad-dev.jsonl"})
    Job.objects.filter(pk=job.pk).update(status=Job.RUNNING, message="writing", worker="celery@w1", attempts=1)
    body = client.get(reverse("admin:core_job_status", args=[job.pk]), HTTP_HX_REQUEST="true").content.decode()
    assert f'<h2 hx-swap-oob="outerHTML:#content > h2">Job {job.pk}: corpus import (running)</h2>' in body
    assert '<div hx-swap-oob="innerHTML:.field-status .readonly">running</div>' in body
    assert '<div hx-swap-oob="innerHTML:.field-message_text .readonly">writing</div>' in body
    assert '<div hx-swap-oob="innerHTML:.field-worker_name .readonly"><code>celery@w1</code></div>' in body
    # the page itself: the fields the poll targets exist, with the same words
    page = client.get(reverse("admin:core_job_change", args=[job.pk])).content.decode()
    for name in ("status", "progress", "message_text", "worker_name", "attempts", "started_at", "heartbeat_at"):
        assert f"field-{name}" in page, name


def test_the_job_page_shows_the_upload_by_its_name_only(client, boss):
    client.force_login(boss)
    job = create_job("import_corpus", {"corpus": "squad dev", "path": UPLOAD, "file": "squad-dev.jsonl"})
    page = client.get(reverse("admin:core_job_change", args=[job.pk])).content.decode()
    assert "/srv/qaeval" not in page and "uploads/" not in page
    assert "3f9c-squad-dev.jsonl" in page and "squad-dev.jsonl" in page


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1366, 390])
def test_heading_status_and_panel_agree_while_the_job_runs_in_chromium(browser, live_server, boss, width):
    job = create_job("import_corpus", {"corpus": "squad dev", "path": UPLOAD})
    context = browser.new_context(viewport={"width": width, "height": 900})  # under the site's CSP
    page = context.new_page()
    try:
        login(page, live_server, "boss")
        page.goto(f"{live_server.url}{reverse('admin:core_job_change', args=[job.pk])}")
        heading, status = page.locator("#content > h2"), page.locator(".field-status .readonly")
        expect(heading).to_have_text(f"Job {job.pk}: corpus import (created)")
        expect(status).to_have_text("created")
        expect(page).to_have_title(f"Job {job.pk}: corpus import (created) | View job | Django site admin")
        Job.objects.filter(pk=job.pk).update(
            status=Job.RUNNING, progress_done=1, progress_total=4, message="pass 2", worker="celery@w1"
        )
        expect(page.locator("#job-status")).to_contain_text("pass 2", timeout=6000)
        expect(heading).to_have_text(f"Job {job.pk}: corpus import (running)")
        expect(status).to_have_text("running")
        expect(page.locator("#job-crumb")).to_have_text(f"Job {job.pk}: corpus import (running)")
        expect(page).to_have_title(f"Job {job.pk}: corpus import (running) | View job | Django site admin")
        expect(page.locator(".field-message_text .readonly")).to_have_text("pass 2")
        expect(page.locator(".field-progress .readonly")).to_contain_text("1 / 4")
        expect(page.locator(".field-worker_name .readonly")).to_have_text("celery@w1")
        assert page.locator("#content > h2").count() == 1
        assert "/srv/qaeval" not in page.content()
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"job-running-{width}.png"), full_page=True)
    finally:
        context.close()
