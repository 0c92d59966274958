"""A worker killed with SIGKILL in the middle of a run: the run resumes and every question ends with
exactly one prediction. The job runs in real subprocesses (``manage.py run_system --sync``) on a
file-based SQLite database of its own, with the baseline slowed down per batch."""

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

N = 24
BATCH = 2


def manage(env, *args, **kwargs):
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=120, **kwargs
    )


@pytest.mark.slow
def test_sigkill_mid_run_then_resume_without_duplicates(tmp_path):
    db = tmp_path / "db.sqlite3"
    env = subprocess_env(tmp_path)
    rows = [
        {
            "id": f"q{i}",
            "context": f"Team {i} won the match number {i} in the city of Town{i}.",
            "question": f"Which team won match number {i}?",
            "answers": [f"Team {i}"],
        }
        for i in range(N)
    ]
    migrate_and_import(env, tmp_path, rows, "killme")

    worker = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "run_system",
            "--corpus",
            "killme",
            "--system",
            "slow-lexical",
            "--backend",
            "baseline",
            "--batch-size",
            str(BATCH),
            "--option",
            "delay_s=0.25",
            "--sync",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    count_sql = (
        "SELECT count(*) FROM annotation_prediction p JOIN annotation_system s ON s.id = p.system_id "
        "WHERE s.name = 'slow-lexical'"
    )
    deadline = time.monotonic() + 60
    saved = 0
    while time.monotonic() < deadline and worker.poll() is None:
        if db.exists():
            try:
                saved = query(db, count_sql)[0][0]
            except sqlite3.OperationalError:
                saved = 0
        if saved >= 3 * BATCH:
            break
        time.sleep(0.05)
    assert worker.poll() is None, worker.communicate()
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    saved = query(db, count_sql)[0][0]
    assert 3 * BATCH <= saved < N  # killed mid-run, with some batches saved
    ((job_id, status, attempts),) = query(
        db, "SELECT id, status, attempts FROM annotation_job WHERE kind = 'inference'"
    )
    assert status == "running" and attempts == 1

    # The dead worker's heartbeat is still fresh: a resume refuses to run beside it ...
    refused = manage(env, "run_system", "--resume", str(job_id), "--sync")
    assert refused.returncode != 0 and "running elsewhere" in refused.stderr
    # ... until we say it is dead (a redelivered Celery task waits for the heartbeat to go stale).
    resumed = manage(env, "run_system", "--resume", str(job_id), "--force", "--sync")
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert result["skipped_existing"] == saved and result["answered_now"] == N - saved

    per_question = query(
        db,
        "SELECT q.external_id, count(p.id) FROM annotation_question q "
        "LEFT JOIN annotation_prediction p ON p.question_id = q.id AND p.system_id = "
        "(SELECT id FROM annotation_system WHERE name = 'slow-lexical') GROUP BY q.id",
    )
    assert len(per_question) == N and all(n == 1 for _, n in per_question)
    ((status, attempts, done, total),) = query(
        db, "SELECT status, attempts, progress_done, progress_total FROM annotation_job WHERE id = ?", job_id
    )
    assert (status, attempts, done, total) == ("succeeded", 2, N, N)
    unlinked = query(db, count_sql + " AND p.triplet_id IS NULL")[0][0]
    assert unlinked == 0
    ((questions_done,),) = query(db, "SELECT questions_done FROM models_runner_inferencerun")
    assert questions_done == N  # the killed attempt's saved batches counted once (issue 27)
