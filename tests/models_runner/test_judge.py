"""LLM judges (SPEC 10) against the local OpenAI-compatible stub: a run labels a corpus (every exchange
stored, retries, cancel, resume without duplicates), judge-labels files, the export, and judge labels
feeding the report while never counting as human."""

import json
import re

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Label, Triplet
from core.models import Job
from core.runner import request_cancel, run_job
from models_runner import jobs, judging
from models_runner.models import Judge, JudgeLabel, JudgeRun, LLMExchange
from tests.conftest import write_jsonl
from tests.openai_stub import OpenAIStub

VERDICTS = {
    "Denver Broncos": "Correct.",
    "Warsaw": "**correct**",
    "Santa Clara": "The answer is correct",
    "Santa Clara, California": "Partially correct: extra words",
    "Poland": "incorrect",
    "Carolina Panthers": "Wrong.",
}


def answer_of(body):
    return re.search(r"Proposed answer: (.*)\n", body["messages"][-1]["content"]).group(1)


def verdict(body):
    return VERDICTS[answer_of(body)]


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def make_judge(stub, name="gpt-judge", **params):
    return Judge.objects.create(
        name=name,
        prompt=judging.DEFAULT_PROMPT,
        parameters={"model": "judge-model", "base_url": stub.base_url, "backoff_base": 0.0, **params},
    )


@pytest.mark.parametrize(
    ("reply", "label"),
    [
        ("Correct.", "correct"),
        ("correct", "correct"),
        ("**Partially correct** - it adds a city", "partial"),
        ("partial", "partial"),
        ("Incorrect", "incorrect"),
        ("The answer is not correct.", "incorrect"),
        ('{"label": "incorrect"}', "incorrect"),
        ("wrong", "incorrect"),
        ("Label: PARTIALLY_CORRECT", "partial"),
        ("I cannot tell", None),
        ("", None),
        ("incorrectly spelled but correct", "correct"),
    ],
)
def test_parse_reply(reply, label):
    assert judging.parse_reply(reply) == label


def test_prompt_and_parameter_checks():
    assert judging.check_prompt(judging.DEFAULT_PROMPT) == judging.DEFAULT_PROMPT
    with pytest.raises(judging.JudgeError, match="unknown field"):
        judging.check_prompt("{question} {answer} {system}")
    with pytest.raises(judging.JudgeError, match="must contain"):
        judging.check_prompt("{context} {question}")
    with pytest.raises(judging.JudgeError, match="literal braces"):
        judging.check_prompt("{question} {answer} {")
    with pytest.raises(judging.JudgeError, match="needs the parameter model"):
        judging.judge_parameters({})
    with pytest.raises(judging.JudgeError, match="unknown judge parameter"):
        judging.judge_parameters({"model": "m", "temprature": 0})
    messages = judging.judge_messages(judging.DEFAULT_PROMPT, "", "Who?", answer="Him {x}")
    assert judging.NO_PASSAGE in messages[0]["content"] and "Proposed answer: Him {x}" in messages[0]["content"]


def test_a_judge_run_labels_every_triplet_and_stores_every_exchange(tiny_corpus):
    n_triplets = Triplet.objects.filter(question__corpus=tiny_corpus).count()
    calls = []

    def responder(body):
        calls.append(body)
        if len(calls) == 1:
            return 429, {"error": {"message": "slow down"}}  # retried
        if answer_of(body) == "Poland":
            return "I cannot tell."  # no verdict in the reply: stored, unparsed
        return verdict(body)

    with OpenAIStub(responder) as stub:
        judge = make_judge(stub)
        run = judging.prepare_judge_run(tiny_corpus, judge, batch_size=3)
        job = run_job(run.job_id, jobs.judge_body)
    assert job.status == Job.SUCCEEDED, job.error
    assert job.resumable and job.kind == "judge" and job.progress_done == job.progress_total == n_triplets
    labels = {jl.triplet.answer: jl.value for jl in JudgeLabel.objects.filter(judge=judge).select_related("triplet")}
    assert labels == {
        "Denver Broncos": "correct",
        "Warsaw": "correct",
        "Santa Clara": "correct",
        "Santa Clara, California": "partial",
        "Carolina Panthers": "incorrect",
        "Poland": None,  # "I cannot tell."
    }
    exchanges = LLMExchange.objects.filter(purpose="judge")
    assert exchanges.count() == n_triplets and exchanges.filter(attempts=2).count() == 1
    assert all(jl.exchange_id for jl in JudgeLabel.objects.filter(judge=judge))
    assert JudgeLabel.objects.get(judge=judge, triplet__answer="Poland").exchange.reply == "I cannot tell."
    run.refresh_from_db()
    assert run.triplets_done == n_triplets and run.unparsed == 1 and job.result["unparsed"] == 1
    assert calls[-1]["model"] == "judge-model" and calls[-1]["max_tokens"] == 10
    assert not Label.objects.exists(), "judge labels must never be human labels"


