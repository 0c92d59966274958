"""The edges of the app: broker down, hostile query strings and form fields, and the hardening.

Runs on any database (the PostgreSQL run of .ci/run runs it again). The broker-down tests start
their own ``redis-server`` on a free port, point the Celery app at it, then stop it: the shared
Redis is never touched.
"""

import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from core.models import Job
from tests.conftest import REPO, require

pytestmark = pytest.mark.django_db


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def private_redis(settings, monkeypatch):
    """A redis-server of this test; the Celery app uses it. ``.stop()`` takes it down."""
    require(shutil.which("redis-server"), "redis-server not installed")
    from config.celery import app

    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f"redis://127.0.0.1:{port}/0"
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.05)
    old = app.conf.broker_url
    monkeypatch.setenv("CELERY_BROKER_URL", url)  # Celery reads this variable before its settings
    app.conf.broker_url = url  # broker_problem() opens a fresh connection; nothing is sent via the pool
    settings.CELERY_TASK_ALWAYS_EAGER = False

    class Server:
        def stop(self):
            proc.terminate()
            proc.wait(10)

    yield Server()
    app.conf.broker_url = old
    if proc.poll() is None:
        proc.terminate()
        proc.wait(10)


def admin_client(client, make_user, role="admin"):
    client.force_login(make_user(f"u-{role}", role))
    return client


def test_broker_down_api_import_is_503_and_leaves_nothing(
    private_redis, client, make_user, tiny_corpus, settings, tmp_path
):
    settings.UPLOAD_DIR = tmp_path / "uploads"
    admin_client(client, make_user)
    assert client.get("/api/jobs/health/").json()["broker_ok"] is True
    private_redis.stop()
    before = Job.objects.count()
    upload = SimpleUploadedFile("p.jsonl", b'{"question_id": "q1", "system": "new", "answer": "x"}\n')
    response = client.post("/api/imports/", {"kind": "predictions", "corpus": "tiny", "file": upload})
    assert response.status_code == 503
    assert "task queue (Celery broker) is unreachable" in response.json()["detail"]
    assert Job.objects.count() == before  # no orphan "created" row
    assert not any((tmp_path / "uploads").iterdir())  # and no stored upload left behind
    health = client.get("/api/jobs/health/").json()
    assert health["ok"] is False and health["broker_ok"] is False and "unreachable" in health["message"]


def test_broker_down_report_page_and_api(private_redis, client, make_user, tiny_corpus):
    admin_client(client, make_user, "researcher")
    private_redis.stop()
    before = Job.objects.count()
    page = client.post("/research/", {"corpus": "tiny", "alpha": 5, "metric": "hscore", "n_boot": 10})
    assert page.status_code == 503
    assert "Jobs cannot start right now" in page.content.decode() and "unreachable" in page.content.decode()
    api = client.post("/research/api/reports/", {"corpus": "tiny"}, content_type="application/json")
    assert api.status_code == 503 and "unreachable" in api.json()["detail"]
    assert Job.objects.count() == before
    listing = client.get("/research/").content.decode()
    assert "The task queue (Celery broker) is unreachable" in listing


def test_no_worker_is_shown_on_the_jobs_page(private_redis, client, make_user):
    admin_client(client, make_user, "researcher")
    health = client.get("/api/jobs/health/").json()
    assert health["broker_ok"] is True and health["workers"] == [] and "No worker" in health["message"]
    assert "No worker has been seen" in client.get("/research/").content.decode()


# --- hostile query strings and form fields -------------------------------------------------------

HOSTILE_QUERIES = [
    ("/downloads/labels/", "corpus=ti%00ny"),
    ("/downloads/labels/", "format=csv%00"),
    ("/downloads/triplet-map/", "corpus=%00"),
    ("/api/labels/", "corpus=%00"),
    ("/api/labels/", "limit=%D9%A1%D9%A2"),  # Arabic-Indic digits
    ("/api/jobs/", "offset=%C2%B2"),  # superscript two
    ("/api/jobs/", "limit=10000000000000000000000000"),
    ("/api/jobs/", "offset=10000000000000000000000000"),
    ("/api/jobs/", "limit=-1"),
    ("/research/", "x%00=1"),
]


@pytest.mark.parametrize(("path", "query"), HOSTILE_QUERIES)
def test_hostile_query_strings_are_400(client, make_user, tiny_corpus, path, query):
    admin_client(client, make_user)
    response = client.get(f"{path}?{query}")
    assert response.status_code == 400, (path, query, response.status_code)


