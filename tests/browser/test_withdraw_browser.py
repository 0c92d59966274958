"""The participant's own withdraw link (SPEC 18) in headless Chromium, in English and in French, at
desktop (1366 px) and phone (390 px) widths: the entry link leaves no id in the address bar, the
consent page says what is kept, the link on the annotate page asks first, then erases, and the same
panel id coming back sees that they withdrew. Screenshots go to $CROWD_SHOTS (default: tmp folder);
each is checked with axe-core."""

import pytest

from annotation.models import ErasureTombstone, Label, Participant
from bench.kit.crowd import build_study
from tests.browser import test_crowd_browser as crowd
from tests.browser.test_crowd_browser import link, press_label

# the crowd tests' fixtures: a browser at each width (1366 and 390 px), screenshots checked with axe-core
width, open_browser, shot = crowd.width, crowd.open_browser, crowd.shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WORDS = {
    "en": {
        "kept": "If you agree, we keep:",
        "ask": "everything this study holds about you is deleted",
        "done": "You withdrew from this study",
        "link": "Withdraw from this study",
    },
    "fr": {
        "kept": "Si vous acceptez, nous gardons :",
        "ask": "tout ce que cette étude détient sur vous est supprimé",
        "done": "Vous vous êtes retiré de cette étude",
        "link": "Me retirer de cette étude",
    },
}


@pytest.mark.parametrize("language", ["en", "fr"])
def test_withdraw_link_asks_then_erases_and_the_person_cannot_come_back(
    live_server,
    open_browser,
    shot,
    tmp_path,
    language,
    settings,
):
    settings.VAR_DIR = tmp_path
    words = WORDS[language]
    build_study(tmp_path, n_questions=4, k=2, language=language)
    page = open_browser()
    page.goto(link(live_server, "WITHDRAWER"))
    assert page.url == f"{live_server.url}/study/pilot/"  # the ids left the address bar at once
    assert words["kept"] in page.inner_text("#what-is-kept")
    shot(page, f"withdraw_consent_{language}")
    page.check("#consent-yes")
    page.click("#consent-form button[type=submit]")
    page.wait_for_load_state("load")
    page.wait_for_selector("#answer")
    press_label(page, lambda gold: "partial")
    participant = Participant.objects.get(external_id="WITHDRAWER")
    assert Label.objects.filter(annotator=participant.user).exists()
    assert page.inner_text("#withdraw-link") == words["link"]
    shot(page, f"withdraw_annotate_{language}")
    page.click("#withdraw-link")
    page.wait_for_load_state("load")
    assert words["ask"] in page.inner_text("#withdraw-effect")
    shot(page, f"withdraw_confirm_{language}")
    page.click("#withdraw-submit")  # the box is required: the browser refuses the form unticked
    assert page.url.endswith("/withdraw/") and Participant.objects.filter(pk=participant.pk).exists()
    page.check("#withdraw-yes")
    page.click("#withdraw-submit")
    page.wait_for_load_state("load")
    assert words["done"] in page.inner_text("#study-state")
    shot(page, f"withdraw_done_{language}")
    assert not Participant.objects.exists() and not Label.objects.exists()
    assert ErasureTombstone.objects.get().mode == "withdraw"
    again = open_browser()
    again.goto(link(live_server, "WITHDRAWER"))
    assert words["done"] in again.inner_text("#study-state") and again.url == f"{live_server.url}/study/pilot/"
    shot(again, f"withdraw_back_{language}")
