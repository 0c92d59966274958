"""The interface in French in Chromium (issue 25): an annotator of a French corpus whose browser
asks for German gets French pages (the corpus language), with the JavaScript messages in French; an
admin whose browser asks for English switches with the header's buttons; every page is screenshot
at 1366 and 390 px (``FRENCH_SCREENSHOTS``, default /tmp/french) and none is wider than the window."""

import os
import re
from pathlib import Path

import pytest

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import FoldItem, Label
from tests.browser_fixtures import login
from tests.conftest import write_jsonl

SCREENSHOTS = Path(os.environ.get("FRENCH_SCREENSHOTS", "/tmp/french"))
QUESTIONS = [
    (
        "Quelle est la capitale de la France\u00a0?",
        "Paris est la capitale de la France depuis 987 ; l’agglomération compte 10 000 000 d’habitants.",
        "Paris",
    ),
    (
        "En quelle année la tour Eiffel a-t-elle été achevée\u00a0?",
        "La tour Eiffel, haute de 330 m, a été achevée en 1889 pour l’Exposition universelle.",
        "1889",
    ),
    (
        "Qui a écrit «\u00a0Les Misérables\u00a0»\u00a0?",
        "« Les Misérables » est un roman de Victor Hugo publié en 1862 ; il compte 14,2 kg de papier.",
        "Victor Hugo",
    ),
]


@pytest.fixture
def french_world(tmp_path, make_user):
    from annotation.importers import import_corpus, import_predictions
    from annotation.models import Corpus

    rows = [
        {"id": f"fr{i}", "question": q, "context": c, "answers": [a], "language": "fr"}
        for i, (q, c, a) in enumerate(QUESTIONS)
    ]
    import_corpus(write_jsonl(tmp_path / "corpus.jsonl", rows), "piaf-mini")
    corpus = Corpus.objects.get(name="piaf-mini")
    preds = [
        {"question_id": f"fr{i}", "system": "baseline", "answer": c.split(" ")[0]}
        for i, (_q, c, _a) in enumerate(QUESTIONS)
    ]
    import_predictions(write_jsonl(tmp_path / "predictions.jsonl", preds), corpus)
    folds = create_folds(corpus, k=2, seed=0, overlap=1.0)
    annotator = make_user("annotatrice", "annotator")
    other = make_user("autre", "annotator")
    assign_fold(folds[0], annotator)
    assign_fold(folds[1], other)
    for item in FoldItem.objects.filter(fold=folds[1]).select_related("triplet"):  # the other one disagrees
        Label.objects.create(annotator=other, fold=folds[1], triplet=item.triplet, value="incorrect", seconds_spent=3.5)
    first = FoldItem.objects.filter(fold=folds[0]).select_related("triplet").order_by("position").first()
    Label.objects.create(annotator=annotator, fold=folds[0], triplet=first.triplet, value="correct", seconds_spent=7.25)
    admin = make_user("patronne", "admin")
    admin.is_superuser = True
    admin.save()
    return {"corpus": corpus, "fold": folds[0]}


def no_overflow(page, width, name, wide):
    page.wait_for_load_state("load")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)
    scroll = page.evaluate("document.documentElement.scrollWidth")
    if scroll > width:
        wide[name] = scroll
    assert page.evaluate("document.documentElement.lang") == "fr", name


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1366, 390])
def test_annotator_pages_in_french(browser, live_server, french_world, width):
    context = browser.new_context(viewport={"width": width, "height": 844}, locale="de-DE", bypass_csp=True)
    page = context.new_page()
    wide = {}
    page.goto(f"{live_server.url}/login/")
    assert page.evaluate("document.documentElement.lang") == "en"  # German asked: English until logged in
    login(page, live_server, "annotatrice")
    no_overflow(page, width, "home", wide)  # the corpus is French: so are the annotator's pages
    assert page.get_by_role("heading", name="Mes lots").is_visible()
    page.get_by_role("link", name="Continuer").click()
    page.wait_for_selector("#judge-form")
    no_overflow(page, width, "annotate", wide)
    assert page.get_by_role("button", name=re.compile("Partiellement correcte")).is_visible()
    page.keyboard.press("?")
    assert page.get_by_role("heading", name="Raccourcis clavier").is_visible()
    page.screenshot(path=str(SCREENSHOTS / f"annotate-shortcuts-{width}.png"))
    page.keyboard.press("Escape")
    context.set_offline(True)  # the JavaScript messages come from the French catalogue
    page.keyboard.press("1")
    page.wait_for_selector(".save-status")
    message = page.inner_text(".save-status")
    assert message.startswith("Non enregistré") and "«\u00a0Correcte\u00a0»" in message, message
    page.screenshot(path=str(SCREENSHOTS / f"annotate-offline-{width}.png"))
    context.set_offline(False)
    page.wait_for_function(
        "!document.querySelector('.save-status') || document.querySelector('.save-status').hidden"
        " || document.querySelector('#progress-count')?.textContent.startsWith('1')",
        timeout=20000,
    )
    page.goto(f"{live_server.url}/annotate/{french_world['fold'].pk}/items/")
    no_overflow(page, width, "item-list", wide)
    assert page.get_by_role("button", name="Filtrer").is_visible()
    context.close()
    assert wide == {}, f"wider than {width} px: {wide}"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [1366, 390])
def test_admin_switches_to_french(browser, live_server, french_world, width):
    context = browser.new_context(viewport={"width": width, "height": 844}, locale="en-US", bypass_csp=True)
    page = context.new_page()
    wide = {}
    page.goto(f"{live_server.url}/login/")
    page.get_by_role("button", name="Français").click()  # a plain form: no script needed
    page.wait_for_url(f"{live_server.url}/login/")
    no_overflow(page, width, "login", wide)
    page.fill("#id_username", "patronne")
    page.fill("#id_password", "pw-for-tests-1")
    page.get_by_role("button", name="Se connecter").click()
    page.wait_for_url(f"{live_server.url}/")
    corpus = french_world["corpus"]
    page.goto(f"{live_server.url}/folds/?corpus={corpus.name}")
    no_overflow(page, width, "folds", wide)
    quality = page.locator("#quality-table")
    quality.scroll_into_view_if_needed()
    quality.screenshot(path=str(SCREENSHOTS / f"quality-{width}.png"))
    assert "3,5" in quality.inner_text()  # the median seconds per item, with a decimal comma
    page.goto(f"{live_server.url}/folds/{corpus.pk}/adjudicate/")
    no_overflow(page, width, "adjudicate", wide)
    assert page.get_by_role("button", name="Trancher").first.is_visible()
    page.get_by_role("button", name="English").click()  # and back, remembered on the account
    page.wait_for_url(f"{live_server.url}/folds/{corpus.pk}/adjudicate/")
    assert page.evaluate("document.documentElement.lang") == "en"
    context.close()
    assert wide == {}, f"wider than {width} px: {wide}"
