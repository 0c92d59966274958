"""SPEC 17 in headless Chromium, in English and French at 1366 and 390 px: the qualification block (the
fold opens with gold items; an honest participant goes on), the paid screen-out page of one who fails
it (its code and link), and the admin's participants table with the crowd figures and decisions.
Each page is screenshotted (to $CROWD_SHOTS, default the test's tmp folder) and checked with axe-core."""

import os
from pathlib import Path

import pytest

from annotation import gold as gold_module
from annotation import screening
from annotation.models import FoldItem, GoldItem, Participant, Triplet
from bench.kit.crowd import build_study
from tests.browser.test_accessibility_browser import axe_violations
from tests.browser_fixtures import WIDTHS, contexts_maker, login, screenshot_taker

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WORDS = {
    "en": {"screened": "not a rejection", "code": "Your screen-out code", "figures": "Who gave the labels"},
    "fr": {"screened": "pas un rejet", "code": "Votre code d’écartement", "figures": "Qui a donné les étiquettes"},
}


@pytest.fixture(params=[(w, lang) for w in WIDTHS for lang in WORDS], ids=lambda p: f"{p[0]}-{p[1]}")
def setting(request):
    return request.param


@pytest.fixture
def open_browser(browser, setting):
    make, close = contexts_maker(browser, *setting)
    yield make
    close()


@pytest.fixture
def shot(tmp_path, setting):
    folder = Path(os.environ.get("CROWD_SHOTS") or tmp_path)
    return screenshot_taker(folder, lambda name: f"screening_{name}_{setting[0]}_{setting[1]}", axe_violations)


def _study(tmp_path, language):
    study = build_study(
        tmp_path, n_questions=6, k=1, gold=2, language=language, qualification_items=2, min_gold_accuracy=0.7,
        screenout_code="SCR-9", slots_per_fold=2,
    )  # fmt: skip
    wrong = Triplet.objects.filter(question__corpus=study.corpus, answer__startswith="lake").order_by("pk")[:2]
    GoldItem.objects.bulk_create([GoldItem(triplet=t, expected="incorrect") for t in wrong])
    gold_module.interleave_gold(study.corpus)
    screening.place_qualification(study)
    return study


def _consent(page, live_server, pid):
    page.goto(f"{live_server.url}/study/pilot/?PROLIFIC_PID={pid}&STUDY_ID=s1&SESSION_ID=x-{pid}")
    page.check("#consent-yes")
    page.click("#consent-form button[type=submit]")
    page.wait_for_load_state("load")


def _press(page, value_for):
    """Press the label ``value_for(gold)`` (gold: the item's GoldItem or None); returns that gold item."""
    item = page.input_value("input[name=item]")
    gold = GoldItem.objects.filter(triplet__fold_items__handle=item).first()
    page.keyboard.press({"correct": "1", "partial": "2", "incorrect": "3"}[value_for(gold)])
    page.wait_for_function(
        f"!document.querySelector('input[name=item]') || document.querySelector('input[name=item]').value !== '{item}'"
    )
    return gold


def test_qualification_block_screen_out_page_and_participants_table(
    live_server, open_browser, shot, tmp_path, setting, make_user
):
    _width, language = setting
    _study(tmp_path, language)
    words = WORDS[language]
    # an honest participant: the fold opens with the two gold items of the block, then goes on
    honest = open_browser()
    _consent(honest, live_server, "honest")
    honest.wait_for_selector("#answer")
    shot(honest, "qualification_item")
    seen = [_press(honest, lambda g: g.expected if g else "correct") for _ in range(3)]
    assert seen[0] is not None and seen[1] is not None  # the block: gold first
    assert {seen[0].expected, seen[1].expected} == {"correct", "incorrect"}
    assert honest.locator("#answer").count() == 1  # still labelling: passed the block
    assert Participant.objects.get(external_id="honest").status == "active"
    # a clicker: two misses in the block -> the screen-out page with its code and the panel's link
    clicker = open_browser()
    _consent(clicker, live_server, "clicker")
    clicker.wait_for_selector("#answer")
    for _ in range(2):
        _press(clicker, lambda g: "partial")
    clicker.wait_for_selector("#study-state[data-state=screened_out]")
    text = clicker.inner_text("#study-state")
    assert words["screened"] in text and words["code"] in text and "SCR-9" in text
    assert clicker.get_attribute("#screenout-link", "href").endswith("cc=SCR-9")
    shot(clicker, "screen_out")
    # the admin's participants table: figures and decisions, readable at this width
    make_user("boss", "admin")
    admin = open_browser()
    login(admin, live_server, "boss")
    admin.goto(f"{live_server.url}/studies/pilot/")
    admin.locator("#participant-figures").wait_for()
    assert words["figures"] in admin.inner_text("#crowd-figures-title")
    rows = admin.locator("#participant-figures tbody tr")
    assert rows.count() == 2
    clicker_row = rows.filter(has_text="clicker").inner_text()
    assert {"en": "screen-out", "fr": "écarté"}[language] in clicker_row
    page_width = admin.evaluate("document.documentElement.scrollWidth")
    assert page_width <= WIDTHS[setting[0]][0] + 1  # nothing sticks out of the page
    shot(admin, "participants_table")
    assert FoldItem.objects.exists()
