"""A worker SIGKILLed mid-job, restarted as ``bin/run-demo`` starts it: the job recovers BY ITSELF.

Nothing here calls ``reap_jobs``, ``run_system --resume`` or touches a heartbeat: the test plays the
operator, who only restarts the worker with the command line of ``bin/run-demo`` (read from the
script itself; only ``--logfile`` points into the test's folder). The timings are shortened through
the environment (heartbeat 1 s, silent 6 s, reaper every 2 s) to keep the test short; with the
defaults (10 / 60 / 15 s) the bound is 75 s. Each job must end within ``BOUND`` seconds:

- an inference run (resumable) resumes on the restarted worker: every question ends with exactly
  one prediction, the job ``succeeded`` on its second attempt;
- a report (not resumable) ends ``failed`` with "worker lost", and serves no file.

Two brokers: the embedded default (SQLite + ``sqla+sqlite``, as ``bin/run-demo``; runs in the SQLite
suite) and Redis + PostgreSQL (``services``; a private ``redis-server`` on a free port, so
``-Q default,gpu`` takes no one else's task).
"""

import json
import os
import re
import shlex
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import REPO, write_corpus

BOUND = 120  # seconds from the restart to the job's end
FAST = {"QAEVAL_JOB_HEARTBEAT_SECONDS": "1", "QAEVAL_JOB_STALE_SECONDS": "6", "QAEVAL_JOB_REAP_SECONDS": "2"}


def run_demo_worker_argv(logfile):
    """The worker command line of ``bin/run-demo``, as written there."""
    line = next(ln for ln in (REPO / "bin" / "run-demo").read_text().splitlines() if ln.startswith(".venv/bin/celery "))
    argv = [a for a in shlex.split(line.rstrip(" &")) if not a.startswith((">", "2>"))]  # the shell's redirections
    argv[argv.index("--logfile") + 1] = str(logfile)
    return argv


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Site:
    """One deployment: environment, database reader, and a worker started like ``bin/run-demo``."""

    def __init__(self, tmp_path, env, query):
        self.tmp, self.env, self._query = tmp_path, env, query
        self.proc, self.logs = None, []

    def manage(self, *args):
        out = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=REPO, env=self.env, capture_output=True, text=True, timeout=300
        )
        assert out.returncode == 0, out.stdout + out.stderr
        return out.stdout

    def shell(self, code):
        return self.manage("shell", "-v", "0", "-c", code).strip().splitlines()[-1]

    def job(self, pk):
        status, attempts, error = self._query(
            f"SELECT status, attempts, error FROM annotation_job WHERE id = {int(pk)}"
        )[0]
        return {"status": status, "attempts": attempts, "error": error}

    def count(self, sql):
        return self._query(sql)[0][0]

    def start_worker(self, timeout=90):
        log = self.tmp / f"celery-{len(self.logs)}.log"
        out = log.with_suffix(".out")  # Django's LOGGING keeps the root logger on the console
        self.logs += [log, out]
        with open(out, "wb") as sink:
            self.proc = subprocess.Popen(
                run_demo_worker_argv(log),
                cwd=REPO,
                env=self.env,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, f"worker exited {self.proc.returncode}: {self.output()}"
            if any(p.exists() and b" ready." in p.read_bytes() for p in (log, out)):
                return
            time.sleep(0.1)
        raise AssertionError(f"worker not ready: {self.output()}")

    def kill_worker(self):
        """SIGKILL the worker and its pool processes: no cleanup code runs."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop_worker(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.kill_worker()

    def output(self):
        return "\n".join(p.read_text(errors="replace")[-3000:] for p in self.logs if p.exists())

    def wait(self, predicate, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = predicate()
            if value:
                return value
            time.sleep(0.2)
        raise AssertionError(f"timed out after {timeout} s waiting for {what}\n{self.output()}")


def base_env(tmp_path):
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "DATABASE_URL",
            "CELERY_BROKER_URL",
            "CELERY_TASK_ALWAYS_EAGER",
            "QAEVAL_JOBS_CONNECTION",
            "QAEVAL_TESTING",
        )
    }
    env.update(
        FAST,
        DJANGO_SETTINGS_MODULE="config.settings",
        SECRET_KEY="recovery-test-" + "k" * 40,
        QAEVAL_VAR_DIR=str(tmp_path / "var"),
        OPENAI_API_KEY="test-key",
        PYTHONPATH=str(REPO),
    )
    return env


@pytest.fixture
def embedded_site(tmp_path):
    """SQLite + the embedded sqla+sqlite broker in a folder of its own: ``bin/run-demo``'s default."""
    env = base_env(tmp_path)
    db = tmp_path / "var" / "db.sqlite3"

    def query(sql):
        with sqlite3.connect(db, timeout=30) as conn:
            return conn.execute(sql).fetchall()

    site = Site(tmp_path, env, query)
    site.manage("migrate", "--noinput", "-v0")
    yield site
    site.stop_worker()


@pytest.fixture
def redis_site(tmp_path, transactional_db):
    """PostgreSQL (pytest-django's test database) + a private redis-server on a free port."""
    from django.conf import settings
    from django.db import connection

    port = free_port()
    redis = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    db = settings.DATABASES["default"]
    env = base_env(tmp_path)
    env.update(
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        CELERY_BROKER_URL=f"redis://127.0.0.1:{port}/0",
    )

    def query(sql):
        with connection.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()

    site = Site(tmp_path, env, query)
    for _ in range(50):
        if subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).returncode == 0:
            break
        time.sleep(0.1)
    yield site
    site.stop_worker()
    redis.terminate()
    redis.wait(10)


