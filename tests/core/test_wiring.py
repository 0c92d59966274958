"""How core is wired: the Job API keeps its addresses, resumable kinds are found without importing
anything by hand, every worker gets the reaper, and apps keep to their floors."""
import ast
import os
import subprocess
import sys

import pytest
from django.urls import resolve, reverse

from tests.conftest import REPO

APPS = ("core", "annotation", "models_runner", "evaluation")
# The frame proxy still lives in annotation and uses models_runner's chat client (it moves to its own app).
FRAME_PARTS = ("frame_", "framenet.py", "frames.py", "predict_frames.py", "build_frame_folds.py", "import_framenet.py")


def test_the_job_endpoints_keep_their_addresses_and_names():
    assert [reverse("api-jobs"), reverse("api-jobs-health"), reverse("api-job", args=[7]),
            reverse("api-job-cancel", args=[7])] == ["/api/jobs/", "/api/jobs/health/", "/api/jobs/7/",
                                                      "/api/jobs/7/cancel/"]
    assert resolve("/api/jobs/7/").func.view_class.__module__ == "core.api"
    assert reverse("download-judge-labels") == "/downloads/judge-labels/"
    assert resolve("/downloads/judge-labels/").func.__module__ == "models_runner.views"


def test_the_old_admin_addresses_of_jobs_lead_to_the_new_ones(admin_client):
    response = admin_client.get("/admin/annotation/job/12/change/?x=1")
    assert response.status_code == 302 and response["Location"] == "/admin/core/job/12/change/?x=1"
    assert admin_client.get("/admin/annotation/job/", follow=True).status_code == 200


def test_a_fresh_process_knows_every_resumable_kind_and_connects_the_reaper():
    code = ("import django; django.setup(); from core.reaper import resumers; "
            "from celery.signals import worker_ready; from core.worker import start_reaper; import config.celery; "
            "print(sorted(resumers())); print(any(r() is start_reaper for _, r in worker_ready.receivers))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings"})
    assert out.returncode == 0, out.stderr
    kinds, connected = out.stdout.strip().splitlines()[-2:]
    assert {"inference", "judge", "frames"} <= set(ast.literal_eval(kinds)) and connected == "True"


def imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def production_files(app):
    return [p for p in sorted((REPO / app).rglob("*.py")) if "migrations" not in p.parts]


@pytest.mark.parametrize("app", APPS)
def test_no_app_imports_another_apps_views_api_or_admin(app):
    bad = [f"{p.relative_to(REPO)}: {name}" for p in production_files(app) for name in imports(p)
           if name.split(".")[0] in APPS and name.split(".")[0] != app
           and len(name.split(".")) > 1 and name.split(".")[1] in ("views", "api", "admin")]
    assert bad == []


def test_core_imports_no_app_and_annotation_no_models_runner_outside_its_frame_parts():
    def reaches(app, others):
        return [f"{p.relative_to(REPO)}: {name}" for p in production_files(app) for name in imports(p)
                if name.split(".")[0] in others and not p.name.startswith(FRAME_PARTS)]

    assert reaches("core", ("annotation", "models_runner", "evaluation", "frames")) == []
    assert reaches("annotation", ("models_runner", "frames")) == []
