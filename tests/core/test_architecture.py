"""The house rules of docs/architecture.md, as bin/check-architecture checks them (.ci/run and the
pre-commit hooks run the script too): the tree keeps them, and the check does catch each breach."""

import importlib.machinery
import importlib.util
import textwrap

import pytest

from tests.conftest import REPO


def load_check():
    loader = importlib.machinery.SourceFileLoader("check_architecture", str(REPO / "bin" / "check-architecture"))
    spec = importlib.util.spec_from_loader("check_architecture", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


check = load_check()


def test_the_tree_keeps_the_house_rules():
    assert list(check.breaches(REPO)) == []


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


@pytest.mark.parametrize(
    ("rel", "text", "expected"),
    [
        (
            "annotation/x.py",
            "from evaluation.metrics import f1\n",
            "annotation imports evaluation.metrics: evaluation sits above",
        ),
        ("core/x.py", "import annotation.models\n", "core imports annotation.models: annotation sits above"),
        ("frames/x.py", "from evaluation import report\n", "frames imports evaluation.report: evaluation sits above"),
        ("evaluation/x.py", "from annotation.views.access import x\n", "another app's views module"),
        ("evaluation/y.py", "from annotation import api\n", "another app's api module"),
        ("models_runner/x.py", "from core.admin import JobAdmin\n", "another app's admin module"),
        ("frames/long.py", "def f():\n" + "    x = 1\n" * 80, "function f is 81 lines (at most 80)"),
        # config is the top layer: nothing imports it
        ("core/x.py", "from config.urls import urlpatterns\n", "core imports config.urls: config sits above core"),
        # an upward import through importlib or __import__ with a literal name
        (
            "frames/x.py",
            "import importlib\nreport = importlib.import_module('evaluation.report')\n",
            "frames imports evaluation.report: evaluation sits above",
        ),
        (
            "annotation/x.py",
            "views = __import__('frames.views')\n",
            "annotation imports frames.views: frames sits above",
        ),
        (
            "core/x.py",
            "from importlib import import_module\nimport_module('models_runner.chat')\n",
            "core imports models_runner.chat: models_runner sits above",
        ),
        ("models_runner/y.py", "import_module('annotation.api')\n", "another app's api module"),
        # a module over 800 lines, though each function is short
        ("evaluation/big.py", "x = 1\n" * 801, "module is 801 lines (at most 800)"),
        # a platform-wide setting naming an app above core
        (
            "config/settings.py",
            "MIDDLEWARE = ['django.middleware.common.CommonMiddleware', 'annotation.middleware.Guard']\n",
            "MIDDLEWARE names annotation.middleware.Guard: platform-wide settings run for every app",
        ),
        (
            "config/settings.py",
            "REST_FRAMEWORK = {'DEFAULT_PARSER_CLASSES': ['frames.parsers.P']}\n",
            "REST_FRAMEWORK names frames.parsers.P",
        ),
    ],
)
def test_each_breach_is_caught(tmp_path, rel, text, expected):
    write(tmp_path, rel, text)
    found = list(check.breaches(tmp_path))
    assert len(found) == 1 and expected in found[0] and found[0].startswith(f"{rel}:")


def test_allowed_imports_and_migrations_pass(tmp_path):
    write(tmp_path, "evaluation/ok.py", "from annotation.models import Corpus\nfrom frames.checking import rows\n")
    write(tmp_path, "frames/ok.py", "from models_runner.chat import ChatClient\nfrom core.permissions import x\n")
    write(tmp_path, "config/urls.py", "from models_runner.urls import download_urlpatterns\n")
    write(tmp_path, "annotation/migrations/0001.py", "def f():\n" + "    x = 1\n" * 200)
    write(tmp_path, "frames/ok80.py", "def f():\n" + "    x = 1\n" * 79)
    assert list(check.breaches(tmp_path)) == []


def test_a_top_level_package_outside_the_layers_is_caught(tmp_path):
    """A new app not placed in the layers fails at once, whatever it imports (here another app's views)."""
    write(tmp_path, "reports/__init__.py", "")
    write(tmp_path, "reports/x.py", "from evaluation.views import report_page\n")
    write(tmp_path, "stray.py", "import evaluation.views\n")
    found = list(check.breaches(tmp_path))
    assert found == [
        "reports/:1: top-level package reports is not in the layers core <- annotation <- models_runner <- frames "
        "<- evaluation <- config",
        "stray.py:1: top-level module stray.py is not in the layers core <- annotation <- models_runner <- frames "
        "<- evaluation <- config",
    ]


def test_docstrings_do_not_count_toward_the_function_limit(tmp_path):
    """80 lines of code pass whatever the docstring's length; 81 do not."""
    doc = '    """' + "A line of explanation.\n    " * 40 + '"""\n'
    write(tmp_path, "frames/doc.py", "def f():\n" + doc + "    x = 1\n" * 79)
    assert list(check.breaches(tmp_path)) == []
    write(tmp_path, "frames/doc.py", "def f():\n" + doc + "    x = 1\n" * 80)
    (found,) = check.breaches(tmp_path)
    assert found == "frames/doc.py:1: function f is 81 lines (at most 80) without its docstring"


def test_settings_keep_their_own_wiring(tmp_path):
    """Apps in INSTALLED_APPS, the URL conf and the Celery routes name apps: those are not platform-wide
    plumbing; settings naming core, Django or a library pass."""
    write(
        tmp_path,
        "config/settings.py",
        "INSTALLED_APPS = ['evaluation', 'frames.apps.FramesConfig']\nROOT_URLCONF = 'config.urls'\n"
        "CELERY_TASK_ROUTES = {'models_runner.tasks.run': {'queue': 'gpu'}}\n"
        "MIDDLEWARE = ['core.middleware.DomainErrorMiddleware', 'axes.middleware.AxesMiddleware']\n",
    )
    assert list(check.breaches(tmp_path)) == []
