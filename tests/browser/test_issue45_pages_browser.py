"""Issue 45, points 2 to 5, in headless Chromium at 1366 and 390 px, in English and in French.

- 5: the live page shows one verdict on top (visible without scrolling, at every width), one
  interval per system (the one to quote), no bound outside [0, 1] anywhere (details included); the
  target half-width typed with a French comma is read as such.
- 3: a number typed on the Folds page reads with a comma or a point; out of range it is refused
  with a message in the page's language and the form keeps what was typed.
- 4: the active design's judge is chosen from a list; a pilot fold's end says more items follow.
- 2: a study that closed by itself offers a reopen form that refuses to reopen it unchanged (what
  was typed stays), links to its live conclusions, and reopens once its rule changes.

Screenshots go to ``$QAEVAL_SHOTS`` (default: the test's tmp_path); each is checked for overflow.
"""

import os
import re

import pytest
from django.core.management import call_command
from django.utils import timezone

from annotation.importers import import_labels
from annotation.models import Assignment, Fold, Study
from bench.kit.crowd import build_study
from evaluation.science import live_parts
from models_runner.judging import import_judge_labels
from tests.browser.test_conclusions_browser import human_labels, judged_corpus  # noqa: F401 (fixture)
from tests.browser_fixtures import login
from tests.models_runner.test_active_design import big_corpus, corpus, judge_file  # noqa: F401 (fixtures)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CASES = [(w, lang) for w in (1366, 390) for lang in ("en", "fr")]
NUMBER = re.compile(r"-?\d+(?:[.,]\d+)?")


@pytest.fixture
def shoot(page, tmp_path, monkeypatch, live_server):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    shots = os.environ.get("QAEVAL_SHOTS") or str(tmp_path)

    def start(width, lang, username):
        page.set_viewport_size({"width": width, "height": 900 if width > 500 else 844})
        page.context.add_cookies([{"name": "qaeval_language", "value": lang, "url": live_server.url}])
        login(page, live_server, username)
        return page

    def shot(name, width, lang):
        page.screenshot(path=f"{shots}/i45_{name}_{width}_{lang}.png", full_page=True)
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name} at {width} px overflows by {overflow} px"
        assert page.evaluate("document.documentElement.lang") == lang

    return start, shot


@pytest.mark.parametrize(("width", "lang"), CASES)
def test_live_page_one_verdict_on_top_one_interval_per_system_bounds_in_range(
    shoot,
    judged_corpus,  # noqa: F811 (the imported fixture)
    live_server,
    make_user,
    tmp_path,
    width,
    lang,
    monkeypatch,
):
    start, shot = shoot
    live, preds = judged_corpus
    import_labels(human_labels(tmp_path, preds, range(5), "few.jsonl"), live)  # few labels: wide intervals
    from evaluation import live_state

    live_state.refresh(live.pk)  # the background job after the labels (SPEC 16): the page reads what it stored
    computed = live_parts.conclusions_from  # what the page applies to the stored intervals

    def wider(*args, **kwargs):  # intervals past [0, 1], as the walk met them ("[0,855 ; 1,048]")
        result = computed(*args, **kwargs)
        for r in result["rows"]:
            if r["ci_low"] is not None:
                r["ci_low"], r["ci_high"] = r["ci_low"] - 0.3, r["ci_high"] + 0.3
        return result

    monkeypatch.setattr(live_parts, "conclusions_from", wider)
    make_user("res", "researcher")
    page = start(width, lang, "res")
    typed = "0,05" if lang == "fr" else "0.05"
    page.goto(f"{live_server.url}/research/conclusions/?corpus=live&half_width={typed}")
    verdict = page.locator("#verdict")
    box = verdict.bounding_box()
    assert box["y"] + box["height"] <= page.viewport_size["height"], "the verdict is below the fold"
    assert verdict.inner_text().strip()
    rows = page.locator(".card.quote tbody tr")
    assert rows.count() == 3
    for i in range(3):
        assert rows.nth(i).locator("td.interval").count() == 1  # one interval per system
    assert page.locator("#live-details").evaluate("d => !d.open")  # the rest behind "Details"
    page.click("#live-details summary")
    intervals = page.locator("#conclusions td.interval").all_inner_texts()
    shown = [part for cell in intervals for part in re.findall(r"\[([^\]]+)\]", cell)]
    shown += page.locator("#conclusions td.estimate").all_inner_texts()
    values = [float(x.replace(",", ".")) for part in shown for x in NUMBER.findall(part)]
    assert len(values) >= 9 and all(0 <= v <= 1 for v in values), values
    assert 0.0 in values and 1.0 in values  # the bounds past the range shown at its ends
    assert ("±0,05" if lang == "fr" else "±0.05") in page.inner_text("#conclusions")  # the comma read right
    shot("live", width, lang)


