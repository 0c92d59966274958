"""Production settings pass ``manage.py check --deploy`` with no warning at all."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def deploy_check(tmp_path, **env):
    base = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "DEBUG",
            "QAEVAL_TESTING",
            "DJANGO_SETTINGS_MODULE",
            "AXES_ENABLED",
            "DATABASE_URL",
            "DJANGO_ALLOW_ASYNC_UNSAFE",
        )
    }
    base.update({"DJANGO_SETTINGS_MODULE": "config.settings", "QAEVAL_VAR_DIR": str(tmp_path), **env})
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env=base,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_have_no_deploy_warning(tmp_path):
    done = deploy_check(tmp_path, SECRET_KEY=secrets.token_urlsafe(60), SECURE="1", ALLOWED_HOSTS="example.org")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_the_check_fails_without_https_settings(tmp_path):
    # The same check does catch a bad production setup: without SECURE=1, cookies and HSTS are off.
    done = deploy_check(tmp_path, SECRET_KEY=secrets.token_urlsafe(60), ALLOWED_HOSTS="example.org")
    assert done.returncode != 0
    assert "security.W004" in done.stderr + done.stdout  # SECURE_HSTS_SECONDS


def test_production_refuses_to_start_without_a_secret_key(tmp_path):
    done = deploy_check(tmp_path, SECURE="1", ALLOWED_HOSTS="example.org", SECRET_KEY="")
    assert done.returncode != 0 and "SECRET_KEY must be set" in done.stderr
