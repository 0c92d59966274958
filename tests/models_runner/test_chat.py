"""The chat client and the openai backend against the local OpenAI-compatible server (real HTTP,
real openai client)."""

import pytest

from models_runner.backends import QAItem, create_backend
from models_runner.chat import ChatClient, ChatError, RateLimiter, backoff_delay
from models_runner.models import LLMExchange
from tests.openai_stub import OpenAIStub


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def test_backoff_is_exponential_capped_and_honours_retry_after():
    assert [backoff_delay(i, base=1, cap=10) for i in range(5)] == [1, 2, 4, 8, 10]
    assert backoff_delay(0, base=1, cap=10, retry_after=7) == 7
    assert backoff_delay(3, base=1, cap=10, retry_after=100) == 10


def test_rate_limiter_spaces_requests():
    now = [0.0]
    waits = []

    def sleep(s):
        waits.append(s)
        now[0] += s

    limiter = RateLimiter(per_minute=30, clock=lambda: now[0], sleep=sleep)
    for _ in range(3):
        limiter.wait()
    assert waits == [2.0, 2.0]
    now[0] += 10  # idle for a while: the next request goes at once
    assert limiter.wait() == 0
    assert RateLimiter(None).wait() == 0


def sleeps():
    slept = []
    return slept, slept.append


@pytest.mark.django_db
def test_send_stores_the_exchange():
    with OpenAIStub(lambda body: "pong") as stub:
        client = ChatClient("stub-model", base_url=stub.base_url, max_tokens=20)
        reply = client.send([{"role": "user", "content": "ping"}], purpose="frame_selection")
    assert reply == "pong"
    ex = LLMExchange.objects.get()
    assert (ex.purpose, ex.status, ex.reply, ex.attempts, ex.model) == (
        "frame_selection",
        "ok",
        "pong",
        1,
        "stub-model",
    )
    assert ex.messages == [{"role": "user", "content": "ping"}] and ex.latency_s >= 0
    assert stub.requests[0]["max_tokens"] == 20 and stub.requests[0]["temperature"] == 0.0
    assert stub.requests[0]["headers"]["authorization"] == "Bearer sk-test"


@pytest.mark.django_db
def test_429_then_success_is_retried_with_backoff():
    calls = []

    def responder(body):
        calls.append(1)
        if len(calls) == 1:
            return 429, {"error": {"message": "rate limited", "type": "rate_limit"}}
        if len(calls) == 2:
            return 503, {"error": {"message": "overloaded"}}
        return "ok"

    slept, sleep = sleeps()
    with OpenAIStub(responder) as stub:
        client = ChatClient("m", base_url=stub.base_url, backoff_base=0.5, sleep=sleep)
        assert client.send([{"role": "user", "content": "x"}]) == "ok"
    assert len(stub.requests) == 3 and slept == [0.5, 1.0]
    ex = LLMExchange.objects.get()
    assert ex.status == "ok" and ex.attempts == 3
    assert "RateLimitError" in ex.error and "InternalServerError" in ex.error


@pytest.mark.django_db
def test_client_errors_are_not_retried_and_exhausted_retries_fail():
    slept, sleep = sleeps()
    with OpenAIStub(lambda body: (400, {"error": {"message": "bad request"}})) as stub:
        client = ChatClient("m", base_url=stub.base_url, sleep=sleep)
        with pytest.raises(ChatError, match="1 attempt"):
            client.send([{"role": "user", "content": "x"}])
    assert len(stub.requests) == 1 and slept == []
    with OpenAIStub(lambda body: (500, {"error": {"message": "boom"}})) as stub:
        client = ChatClient("m", base_url=stub.base_url, max_retries=2, sleep=sleep)
        with pytest.raises(ChatError) as err:
            client.send([{"role": "user", "content": "x"}], purpose="answer")
    assert len(stub.requests) == 3 and err.value.status == 500
    failed = LLMExchange.objects.filter(status="error").order_by("id")
    assert [(e.http_status, e.attempts) for e in failed] == [(400, 1), (500, 3)]


@pytest.mark.django_db
def test_connection_errors_are_retried():
    slept, sleep = sleeps()
    client = ChatClient("m", base_url="http://127.0.0.1:9/v1", max_retries=1, sleep=sleep, timeout=2)
    with pytest.raises(ChatError, match="2 attempt"):
        client.send([{"role": "user", "content": "x"}])
    assert len(slept) == 1
    assert LLMExchange.objects.get().status == "error"


