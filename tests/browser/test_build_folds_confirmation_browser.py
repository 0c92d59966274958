"""Building folds on the Folds page is confirmed (issue 32, friction 8): after the form, the first screen
says how many folds of how many items were built and what comes next, at 1366 and 390 px, in English
and French. Screenshots under /tmp/frictions-shots."""

import os
from pathlib import Path

import pytest

from annotation.models import Fold, FoldItem
from bench.kit.crowd import build_study
from tests.browser_fixtures import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path(os.environ.get("QAEVAL_SHOTS", "/tmp/frictions-shots"))


@pytest.mark.parametrize(("width", "height", "language"), [(1366, 900, "en"), (390, 844, "fr")])
def test_building_folds_says_what_was_built(browser, live_server, make_user, tmp_path, width, height, language):
    study = build_study(tmp_path, n_questions=12, k=2)
    Fold.objects.filter(corpus=study.corpus).delete()
    boss = make_user("boss", "admin")
    boss.is_superuser = True
    boss.save()
    context = browser.new_context(viewport={"width": width, "height": height}, locale=language)
    page = context.new_page()
    try:
        login(page, live_server, "boss")
        page.goto(f"{live_server.url}/folds/?corpus={study.corpus.name}")
        form = page.locator("form:has(input[name=action][value=build])")
        form.locator("input[name=k]").fill("3")
        overlap = form.locator("input[name=overlap]")
        if overlap.count():
            overlap.fill("0")
        form.locator("button").click()
        page.wait_for_load_state("load")
        assert page.evaluate("window.scrollY") == 0
        message = page.locator("ul.messages li.success")
        items = FoldItem.objects.filter(fold__corpus=study.corpus).count()
        assert Fold.objects.filter(corpus=study.corpus).count() == 3 and items == 24
        expected = {
            "en": f"built 3 folds ({items} items in all). Next: assign them to annotators (Assign, below).",
            "fr": f"3 lots construits ({items} éléments en tout). "
            "Ensuite : attribuez-les aux annotateurs (Attribuer, plus bas).",
        }[language]
        assert message.inner_text() == expected
        box = message.bounding_box()
        assert box["y"] >= 0 and box["y"] + box["height"] <= height  # on the first screen
        page.screenshot(path=str(SHOTS / f"folds-built-{width}.png"))
    finally:
        context.close()
