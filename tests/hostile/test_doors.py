"""The doors of issue 33, point 9: what researchers, annotators and participants may read."""

import pytest

from core.runner import create_job

pytestmark = pytest.mark.django_db

LLM = {"endpoint": "lab-gpu", "base_url": "http://10.0.0.7:8001/v1", "api_key_env": "QAEVAL_LLM_KEY_LAB"}


def test_researchers_never_read_where_a_frame_job_sends_its_questions(client, make_user):
    job = create_job("predict_frames", {"corpus": "tiny", "model": "m", **LLM, "options": {"base_url": "http://x/"}})
    boss = make_user("boss", "admin")
    client.force_login(make_user("res", "researcher"))
    for url in ("/api/jobs/", f"/api/jobs/{job.pk}/"):
        body = client.get(url).json()
        shown = body["results"][0] if "results" in body else body
        assert shown["params"] == {"corpus": "tiny", "model": "m", "options": {}}, url
        assert "10.0.0.7" not in str(body) and "QAEVAL_LLM_KEY_LAB" not in str(body)
    client.force_login(boss)
    assert client.get(f"/api/jobs/{job.pk}/").json()["params"]["api_key_env"] == "QAEVAL_LLM_KEY_LAB"
