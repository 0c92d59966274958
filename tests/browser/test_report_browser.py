"""A researcher reads a finished report in headless Chromium: significance marks (raw and Holm),
alpha with its n, annotator pairs undefined below 2 shared items, skipped factors with their
reasons, readable numbers, the coverage warning, and tables that sort on a click; at 1366 and
390 px wide (screenshots under /tmp for a look)."""

import os
import random

import pytest

from annotation.importers import import_corpus, import_labels, import_predictions
from annotation.models import Corpus
from evaluation.jobs import start_report
from evaluation.tasks import build_report
from tests.browser_fixtures import login
from tests.conftest import write_jsonl

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SCREENSHOTS = os.environ.get("REPORT_SCREENSHOTS", "/tmp")


def labelled_corpus(tmp_path):
    """60 questions with frames and some SPEC 6 attributes (no `dist`: that factor is skipped),
    3 systems; labels by 3 annotators, sys-c partly unlabeled, two annotators sharing one answer."""
    rng = random.Random(0)
    corpus, preds, labels = [], [], []
    for i in range(60):
        frame = f"Frame{i % 6}"
        hard = i % 2 == 0
        corpus.append(
            {
                "id": f"q{i}",
                "context": f"Context {i}.",
                "question": f"Question {i}?",
                "answers": [f"gold {i}"],
                "frame": frame,
                "lu": f"w{i % 3}.v",
                "lu_pos": "noun" if hard else "verb",
                "frame_elements": ["A"] * (1 if hard else 3),
                "coref": hard,
                "trigger_in_question": not hard,
                "frame_freq": 10 + i % 6,
            }
        )
        for system, good in (("sys-a", 0.95 if not hard else 0.35), ("sys-b", 0.8), ("sys-c", 0.7)):
            right = rng.random() < good
            answer = f"gold {i}" if right else f"{system} wrong {i}"
            preds.append({"question_id": f"q{i}", "system": system, "answer": answer})
    seen = set()
    for p in preds:
        key = (p["question_id"], p["answer"])
        if key in seen or (p["system"] == "sys-c" and "wrong" in p["answer"] and int(p["question_id"][1:]) % 3 == 0):
            continue
        seen.add(key)
        value = "correct" if p["answer"].startswith("gold") else "incorrect"
        labels.append({**{k: p[k] for k in ("question_id", "answer")}, "annotator": "ann1", "label": value})
        if int(p["question_id"][1:]) < 12:  # a second annotator on the first questions
            labels.append(
                {
                    **{k: p[k] for k in ("question_id", "answer")},
                    "annotator": "ann2",
                    "label": value if rng.random() < 0.8 else "partial",
                }
            )
    labels.append({"question_id": "q30", "answer": "gold 30", "annotator": "ann3", "label": "partial"})  # 1 shared
    files = [
        write_jsonl(tmp_path / n, rows) for n, rows in (("c.jsonl", corpus), ("p.jsonl", preds), ("l.jsonl", labels))
    ]
    import_corpus(files[0], "lab")
    c = Corpus.objects.get(name="lab")
    import_predictions(files[1], c)
    import_labels(files[2], c)
    return c