@pytest.mark.parametrize(("width", "lang"), CASES)
def test_numbers_typed_in_the_page_language_and_kept_after_an_error(
    shoot,
    corpus,  # noqa: F811 (the imported fixture)
    live_server,
    make_user,
    tmp_path,
    width,
    lang,
):
    start, shot = shoot
    import_judge_labels(judge_file(tmp_path), corpus)
    make_user("boss", "admin")
    page = start(width, lang, "boss")
    page.goto(f"{live_server.url}/folds/?corpus=act")
    assert page.locator("#id_judge option[value=j]").count() == 1  # point 4: the judge from a list
    page.fill("#id_k", "2")
    page.fill("#id_overlap", "8")
    page.select_option("#id_design", "active")
    page.fill("#id_budget", "2,5")
    page.select_option("#id_judge", "j")
    page.locator("form:has(#id_overlap) button.primary").click()
    page.wait_for_load_state("load")
    text = page.inner_text("main")
    if lang == "fr":
        assert "Saisissez un nombre au moins égal à 0 et au plus égal à 1" in text and "nombre entier" in text
    else:
        assert "Enter a number at least 0 and at most 1" in text and "whole number" in text
    assert page.input_value("#id_overlap") == "8" and page.input_value("#id_budget") == "2,5"
    assert page.input_value("#id_design") == "active" and page.input_value("#id_judge") == "j"
    assert not Fold.objects.filter(corpus=corpus).exists()
    shot("folds_error", width, lang)
    page.fill("#id_overlap", "0,1" if lang == "fr" else "0.1")
    page.fill("#id_budget", "20")
    page.locator("form:has(#id_overlap) button.primary").click()
    page.wait_for_load_state("load")
    assert Fold.objects.filter(corpus=corpus).count() == 2
    assert Fold.objects.filter(corpus=corpus).first().params["design"]["judge"] == "j"


@pytest.mark.parametrize(("width", "lang"), CASES)
def test_the_end_of_a_pilot_fold_says_more_items_follow(shoot, big_corpus, live_server, make_user, width, lang):  # noqa: F811
    from annotation import annotating

    start, shot = shoot
    call_command("build_folds", corpus="big", k=2, seed=5, overlap=0, design="active", budget="400", judge="j")
    ann = make_user("ann", "annotator")
    fold = Fold.objects.filter(corpus=big_corpus, kind=Fold.KIND_TRIPLET).order_by("index").first()
    Assignment.objects.create(fold=fold, annotator=ann)
    assignment = annotating.open_fold(ann, fold.pk)
    item = annotating.next_item(fold, ann.pk)
    while item is not None and annotating.assignment_progress(assignment).done < fold.items.count() - 1:
        _, _, item = annotating.judge(assignment, item, value="correct")
    page = start(width, lang, "ann")
    page.goto(f"{live_server.url}/annotate/{fold.pk}/?start=1")
    page.wait_for_selector("#judge-form")
    page.keyboard.press("1")  # the last pilot item of this fold
    page.wait_for_selector("#more-coming")
    words = {"en": "Pilot finished: more items will follow", "fr": "Pilote terminé : d’autres éléments vont suivre"}
    assert page.inner_text("#more-coming") == words[lang]
    shot("pilot_end", width, lang)


@pytest.mark.parametrize(("width", "lang"), CASES)
def test_a_self_closed_study_reopens_only_when_changed_and_links_to_its_live_page(
    shoot, live_server, make_user, tmp_path, width, lang
):
    start, shot = shoot
    study = build_study(tmp_path, n_questions=10, k=1, close_when="ranking")
    reason = "ranking settled: reference > sys-a (Hscore confidence sequences, alpha 0.05 split over 2 systems)"
    Study.objects.filter(pk=study.pk).update(open=False, closed_at=timezone.now(), closed_reason=reason)
    make_user("boss", "admin")
    page = start(width, lang, "boss")
    page.goto(f"{live_server.url}/studies/{study.slug}/")
    closed = page.inner_text("#study-closed-by-itself")
    assert (
        "classement tranché : reference > sys-a" if lang == "fr" else "ranking settled: reference > sys-a"
    ) in closed
    assert page.locator("#study-reopen").is_visible()
    assert "stop_when=ranking" in page.get_attribute("#study-live-link", "href")
    page.click("#study-reopen button")  # unchanged: refused
    page.wait_for_load_state("load")
    error = "change its close rule, its target or its slots" if lang == "en" else "changez sa règle de fermeture"
    assert error in page.inner_text("main")
    study.refresh_from_db()
    assert not study.open
    page.select_option("#id_close_when", "done")
    page.fill("#id_close_width", "1,5")
    page.fill("#id_slots_per_fold", "3")
    page.click("#study-reopen button")
    page.wait_for_load_state("load")
    assert page.input_value("#id_close_width") == "1,5" and page.input_value("#id_slots_per_fold") == "3"
    shot("study_reopen_error", width, lang)
    page.fill("#id_close_width", "0,01" if lang == "fr" else "0.01")
    page.click("#study-reopen button")
    page.wait_for_load_state("load")
    study.refresh_from_db()
    assert study.open and study.closed_at is None and study.close_when == "done" and study.close_width == 0.01
    assert study.slots_per_fold == 3
    shot("study_reopened", width, lang)
    page.click("#study-live-link")
    page.wait_for_selector("#verdict")
    assert "half_width=0.01" in page.url
