"""Frame checks set up from the web pages only (issue 27, point 6), in Chromium against the local fake
OpenAI-compatible server: from an empty platform, an admin imports a corpus, uploads a FrameNet
lexicon, adds an LLM endpoint (the key's variable name, never the key), predicts frames, builds and
assigns frame-check folds on the Folds page; an annotator rates every frame; the report shows Table 4.
Jobs run in the request (Celery eager); everything else is the pages."""

import json
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from frames.framenet import SHIPPED_LEXICON
from frames.models import FrameCheck
from tests.browser_fixtures import login
from tests.frames.test_frame_jobs import SCRIPT, responder
from tests.openai_stub import OpenAIStub

SHOTS = "/tmp/fric27b-web"
pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def files(tmp_path):
    corpus = tmp_path / "webframes.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"id": f"q{i}", "context": "The game was played.", "question": q, "answers": ["x"]}) + "\n"
            for i, q in enumerate(SCRIPT)
        )
    )
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(
        "".join(
            json.dumps({"question_id": f"q{i}", "system": "sys-a", "answer": "x" if i % 2 else "y"}) + "\n"
            for i in range(len(SCRIPT))
        )
    )
    lexicon = tmp_path / "framenet.zip"
    with zipfile.ZipFile(lexicon, "w") as z:
        for path in SHIPPED_LEXICON.rglob("*"):
            if path.is_file():
                z.write(path, "framenet_v17/" + str(path.relative_to(SHIPPED_LEXICON)))
    return corpus, predictions, lexicon


def job_succeeded(page):
    expect(page.locator("#job-status")).to_have_attribute("data-status", "succeeded", timeout=30000)


@pytest.fixture
def eager(settings):
    from config.celery import app

    settings.CELERY_TASK_ALWAYS_EAGER = True
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


def test_from_an_empty_corpus_to_table_4(page, live_server, make_user, tmp_path, settings, eager, monkeypatch):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    monkeypatch.setenv("LLM_KEY_STUB", "stub-secret")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.UPLOAD_DIR = tmp_path / "media" / "uploads"
    boss = make_user("boss", "admin")
    boss.is_superuser = True
    boss.save()
    make_user("ann", "annotator")
    corpus_file, predictions_file, lexicon_file = files(tmp_path)
    Path(SHOTS).mkdir(exist_ok=True)
    url = live_server.url
    with OpenAIStub(responder) as stub:
        login(page, live_server, "boss")
        page.goto(f"{url}/admin/annotation/corpus/import/")  # 1. the corpus
        page.select_option("#id_kind", "corpus")
        page.fill("#id_corpus", "webframes")
        page.set_input_files("#id_file", str(corpus_file))
        page.click("input[type=submit]")
        job_succeeded(page)
        page.goto(f"{url}/admin/annotation/corpus/import/")  # and a system's answers
        page.select_option("#id_kind", "predictions")
        page.fill("#id_corpus", "webframes")
        page.set_input_files("#id_file", str(predictions_file))
        page.click("input[type=submit]")
        job_succeeded(page)
        page.goto(f"{url}/admin/frames/framelexicon/")  # 2. the lexicon
        page.click("text=Upload a lexicon")
        page.fill("#id_name", "mini-web")
        page.set_input_files("#id_file", str(lexicon_file))
        page.click("input[type=submit]")
        job_succeeded(page)
        page.goto(f"{url}/admin/models_runner/llmendpoint/add/")  # 3. the endpoint
        page.fill("#id_name", "stub")
        page.fill("#id_base_url", stub.base_url)
        page.fill("#id_model", "stub-model")
        page.fill("#id_api_key_env", "LLM_KEY_STUB")
        page.click("input[name=_save]")
        expect(page.locator("#result_list")).to_contain_text("stub-model")
        page.goto(f"{url}/folds/?corpus=webframes")  # no frames yet: the next step
        page.click("#frame-next-step a")
        page.select_option("#id_lexicon", "mini-web")  # 4. predict frames
        page.select_option("#id_endpoint", "stub")
        page.click("input[type=submit]")
        job_succeeded(page)
        assert {r["model"] for r in stub.requests} == {"stub-model"}
        page.click("text=Build frame-check folds for this corpus")  # 5. folds, assigned
        expect(page.locator("#frame-ready")).to_contain_text("3 questions with a predicted frame")
        page.fill("#id_frame_k", "1")
        page.fill("#id_frame_overlap", "0")
        page.click("text=Build frame-check folds")
        page.click("text=Assign every unassigned frame-check fold, round robin")
        page.screenshot(path=f"{SHOTS}/folds-1366.png", full_page=True)
        page.click("text=Log out")
        login(page, live_server, "ann")  # 6. the annotator rates every frame
        page.click("text=Start")
        for done in range(1, 4):
            page.wait_for_selector("#frame-name")
            page.wait_for_load_state("load")
            page.keyboard.press("1")
            page.keyboard.press("4")
            expect(page.locator("#progress-count")).to_contain_text(f"{done} / 3")
        assert FrameCheck.objects.count() == 3
        page.click("text=Log out")
        login(page, live_server, "boss")  # 7. the report
        page.goto(f"{url}/research/")
        page.select_option("#id_corpus", "webframes")
        page.fill("#id_n_boot", "0")
        page.click("text=Compute report")
        table = page.locator("#table4-frame-checks")
        expect(table).to_be_visible(timeout=60000)
        rows = [
            [r.locator("th").inner_text(), *r.locator("td .value").all_inner_texts(), r.locator("td").last.inner_text()]
            for r in table.locator("tbody tr").all()
        ]
        assert rows == [[label, "100 %", "0 %", "0 %", "3"] for label in ("Frame Prediction", "Frame Elements")]
        assert table.locator("td[data-share] small.ci").count() == 6  # each share with its interval (issue 32)
        page.screenshot(path=f"{SHOTS}/report-1366.png", full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=f"{SHOTS}/report-390.png", full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
