"""LLM endpoints as admin records (issue 27, point 6): one function (``client_settings``) resolves a
name to client settings for frame prediction, the LLM judges and the OpenAI backend; the key stays
in the environment (only its variable's name is stored); without an endpoint, the settings and the
environment are used as before."""

import doctest

import pytest
from django.urls import reverse

from core.models import Job
from core.runner import create_job, run_job
from frames import jobs as frame_jobs
from models_runner import endpoints, judging
from models_runner.backends import BackendError, create_backend
from models_runner.models import LLMEndpoint
from tests.frames.test_frame_jobs import corpus, responder  # noqa: F401  (fixture)
from tests.openai_stub import OpenAIStub

pytestmark = pytest.mark.django_db


def test_client_settings_examples():
    assert doctest.testmod(endpoints, raise_on_error=False).failed == 0


@pytest.fixture
def stub():
    with OpenAIStub(responder) as server:
        yield server


@pytest.fixture
def local(stub, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("LLM_KEY_LOCAL", "local-secret")
    return LLMEndpoint.objects.create(
        name="local", base_url=stub.base_url, model="endpoint-model", api_key_env="LLM_KEY_LOCAL"
    )


def test_frame_prediction_calls_the_endpoint_with_its_key_and_model(corpus, stub, local):  # noqa: F811
    job = create_job(frame_jobs.JOB_KIND, params=frame_jobs.job_params(corpus.name, endpoint="local"))
    assert job.params["model"] == "" and "local-secret" not in str(job.params)  # the key is never stored
    job = run_job(job.pk, frame_jobs.frame_job_body)
    assert job.status == Job.SUCCEEDED, job.error
    assert {r["model"] for r in stub.requests} == {"endpoint-model"}
    assert {r["headers"]["authorization"] for r in stub.requests} == {"Bearer local-secret"}


def test_an_unknown_endpoint_fails_the_job_in_words(corpus, local):  # noqa: F811
    job = create_job(frame_jobs.JOB_KIND, params=frame_jobs.job_params(corpus.name, endpoint="gone"))
    job = run_job(job.pk, frame_jobs.frame_job_body)
    assert job.status == Job.FAILED and "no LLM endpoint named 'gone'" in job.error


def test_judges_and_the_openai_backend_read_the_endpoint(stub, local):
    p = judging.judge_parameters({"endpoint": "local"})
    assert (p["base_url"], p["model"], p["api_key_env"]) == (stub.base_url, "endpoint-model", "LLM_KEY_LOCAL")
    assert judging.judge_parameters({"endpoint": "local", "model": "other"})["model"] == "other"
    with pytest.raises(judging.JudgeError, match="no LLM endpoint named 'gone'"):
        judging.judge_parameters({"endpoint": "gone"})
    client = judging.make_client({"endpoint": "local"}, store=None)
    client.send([{"role": "user", "content": "Question : Qwerty uiop?\nFrom a list"}])
    assert stub.requests[-1]["model"] == "endpoint-model"
    backend = create_backend("openai", {"endpoint": "local"})
    backend.load()
    assert backend.model_path == f"{stub.base_url} :: endpoint-model"
    with pytest.raises(BackendError, match="no LLM endpoint named 'gone'"):
        create_backend("openai", {"endpoint": "gone"})


def test_without_an_endpoint_the_environment_is_the_fallback(monkeypatch, stub):
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    monkeypatch.setenv("OPENAI_BASE_URL", stub.base_url)
    client = judging.make_client({"model": "env-model"}, store=None)
    client.send([{"role": "user", "content": "Question : Qwerty uiop?\nFrom a list"}])
    assert stub.requests[-1]["model"] == "env-model"
    assert stub.requests[-1]["headers"]["authorization"] == "Bearer env-key"


def test_the_admin_keeps_endpoints_and_the_frames_form_offers_them(admin_client, corpus, local):  # noqa: F811
    page = admin_client.get(reverse("admin:models_runner_llmendpoint_changelist")).content.decode()
    assert "endpoint-model" in page and "LLM_KEY_LOCAL" in page and "local-secret" not in page
    bad = admin_client.post(
        reverse("admin:models_runner_llmendpoint_add"),
        {"name": "x", "base_url": "http://127.0.0.1:1/v1", "model": "m", "api_key_env": "sk-123 secret"},
    )
    assert bad.status_code == 200 and "a variable name" in bad.content.decode()
    assert not LLMEndpoint.objects.filter(name="x").exists()
    form = admin_client.get(reverse("admin:annotation_predict_frames", args=[corpus.pk])).content.decode()
    assert 'value="local"' in form