def test_api_key_comes_from_the_named_env_var(monkeypatch):
    monkeypatch.delenv("LLM_KEY_MINE", raising=False)
    with pytest.raises(ChatError, match="LLM_KEY_MINE"):
        ChatClient("m", api_key_env="LLM_KEY_MINE", store=None)
    monkeypatch.setenv("LLM_KEY_MINE", "sk-mine")
    with OpenAIStub(lambda body: "ok") as stub:
        chat = ChatClient("m", base_url=stub.base_url, api_key_env="LLM_KEY_MINE", store=None).as_chat(purpose="p")
        assert chat([{"role": "user", "content": "x"}]) == "ok" and chat.model == "m"
    assert stub.requests[0]["headers"]["authorization"] == "Bearer sk-mine"


@pytest.mark.django_db
def test_openai_backend_one_and_two_shot(monkeypatch):
    def responder(body):
        return '"Denver Broncos"' if "Broncos" in body["messages"][-1]["content"] else "NULL"

    items = [QAItem(1, "Who won?", "The Denver Broncos won."), QAItem(2, "Who lost?", "Nobody played.")]
    with OpenAIStub(responder) as stub:
        one = create_backend("openai", {"model": "gpt-x", "base_url": stub.base_url, "requests_per_minute": 0}).load()
        assert one.answer(items) == ["Denver Broncos", ""]
        two = create_backend("openai", {"model": "mixtral", "base_url": stub.base_url, "shots": 2}).load()
        two.answer(items[:1])
    assert [len(r["messages"]) for r in stub.requests] == [4, 4, 6]
    assert stub.requests[2]["model"] == "mixtral"
    assert LLMExchange.objects.filter(purpose="answer", status="ok").count() == 3
    assert '[assistant]\n"Claude Rains"' in one.describe()["prompt_template"]


@pytest.mark.django_db
def test_openai_backend_on_error_empty_keeps_going():
    with OpenAIStub(lambda body: (500, {"error": {"message": "down"}})) as stub:
        backend = create_backend(
            "openai", {"model": "m", "base_url": stub.base_url, "on_error": "empty", "max_retries": 0}
        ).load()
        assert backend.answer([QAItem(1, "q", "c")]) == [""]
        failing = create_backend("openai", {"model": "m", "base_url": stub.base_url, "max_retries": 0}).load()
        with pytest.raises(ChatError):
            failing.answer([QAItem(1, "q", "c")])


@pytest.mark.django_db
def test_openai_run_as_a_job_stores_every_exchange(corpus):
    from annotation.models import Prediction
    from core.models import Job
    from core.runner import run_job
    from models_runner import inference, jobs

    seen = []

    def responder(body):
        seen.append(body["messages"][-1]["content"])
        if len(seen) == 2:
            return 429, {"error": {"message": "slow down"}}
        return '"Warsaw"' if "Warsaw" in seen[-1] else "NULL"

    with OpenAIStub(responder) as stub:
        run = inference.prepare_run(
            corpus,
            "gpt-stub",
            "openai",
            options={"model": "stub", "base_url": stub.base_url, "backoff_base": 0.01, "requests_per_minute": 0},
            batch_size=2,
        )
        job = run_job(run.job_id, jobs.run_body)
    assert job.status == Job.SUCCEEDED, job.error
    answers = dict(Prediction.objects.filter(system=run.system).values_list("question__external_id", "answer"))
    assert answers == {"q1": "", "q2": "Warsaw", "q3": "", "q4": "", "q5": ""}
    exchanges = LLMExchange.objects.filter(run=run)
    assert exchanges.count() == 5 and len(stub.requests) == 6
    assert sorted(exchanges.values_list("attempts", flat=True)) == [1, 1, 1, 1, 2]
    assert set(exchanges.values_list("question__corpus__name", flat=True)) == {"mini"}
    run.refresh_from_db()
    assert run.device == "api" and run.revision == "stub" and "[system]" in run.prompt_template


@pytest.mark.django_db
def test_openai_backend_applies_its_rate_limit():
    import time

    with OpenAIStub(lambda body: "NULL") as stub:
        backend = create_backend("openai", {"model": "m", "base_url": stub.base_url, "requests_per_minute": 600}).load()
        start = time.monotonic()
        backend.answer([QAItem(i, "q", "c") for i in range(4)])
        elapsed = time.monotonic() - start
    assert elapsed >= 0.3  # 4 requests, 0.1 s apart
    starts = list(LLMExchange.objects.order_by("id").values_list("created_at", flat=True))
    assert len(starts) == 4
