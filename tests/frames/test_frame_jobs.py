"""The whole frame chain on the shipped lexicon against the local OpenAI-compatible HTTP server."""

import re
import shutil

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.models import Corpus, Question
from core.models import Job
from core.runner import create_job, run_job
from frames import jobs as frame_jobs
from frames import lexicon_store, llm
from frames.framenet import SHIPPED_LEXICON, LexiconError
from frames.models import FrameAnnotation, FrameDef, FrameElementDef, FrameLexicon, LexicalUnitDef
from models_runner.models import LLMExchange
from tests.openai_stub import OpenAIStub

pytestmark = pytest.mark.django_db

# question -> (frame reply, FE reply); None: never asked
SCRIPT = {
    "Which team won the game in 2016?": (
        '("Competition", "game")',
        'Here you go:\n```json\n{"Participants": "Which team", "Time": "in 2016", "Competition": "the game"}\n```',
    ),
    "What year was Beyoncé born?": (
        "Being_born - born",
        '{"Child": "Beyoncé", "Time": "What year", "Speaker": "nobody"} I hope this helps.',
    ),
    "Did the army attack Warsaw?": (
        "Frame: Attack, word: attack",
        '{"Assailant": "the army", "Victim": "Warsaw", "Weapon": null}',
    ),
    "Who will lead the invasion?": ("('Hostile_encounter', 'invasion')", None),
    "Where is the stadium located?": ("I cannot tell which pair is meant.", None),
    "How much did the company pay?": ("Frame: Commerce_pay, word: pay", "Buyer is the company, Money is how much."),
    "Who is the leader?": ("('Leadership', 'leader')", '{"Speaker": "Who", "Topic": "leader"}'),
    "Qwerty uiop?": (None, None),
}
EXPECTED = {"done": 3, "unknown_frame": 1, "bad_output": 3, "no_trigger": 1, "error": 0}


def responder(body):
    prompt = body["messages"][-1]["content"]
    question = re.search(r"Question : (.*)", prompt).group(1)
    frame_reply, fe_reply = SCRIPT[question]
    return frame_reply if prompt.startswith("From a list") else fe_reply


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def stub():
    with OpenAIStub(responder) as server:
        yield server


@pytest.fixture
def corpus():
    corpus = Corpus.objects.create(name="frames-demo")
    for i, text in enumerate(SCRIPT):
        Question.objects.create(
            corpus=corpus, external_id=f"q{i}", position=i, context="ctx", question=text, answers=["x"]
        )
    Question.objects.create(
        corpus=corpus,
        external_id="manual",
        position=99,
        context="c",
        question="Who won the game?",
        answers=["x"],
        frame="Win_prize",
        lu="win.v",
        lu_pos="verb",
        frame_elements=["Competitor"],
    )
    return corpus


def run(corpus, stub, **params):
    job = create_job(
        frame_jobs.JOB_KIND,
        params=frame_jobs.job_params(corpus.name, model="stub-model", base_url=stub.base_url, **params),
        resumable=True,
    )
    return run_job(job.pk, frame_jobs.frame_job_body)


