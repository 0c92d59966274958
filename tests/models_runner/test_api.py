"""REST API of runs: admins start and cancel, researchers read, annotators get 403 everywhere."""

import pytest
from django.urls import reverse

from annotation.models import Prediction
from core.models import Job
from models_runner import inference, jobs
from models_runner.models import InferenceRun
from tests.models_runner.conftest import QUESTIONS

START = {"corpus": "mini", "system": "api-lexical", "backend": "baseline", "batch_size": 2, "options": {"window": 8}}


@pytest.fixture
def run(corpus):
    return inference.prepare_run(corpus, "existing", "baseline")


def endpoints(run):
    return {
        "runs": reverse("api-runs"),
        "run": reverse("api-run", args=[run.pk]),
        "cancel": reverse("api-run-cancel", args=[run.pk]),
        "backends": reverse("api-backends"),
    }


# role -> (endpoint, method) -> expected status
EXPECTED = {
    "admin": {
        ("runs", "get"): 200,
        ("runs", "post"): 202,
        ("runs", "put"): 405,
        ("runs", "delete"): 405,
        ("run", "get"): 200,
        ("run", "post"): 405,
        ("run", "put"): 405,
        ("run", "delete"): 405,
        ("cancel", "get"): 405,
        ("cancel", "post"): 200,
        ("cancel", "put"): 405,
        ("cancel", "delete"): 405,
        ("backends", "get"): 200,
        ("backends", "post"): 405,
        ("backends", "put"): 405,
        ("backends", "delete"): 405,
    },
    "researcher": {("runs", "get"): 200, ("run", "get"): 200, ("backends", "get"): 200, ("cancel", "get"): 405},
    "annotator": {},
}
METHODS = ("get", "post", "put", "delete")


@pytest.mark.parametrize("role", ["admin", "researcher", "annotator", None])
def test_permission_matrix(role, run, client, make_user, monkeypatch):
    monkeypatch.setattr(jobs, "start_run", inference.prepare_run)  # no broker
    if role:
        client.force_login(make_user(f"u-{role}", role))
    urls = endpoints(run)
    for name, url in urls.items():
        for method in METHODS:
            response = getattr(client, method)(
                url, START if method == "post" else None, content_type="application/json"
            )
            if role is None:
                expected = {401, 403}
            else:
                default = 403
                expected = {EXPECTED[role].get((name, method), default)}
                if role == "researcher" and method != "get":
                    expected = {403}
            assert response.status_code in expected, (role, name, method, response.status_code, response.content[:200])


def test_start_watch_and_cancel(corpus, client, make_user, django_capture_on_commit_callbacks):
    from config.celery import app

    client.force_login(make_user("boss", "admin"))
    app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("api-runs"), START, content_type="application/json")
    finally:
        app.conf.task_always_eager = False
    assert response.status_code == 202, response.content
    run_id = response.json()["id"]
    assert response.json()["status"] == "created"
    data = client.get(reverse("api-run", args=[run_id])).json()
    assert data["status"] == "succeeded" and data["percent"] == 100
    assert data["progress_done"] == data["progress_total"] == len(QUESTIONS)
    assert data["throughput_qps"] > 0 and data["device"] == "cpu" and data["parameters"] == {"window": 8}
    assert Prediction.objects.filter(system__name="api-lexical").count() == len(QUESTIONS)
    listed = client.get(reverse("api-runs"), {"corpus": "mini"}).json()
    assert [r["id"] for r in listed] == [run_id]
    queued = inference.prepare_run(corpus, "later", "baseline")
    cancelled = client.post(reverse("api-run-cancel", args=[queued.pk])).json()
    assert cancelled["status"] == Job.CANCELLED


def test_bad_start_requests_are_400(corpus, client, make_user):
    client.force_login(make_user("boss", "admin"))
    r = client.post(reverse("api-runs"), {**START, "corpus": "nope"}, content_type="application/json")
    assert r.status_code == 400 and "no corpus named" in r.json()["corpus"][0]
    r = client.post(reverse("api-runs"), {**START, "options": {"bogus": 1}}, content_type="application/json")
    assert r.status_code == 400 and "unknown option" in r.json()["detail"]
    r = client.post(reverse("api-runs"), {**START, "backend": "gpt9"}, content_type="application/json")
    assert r.status_code == 400 and "backend" in r.json()
    assert not InferenceRun.objects.exists()


def test_backends_endpoint_lists_options(client, make_user):
    client.force_login(make_user("res", "researcher"))
    data = {b["name"]: b for b in client.get(reverse("api-backends")).json()}
    assert set(data) == {"baseline", "extractive", "seq2seq", "causal", "openai"}
    assert data["seq2seq"]["options"]["max_new_tokens"] == 40 and "model" in data["causal"]["options"]
    assert data["openai"]["options"]["api_key_env"] == "OPENAI_API_KEY"


def test_researchers_never_read_the_llm_server_its_endpoint_or_key_variable(run, client, make_user):
    """Issue 44: ``/runs/api/runs/`` and the job's error show researchers no base URL, endpoint or key
    variable (in the run's parameters, its model path or its error); admins read them all."""
    from core.models import Job

    secret = {"endpoint": "lab-gpu", "base_url": "http://10.1.2.3:8000/v1", "api_key_env": "LLM_KEY_LAB"}
    run.parameters = {**run.parameters, **secret, "model": "m-7b", "shots": 2}
    run.model_path = "http://10.1.2.3:8000/v1 :: m-7b"
    run.save()
    Job.objects.filter(pk=run.job_id).update(
        status=Job.FAILED,
        error="no API key: set the environment variable LLM_KEY_LAB; chat request failed after 1 attempt(s): "
        "APIConnectionError: Connection error to http://10.1.2.3:8000/v1; no LLM endpoint named 'lab-gpu' "
        "(add it in the admin: LLM endpoints)\nTraceback ...",
    )
    client.force_login(make_user("res", "researcher"))
    for url in ("/runs/api/runs/", f"/runs/api/runs/{run.pk}/", f"/api/jobs/{run.job_id}/"):
        shown = client.get(url).content.decode()
        for word in ("10.1.2.3", "LLM_KEY_LAB", "lab-gpu", "api_key_env", "base_url"):
            assert word not in shown, (url, word)
    listed = client.get(f"/runs/api/runs/{run.pk}/").json()
    assert listed["parameters"]["model"] == "m-7b" and listed["parameters"]["shots"] == 2
    assert listed["model_path"].endswith(":: m-7b") and "no API key" in listed["error"]
    client.force_login(make_user("boss", "admin"))
    full = client.get(f"/runs/api/runs/{run.pk}/").json()
    assert full["parameters"]["api_key_env"] == "LLM_KEY_LAB" and "10.1.2.3" in full["model_path"]
    assert "LLM_KEY_LAB" in full["error"]
