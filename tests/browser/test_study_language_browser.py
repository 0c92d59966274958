"""A crowd participant gets the study's language whatever the browser asks, and none of an account's
controls (issue 32, friction 5): an English browser (Accept-Language en-US) on a French study sees the
consent and the annotate page in French; the header offers no "Mes lots" / "My folds" and no logout (a
participant has one fold and no password). At 1366 and 390 px; screenshots under /tmp/frictions-shots."""

import os
from pathlib import Path

import pytest

from annotation.models import Participant, Study
from bench.kit.crowd import build_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path(os.environ.get("QAEVAL_SHOTS", "/tmp/frictions-shots"))


@pytest.mark.parametrize(("width", "height"), [(1366, 900), (390, 844)])
def test_an_english_browser_on_a_french_study_gets_french_and_no_account_controls(
    browser, live_server, tmp_path, width, height
):
    study = build_study(tmp_path, n_questions=4, k=2, language="fr")
    assert Study.objects.get(pk=study.pk).language == "fr"
    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
    page = context.new_page()
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        page.goto(f"{live_server.url}/study/pilot/?PROLIFIC_PID=P1&STUDY_ID=s&SESSION_ID=x")
        assert page.evaluate("navigator.language") == "en-US"
        assert page.get_attribute("html", "lang") == "fr"
        assert page.locator("#consent-form button[type=submit]").inner_text() == "Commencer l’étude"
        page.screenshot(path=str(SHOTS / f"study-fr-consent-{width}.png"), full_page=True)
        page.check("#consent-yes")
        page.click("#consent-form button[type=submit]")
        page.wait_for_selector("#answer")
        assert Participant.objects.get(external_id="P1").fold_id
        assert page.get_attribute("html", "lang") == "fr"
        header = page.locator("header.topbar")
        assert header.get_by_role("link", name="Mes lots").count() == 0
        assert header.get_by_role("link", name="My folds").count() == 0
        assert header.locator("form.logout").count() == 0 and "Se déconnecter" not in header.inner_text()
        assert page.locator("button[data-value=correct], [data-key='1']").first.is_visible()
        page.screenshot(path=str(SHOTS / f"study-fr-annotate-{width}.png"))
        # every later page too (a full reload, not only the first answer)
        page.reload()
        assert page.get_attribute("html", "lang") == "fr"
    finally:
        context.close()