def test_whole_chain_outcomes_and_question_attributes(corpus, stub):
    job = run(corpus, stub)
    assert job.status == Job.SUCCEEDED, job.error
    assert job.result["outcomes"] == EXPECTED
    assert job.result["run"] == EXPECTED
    assert job.result["skipped_manual"] == 1 and job.result["processed"] == 8
    # 7 questions with triggers get the frame prompt, the 5 with a known frame the FE prompt too
    assert len(stub.requests) == 7 + 5
    assert {r["model"] for r in stub.requests} == {"stub-model"}

    q = {x.question: x for x in Question.objects.filter(corpus=corpus)}
    game = q["Which team won the game in 2016?"]
    assert (game.frame, game.lu, game.lu_pos, game.trigger_in_question) == ("Competition", "game.n", "noun", True)
    assert game.frame_elements == ["Participants", "Time", "Competition"]
    born = q["What year was Beyoncé born?"]
    assert (born.frame, born.lu, born.lu_pos, born.frame_elements) == (
        "Being_born",
        "born.a",
        "adjective",
        ["Child", "Time"],
    )
    attack = q["Did the army attack Warsaw?"]
    assert (attack.lu, attack.lu_pos, attack.frame_elements) == ("attack.v", "verb", ["Assailant", "Victim"])
    for text in (
        "Who will lead the invasion?",
        "Where is the stadium located?",
        "How much did the company pay?",
        "Who is the leader?",
        "Qwerty uiop?",
    ):
        assert q[text].frame is None and q[text].frame_elements is None and q[text].trigger_in_question is None
    manual = q["Who won the game?"]
    assert (manual.frame, manual.frame_elements) == ("Win_prize", ["Competitor"])

    fa = {a.question.question: a for a in FrameAnnotation.objects.select_related("question", "frame")}
    assert "manual" not in {a.question.external_id for a in fa.values()}
    born_fa = fa["What year was Beyoncé born?"]
    assert born_fa.outcome == "done" and born_fa.frame.name == "Being_born" and born_fa.trigger == "born"
    assert born_fa.frame_elements == {"Child": "Beyoncé", "Time": "What year"}
    assert born_fa.meta["dropped_fes"] == [{"name": "Speaker", "reason": "not an FE of the frame"}]
    assert born_fa.frame_prompt.startswith("From a list of (frame, lexical unit)")
    assert born_fa.frame_reply == "Being_born - born" and born_fa.fe_reply.startswith('{"Child"')
    assert born_fa.model == "stub-model" and born_fa.job_id == job.pk
    assert ["Being_born", "born"] in born_fa.candidates
    # every request is also kept by models_runner's chat client, linked to its question
    exchanges = LLMExchange.objects.filter(question=born_fa.question).order_by("id")
    assert [(e.purpose, e.reply) for e in exchanges] == [
        ("frame_selection", born_fa.frame_reply),
        ("frame_elements", born_fa.fe_reply),
    ]
    assert exchanges[0].messages[-1]["content"] == born_fa.frame_prompt
    unknown = fa["Who will lead the invasion?"]
    assert unknown.outcome == "unknown_frame" and unknown.frame_name == "Hostile_encounter" and unknown.frame is None
    assert unknown.frame_reply and not unknown.fe_prompt
    assert fa["Where is the stadium located?"].outcome == "bad_output"
    pay = fa["How much did the company pay?"]
    assert pay.outcome == "bad_output" and pay.fe_reply.startswith("Buyer is") and pay.frame.name == "Commerce_pay"
    assert fa["Who is the leader?"].outcome == "bad_output"
    no = fa["Qwerty uiop?"]
    assert no.outcome == "no_trigger" and no.candidates == [] and no.frame_prompt == ""


def test_rerun_is_idempotent_and_force_redoes(corpus, stub):
    run(corpus, stub)
    n_requests = len(stub.requests)
    again = run(corpus, stub)
    assert again.result["processed"] == 0 and again.result["skipped_done"] == 8
    assert again.result["outcomes"] == EXPECTED
    assert len(stub.requests) == n_requests
    SCRIPT_BACKUP = SCRIPT["What year was Beyoncé born?"]
    SCRIPT["What year was Beyoncé born?"] = ("no idea", None)
    try:
        forced = run(corpus, stub, force=True)
    finally:
        SCRIPT["What year was Beyoncé born?"] = SCRIPT_BACKUP
    assert forced.result["processed"] == 8
    assert forced.result["outcomes"] == {**EXPECTED, "done": 2, "bad_output": 4}
    born = Question.objects.get(question="What year was Beyoncé born?")
    assert born.frame is None and born.frame_elements is None and "frame_source" not in born.meta
    assert FrameAnnotation.objects.filter(question__corpus=corpus).count() == 8


def test_limit_then_continue(corpus, stub):
    first = run(corpus, stub, limit=3)
    assert first.result["processed"] == 3
    rest = run(corpus, stub)
    assert rest.result["processed"] == 5 and rest.result["outcomes"] == EXPECTED


