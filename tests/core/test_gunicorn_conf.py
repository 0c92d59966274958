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
