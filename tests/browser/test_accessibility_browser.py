"""Every page usable by everyone (issue 12, point 6): axe-core (npm, tests/browser/package.json, installed
by bin/test) injected by Playwright on every page as each role (the annotator's first-run guidelines,
shortcut overlay, flag dialog, item list with filters and review mode; adjudication, conclusions, a
finished report, unassign confirmation, API docs, admin lists and change forms), no serious or critical
violation (this includes colour contrast AA and accessible names); styled 403/404/lockout pages with a way back;
the annotate page usable at 390 px wide."""

from pathlib import Path

import pytest

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import Assignment, Prediction
from core.models import Job
from evaluation.jobs import start_report
from evaluation.tasks import build_report
from frames.folds import create_frame_folds
from models_runner.judging import import_judge_labels
from models_runner.models import Judge
from tests.browser.test_report_browser import labelled_corpus
from tests.browser_fixtures import login
from tests.conftest import write_jsonl
from tests.frames.fixtures import framed_corpus  # noqa: F401  (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"


# Rules failing inside a third-party bundle we serve as is, by page; everything else is checked there too.
THIRD_PARTY = {
    # Swagger UI: grey version stamp and spec URL (.version-stamp pre, .url) below AA, and each
    # operation's summary is a button holding other buttons (nested-interactive); both are in the
    # swagger-ui-dist bundle's markup and CSS, not in our templates.
    "/api/docs/": ["color-contrast", "nested-interactive"],
}


