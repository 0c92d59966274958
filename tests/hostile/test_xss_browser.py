"""Script payloads in contexts, questions and answers are shown as text, never run (real Chromium)."""

import json

import pytest

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAYLOADS = [
    '<script>alert("ctx")</script>',
    '<img src=x onerror="window.__xss=1;alert(2)">',
    '"><svg onload=alert(3)>',
    "</textarea><iframe src=javascript:alert(4)>",
    "{{ 7*7 }} <b onmouseover=alert(5)>hover</b>",
]


@pytest.fixture
def hostile_fold(tmp_path, make_user):
    with open(tmp_path / "c.jsonl", "w") as f:
        for i, payload in enumerate(PAYLOADS):
            f.write(
                json.dumps(
                    {
                        "id": f"x{i}",
                        "context": f"Context {i}: {payload}",
                        "question": f"Q{i} {payload}?",
                        "answers": [f"gold {i}"],
                    }
                )
                + "\n"
            )
    with open(tmp_path / "p.jsonl", "w") as f:
        for i, payload in enumerate(PAYLOADS):
            f.write(json.dumps({"question_id": f"x{i}", "system": "evil", "answer": f"A{i} {payload}"}) + "\n")
    import_corpus(tmp_path / "c.jsonl", "xss")
    corpus = Corpus.objects.get(name="xss")
    import_predictions(tmp_path / "p.jsonl", corpus)
    fold = create_folds(corpus, k=1, seed=0, overlap=0)[0]
    assign_fold(fold, make_user("ann", "annotator"))
    return fold


def test_payloads_render_as_text_and_never_run(page, live_server, hostile_fold):
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "ann")
    page.fill("#id_password", "pw-for-tests-1")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    page.goto(f"{live_server.url}/annotate/{hostile_fold.pk}/")
    shown = set()
    total = hostile_fold.items.count()
    for n in range(total):
        page.wait_for_selector(f"#progress-count:text('{n} / {total}')")
        question, context, answer = (page.inner_text(s) for s in (".question", ".context", "#answer"))
        i = int(question.split()[0][1:])
        payload = PAYLOADS[i]
        assert question == f"Q{i} {payload}?"
        assert payload in context
        assert answer in (f"A{i} {payload}", f"gold {i}")
        shown.add((i, answer))
        # No element was created from the payloads.
        assert page.locator("#work script, #work img, #work svg, #work iframe, #work b[onmouseover]").count() == 0
        page.hover(".question")
        page.click("button[value=correct]")  # through htmx: the next fragment is rendered the same way
    page.wait_for_selector("text=Fold finished")
    assert len(shown) == total == 2 * len(PAYLOADS)
    assert dialogs == []
    assert page.evaluate("window.__xss") is None