def inference_recovers(site):
    from tests.openai_stub import OpenAIStub

    n = 60
    write_corpus(site.tmp / "c.jsonl", n)
    site.manage("import_corpus", str(site.tmp / "c.jsonl"), "--corpus", "infer", "--no-reference-system")

    def slow(body):
        time.sleep(0.1)
        return "number 1"

    with OpenAIStub(slow) as stub:
        out = site.manage(
            "run_system",
            "--corpus",
            "infer",
            "--system",
            "stub-llm",
            "--backend",
            "openai",
            "--model",
            "stub",
            "--option",
            f"base_url={stub.base_url}",
            "--option",
            "max_retries=0",
            "--batch-size",
            "2",
        )
        job_id = int(re.search(r"job (\d+) queued", out).group(1))
        preds = "SELECT COUNT(*) FROM annotation_prediction"
        site.start_worker()
        site.wait(lambda: site.count(preds) >= 10, 90, "some batches answered")
        site.kill_worker()
        saved = site.count(preds)
        assert 10 <= saved < n and site.job(job_id)["status"] == "running"

        site.start_worker()  # the operator's only action
        site.wait(
            lambda: site.job(job_id)["status"] in ("succeeded", "failed", "cancelled"), BOUND, "the run to resume"
        )
    job = site.job(job_id)
    assert job["status"] == "succeeded", job["error"]
    assert job["attempts"] == 2
    assert site.count(preds) == n
    assert site.count("SELECT COUNT(DISTINCT question_id) FROM annotation_prediction") == n


def report_fails(site):
    write_corpus(site.tmp / "r.jsonl", 1500, 40, site.tmp / "rp.jsonl", seed=3)
    site.manage("import_corpus", str(site.tmp / "r.jsonl"), "--corpus", "rep")
    site.manage("import_predictions", str(site.tmp / "rp.jsonl"), "--corpus", "rep")
    site.start_worker()
    job_id = int(
        site.shell(
            "from annotation.models import Corpus; from evaluation.jobs import start_report; "
            "print(start_report(Corpus.objects.get(name='rep'), n_boot=20000).pk)"
        )
    )
    site.wait(lambda: site.job(job_id)["status"] == "running", 60, "the report to start")
    site.kill_worker()
    assert site.job(job_id)["status"] == "running"

    site.start_worker()
    site.wait(lambda: site.job(job_id)["status"] != "running", BOUND, "the reaper")
    job = site.job(job_id)
    assert job["status"] == "failed" and "worker lost" in job["error"], job
    served = json.loads(
        site.shell(
            "import json; from core.models import Job; from evaluation import files; "
            f"j = Job.objects.get(pk={job_id}); print(json.dumps(files.file_names(j)))"
        )
    )
    assert served == []


@pytest.mark.slow
def test_embedded_broker_inference_resumes_by_itself(embedded_site):
    inference_recovers(embedded_site)


@pytest.mark.slow
def test_embedded_broker_report_fails_by_itself(embedded_site):
    report_fails(embedded_site)


@pytest.mark.services
def test_redis_inference_resumes_by_itself(redis_site):
    inference_recovers(redis_site)


@pytest.mark.services
def test_redis_report_fails_by_itself(redis_site):
    report_fails(redis_site)


def test_the_demo_worker_line_is_what_the_test_runs():
    argv = run_demo_worker_argv(Path("/tmp/x.log"))
    assert argv[:4] == [".venv/bin/celery", "-A", "config", "worker"] and "-Q" in argv
