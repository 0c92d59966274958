"""Every page usable by everyone (issue 12, point 6): axe-core (npm, tests/browser/package.json, installed
by bin/test) injected by Playwright on every page as each role, no serious or critical violation
(this includes colour contrast AA and accessible names); styled 403/404/lockout pages with a way back;
the annotate page usable at 390 px wide."""
from pathlib import Path

import pytest

from annotation.frame_folds import create_frame_folds
from annotation.models import Assignment, Job
from annotation.triplet_builder import assign_fold, create_folds
from tests.browser_fixtures import login
from tests.frames.fixtures import framed_corpus  # noqa: F401  (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"


def axe_violations(page):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci --prefix tests/browser` (bin/test does it)")
    page.evaluate(AXE.read_text())  # evaluated through the DevTools protocol: no inline script, CSP holds
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [f"{v['id']} ({v['impact']}): {v['help']} -> {[n['target'] for n in v['nodes']][:3]}"
            for v in result["violations"] if v["impact"] in ("serious", "critical")]


@pytest.fixture
def site(live_server, tiny_corpus, framed_corpus, make_user, monkeypatch):  # noqa: F811
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    frame_fold = create_frame_folds(framed_corpus, k=1)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    assign_fold(frame_fold, ann)
    make_user("res", "researcher")
    make_user("boss", "admin")
    assignment = Assignment.objects.get(fold=fold)
    report = Job.objects.create(kind="report", status=Job.RUNNING, progress_done=1, progress_total=4,
                                params={"corpus": tiny_corpus.name})
    return {"report": report, "fold": fold, "frame_fold": frame_fold, "corpus": framed_corpus, "assignment": assignment}


def pages_for(role, site):
    f, c = site["fold"], site["fold"].corpus
    common = ["/", "/no-such-page/"]
    return {
        "ann": common + [f"/annotate/{f.pk}/", f"/annotate/{f.pk}/items/", f"/frames/check/{site['frame_fold'].pk}/",
                         "/folds/", "/annotate/99999/"],
        "res": common + ["/research/", f"/research/reports/{site['report'].pk}/", "/folds/"],
        "boss": common + ["/admin/", "/admin/annotation/job/", "/research/", f"/research/reports/{site['report'].pk}/", "/folds/", f"/folds/{c.pk}/unassign/{site['assignment'].pk}/"],
    }[role]


@pytest.mark.slow
@pytest.mark.parametrize("role", ["ann", "res", "boss"])
def test_no_serious_axe_violation_on_any_page(page, live_server, site, role):
    login(page, live_server, role)
    found = {}
    for url in pages_for(role, site):
        page.goto(live_server.url + url)
        page.wait_for_load_state("load")
        problems = axe_violations(page)
        if problems:
            found[url] = problems
    assert not found, found


def test_login_and_lockout_pages_are_accessible_and_styled(page, live_server, make_user, settings):
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 2
    make_user("victim", "annotator")
    page.goto(f"{live_server.url}/login/")
    assert axe_violations(page) == []
    for attempt in range(2):
        page.fill("#id_username", "victim")
        page.fill("#id_password", f"wrong-{attempt}")
        page.click("button[type=submit]")
        page.wait_for_load_state("load")
    assert page.inner_text("h1") == "Too many failed logins"
    assert page.locator("a:text('Back to the login page')").count() == 1
    assert page.locator("link[rel=stylesheet]").count() >= 1
    assert axe_violations(page) == []


def test_403_and_404_are_styled_pages_with_a_way_back(page, live_server, site):
    login(page, live_server, "ann")
    for url, title in [("/folds/", "You are not allowed to see this page"), ("/annotate/99999/", "Page not found")]:
        resp = page.goto(live_server.url + url)
        assert resp.status in (403, 404)
        assert page.inner_text("h1") == title
        assert page.locator("a:text('Back to the start page')").count() == 1


def test_annotate_page_is_usable_at_390_px(page, live_server, site):
    page.set_viewport_size({"width": 390, "height": 844})
    login(page, live_server, "ann")
    page.goto(f"{live_server.url}/annotate/{site['fold'].pk}/")
    page.wait_for_load_state("load")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no horizontal overflow
    for name in ["Correct", "Partially correct", "Incorrect", "Skip"]:
        box = page.get_by_role("button", name=name, exact=False).first.bounding_box()
        assert box and 0 <= box["x"] and box["x"] + box["width"] <= 390 and box["y"] + box["height"] <= 844, name
    page.screenshot(path="/tmp/h12_annotate_frame_corpus_390.png")
