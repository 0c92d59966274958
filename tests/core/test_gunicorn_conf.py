"""bin/run-demo's gunicorn configuration loads everything before the workers fork."""

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

CHECK = r"""
import runpy, sys
import django
django.setup()
from django.db import connections
conf = runpy.run_path("config/gunicorn.conf.py")
assert conf["preload_app"] is True and conf["wsgi_app"] == "config.wsgi:application"
assert "evaluation.report.pipeline" not in sys.modules and "pandas" not in sys.modules
connections["default"].ensure_connection()  # as if something had touched the database
conf["when_ready"](None)
from django.template import engines
cached = engines["django"].engine.template_loaders[0].get_template_cache
print("evaluation.report.pipeline" in sys.modules, "pandas" in sys.modules,
      connections["default"].connection is None, "annotation/_item.html" in cached)
"""


def test_when_ready_imports_the_views_and_templates_and_closes_connections(tmp_path):
    env = {
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
        "QAEVAL_VAR_DIR": str(tmp_path),
        "PATH": "/usr/bin:/bin",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    out = subprocess.run([sys.executable, "-c", CHECK], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", "True", "True"], out.stdout


def test_an_idle_kept_alive_connection_is_still_answered(tmp_path):
    """The connection reset with 50 annotators (issue 27): gunicorn's default keep-alive (2 s) closed
    a connection a client had left idle a few seconds, and the request the client sent just then was
    reset. With the run-demo configuration, a request after 4 s of silence is answered."""
    import http.client
    import os
    import secrets
    import signal
    import socket
    import time

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("DEBUG", "DJANGO_SETTINGS_MODULE")},
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "QAEVAL_VAR_DIR": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
    }
    argv = [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py", "--bind", f"127.0.0.1:{port}"]
    proc = subprocess.Popen([*argv, "--workers", "1"], cwd=REPO, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "gunicorn did not start"
                time.sleep(0.3)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/login/")
        conn.getresponse().read()
        time.sleep(4)
        conn.request("GET", "/login/")  # on the same connection: http.client never reconnects by itself
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
