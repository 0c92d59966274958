"""A demo study travels SQLite -> PostgreSQL -> SQLite through export_study / import_study, each
step in its own process on its own database (SPEC 14): every label keeps its history, annotators
resume at the same item, quality rows, frame checks, judge labels, crowd participants and
active-design draws come back, the finished
report's report.json is the same and a report computed after each import equals the original."""

import json
import os
import subprocess
import sys
import uuid
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.conftest import REPO, SQUAD_SMALL, require
from tests.models_runner.subprocess_db import subprocess_env

pytestmark = [pytest.mark.services, pytest.mark.slow]


def _run(env, *args):
    done = subprocess.run(
        [sys.executable, "-m", "tests.study_fill", *map(str, args)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture
def postgres_url():
    """A PostgreSQL database of its own (named after the suite's, with a random suffix), dropped after."""
    import psycopg

    base = os.environ.get("DATABASE_URL", "")
    require(base.startswith("postgres"), "needs DATABASE_URL=postgres://... (the services run)")
    parts = urlsplit(base)
    name = f"{parts.path.lstrip('/') or 'qaeval'}_travel_{uuid.uuid4().hex[:8]}"
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as con:
        con.execute(f'CREATE DATABASE "{name}"')
    yield urlunsplit(parts._replace(path=f"/{name}"))
    with psycopg.connect(admin, autocommit=True) as con:
        con.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_demo_study_travels_sqlite_postgresql_sqlite(tmp_path, postgres_url):
    require(SQUAD_SMALL.exists(), f"shared data not found at {SQUAD_SMALL}")
    first = subprocess_env(tmp_path / "first", DATABASE_URL=f"sqlite:///{tmp_path / 'first.sqlite3'}")
    on_pg = subprocess_env(tmp_path / "pg", DATABASE_URL=postgres_url)
    last = subprocess_env(tmp_path / "last", DATABASE_URL=f"sqlite:///{tmp_path / 'last.sqlite3'}")
    _run(first, "fill", "demo", SQUAD_SMALL, tmp_path / "first.json", tmp_path / "first.zip")
    _run(on_pg, "restore", "demo", tmp_path / "first.zip", tmp_path / "pg.json", tmp_path / "pg.zip")
    _run(last, "restore", "demo", tmp_path / "pg.zip", tmp_path / "last.json", tmp_path / "last.zip")
    prints = [json.loads((tmp_path / f"{step}.json").read_text()) for step in ("first", "pg", "last")]
    origin = prints[0]
    assert len(origin["labels"]) >= 18 and any(len(row[-1]) > 1 for row in origin["labels"])  # histories
    assert origin["gold"] and origin["adjudications"] and origin["flags"] and origin["frame_checks"]
    assert origin["judge_labels"] and origin["exchanges"] == 2
    assert origin["participants"] and origin["study_folds"] and origin["design"]  # crowd, active design
    assert origin["finished_report"]["n_questions"] > 1000
    assert origin["report_now"] == origin["finished_report"]
    for n, (step, other) in enumerate(zip(("PostgreSQL", "SQLite again"), prints[1:], strict=True), 1):
        # each step's fingerprint computed one more report, which the next archive holds
        assert other["jobs"] == sorted(origin["jobs"] + n * [["report", "succeeded"]], key=repr), step
        for key in set(origin) - {"jobs"}:
            assert other[key] == origin[key], f"{step}: {key} differs after the import"
