import os
import pathlib
import socket
import sys
from urllib.parse import urlsplit

import pytest

from tests.browser_fixtures import browser, page  # noqa: F401  (one Playwright session for the whole run)

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED_DATA = pathlib.Path(os.environ.get("QAEVAL_SHARED_DATA", REPO.parent / "shared" / "data"))
SQUAD = SHARED_DATA / "squad-v1.1-dev"
SQUAD_SMALL = SQUAD / "small"
PIAF_SMALL = SHARED_DATA / "piaf-v1.1" / "small"
SERVICES_REASON = "needs PostgreSQL + Redis + a Celery worker (run by .ci/run, QAEVAL_SERVICES=1)"
SERVICES_PROBLEM = pytest.StashKey[str]()  # why the services tests cannot run, set at collection


# --- missing prerequisites: a skip on a workstation, a failure in CI ---------------------------------


def in_ci():
    """True where the environment variable ``CI`` is ``true`` (as .ci/run and CI services set it)."""
    return os.environ.get("CI", "").strip().lower() == "true"


def skip_or_fail(message):
    """Skip the current test for a missing prerequisite (shared data, a service, a tool).

    Under ``CI=true`` the test fails instead, with the same message: a CI run never passes by
    skipping what it was meant to check. Every such skip of the suite goes through here.
    """
    if in_ci():
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def require(condition, message):
    """``skip_or_fail(message)`` unless ``condition`` holds."""
    if not condition:
        skip_or_fail(message)


REFERENCE = pathlib.Path(__file__).resolve().parents[1] / ".venv" / "reference"


def reference_module(name):
    """A module of the reference implementations (``tests/reference/requirements.txt``), which
    ``bin/test`` installs into ``.venv/reference``: that folder goes at the end of ``sys.path`` (the
    platform's own packages first). Missing: a skip, a failure under CI=true."""
    import importlib

    if REFERENCE.is_dir() and str(REFERENCE) not in sys.path:
        sys.path.append(str(REFERENCE))
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        skip_or_fail(f"reference implementation {name} not importable ({exc}): bin/test installs it")


@pytest.fixture
def squad_small():
    require(SQUAD_SMALL.exists(), f"shared data not found at {SQUAD_SMALL}")
    return SQUAD_SMALL


@pytest.fixture
def piaf_small_dir():
    """The folder of PIAF small (857 French questions, issue 25)."""
    require((PIAF_SMALL / "corpus.jsonl").exists(), f"shared data not found at {PIAF_SMALL}")
    return PIAF_SMALL


def write_jsonl(path, rows):
    import json

    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write((row if isinstance(row, str) else json.dumps(row, ensure_ascii=False)) + "\n")
    return path


@pytest.fixture
def tiny_corpus(tmp_path, db):
    """3 questions, reference + 3 systems, imported through the real importers."""
    return build_tiny_corpus(tmp_path)


def build_tiny_corpus(tmp_path):
    """The ``tiny_corpus`` fixture's corpus, for a fixture of a wider scope (its files go in ``tmp_path``)."""
    from annotation.importers import import_corpus, import_predictions
    from annotation.models import Corpus

    corpus = write_jsonl(
        tmp_path / "corpus.jsonl",
        [
            {
                "id": "q1",
                "context": "Denver Broncos won Super Bowl 50 in 2016.",
                "question": "Who won?",
                "answers": ["Denver Broncos"],
            },
            {
                "id": "q2",
                "context": "Warsaw is the capital of Poland.",
                "question": "Capital of Poland?",
                "answers": ["Warsaw", "Warsaw"],
            },
            {
                "id": "q3",
                "context": "The game was in Santa Clara.",
                "question": "Where was the game?",
                "answers": ["Santa Clara"],
            },
        ],
    )
    preds = write_jsonl(
        tmp_path / "predictions.jsonl",
        [
            {"question_id": "q1", "system": "sys-alpha", "answer": "Denver Broncos"},
            {"question_id": "q1", "system": "sys-beta", "answer": " Denver  Broncos"},
            {"question_id": "q1", "system": "sys-gamma", "answer": "Carolina Panthers"},
            {"question_id": "q2", "system": "sys-alpha", "answer": "Warsaw"},
            {"question_id": "q2", "system": "sys-beta", "answer": "Poland"},
            {"question_id": "q2", "system": "sys-gamma", "answer": ""},
            {"question_id": "q3", "system": "sys-alpha", "answer": "Santa Clara"},
            {"question_id": "q3", "system": "sys-beta", "answer": "Santa Clara, California"},
            {"question_id": "q3", "system": "sys-gamma", "answer": "Santa Clara"},
        ],
    )
    import_corpus(corpus, "tiny")
    import_predictions(preds, Corpus.objects.get(name="tiny"))
    return Corpus.objects.get(name="tiny")


@pytest.fixture
def make_user(db):
    from django.contrib.auth import get_user_model

    from core.roles import ensure_groups

    def make(username, role=None, password="pw-for-tests-1"):
        groups = ensure_groups()
        user = get_user_model().objects.create_user(username, password=password)
        if role == "admin":
            user.is_staff = True
            user.save()
            user.groups.add(groups["admin"])
        elif role:
            user.groups.add(groups[role])
        return user

    return make


def unreachable(url, default_port):
    """Why nothing answers at the host and port of ``url``, or "" when a TCP connection opens."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or default_port
    try:
        socket.create_connection((host, port), timeout=2).close()
    except OSError as e:
        return f"{host}:{port} ({e})"
    return ""


def services_problem():
    """Why the ``services`` tests cannot run although QAEVAL_SERVICES=1, or "" when they can."""
    database = os.environ.get("DATABASE_URL", "")
    if not database.startswith("postgres"):
        return f"QAEVAL_SERVICES=1 but DATABASE_URL is not postgres://...: {SERVICES_REASON}"
    if where := unreachable(database, 5432):
        return f"PostgreSQL not reachable at {where}: {SERVICES_REASON}"
    broker = os.environ.get("CELERY_BROKER_URL", "")
    if broker.startswith("redis") and (where := unreachable(broker, 6379)):
        return f"Redis not reachable at {where}: {SERVICES_REASON}"
    return ""


def pytest_collection_modifyitems(config, items):
    """`services` tests need PostgreSQL + Redis + a worker: .ci/run sets QAEVAL_SERVICES=1 for them.

    Without QAEVAL_SERVICES=1 (the SQLite run of bin/test) they are deselected, not skipped: that run
    is not meant to run them. With it, a service that does not answer skips them, or fails them
    under CI=true (see ``pytest_runtest_setup``).
    """
    services = [item for item in items if "services" in item.keywords]
    if not services:
        return
    if os.environ.get("QAEVAL_SERVICES") != "1":
        config.hook.pytest_deselected(items=services)
        items[:] = [item for item in items if "services" not in item.keywords]
        return
    config.stash[SERVICES_PROBLEM] = services_problem()


def pytest_runtest_setup(item):
    if "services" in item.keywords and (problem := item.config.stash.get(SERVICES_PROBLEM, "")):
        skip_or_fail(problem)


def fresh_process(code, timeout=120):
    """``code`` run by a new Python process in the repository, on the test settings (what a web or worker
    process knows at start-up, without this test process's imports): its CompletedProcess, text captured."""
    import subprocess
    import sys

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.test_settings"}
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=timeout, env=env
    )