def test_report_page_as_a_researcher(page, live_server, make_user, tmp_path, settings, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    settings.MEDIA_ROOT = tmp_path / "media"
    corpus = labelled_corpus(tmp_path)
    researcher = make_user("res", "researcher")
    job = start_report(corpus, researcher, n_boot=40, figures=True, adjudicated=True)
    build_report(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    login(page, live_server, "res")
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/research/reports/{job.pk}/")
    page.wait_for_load_state("load")

    # every choice that changes a number, named, marks explained
    choices = page.inner_text("#report-choices")
    for words in ("Labels of one answer", "labels of an answer averaged", "Adjudicated labels", "used: an admin",
                  "Excluded participants", "Automatic judge", "raw p < 0.05", "Holm", "40 replicates",
                  "seed 0", "ROVER Levenshtein alpha", "5: two answers agree"):  # fmt: skip
        assert words in choices, words
    assert "ROVER Levenshtein alpha 5" in page.inner_text("h1 + p")  # never a bare "alpha 5.0"
    # coverage warning: summarised (how many pairs, at what coverage), the closest named, the rest folded
    warning = page.inner_text("#coverage-warning")
    assert "sys-c" in warning and "could swap places by Hscore" in warning and "below 100%: coverage" in warning
    assert page.locator("#coverage-warning ul.closest-flips li").count() <= 3
    for details in page.locator("#coverage-warning details").all():
        assert details.get_attribute("open") is None  # folded
    # every score with its labelled 95% bootstrap interval; coverage bounds only below 100 %, named as bounds
    assert "partial" in page.locator("#systems-table tbody tr", has_text="sys-c").get_attribute("class")
    assert "partial" not in (page.locator("#systems-table tbody tr", has_text="sys-a").get_attribute("class") or "")
    rows = page.locator("#systems-table tbody tr")
    n_metrics = page.locator("#systems-table thead th").count() - 3  # system, n, coverage
    for i in range(rows.count()):
        row = rows.nth(i)
        name = row.locator("th").inner_text()
        assert row.locator("small.ci").count() == n_metrics, name
        # labelled for screen readers (the words are said once above the table, issue 32): the text, not the layout
        assert all(t.startswith("95% CI ") for t in row.locator("small.ci").all_text_contents())
        bounds = row.locator("small.bounds").all_inner_texts()
        partial = "partial" in (row.get_attribute("class") or "")  # coverage below 100 %
        assert len(bounds) == (2 if partial else 0), name  # Hscore and Hcorrect only, and only below 100 %
        assert partial or row.locator("td.warn").count() == 0
        assert all(t.startswith("coverage bounds ") for t in bounds)
    assert "Choices: " in page.inner_text("#systems-caption")
    assert "95% bootstrap confidence interval" in page.inner_text("#systems-table >> xpath=../..")
    # figures titled in words, not by file name
    titles = page.locator(".figure-card h2").all_inner_texts()
    assert titles and all(t.startswith("Figure ") and ".svg" not in t for t in titles)
    assert "Figure 3: Hscore of each system per ROVER agreement partition" in titles
    # significance: sys-a's coref delta is large and significant, raw and after Holm
    coref_col = page.locator("#factors-hscore thead th", has_text="coref")
    assert coref_col.count() == 1
    cell = page.locator("#factors-hscore tbody tr", has_text="sys-a").locator("td.sig-holm").first
    assert cell.count() == 1 and "*†" in cell.inner_text()
    assert int(cell.inner_text().rstrip("*†")) < 0
    assert "p " in cell.get_attribute("title") and "U " in cell.get_attribute("title")
    # skipped factor with its reason
    assert "dist" in page.inner_text("#skipped-factors") and "no question has ‘dist’" in page.inner_text(
        "#skipped-factors"
    )
    # agreement: overall alpha with n, a pair with one shared item undefined with its n
    agreement = page.inner_text("#agreement")
    assert "n = " in agreement and "items with two or more labels" in agreement
    assert "undefined (n = 1 item)" in page.inner_text("#agreement-pairs")
    page.screenshot(path=f"{SCREENSHOTS}/report_1366.png", full_page=True)

    # sorting: the systems table by Hscore, ascending then descending (static JS, no inline script)
    assert page.locator("script:not([src])").count() == 0 or all(
        "htmx" in (s or "") for s in page.locator("script:not([src])").all_inner_texts()
    )
    header = page.locator("#systems-table thead th", has_text="Hscore")
    index = page.locator("#systems-table thead th").all_inner_texts().index(header.inner_text())

    def column():
        return [
            float(t)
            for t in page.locator(f"#systems-table tbody tr td:nth-child({index + 1})").all_inner_texts()
            if t.split("\n")[0].strip() != "—"
            for t in [t.split("\n")[0]]
        ]

    header.click()
    values = column()
    assert values == sorted(values) and header.get_attribute("aria-sort") == "ascending"
    header.click()
    assert column() == sorted(values, reverse=True)

    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=f"{SCREENSHOTS}/report_390.png", full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 400  # wide tables scroll inside their card, the page does not


def test_report_page_with_a_judge(page, live_server, make_user, tmp_path, settings, monkeypatch):
    """The prediction-powered estimates in a card of their own, one table per metric, readable at
    1366 and 390 px (screenshots report_judge_1366.png, report_judge_390.png)."""
    from annotation.models import Prediction
    from models_runner.judging import import_judge_labels

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    settings.MEDIA_ROOT = tmp_path / "media"
    corpus = labelled_corpus(tmp_path)
    rng = random.Random(1)
    rows = {
        (p.question.external_id, p.answer)
        for p in Prediction.objects.filter(question__corpus=corpus).select_related("question")
    }
    import_judge_labels(
        write_jsonl(
            tmp_path / "j.jsonl",
            [
                {
                    "question_id": q,
                    "answer": a,
                    "annotator": "judge-a",
                    "label": ("correct" if a.startswith("gold") else "incorrect") if rng.random() < 0.9 else "partial",
                }
                for q, a in sorted(rows)
            ],
        ),
        corpus,
    )
    job = start_report(corpus, make_user("res", "researcher"), n_boot=0, figures=False)
    build_report(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    login(page, live_server, "res")
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/research/reports/{job.pk}/")
    page.wait_for_load_state("load")
    card = page.locator("#ppi-estimates")
    assert "judge-a" in card.locator("h2").inner_text()
    hscore = page.inner_text("#ppi-hscore")
    assert "sys-c" in hscore and "λ" in hscore and "×" in hscore and " – 0." in hscore
    assert " %" in page.inner_text("#ppi-hcorrect")
    card.screenshot(path=f"{SCREENSHOTS}/report_judge_card_1366.png")
    page.screenshot(path=f"{SCREENSHOTS}/report_judge_1366.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    card.screenshot(path=f"{SCREENSHOTS}/report_judge_card_390.png")
    assert page.evaluate("document.documentElement.scrollWidth") <= 400


def test_report_page_with_frames_predicted_and_checked(page, live_server, make_user, tmp_path, settings, monkeypatch):
    """Frame-prediction outcome counts and Table 4 on the page; the skipped bias factor says what
    gives frame_freq (predicting frames does not); at 1366 and 390 px (report_frames_*.png)."""
    from tests.evaluation.test_report_latex import in_app_job

    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    settings.MEDIA_ROOT = tmp_path / "media"
    job = in_app_job(tmp_path, figures=True)
    make_user("res", "researcher")
    login(page, live_server, "res")
    page.set_viewport_size({"width": 1366, "height": 900})
    page.goto(f"{live_server.url}/research/reports/{job.pk}/")
    page.wait_for_load_state("load")
    frames = page.inner_text("#frame-results")
    assert "The frame proxy saw 4 questions" in frames
    outcomes = {
        row.get_attribute("data-outcome"): row.locator("td").all_inner_texts()
        for row in page.locator("#frame-outcomes tbody tr").all()
    }
    assert outcomes["done"] == ["4", "100.0 %"] and outcomes["no_trigger"] == ["0", "0.0 %"]
    assert {"unknown_frame", "bad_output"} <= set(outcomes)
    table4 = page.inner_text("#table4-frame-checks")
    assert "Frame Prediction" in table4 and "Frame Elements" in table4 and "%" in table4
    bias = page.locator("#skipped-factors li", has_text="bias").inner_text()
    assert "predicting frames does not give it" in bias and "import frame annotation or predict frames" not in bias
    choices = page.inner_text("#report-choices")
    assert "judge-a" in choices and "Holm-corrected" in choices and "majority label" in choices
    assert "Design of the human sample" in choices
    page.locator("#frame-results").screenshot(path=f"{SCREENSHOTS}/report_frames_card_1366.png")
    page.screenshot(path=f"{SCREENSHOTS}/report_frames_1366.png", full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=f"{SCREENSHOTS}/report_frames_390.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 400