def axe_violations(page, skip=()):
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm ci --prefix tests/browser` (bin/test does it)")
    page.evaluate(AXE.read_text())  # evaluated through the DevTools protocol: no inline script, CSP holds
    rules = {rule: {"enabled": False} for rule in skip}
    result = page.evaluate("rules => axe.run(document, {resultTypes: ['violations'], rules})", rules)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} -> {[n['target'] for n in v['nodes']][:3]}"
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.fixture
def site(live_server, tiny_corpus, framed_corpus, make_user, monkeypatch):  # noqa: F811
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    tiny_corpus.guidelines = "# Our rules\n\nJudge **only** the answer."  # the first-run screen shows
    tiny_corpus.save()
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    frame_fold = create_frame_folds(framed_corpus, k=1)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    assign_fold(frame_fold, ann)
    make_user("res", "researcher")
    make_user("boss", "admin")
    assignment = Assignment.objects.get(fold=fold)
    report = Job.objects.create(
        kind="report", status=Job.RUNNING, progress_done=1, progress_total=4, params={"corpus": tiny_corpus.name}
    )
    judge = Judge.objects.create(name="tiny-judge", prompt="Is {answer} right for {question}? {context}")
    return {
        "report": report,
        "fold": fold,
        "frame_fold": frame_fold,
        "corpus": framed_corpus,
        "assignment": assignment,
        "judge": judge,
    }


def finished_report(tmp_path, researcher):
    """A succeeded report with tables, figures and a judge's PPI card (the report page with data)."""
    corpus = labelled_corpus(tmp_path)
    rows = sorted(
        {
            (p.question.external_id, p.answer)
            for p in Prediction.objects.filter(question__corpus=corpus).select_related("question")
        }
    )
    import_judge_labels(
        write_jsonl(
            tmp_path / "j.jsonl",
            [
                {
                    "question_id": q,
                    "answer": a,
                    "annotator": "judge-a",
                    "label": "correct" if a.startswith("gold") or i % 7 == 0 else "incorrect",
                }
                for i, (q, a) in enumerate(rows)
            ],
        ),
        corpus,
    )
    job = start_report(corpus, researcher, n_boot=0, figures=True)
    build_report(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    return job


def pages_for(role, site):
    """Every page the role can reach (issue 12, point 6); the annotator's interactive states
    (first-run guidelines, overlays, review mode) are walked in annotator_states."""
    f, c = site["fold"], site["fold"].corpus
    common = ["/", "/no-such-page/", "/api/docs/", "/api/redoc/"]
    research = [
        "/research/",
        f"/research/reports/{site['report'].pk}/",
        "/research/conclusions/",
        "/folds/",
        f"/folds/{c.pk}/adjudicate/",
    ] + ([f"/research/reports/{site['done'].pk}/"] if site.get("done") else [])
    return {
        "ann": [
            *common,
            f"/annotate/{f.pk}/items/",
            f"/annotate/{f.pk}/items/?show=judged&label=correct",
            f"/frames/check/{site['frame_fold'].pk}/",
            "/folds/",
            "/annotate/99999/",
            "/research/",
        ],
        "res": common + research,
        "boss": common
        + research
        + [
            f"/folds/{c.pk}/unassign/{site['assignment'].pk}/",
            "/admin/",
            "/admin/core/job/",
            f"/admin/core/job/{site['report'].pk}/change/",
            f"/admin/annotation/corpus/{c.pk}/change/",
            f"/admin/models_runner/judge/{site['judge'].pk}/change/",
            "/admin/models_runner/judge/add/",
        ],
    }[role]


def check(page, found, name):
    problems = axe_violations(page, THIRD_PARTY.get(name, ()))
    if problems:
        found[name] = problems


def annotator_states(page, live_server, site, found):
    """The annotator's first run: guidelines screen, annotate page, shortcut overlay, flag dialog,
    then review mode (its start page redirects to the first labelled item with ?review=1)."""
    fold = site["fold"]
    page.goto(f"{live_server.url}/annotate/{fold.pk}/")
    page.wait_for_load_state("load")
    assert page.inner_text("h1").startswith("Before you start")
    check(page, found, "first-run guidelines")
    page.click("text=I have read them: start")
    page.wait_for_selector("#answer")
    page.wait_for_load_state("load")
    check(page, found, "annotate")
    page.keyboard.press("?")
    page.wait_for_selector("dialog#shortcuts[open]")
    check(page, found, "shortcut overlay open")
    page.keyboard.press("Escape")
    page.wait_for_selector("dialog#shortcuts", state="hidden")
    page.keyboard.press("f")
    page.wait_for_selector("dialog#flag-dialog[open]")
    check(page, found, "flag dialog open")
    page.keyboard.press("Escape")
    page.wait_for_selector("dialog#flag-dialog", state="hidden")
    page.keyboard.press("1")
    # Wait on the page, not the database: the test's thread reading the shared in-memory SQLite
    # while the live server writes the label fails with "database table is locked".
    page.wait_for_function("document.querySelector('#progress-count')?.textContent.startsWith('1 /')")
    page.goto(f"{live_server.url}/annotate/{fold.pk}/review/")
    page.wait_for_selector("#review-banner")
    page.wait_for_load_state("load")
    assert "review=1" in page.url
    check(page, found, "review mode")


@pytest.mark.slow
@pytest.mark.parametrize("role", ["ann", "res", "boss"])
def test_no_serious_axe_violation_on_any_page(page, live_server, site, role, make_user, tmp_path, settings):
    settings.MEDIA_ROOT = tmp_path / "media"
    site["done"] = finished_report(tmp_path, make_user("res2", "researcher")) if role != "ann" else None
    login(page, live_server, role)
    found = {}
    if role == "ann":
        annotator_states(page, live_server, site, found)
    for url in pages_for(role, site):
        page.goto(live_server.url + url)
        page.wait_for_load_state("networkidle")
        check(page, found, url)
        if site["done"] and url == f"/research/reports/{site['done'].pk}/":
            assert page.locator("#ppi-estimates").count() == 1  # the judge's card was checked too
    assert not found, "\n".join(f"{where}: {problem}" for where, problems in found.items() for problem in problems)


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
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # the first-run guidelines screen
    page.click("text=I have read them: start")
    page.wait_for_selector("#answer")
    page.wait_for_load_state("load")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no horizontal overflow
    for name in ["Correct", "Partially correct", "Incorrect", "Skip"]:
        box = page.get_by_role("button", name=name, exact=False).first.bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["y"] + box["height"] <= 844, name
    page.screenshot(path="/tmp/h12_annotate_frame_corpus_390.png")