def test_server_errors_are_recorded_then_retried(corpus):
    with OpenAIStub(lambda body: (500, {"error": {"message": "down"}})) as down:
        job = create_job(frame_jobs.JOB_KIND, params=frame_jobs.job_params(corpus.name, model="m"))
        chat = llm.make_chat("m", base_url=down.base_url, max_retries=0)
        job = run_job(job.pk, lambda job, progress: frame_jobs.frame_job_body(job, progress, chat=chat))
    assert job.status == Job.FAILED and "in a row" in job.error
    assert FrameAnnotation.objects.filter(outcome="error").count() == 5
    with OpenAIStub(responder) as good:
        fixed = run(corpus, good)
    assert fixed.result["outcomes"] == EXPECTED


def test_celery_task_runs_the_job(corpus, stub, django_capture_on_commit_callbacks, settings):
    from config.celery import app
    from frames.jobs import start_frame_job

    app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            job = start_frame_job(corpus.name, model="stub-model", base_url=stub.base_url)
    finally:
        app.conf.task_always_eager = False
    job.refresh_from_db()
    assert job.status == Job.SUCCEEDED and job.resumable and job.kind == "frames"
    assert job.result["outcomes"] == EXPECTED


def test_store_lexicon_is_idempotent_by_name(tmp_path):
    row, stats = lexicon_store.import_lexicon(SHIPPED_LEXICON, name="mini")
    assert stats["created"] and stats["frames"] == FrameDef.objects.filter(lexicon=row).count() >= 30
    ids = dict(FrameDef.objects.filter(lexicon=row).values_list("name", "id"))
    n_fe, n_lu = FrameElementDef.objects.count(), LexicalUnitDef.objects.count()
    row2, stats2 = lexicon_store.import_lexicon(SHIPPED_LEXICON, name="mini")
    assert row2.pk == row.pk and not stats2["created"] and stats2["new_frames"] == stats2["updated_frames"] == 0
    assert dict(FrameDef.objects.filter(lexicon=row).values_list("name", "id")) == ids
    assert (FrameElementDef.objects.count(), LexicalUnitDef.objects.count()) == (n_fe, n_lu)

    changed = tmp_path / "fn"
    shutil.copytree(SHIPPED_LEXICON, changed)
    index = changed / "frameIndex.xml"
    index.write_text(re.sub(r'\s*<frame ID="\d+" name="Color"/>', "", index.read_text()))
    death = changed / "frame" / "Death.xml"
    death.write_text(death.read_text().replace("stops living", "ceases to live"))
    _, stats3 = lexicon_store.import_lexicon(changed, name="mini")
    assert (stats3["removed_frames"], stats3["updated_frames"], stats3["new_frames"]) == (1, 1, 0)
    assert not FrameDef.objects.filter(lexicon=row, name="Color").exists()
    assert "ceases to live" in FrameDef.objects.get(lexicon=row, name="Death").definition
    assert FrameDef.objects.get(lexicon=row, name="Attack").pk == ids["Attack"]


def test_bad_lexicon_imports_nothing(tmp_path):
    bad = tmp_path / "fn"
    shutil.copytree(SHIPPED_LEXICON, bad)
    (bad / "frame" / "Attack.xml").write_text("<frame name='Attack'><FE")
    with pytest.raises(LexiconError, match=r"Attack\.xml"):
        lexicon_store.import_lexicon(bad, name="broken")
    assert not FrameLexicon.objects.exists() and not FrameDef.objects.exists()
    with pytest.raises(CommandError, match=r"nothing imported: .*Attack\.xml: malformed XML"):
        call_command("import_framenet", str(bad), "--name", "broken")


def test_management_commands(corpus, stub, capsys):
    call_command("import_framenet")
    assert "framenet-mini" in capsys.readouterr().out
    call_command("predict_frames", "--corpus", corpus.name, "--base-url", stub.base_url, "--model", "stub-model")
    out = capsys.readouterr().out
    assert '"done": 3' in out and '"unknown_frame": 1' in out and '"no_trigger": 1' in out
    with pytest.raises(CommandError, match="no API key"):
        call_command("predict_frames", "--corpus", corpus.name, "--api-key-env", "LLM_KEY_NO_SUCH_KEY")
    with pytest.raises(CommandError, match="no frame lexicon named 'nope'"):
        call_command("predict_frames", "--corpus", corpus.name, "--lexicon", "nope")
