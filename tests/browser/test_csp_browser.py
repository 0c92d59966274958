"""The pages work under their Content-Security-Policy (no bypass): the annotator labels with the
keyboard (htmx + static scripts only), the fold page's selector submits, and the browser reports no
CSP violation."""

import pytest
from playwright.sync_api import expect

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from tests.browser_fixtures import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_annotator_page_works_under_the_csp(browser, live_server, tiny_corpus, make_user):
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    assign_fold(fold, make_user("ann", "annotator"))
    total = fold.items.count()
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # CSP enforced
    page = context.new_page()
    violations = []
    page.on("console", lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None)
    try:
        login(page, live_server, "ann")
        page.click("text=Start")
        page.wait_for_selector("#answer")
        page.wait_for_load_state("load")
        page.keyboard.press("1")
        expect(page.locator("#progress-count")).to_have_text(f"1 / {total}")
        page.keyboard.press("3")
        expect(page.locator("#progress-count")).to_have_text(f"2 / {total}")
        assert "script-src 'self'" in page.context.request.get(f"{live_server.url}/").headers["content-security-policy"]
    finally:
        context.close()
    assert violations == []


def test_fold_selector_submits_under_the_csp(browser, live_server, tiny_corpus, make_user, tmp_path):
    from annotation.importers import import_corpus
    from tests.conftest import write_jsonl

    import_corpus(
        write_jsonl(tmp_path / "c.jsonl", [{"id": "z1", "context": "c", "question": "q", "answers": ["a"]}]), "zeta"
    )
    boss = make_user("boss", "admin")
    context = browser.new_context()
    page = context.new_page()
    violations = []
    page.on("console", lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None)
    try:
        page.goto(f"{live_server.url}/login/")
        page.fill("#id_username", boss.username)
        page.fill("#id_password", "pw-for-tests-1")
        page.click("button[type=submit]")
        page.goto(f"{live_server.url}/folds/")
        page.select_option("select[name=corpus]", "zeta")
        page.wait_for_url("**corpus=zeta**")
    finally:
        context.close()
    assert violations == []
