"""The judge's uncertainty (SPEC 12): the label token's log-probabilities become q when the server
offers them; a server that refuses or ignores them gives one-hot labels; judge-labels files carry
``probs``, checked, and the export gives them back."""

import json

import pytest
from django.core.management import CommandError, call_command

from core.models import Job
from core.runner import run_job
from models_runner import jobs, judging
from models_runner.models import JudgeLabel
from tests.conftest import write_jsonl
from tests.models_runner.test_judge import answer_of, judge_file_rows, make_judge
from tests.openai_stub import OpenAIStub, Reply

TOPS = {
    "Denver Broncos": {"Correct": 0.9, "Partial": 0.06, "Incorrect": 0.04},
    "Santa Clara, California": {"Partial": 0.5, "Correct": 0.3, "In": 0.15, "The": 0.05},
}


def with_logprobs(body):
    answer = answer_of(body)
    top = TOPS.get(answer, {"Incorrect": 0.99, "Correct": 0.01})
    return Reply(max(top, key=top.get), top)


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def test_label_distribution_from_top_logprobs():
    lp = [
        {"token": "**", "logprob": 0.0, "top": [("**", 0.0)]},
        {"token": "Part", "logprob": -0.5, "top": [("Part", -0.5), (" correct", -1.5), ("wrong", -2.5)]},
    ]
    q = judging.label_distribution(lp)
    import math

    total = math.exp(-0.5) + math.exp(-1.5) + math.exp(-2.5)
    assert q == pytest.approx(
        {"partial": math.exp(-0.5) / total, "correct": math.exp(-1.5) / total, "incorrect": math.exp(-2.5) / total}
    )
    assert judging.label_distribution(None) is None
    assert judging.label_distribution([{"token": "Hmm", "logprob": 0.0, "top": []}]) is None


def test_a_run_stores_q_from_logprobs(tiny_corpus):
    with OpenAIStub(with_logprobs) as stub:
        judge = make_judge(stub)
        run = judging.prepare_judge_run(tiny_corpus, judge, batch_size=4)
        job = run_job(run.job_id, jobs.judge_body)
    assert job.status == Job.SUCCEEDED, job.error
    assert all(r.get("logprobs") is True and r.get("top_logprobs") == 5 for r in stub.requests)
    got = {jl.triplet.answer: jl for jl in JudgeLabel.objects.filter(judge=judge).select_related("triplet")}
    assert got["Denver Broncos"].value == "correct"
    assert got["Denver Broncos"].probs == pytest.approx({"correct": 0.9, "partial": 0.06, "incorrect": 0.04})
    # "The" is no label word: dropped, the rest normalised to 0.95
    assert got["Santa Clara, California"].probs == pytest.approx(
        {"correct": 0.3 / 0.95, "partial": 0.5 / 0.95, "incorrect": 0.15 / 0.95}
    )
    assert job.result["logprobs"] == "auto"


@pytest.mark.parametrize("server", ["reject", "ignore"])
def test_a_server_without_logprobs_gives_one_hot_labels(tiny_corpus, server):
    with OpenAIStub(with_logprobs, logprobs=server) as stub:
        judge = make_judge(stub)
        run = judging.prepare_judge_run(tiny_corpus, judge, batch_size=4)
        job = run_job(run.job_id, jobs.judge_body)
    assert job.status == Job.SUCCEEDED, job.error
    labels = JudgeLabel.objects.filter(judge=judge)
    assert labels.count() == run.triplets_total and not labels.filter(probs__isnull=False).exists()
    assert labels.get(triplet__answer="Denver Broncos").value == "correct"
    if server == "reject":
        # asked once, refused (400), then never asked again in this run
        assert sum(bool(r.get("logprobs")) for r in stub.requests) == 1
        assert job.result["logprobs"] == "refused by the server: labels one-hot"


def test_logprobs_on_fails_when_the_server_refuses(tiny_corpus):
    with OpenAIStub(with_logprobs, logprobs="reject") as stub:
        judge = make_judge(stub, logprobs="on")
        run = judging.prepare_judge_run(tiny_corpus, judge, batch_size=4)
        job = run_job(run.job_id, jobs.judge_body)
    assert job.status == Job.FAILED and "logprobs" in job.error


def test_logprobs_off_never_asks_and_a_bad_mode_is_refused(tiny_corpus):
    with OpenAIStub(with_logprobs) as stub:
        judge = make_judge(stub, logprobs="off")
        run = judging.prepare_judge_run(tiny_corpus, judge, batch_size=4)
        run_job(run.job_id, jobs.judge_body)
        assert not any("logprobs" in r for r in stub.requests)
    with pytest.raises(judging.JudgeError, match="logprobs must be one of"):
        judging.judge_parameters({"model": "m", "logprobs": "maybe"})


def test_judge_file_probs_are_imported_checked_and_exported(tiny_corpus, tmp_path, client, make_user):
    rows = judge_file_rows()
    rows[0]["probs"] = {"correct": 3, "partial": 1, "incorrect": 0}
    path = write_jsonl(tmp_path / "judge.jsonl", rows)
    call_command("import_judge_labels", str(path), corpus="tiny")
    stored = JudgeLabel.objects.filter(judge__name="file-judge", probs__isnull=False)
    assert [jl.probs for jl in stored] == [{"correct": 0.75, "partial": 0.25, "incorrect": 0.0}]
    bad = [dict(r) for r in rows]
    bad[1]["probs"] = {"correct": -1}
    bad[2]["probs"] = "high"
    with pytest.raises(CommandError) as err:
        call_command("import_judge_labels", str(write_jsonl(tmp_path / "bad.jsonl", bad)), corpus="tiny")
    assert "bad.jsonl:2" in str(err.value) and "bad.jsonl:3" in str(err.value) and "probs" in str(err.value)
    assert JudgeLabel.objects.filter(judge__name="file-judge", probs__isnull=False).count() == 1  # unchanged
    client.force_login(make_user("res", "researcher"))
    response = client.get("/downloads/judge-labels/?corpus=tiny")
    lines = [json.loads(x) for x in b"".join(response.streaming_content).decode().splitlines()]
    assert [x["probs"] for x in lines if "probs" in x] == [{"correct": 0.75, "partial": 0.25, "incorrect": 0.0}]
