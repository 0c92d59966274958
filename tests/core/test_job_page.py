"""The job page refreshes itself until the job ends (issue 27, point 5): its status panel polls with
htmx while the job is queued or running, and then shows the result with a next step, or the failure."""

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import expect

from core.models import Job
from core.runner import create_job
from tests.browser_fixtures import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def boss(make_user):
    """An admin as load_demo makes it (staff and superuser)."""
    user = make_user("boss", "admin")
    user.is_superuser = True
    user.save()
    return user


def status(client, job):
    return client.get(reverse("admin:core_job_status", args=[job.pk]), HTTP_HX_REQUEST="true")


def test_a_running_job_polls_and_a_finished_one_stops(client, boss):
    client.force_login(boss)
    job = create_job("import_corpus", {"corpus": "squad dev", "path": "/x/c.jsonl"})
    page = client.get(reverse("admin:core_job_change", args=[job.pk])).content.decode()
    assert 'hx-trigger="every 2s"' in page and "waiting for a free worker" in page and "htmx" in page
    Job.objects.filter(pk=job.pk).update(status=Job.RUNNING, progress_done=3, progress_total=4, message="writing")
    running = status(client, job)
    body = running.content.decode()
    assert 'hx-trigger="every 2s"' in body and "writing" in body and "3 / 4" in body and "75%" in body
    assert "HX-Refresh" not in running.headers
    Job.objects.filter(pk=job.pk).update(
        status=Job.SUCCEEDED, result={"questions": 12, "corpus": "squad dev"}, finished_at=timezone.now()
    )
    done = status(client, job)
    body = done.content.decode()
    assert "hx-trigger" not in body and done.headers["HX-Refresh"] == "true"
    assert "<dt>questions</dt><dd>12</dd>" in body
    assert 'href="/folds/?corpus=squad+dev"' in body and "Build folds for this corpus" in body


def test_a_failed_job_shows_its_current_error(client, boss):
    client.force_login(boss)
    job = create_job("frames", {"corpus": "c"})
    Job.objects.filter(pk=job.pk).update(status=Job.FAILED, error="Traceback...\nValueError: first")
    assert "ValueError: first" in status(client, job).content.decode()
    Job.objects.filter(pk=job.pk).update(error="LLM endpoint 'x' answered 401")
    body = client.get(reverse("admin:core_job_change", args=[job.pk])).content.decode()
    assert "answered 401" in body and "ValueError: first" not in body and "hx-trigger" not in body


@pytest.mark.parametrize("pk", [0, 2**31, 2**63, 10**25])
def test_missing_or_huge_ids_never_reach_the_panel(client, boss, pk):
    """An id that fits no job: 404, or (outside the id range, no URL matches) the admin's own
    "perhaps it was deleted" redirect; never a 500, never a panel."""
    client.force_login(boss)
    if 1 <= pk < 2**63:
        assert client.get(f"/admin/core/job/{pk}/status/").status_code == 404
    else:
        resp = client.get(f"/admin/core/job/{pk}/status/", follow=True)
        assert resp.status_code in (200, 404) and 'id="job-status"' not in resp.content.decode()


def test_non_staff_never_see_the_panel(client, make_user):
    job = create_job("import_corpus", {"corpus": "c"})
    client.force_login(make_user("res", "researcher"))
    assert client.get(reverse("admin:core_job_status", args=[job.pk])).status_code == 302  # admin login


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1366, 390])
def test_the_job_page_follows_the_job_in_chromium(browser, live_server, boss, width, tmp_path):
    job = create_job("import_corpus", {"corpus": "squad dev"})
    context = browser.new_context(viewport={"width": width, "height": 900})  # under the site's CSP
    page = context.new_page()
    try:
        login(page, live_server, "boss")
        page.goto(f"{live_server.url}{reverse('admin:core_job_change', args=[job.pk])}")
        expect(page.locator("#job-status")).to_contain_text("waiting for a free worker")
        Job.objects.filter(pk=job.pk).update(status=Job.RUNNING, progress_done=1, progress_total=2, message="pass 2")
        expect(page.locator("#job-status")).to_contain_text("pass 2", timeout=6000)
        page.screenshot(path=str(tmp_path / f"job-running-{width}.png"))
        Job.objects.filter(pk=job.pk).update(status=Job.SUCCEEDED, progress_done=2, result={"questions": 7})
        expect(page.locator("#job-status .job-next a")).to_have_text("Build folds for this corpus", timeout=6000)
        expect(page.locator("#job-status")).to_contain_text("questions")
        page.screenshot(path=str(tmp_path / f"job-done-{width}.png"), full_page=True)
        print(tmp_path)
    finally:
        context.close()
