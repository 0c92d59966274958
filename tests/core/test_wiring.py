"""How core is wired: the Job API keeps its addresses, resumable kinds are found without importing
anything by hand, every worker gets the reaper, and apps keep to their floors."""

import ast

from django.urls import resolve, reverse

from tests.conftest import fresh_process


def test_the_job_endpoints_keep_their_addresses_and_names():
    assert [
        reverse("api-jobs"),
        reverse("api-jobs-health"),
        reverse("api-job", args=[7]),
        reverse("api-job-cancel", args=[7]),
    ] == ["/api/jobs/", "/api/jobs/health/", "/api/jobs/7/", "/api/jobs/7/cancel/"]
    assert resolve("/api/jobs/7/").func.view_class.__module__ == "core.api"
    assert reverse("download-judge-labels") == "/downloads/judge-labels/"
    assert resolve("/downloads/judge-labels/").func.__module__ == "models_runner.views"


def test_the_old_admin_addresses_of_jobs_lead_to_the_new_ones(admin_client):
    response = admin_client.get("/admin/annotation/job/12/change/?x=1")
    assert response.status_code == 302 and response["Location"] == "/admin/core/job/12/change/?x=1"
    assert admin_client.get("/admin/annotation/job/", follow=True).status_code == 200


def test_a_fresh_process_knows_every_resumable_kind_and_connects_the_reaper():
    code = (
        "import django; django.setup(); from core.reaper import resumers; "
        "from celery.signals import worker_ready; from core.worker import start_reaper; import config.celery; "
        "print(sorted(resumers())); print(any(r() is start_reaper for _, r in worker_ready.receivers))"
    )
    out = fresh_process(code)
    assert out.returncode == 0, out.stderr
    kinds, connected = out.stdout.strip().splitlines()[-2:]
    assert {"inference", "judge", "frames"} <= set(ast.literal_eval(kinds)) and connected == "True"


def test_the_old_admin_addresses_of_frame_models_lead_to_the_new_ones(admin_client):
    response = admin_client.get("/admin/annotation/framecheck/3/change/?y=2")
    assert response.status_code == 302 and response["Location"] == "/admin/frames/framecheck/3/change/?y=2"
    assert admin_client.get("/admin/annotation/framelexicon/", follow=True).status_code == 200