def test_hostile_form_fields_are_400(client, make_user, tiny_corpus):
    from annotation.assignments import assign_fold
    from annotation.fold_store import create_folds

    ann = make_user("ann", "annotator")
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    assign_fold(fold, ann)
    client.force_login(ann)
    for data in (
        {"item": "²", "value": "correct"},
        {"item": "١", "value": "correct"},
        {"item": "1", "value": "correct\x00"},
        {"item": "1", "value": "correct", "seconds": "١.٥"},
    ):
        assert client.post(f"/annotate/{fold.pk}/judge/", data).status_code == 400, data
    assert client.get(f"/annotate/{fold.pk}/previous/?before=²").status_code == 400
    # text with non-ASCII digits inside words is not a number: it passes the guard
    from core.middleware import problem_in

    assert problem_in("chapitre ٣ du livre") is None and problem_in("٣") and problem_in("-٣.٥")


def test_plain_limits_still_work(client, make_user, tiny_corpus):
    admin_client(client, make_user)
    data = client.get("/api/systems/?limit=2&offset=1").json()
    assert data["count"] == 4 and len(data["results"]) == 2


# --- hardening ------------------------------------------------------------------------------------


def test_csp_header_and_no_inline_script_in_any_template(client, make_user):
    admin_client(client, make_user)
    for path in ("/login/", "/research/", "/folds/", "/admin/"):
        csp = client.get(path)["Content-Security-Policy"]
        assert "script-src 'self'" in csp and "unsafe-inline" not in csp.split("script-src")[1].split(";")[0]
    roots = ("templates", "core", "annotation", "models_runner", "frames", "evaluation")
    templates = [p for root in roots for p in (REPO / root).rglob("*.html") if "templates" in p.parts]
    assert any("annotation" in p.parts for p in templates) and any("core" in p.parts for p in templates)
    for template in templates:
        text = template.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag, f"inline script in {template}"
        assert not re.search(r"\son[a-z]+\s*=", text), f"inline event handler in {template}"
        assert "javascript:" not in text, template


def test_no_store_on_api_and_downloads_but_not_on_pages(client, make_user, tiny_corpus):
    admin_client(client, make_user)
    for path in (
        "/api/jobs/",
        "/api/labels/",
        "/downloads/labels/?format=csv",
        "/downloads/triplet-map/",
        "/research/api/reports/",
    ):
        assert client.get(path)["Cache-Control"] == "no-store", path
    assert client.get("/research/").get("Cache-Control") != "no-store"


def test_api_schema_for_researchers_and_admins_only(client, make_user):
    """Issue 33 point 9: annotators and crowd participants read neither the schema nor its pages."""
    assert client.get("/api/schema/").status_code in (401, 403)
    client.force_login(make_user("ann", "annotator"))
    for url in ("/api/schema/?format=json", "/api/docs/", "/api/redoc/"):
        assert client.get(url).status_code == 403, url
    client.force_login(make_user("res", "researcher"))
    assert client.get("/api/schema/?format=json").status_code == 200
    assert client.get("/api/docs/").status_code == 200


def test_job_errors_without_paths_and_tracebacks_for_researchers(client, make_user):
    from evaluation.jobs import JOB_KIND

    job = Job.objects.create(
        kind=JOB_KIND,
        status=Job.FAILED,
        error=(
            "No such file: '/srv/qaeval/var/media/reports/7/table.csv'\n\nTraceback (most recent call last):\n"
            '  File "/srv/qaeval/evaluation/tasks.py", line 40, in report_body\n'
        ),
    )
    client.force_login(make_user("res", "researcher"))
    for text in (
        client.get(f"/api/jobs/{job.pk}/").json()["error"],
        client.get(f"/research/reports/{job.pk}/").content.decode(),
    ):
        assert "Traceback" not in text and "/srv/qaeval" not in text and "table.csv" in text
    client.force_login(make_user("boss", "admin"))
    full = client.get(f"/api/jobs/{job.pk}/").json()["error"]
    assert "Traceback" in full and "/srv/qaeval/evaluation/tasks.py" in full


def test_job_params_without_server_paths_for_researchers(client, make_user):
    """An import job's stored upload path (issue 27): researchers read the file name, admins the path."""
    stored = "/srv/qaeval/var/uploads/Ab12Cd34Ef56-preds.jsonl"
    job = Job.objects.create(
        kind="import", status=Job.SUCCEEDED, params={"kind": "predictions", "path": stored, "more": [{"p": stored}]}
    )
    client.force_login(make_user("res", "researcher"))
    for shown in (client.get(f"/api/jobs/{job.pk}/").json(), client.get("/api/jobs/").json()["results"][0]):
        assert "/srv/" not in str(shown), shown
        assert shown["params"] == {
            "kind": "predictions",
            "path": "Ab12Cd34Ef56-preds.jsonl",
            "more": [{"p": "Ab12Cd34Ef56-preds.jsonl"}],
        }
    client.force_login(make_user("boss", "admin"))
    assert client.get(f"/api/jobs/{job.pk}/").json()["params"]["path"] == stored


