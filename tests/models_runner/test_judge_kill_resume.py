"""A judge run (SPEC 10) killed with SIGKILL mid-run, in a real subprocess (``manage.py judge_corpus
--sync``) on a file-based SQLite database, against the local OpenAI-compatible stub: the resumed run
judges only the missing triplets and no triplet gets two labels of the judge."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.conftest import REPO
from tests.models_runner.subprocess_db import migrate_and_import, query, subprocess_env
from tests.openai_stub import OpenAIStub

N = 24


@pytest.mark.slow
def test_sigkill_mid_judge_run_then_resume_without_duplicates(tmp_path):
    db = tmp_path / "db.sqlite3"
    env = subprocess_env(tmp_path, OPENAI_API_KEY="sk-test")
    rows = [
        {
            "id": f"q{i}",
            "context": f"Team {i} won match {i}.",
            "question": f"Who won match {i}?",
            "answers": [f"Team {i}"],
        }
        for i in range(N)
    ]
    migrate_and_import(env, tmp_path, rows, "killme")

    def slow(body):
        time.sleep(0.15)
        return "Correct."

    count_sql = "SELECT count(*), count(DISTINCT triplet_id) FROM models_runner_judgelabel"
    with OpenAIStub(slow) as stub:
        args = [
            "--corpus",
            "killme",
            "--judge",
            "stub-judge",
            "--model",
            "stub",
            "--base-url",
            stub.base_url,
            "--batch-size",
            "2",
            "--sync",
        ]
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "judge_corpus", *args],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        saved, deadline = 0, time.monotonic() + 60
        while time.monotonic() < deadline and worker.poll() is None:
            try:
                saved = query(db, count_sql)[0][0]
            except sqlite3.OperationalError:
                saved = 0
            if saved >= 6:
                break
            time.sleep(0.05)
        assert worker.poll() is None, worker.communicate()
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
        saved = query(db, count_sql)[0][0]
        assert 6 <= saved < N
        ((job_id, status),) = query(db, "SELECT id, status FROM annotation_job WHERE kind = 'judge'")
        assert status == "running"
        refused = subprocess.run(
            [sys.executable, "manage.py", "judge_corpus", "--resume", str(job_id), "--sync"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert refused.returncode != 0 and "running elsewhere" in refused.stderr
        resumed = subprocess.run(
            [sys.executable, "manage.py", "judge_corpus", "--resume", str(job_id), "--force", "--sync"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert result["skipped_existing"] == saved and result["judged_now"] == N - saved
    assert query(db, count_sql)[0] == (N, N)
    assert query(db, "SELECT count(*) FROM annotation_label")[0][0] == 0
