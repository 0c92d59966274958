"""The doors of issue 33, point 9: what researchers, annotators and participants may read."""

import pytest

from core.models import Job
from core.runner import create_job

pytestmark = pytest.mark.django_db

LLM = {"endpoint": "lab-gpu", "base_url": "http://10.0.0.7:8001/v1", "api_key_env": "LLM_KEY_LAB"}


def test_researchers_never_read_where_a_frame_job_sends_its_questions(client, make_user):
    job = create_job("predict_frames", {"corpus": "tiny", "model": "m", **LLM, "options": {"base_url": "http://x/"}})
    boss = make_user("boss", "admin")
    client.force_login(make_user("res", "researcher"))
    for url in ("/api/jobs/", f"/api/jobs/{job.pk}/"):
        body = client.get(url).json()
        shown = body["results"][0] if "results" in body else body
        assert shown["params"] == {"corpus": "tiny", "model": "m", "options": {}}, url
        assert "10.0.0.7" not in str(body) and "LLM_KEY_LAB" not in str(body)
    client.force_login(boss)
    assert client.get(f"/api/jobs/{job.pk}/").json()["params"]["api_key_env"] == "LLM_KEY_LAB"


# --- key variables of LLM servers (point 4): only names made for it --------------------------------------

LEAKY = ("SECRET_KEY", "DATABASE_URL", "HOME")


@pytest.fixture
def stub(monkeypatch):
    from tests.frames.test_frame_jobs import responder
    from tests.openai_stub import OpenAIStub

    monkeypatch.setenv("SECRET_KEY", "the-platform-secret")
    monkeypatch.setenv("LLM_KEY_LAB", "lab-key")
    with OpenAIStub(responder) as server:
        yield server


@pytest.mark.parametrize("name", LEAKY)
def test_the_frame_form_refuses_a_key_variable_not_made_for_it(admin_client, tiny_corpus, stub, name):
    from frames import lexicon_store

    lexicon_store.ensure_shipped_lexicon()
    resp = admin_client.post(
        f"/admin/annotation/corpus/{tiny_corpus.pk}/predict-frames/",
        {"lexicon": lexicon_store.SHIPPED_NAME, "model": "m", "base_url": stub.base_url, "api_key_env": name},
    )
    page = resp.content.decode()
    assert resp.status_code == 200
    assert ("never an LLM key" if name != "HOME" else "not a variable made for an LLM key") in page
    assert not Job.objects.exists() and stub.requests == []


def test_the_endpoint_record_refuses_the_platform_secret(admin_client):
    from models_runner.models import LLMEndpoint

    resp = admin_client.post(
        "/admin/models_runner/llmendpoint/add/",
        {"name": "evil", "base_url": "http://127.0.0.1:1/v1", "model": "m", "api_key_env": "SECRET_KEY"},
    )
    assert resp.status_code == 200 and "never an LLM key" in resp.content.decode()
    assert not LLMEndpoint.objects.exists()


def test_the_api_refuses_it_for_a_model_run_and_a_judge(client, make_user, tiny_corpus):
    from models_runner import judging

    boss = make_user("boss", "admin")
    client.force_login(boss)
    resp = client.post(
        "/runs/api/runs/",
        {"corpus": "tiny", "system": "x", "backend": "openai", "options": {"model": "m", "api_key_env": "SECRET_KEY"}},
        content_type="application/json",
    )
    assert resp.status_code == 400 and "never an LLM key" in resp.json()["detail"]
    assert not Job.objects.exists()
    with pytest.raises(judging.JudgeError, match="DATABASE_URL is one of the platform's own variables"):
        judging.judge_parameters({"model": "m", "api_key_env": "DATABASE_URL"})


def test_at_run_time_a_job_stored_with_it_fails_and_sends_nothing(tiny_corpus, stub, settings):
    """A frame job written before the rule (or past the forms): refused by the client itself."""
    from core.runner import run_job
    from frames import jobs as frame_jobs
    from models_runner.chat import ChatClient
    from models_runner.endpoints import KeyVariableError

    params = frame_jobs.job_params("tiny", model="m", base_url=stub.base_url, api_key_env="LLM_KEY_LAB")
    job = create_job(frame_jobs.JOB_KIND, params={**params, "api_key_env": "SECRET_KEY"})
    job = run_job(job.pk, frame_jobs.frame_job_body)
    assert job.status == Job.FAILED and "SECRET_KEY is one of the platform's own variables" in job.error
    assert stub.requests == [] and "the-platform-secret" not in job.error
    with pytest.raises(KeyVariableError):
        ChatClient("m", base_url=stub.base_url, api_key_env="SECRET_KEY", store=None)
    # the names the deployment declares, and LLM_KEY_*, are fine
    settings.LLM_KEY_ENVS = ["LAB_TOKEN"]
    assert ChatClient("m", base_url=stub.base_url, api_key_env="LLM_KEY_LAB", store=None).model == "m"
    with pytest.raises(KeyVariableError, match="use LAB_TOKEN or a name starting with LLM_KEY_"):
        ChatClient("m", base_url=stub.base_url, api_key_env="OPENAI_API_KEY", store=None)
