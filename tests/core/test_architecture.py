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