def test_resume_judges_only_the_missing_triplets(tiny_corpus):
    with OpenAIStub(verdict) as stub:
        judge = make_judge(stub)
        run = judging.prepare_judge_run(tiny_corpus, judge, batch_size=2)
        first = Triplet.objects.filter(question__corpus=tiny_corpus).order_by("id")[:3]
        JudgeLabel.objects.bulk_create([JudgeLabel(judge=judge, triplet=t, value="correct") for t in first])
        job = run_job(run.job_id, jobs.judge_body)
    assert job.status == Job.SUCCEEDED, job.error
    total = Triplet.objects.filter(question__corpus=tiny_corpus).count()
    assert job.result["skipped_existing"] == 3 and job.result["judged_now"] == total - 3
    assert len(stub.requests) == total - 3
    assert JudgeLabel.objects.filter(judge=judge).count() == total


def test_cancel_stops_the_run_between_batches(tiny_corpus):
    with OpenAIStub(verdict) as stub:
        judge = make_judge(stub)
        run = judging.prepare_judge_run(tiny_corpus, judge, batch_size=2)

        def body(job, progress):
            def report(**kwargs):
                progress(**kwargs)
                if progress.job.progress_done >= 2:
                    request_cancel(job)

            report.check_cancel = progress.check_cancel
            return jobs.judge_body(job, report)

        job = run_job(run.job_id, body)
    assert job.status == Job.CANCELLED
    assert JudgeLabel.objects.filter(judge=judge).count() == 2


def test_on_error_fail_or_skip(tiny_corpus):
    def refuse(body):
        return (400, {"error": {"message": "bad request"}}) if answer_of(body) == "Poland" else verdict(body)

    with OpenAIStub(refuse) as stub:
        judge = make_judge(stub, max_retries=0)
        job = run_job(judging.prepare_judge_run(tiny_corpus, judge).job_id, jobs.judge_body)
        assert job.status == Job.FAILED and "400" in job.error
        judge.parameters = {**judge.parameters, "on_error": "skip"}
        judge.save()
        job = run_job(judging.prepare_judge_run(tiny_corpus, judge).job_id, jobs.judge_body)
    assert job.status == Job.SUCCEEDED and job.result["failed"] == 1
    total = Triplet.objects.filter(question__corpus=tiny_corpus).count()
    assert JudgeLabel.objects.filter(judge=judge).count() == total - 1  # Poland stays unjudged, for a later run
    assert LLMExchange.objects.filter(purpose="judge", status="error").count() == 2


