"""An admin moves a study in headless Chromium (SPEC 14): Django admin -> Study archives, export a
corpus (a zip download), then import it under another name as a job, whose page says it succeeded;
at 1366 and 390 px wide (screenshots under /tmp for a look)."""

import io
import os
import zipfile

import pytest

from annotation.models import Corpus, Label
from core.models import Job
from tests.browser_fixtures import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SCREENSHOTS = os.environ.get("REPORT_SCREENSHOTS", "/tmp")


@pytest.fixture
def eager(settings):
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


def test_admin_exports_and_imports_a_study_in_the_browser(page, live_server, make_user, tiny_corpus, tmp_path, eager):
    from annotation.annotating import save_judgement
    from annotation.assignments import assign_fold
    from annotation.fold_store import create_folds

    boss = make_user("boss", "admin")
    boss.is_superuser = True
    boss.save()
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    for item in fold.items.order_by("position")[:3]:
        save_judgement(ann, fold, item, value="correct", seconds=2.0)
    login(page, live_server, "boss")
    for width in (1366, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/admin/evaluation/studyarchive/")
        assert page.locator("a", has_text="Import a study archive").is_visible()
        page.screenshot(path=f"{SCREENSHOTS}/archive_list_{width}.png", full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.check(f"input[name=_selected_action][value='{tiny_corpus.pk}']")
    page.select_option("select[name=action]", "export_archive")
    with page.expect_download() as download:
        page.click("button[name=index]")
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    assert path.name == "tiny.study.zip"
    assert "manifest.json" in zipfile.ZipFile(io.BytesIO(path.read_bytes())).namelist()
    page.click("a:has-text('Import a study archive')")
    page.set_input_files("input[name=file]", str(path))
    page.fill("input[name=corpus]", "tiny-moved")
    page.screenshot(path=f"{SCREENSHOTS}/archive_import_1366.png", full_page=True)
    page.click("input[type=submit]")
    page.wait_for_load_state("load")
    assert "/admin/core/job/" in page.url
    assert "started as job" in page.inner_text(".messagelist")
    job = Job.objects.get(kind="import_study")
    assert job.status == Job.SUCCEEDED, job.error
    page.reload()
    page.screenshot(path=f"{SCREENSHOTS}/archive_job_1366.png", full_page=True)
    assert "succeeded" in page.inner_text("#content")
    moved = Corpus.objects.get(name="tiny-moved")
    assert Label.objects.filter(triplet__question__corpus=moved).count() == 3
