"""Fixtures of the integrity tests: a generated corpus big enough to load, and real Celery workers.

These tests run on PostgreSQL with a Redis broker (``DATABASE_URL=postgres://...``,
``CELERY_BROKER_URL=redis://...``, ``QAEVAL_SERVICES=1``, as ``.ci/run`` sets them). Without
``QAEVAL_SERVICES=1`` they are deselected; with it, a database that is not PostgreSQL or a service
that does not answer skips them, saying why, and fails them under ``CI=true`` (tests/conftest.py).
"""

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings

REPO = Path(__file__).resolve().parents[2]


def write_corpus(path, n_questions, n_systems=0, preds_path=None, seed=0):
    """A corpus JSONL of ``n_questions`` and, optionally, predictions of ``n_systems`` systems."""
    import json
    import random

    rng = random.Random(seed)
    words = ["river", "castle", "engine", "treaty", "harbor", "planet", "violin", "senate", "forest", "bridge"]
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n_questions):
            ctx = " ".join(rng.choice(words) for _ in range(40)) + f" number {i}."
            f.write(
                json.dumps(
                    {"id": f"q{i}", "context": ctx, "question": f"What is item {i}?", "answers": [f"number {i}"]}
                )
                + "\n"
            )
    if preds_path:
        with open(preds_path, "w", encoding="utf-8") as f:
            for s in range(n_systems):
                for i in range(n_questions):
                    answer = f"number {i}" if rng.random() < 0.5 else f"{rng.choice(words)} {rng.randrange(4)}"
                    f.write(json.dumps({"question_id": f"q{i}", "system": f"sys{s:02d}", "answer": answer}) + "\n")
    return path


class CeleryWorker:
    """``celery -A config worker`` as a subprocess on the test's database, on a queue of its own."""

    def __init__(self, queue, log_dir, extra_env=None):
        self.queue, self.log_path, self.extra_env = (
            queue,
            Path(log_dir) / f"worker-{uuid.uuid4().hex[:6]}.log",
            extra_env or {},
        )
        self.proc = None

    def env(self):
        db = settings.DATABASES["default"]
        auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
        env = {**os.environ, **self.extra_env}
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "config.test_settings",
                "DATABASE_URL": f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
                "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
                "CELERY_TASK_ALWAYS_EAGER": "0",
                "QAEVAL_JOBS_CONNECTION": "1",  # progress on a second connection, as in production
                "PYTHONPATH": str(REPO),
            }
        )
        return env

    def start(self, timeout=60):
        with open(self.log_path, "ab") as log:  # the worker keeps its own copy of the descriptor
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "worker",
                    "-Q",
                    self.queue,
                    "--pool",
                    "threads",
                    "--concurrency",
                    "2",
                    "-l",
                    "info",
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                    "-n",
                    f"{self.queue}@%h",
                ],
                cwd=REPO,
                env=self.env(),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"celery worker exited with {self.proc.returncode}:\n{self.output()}")
            if b" ready." in self.log_path.read_bytes():
                return self
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"celery worker not ready after {timeout} s:\n{self.output()}")

    def output(self):
        return self.log_path.read_text(errors="replace")[-4000:]

    def kill(self):
        """SIGKILL the whole worker (the machine died, the OOM killer struck): no cleanup runs."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
            self.proc.wait(10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def workers(tmp_path):
    """Start workers with ``workers.start()``; all are stopped at the end. ``workers.queue`` is unique."""
    from django.db import connections

    class Pool(list):
        queue = f"itest-{uuid.uuid4().hex[:10]}"

        def start(self, **extra_env):
            w = CeleryWorker(self.queue, tmp_path, extra_env).start()
            self.append(w)
            return w

    pool = Pool()
    yield pool
    for w in pool:
        w.stop()
    connections.close_all()


def wait_for(predicate, timeout, what, interval=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
