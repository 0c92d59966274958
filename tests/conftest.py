import os
import pathlib

import pytest

from tests.browser_fixtures import browser, page  # noqa: F401  (one Playwright session for the whole run)

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED_DATA = pathlib.Path(os.environ.get("QAEVAL_SHARED_DATA", REPO.parent / "shared" / "data"))
SQUAD = SHARED_DATA / "squad-v1.1-dev"
SQUAD_SMALL = SQUAD / "small"


@pytest.fixture
def squad_small():
    if not SQUAD_SMALL.exists():
        pytest.skip(f"shared data not found at {SQUAD_SMALL}")
    return SQUAD_SMALL


def write_jsonl(path, rows):
    import json

    with open(path, "w", encoding="utf-8") as f:
        for row in rows:
            f.write((row if isinstance(row, str) else json.dumps(row, ensure_ascii=False)) + "\n")
    return path


@pytest.fixture
def tiny_corpus(tmp_path, db):
    """3 questions, reference + 3 systems, imported through the real importers."""
    from annotation.importers import import_corpus, import_predictions
    from annotation.models import Corpus

    corpus = write_jsonl(tmp_path / "corpus.jsonl", [
        {"id": "q1", "context": "Denver Broncos won Super Bowl 50 in 2016.", "question": "Who won?", "answers": ["Denver Broncos"]},
        {"id": "q2", "context": "Warsaw is the capital of Poland.", "question": "Capital of Poland?", "answers": ["Warsaw", "Warsaw"]},
        {"id": "q3", "context": "The game was in Santa Clara.", "question": "Where was the game?", "answers": ["Santa Clara"]},
    ])
    preds = write_jsonl(tmp_path / "predictions.jsonl", [
        {"question_id": "q1", "system": "sys-alpha", "answer": "Denver Broncos"},
        {"question_id": "q1", "system": "sys-beta", "answer": " Denver  Broncos"},
        {"question_id": "q1", "system": "sys-gamma", "answer": "Carolina Panthers"},
        {"question_id": "q2", "system": "sys-alpha", "answer": "Warsaw"},
        {"question_id": "q2", "system": "sys-beta", "answer": "Poland"},
        {"question_id": "q2", "system": "sys-gamma", "answer": ""},
        {"question_id": "q3", "system": "sys-alpha", "answer": "Santa Clara"},
        {"question_id": "q3", "system": "sys-beta", "answer": "Santa Clara, California"},
        {"question_id": "q3", "system": "sys-gamma", "answer": "Santa Clara"},
    ])
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


def pytest_collection_modifyitems(config, items):
    """`services` tests need PostgreSQL + Redis + a worker: .ci/run sets QAEVAL_SERVICES=1 for them."""
    if os.environ.get("QAEVAL_SERVICES") == "1" and os.environ.get("DATABASE_URL", "").startswith("postgres"):
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL + Redis + a Celery worker (run by .ci/run, QAEVAL_SERVICES=1)")
    for item in items:
        if "services" in item.keywords:
            item.add_marker(skip)
