"""The demo's passwords are kept where the server output cannot scroll them away (README: Try it)."""

import stat
from pathlib import Path

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db


def test_load_demo_writes_the_users_file_and_bin_run_demo_prints_it_after_starting_the_server(tmp_path, settings):
    settings.VAR_DIR = tmp_path / "var"
    write_jsonl(
        tmp_path / "corpus.jsonl",
        [
            {"id": "q1", "context": "Warsaw is big.", "question": "Where?", "answers": ["Warsaw"]},
            {"id": "q2", "context": "Paris too.", "question": "Which?", "answers": ["Paris"]},
        ],
    )
    write_jsonl(
        tmp_path / "predictions.jsonl",
        [
            {"question_id": "q1", "system": "s", "answer": "Warsaw"},
            {"question_id": "q2", "system": "s", "answer": "Paris"},
        ],
    )
    call_command("load_demo", data=str(tmp_path), annotators=2, password="demo-pass-12345")
    users = settings.VAR_DIR / "demo-users.txt"
    text = users.read_text()
    assert "admin        demo-pass-12345  (admin)" in text and "annotator1" in text and "researcher" in text
    assert stat.S_IMODE(users.stat().st_mode) == 0o600
    assert authenticate(username="annotator1", password="demo-pass-12345") is not None
    call_command("load_demo", data=str(tmp_path), annotators=2)  # a rerun changes no password...
    assert users.read_text() == text  # ...and keeps the file
    script = (Path(settings.BASE_DIR) / "bin" / "run-demo").read_text()
    printed, server = script.index("cat var/demo-users.txt"), script.index("gunicorn -c config/gunicorn.conf.py")
    # printed once the server is started (tests/core/test_run_demo_output.py runs the script: last, once)
    assert server < printed and "--access-logfile var/access.log" in script and "PORT" in script
