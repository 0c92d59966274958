"""A file-based SQLite project of its own, for tests that run ``manage.py`` in real subprocesses
and kill them: the environment, the migrated database with one imported corpus, and reads of it."""

import os
import sqlite3
import subprocess
import sys

from tests.conftest import REPO, write_jsonl


def subprocess_env(tmp_path, **extra):
    """The environment of the subprocesses: test settings on ``tmp_path / "db.sqlite3"``."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.test_settings",
        "QAEVAL_TESTING": "1",
        "QAEVAL_VAR_DIR": str(tmp_path / "var"),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def migrate_and_import(env, tmp_path, rows, corpus):
    """Migrate the database and import ``rows`` as ``corpus``, in a subprocess."""
    corpus_file = write_jsonl(tmp_path / "corpus.jsonl", rows)
    setup = (
        "import django; django.setup(); from django.core.management import call_command; "
        "call_command('migrate', verbosity=0); "
        f"call_command('import_corpus', {str(corpus_file)!r}, corpus={corpus!r})"
    )
    done = subprocess.run([sys.executable, "-c", setup], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def query(db, sql, *params):
    """Rows of ``sql`` on the SQLite file ``db``, read while the subprocess may be writing."""
    con = sqlite3.connect(db, timeout=30)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()