def test_upload_size_limit_and_stored_upload_removed_after_its_job(client, make_user, tiny_corpus, settings, tmp_path):
    from unittest import mock

    settings.UPLOAD_DIR = tmp_path / "uploads"
    settings.MAX_UPLOAD_BYTES = 100
    admin_client(client, make_user)
    big = SimpleUploadedFile("p.jsonl", b"x" * 101)
    response = client.post("/api/imports/", {"kind": "predictions", "corpus": "tiny", "file": big})
    assert response.status_code == 400 and "too large" in str(response.json())
    assert Job.objects.count() == 0
    line = b'{"question_id": "q1", "system": "new", "answer": "x"}\n'
    with mock.patch("annotation.jobs.enqueue", lambda job, task: job):
        response = client.post(
            "/api/imports/", {"kind": "predictions", "corpus": "tiny", "file": SimpleUploadedFile("p.jsonl", line)}
        )
    assert response.status_code == 202
    stored = list((tmp_path / "uploads").iterdir())
    assert len(stored) == 1
    from annotation.tasks import import_file

    assert import_file(response.json()["id"]) == "succeeded"
    assert not stored[0].exists()


def test_session_lifetime_is_shorter_with_secure():
    code = (
        "import os; os.environ['DJANGO_SETTINGS_MODULE']='config.settings'; import django; django.setup(); "
        "from django.conf import settings as s; print(s.SESSION_COOKIE_AGE, s.SESSION_EXPIRE_AT_BROWSER_CLOSE)"
    )
    env = {"SECRET_KEY": "k" * 50, "PATH": "/usr/bin:/bin", "QAEVAL_VAR_DIR": "/tmp/qaeval-session-test"}
    secure = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env={**env, "SECURE": "1"}, capture_output=True, text=True
    )
    plain = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    assert secure.stdout.split() == ["28800", "False"], secure.stderr  # issue 44: Max-Age on the cookie
    assert plain.stdout.split() == ["1209600", "False"], plain.stderr
    # an override stays sane (issue 33 point 9): a year under SECURE=1, zero or words stop the start
    for secure_flag, age, ok in (("1", "3600", True), ("1", "31536000", False), ("", "0", False), ("", "abc", False)):
        run = subprocess.run(
            [sys.executable, "-c", code],
            cwd=REPO,
            env={**env, "SECURE": secure_flag, "SESSION_COOKIE_AGE": age},
            capture_output=True,
            text=True,
        )
        if ok:
            assert run.stdout.split() == [age, "False"], run.stderr
        else:
            assert run.returncode != 0 and "SESSION_COOKIE_AGE must be a number of seconds from 300" in run.stderr
    assert Path(REPO / "README.md").read_text().count("SESSION_COOKIE_AGE") >= 1


def test_admin_jobs_page_shows_the_health_state(private_redis, client, make_user):
    boss = make_user("boss", "admin")
    boss.is_superuser = True
    boss.save()
    client.force_login(boss)
    assert "No worker has been seen" in client.get("/admin/core/job/").content.decode()
    private_redis.stop()
    assert "task queue (Celery broker) is unreachable" in client.get("/admin/core/job/").content.decode()


@pytest.mark.parametrize(
    "body",
    [
        '{"corpus": "tiny", "alpha": NaN}',
        '{"corpus": "tiny", "n_boot": 1e999}',
        '{"corpus": "tiny", "systems": ["a\\u0000b"]}',
        '{"corpus": "tiny", "seed": 100000000000000000000000000}',
        '{"corpus": "tiny", "x": ' + "[" * 200 + "]" * 200 + "}",
    ],
)
def test_hostile_json_bodies_are_400(client, make_user, tiny_corpus, body):
    admin_client(client, make_user, "researcher")
    before = Job.objects.count()
    response = client.post("/research/api/reports/", body, content_type="application/json")
    assert response.status_code == 400, response.content
    assert Job.objects.count() == before


def test_the_session_cookie_carries_its_max_age(client, make_user, settings):
    """Issue 44: the session cookie says how long it lives (Max-Age = SESSION_COOKIE_AGE), under
    SECURE=1 too (8 hours), instead of a browser-session cookie a restored browser keeps forever."""
    settings.SESSION_COOKIE_AGE = 8 * 3600
    make_user("keeper", "annotator")
    response = client.post("/login/", {"username": "keeper", "password": "pw-for-tests-1"})
    assert response.status_code == 302
    cookie = response.cookies[settings.SESSION_COOKIE_NAME]
    assert cookie["max-age"] == 8 * 3600 and cookie["expires"]