def test_command_sync_and_errors(tiny_corpus, tmp_path):
    with OpenAIStub(lambda body: "correct") as stub:
        with pytest.raises(CommandError, match="needs the parameter model"):
            call_command("judge_corpus", corpus="tiny", judge="j1", sync=True)
        prompt = write_jsonl(tmp_path / "prompt.txt", ["Q: {question} A: {answer} Passage: {context} -> label?"])
        call_command(
            "judge_corpus",
            corpus="tiny",
            judge="j1",
            model="m",
            base_url=stub.base_url,
            option=["backoff_base=0"],
            prompt_file=str(prompt),
            sync=True,
        )
    judge = Judge.objects.get(name="j1")
    assert judge.prompt.startswith("Q: {question}") and JudgeRun.objects.get(judge=judge).prompt == judge.prompt
    assert stub.requests[0]["messages"][0]["content"].startswith("Q: ")
    assert (
        JudgeLabel.objects.filter(judge=judge).count() == Triplet.objects.filter(question__corpus=tiny_corpus).count()
    )
    with pytest.raises(CommandError, match="no judge job"):
        call_command("judge_corpus", resume=999999, sync=True)


def judge_file_rows(name="file-judge"):
    return [
        {"question_id": "q1", "answer": "Denver Broncos", "annotator": name, "label": "correct"},
        {"question_id": "q1", "answer": "Carolina Panthers", "annotator": name, "label": "incorrect"},
        {"question_id": "q2", "answer": "Warsaw", "annotator": name, "label": "correct"},
        {"question_id": "q2", "answer": "Poland", "annotator": name, "label": "partial"},
    ]


def test_import_judge_labels_file(tiny_corpus, tmp_path):
    path = write_jsonl(tmp_path / "judge.jsonl", judge_file_rows())
    call_command("import_judge_labels", str(path), corpus="tiny")
    judge = Judge.objects.get(name="file-judge")
    assert judge.kind == Judge.FILE and JudgeLabel.objects.filter(judge=judge, source="import").count() == 4
    assert not Label.objects.exists()
    call_command("import_judge_labels", str(path), corpus="tiny")  # again: replaced, not doubled
    assert JudgeLabel.objects.filter(judge=judge).count() == 4
    two = write_jsonl(tmp_path / "two.jsonl", judge_file_rows() + judge_file_rows("other")[:1])
    with pytest.raises(CommandError, match="one judge"):
        call_command("import_judge_labels", str(two), corpus="tiny")
    bad = write_jsonl(
        tmp_path / "bad.jsonl",
        [
            *judge_file_rows("new-judge"),
            {"question_id": "q3", "answer": "Paris", "annotator": "new-judge", "label": "correct"},
        ],
    )
    with pytest.raises(CommandError, match=r"bad.jsonl:5"):
        call_command("import_judge_labels", str(bad), corpus="tiny")
    assert not Judge.objects.filter(name="new-judge").exists()
    Judge.objects.create(name="llm-one", parameters={"model": "m"})
    with pytest.raises(CommandError, match="LLM judge"):
        call_command("import_judge_labels", str(path), corpus="tiny", judge="llm-one")


def test_judge_labels_export_is_apart_and_researcher_only(tiny_corpus, tmp_path, client, make_user):
    call_command("import_judge_labels", str(write_jsonl(tmp_path / "j.jsonl", judge_file_rows())), corpus="tiny")
    client.force_login(make_user("ann", "annotator"))
    assert client.get("/downloads/judge-labels/").status_code == 403
    client.force_login(make_user("res", "researcher"))
    response = client.get("/downloads/judge-labels/?judge=file-judge&corpus=tiny")
    assert response.status_code == 200
    rows = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    assert [(r["question_id"], r["answer"], r["annotator"], r["label"]) for r in rows] == [
        (r["question_id"], r["answer"], r["annotator"], r["label"]) for r in judge_file_rows()
    ]
    human = b"".join(client.get("/downloads/labels/").streaming_content)
    assert human == b""  # the human export holds no judge label


