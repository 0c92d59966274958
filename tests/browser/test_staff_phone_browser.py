"""Staff pages fit a phone (issue 27, point 8): every page an admin or a researcher opens (the header
with Log out, Folds, Adjudicate, unassign, Reports, a report, conclusions, the job page) has no
horizontal overflow at 390 px in Chromium, and is screenshotted at 1366 and 390 px.

The pages come from the URL resolver: a new page URL without a row in ``PAGES`` (or in ``NOT_PAGES``
with the reason) fails ``test_every_staff_page_is_listed``."""

from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from annotation import studies
from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import FoldItem, Label, Study
from core.models import Job
from tests.browser_fixtures import login

SCREENSHOTS = Path("/tmp/fric27b-staff")

# URL name -> how to build its path from the world (None: not a staff page, with the reason in NOT_PAGES)
PAGES = {
    "home": lambda w: "/",
    "fold-assignments": lambda w: f"/folds/?corpus={w['corpus'].name}",
    "adjudicate": lambda w: f"/folds/{w['corpus'].pk}/adjudicate/",
    "fold-unassign": lambda w: f"/folds/{w['corpus'].pk}/unassign/{w['assignment'].pk}/",
    "reports": lambda w: "/research/",
    "report-detail": lambda w: f"/research/reports/{w['report'].pk}/",
    "conclusions": lambda w: f"/research/conclusions/?corpus={w['corpus'].name}",
    "admin:core_job_change": lambda w: f"/admin/core/job/{w['report'].pk}/change/",
    "studies": lambda w: "/studies/",
    "study-admin": lambda w: f"/studies/{w['study'].slug}/",
}
NOT_PAGES = {
    "login": "no header yet (the login page has its own phone test)",
    "logout": "POST only",
    "fold-action": "POST only",
    "report-progress": "htmx fragment of report-detail",
    "report-file": "a file download",
    "conclusions-panel": "htmx fragment of conclusions",
    "study-entry": "the participant's pages: tests/browser/test_crowd_browser.py at 1366 and 390 px",
    "study-participants-csv": "a file download",
    "study-participant-data": "a file download (subject access JSON)",
    "study-withdraw": "the participant's page: tests/browser/test_withdraw_browser.py at 1366 and 390 px",
    "set-language": "POST only (the header's language switcher)",
    "javascript-catalog": "a script (Django's JavaScript catalogue)",
}
ANNOTATOR_ONLY = ("annotate", "previous", "judge", "item-list", "review", "flag-item", "frame-check", "attribute-check")


def page_names(resolver=None, namespace=""):
    resolver = resolver or get_resolver()
    for p in resolver.url_patterns:
        if isinstance(p, URLResolver):
            if p.namespace != "admin":
                yield from page_names(p, namespace)
        elif isinstance(p, URLPattern) and p.name:
            yield namespace + p.name


def test_every_staff_page_is_listed():
    names = {
        n for n in page_names() if not n.startswith(("api-", "download-", *ANNOTATOR_ONLY)) and n not in ("favicon",)
    }
    assert sorted(names - set(PAGES) - set(NOT_PAGES)) == []


@pytest.fixture
def world(tiny_corpus, make_user):
    folds = create_folds(tiny_corpus, k=2, seed=0, overlap=1.0)  # every item judged by both
    ann, other = make_user("annotator-with-a-long-name", "annotator"), make_user("other", "annotator")
    assign_fold(folds[0], ann)
    assign_fold(folds[1], other)
    for fold, user, value in ((folds[0], ann, "correct"), (folds[1], other, "incorrect")):
        for item in FoldItem.objects.filter(fold=fold).select_related("triplet"):
            Label.objects.create(annotator=user, fold=fold, triplet=item.triplet, value=value)
    report = Job.objects.create(
        kind="report", status=Job.RUNNING, progress_done=1, progress_total=4, params={"corpus": tiny_corpus.name}
    )
    boss = make_user("boss", "admin")
    boss.is_superuser = True
    boss.save()
    study = Study.objects.create(
        slug="phone-study", title="A study", consent="Agree?", corpus=tiny_corpus, completion_code="C", open=True
    )
    studies.admit(study, ("5f1a2b3c4d5e6f7a8b9c0d1e", "s", "x"), token="t")
    return {"corpus": tiny_corpus, "assignment": ann.assignments.first(), "report": report, "study": study}


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1366, 390])
def test_staff_pages_have_no_horizontal_overflow(page, live_server, world, width):
    SCREENSHOTS.mkdir(exist_ok=True)
    page.set_viewport_size({"width": width, "height": 844})
    login(page, live_server, "boss")
    wide = {}
    for name, build in PAGES.items():
        page.goto(live_server.url + build(world))
        page.wait_for_load_state("load")
        page.screenshot(path=str(SCREENSHOTS / f"{name.replace(':', '-')}-{width}.png"), full_page=True)
        scroll = page.evaluate("document.documentElement.scrollWidth")
        if scroll > width:
            wide[name] = scroll
        logout = page.get_by_role("button", name="Log out")
        if logout.count():
            box = logout.bounding_box()
            if not box or box["x"] + box["width"] > width:
                wide[f"{name} (Log out cut off)"] = box
    assert wide == {}, f"wider than {width} px: {wide}"