def test_judge_labels_feed_the_report_but_not_human_agreement(tiny_corpus, make_user, client):
    from annotation.importers import import_labels
    from evaluation.jobs import report_body, start_report

    with OpenAIStub(verdict) as stub:
        judge = make_judge(stub)
        assert run_job(judging.prepare_judge_run(tiny_corpus, judge).job_id, jobs.judge_body).status == Job.SUCCEEDED
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for qid, answer, label in (
            ("q1", "Denver Broncos", "correct"),
            ("q2", "Poland", "incorrect"),
            ("q1", "Carolina Panthers", "incorrect"),
        ):
            f.write(json.dumps({"question_id": qid, "answer": answer, "annotator": "ann", "label": label}) + "\n")
    import_labels(f.name, tiny_corpus)
    job = start_report(tiny_corpus, n_boot=0, figures=False)
    done = run_job(job.pk, report_body)
    assert done.status == Job.SUCCEEDED, done.error
    from evaluation import files

    data = files.load_json(done)
    rows = {(r["system"], r["metric"]): r for r in data["ppi"]}
    assert ("sys-alpha", "hscore") in rows and ("ROVER", "hscore") not in rows
    beta = rows[("sys-beta", "hscore")]
    assert beta["n_total"] == 3 and beta["n_human"] == 2  # Denver Broncos (same triplet), Poland
    assert data["judge"]["name"] == "gpt-judge" and data["judge"]["agreement"]["n_pairs"] == 3
    assert data["judge"]["agreement"]["confusion"]["incorrect"]["incorrect"] == 2
    assert data["agreement"]["n_annotators"] <= 1  # the judge is not an annotator of the human agreement
    assert "table_ppi.csv" in done.result["files"]
    assert any("imported" in r["reason"] for r in data["judge"]["validity"])
    client.force_login(make_user("res", "researcher"))
    page = client.get(f"/research/reports/{done.pk}/").content.decode()
    assert "Automatic judge: gpt-judge" in page and "table_ppi" in page and "human ↓ · judge →" in page
    api = client.get(f"/research/api/reports/{done.pk}/report.json").json()
    assert api["ppi"] == data["ppi"]
    unknown = run_job(start_report(tiny_corpus, n_boot=0, figures=False, judge="nobody").pk, report_body)
    assert unknown.status == Job.FAILED and "no judge named 'nobody'" in unknown.error


@pytest.fixture
def eager():
    from config.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


def test_admin_edits_the_prompt_and_starts_a_judge_run(
    tiny_corpus, client, make_user, eager, django_capture_on_commit_callbacks
):
    from django.urls import reverse

    client.force_login(make_user("boss", "admin"))
    add = client.get(reverse("admin:models_runner_judge_add"))
    assert add.status_code == 200 and "Proposed answer: {answer}" in add.content.decode()  # the default prompt
    with OpenAIStub(lambda body: "partial") as stub:
        form = {
            "name": "admin-judge",
            "kind": "llm",
            "description": "",
            "parameters": json.dumps({"model": "m", "base_url": stub.base_url}),
        }
        bad = client.post(reverse("admin:models_runner_judge_add"), {**form, "prompt": "Judge {answer} for {system}"})
        assert bad.status_code == 200 and "unknown field(s) system" in bad.content.decode()
        assert not Judge.objects.filter(name="admin-judge").exists()
        ok = client.post(reverse("admin:models_runner_judge_add"), {**form, "prompt": "Q {question}\nA {answer}\n"})
        assert ok.status_code == 302, ok.content.decode()[:2000]
        judge = Judge.objects.get(name="admin-judge")
        assert judge.prompt.startswith("Q {question}") and judge.parameters["max_retries"] == 5
        with django_capture_on_commit_callbacks(execute=True):
            started = client.post(
                reverse("admin:models_runner_judge_start", args=[judge.pk]), {"corpus": "tiny", "batch_size": 4}
            )
        assert started.status_code == 302
    run = JudgeRun.objects.get(judge=judge)
    assert run.job.status == Job.SUCCEEDED, run.job.error
    assert JudgeLabel.objects.filter(judge=judge, value="partial").count() == run.triplets_total
    assert stub.requests[0]["messages"][0]["content"].startswith("Q Who won?")
    assert client.get(reverse("admin:models_runner_judgerun_change", args=[run.pk])).status_code == 200
    client.force_login(make_user("res", "researcher"))
    assert client.get(reverse("admin:models_runner_judge_add")).status_code in (302, 403)
