"""Label Studio side by side with the platform, for the benchmarks of issue 34.

Label Studio is not a dependency of the platform and nothing of it is in this repository: give the
benchmark a virtual environment where it is installed, for instance

    python3.11 -m venv /tmp/ls-venv
    /tmp/ls-venv/bin/pip install label-studio==1.23.2 gunicorn==27.0.1

and pass ``--label-studio /tmp/ls-venv`` (or set ``LABEL_STUDIO_VENV``). The benchmark then runs
Label Studio on this machine in the same run as the platform, on the same items:

- ``label-studio init`` with an admin and a legacy API token, in a fresh data folder (SQLite);
- the same gunicorn as the platform (``--workers`` x ``--threads``, gthread), serving Label Studio's
  own WSGI application;
- a project whose labelling interface shows the context, the question and the answer and asks for
  one of correct / partial / incorrect (the platform's three labels);
- items imported through the API (``POST /api/projects/<id>/import``, JSON tasks), the way a
  researcher's script imports them; the call returns once the tasks are stored (its ``task_count``
  is checked);
- annotators who sign up through the page, log in (session cookie and CSRF token, as the browser),
  then label in the labelling stream: submit the annotation of the current task
  (``POST /api/tasks/<id>/annotations/``), then ask for the next one (``GET /api/projects/<id>/next``).
  That pair is Label Studio's round trip, the platform's being one htmx POST that saves and returns
  the next item. Label Studio's browser sends more requests than those two on each item (drafts,
  the project's counters); they are left out, so the comparison flatters Label Studio.

Server CPU is read from ``/proc`` for the gunicorn worker processes, as for the platform.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import time
from pathlib import Path

import requests

from .servers import Gunicorn, free_port

CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
LABEL_CONFIG = """<View>
  <Header value="$question"/>
  <Text name="context" value="$context"/>
  <Header value="$answer"/>
  <Choices name="label" toName="context" choice="single" required="true">
    <Choice value="correct"/><Choice value="partial"/><Choice value="incorrect"/>
  </Choices>
</View>"""


def venv_from(arg):
    """The Label Studio virtual environment to use: ``arg``, else ``$LABEL_STUDIO_VENV``, else None.
    Refuses one where ``label_studio`` is not installed, with the reason."""
    path = arg or os.environ.get("LABEL_STUDIO_VENV")
    if not path:
        return None
    venv = Path(path).resolve()
    if not (venv / "bin" / "label-studio").exists():
        raise SystemExit(f"{venv}: no bin/label-studio there (pip install label-studio==1.23.2 gunicorn in it)")
    return venv


class LabelStudio(Gunicorn):
    """One Label Studio server in its own data folder, with an admin token and one project per call
    of :meth:`new_project`. Same interface as the judge benchmark's checkouts: ``name``,
    ``start``, ``cpu_ms``, ``workers``, ``stop``."""

    def __init__(self, venv, workdir):
        self.venv = Path(venv)
        self.python = str(self.venv / "bin" / "python")
        self.version = subprocess.run(
            [self.python, "-c", "import importlib.metadata as m; print(m.version('label-studio'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        self.name = f"label-studio {self.version}"
        self.data = Path(workdir) / "label-studio"
        self.data.mkdir(parents=True)
        self.token = secrets.token_hex(20)
        self.password = "ls-" + secrets.token_hex(8)
        package = subprocess.run(
            [self.python, "-c", "import label_studio, os; print(os.path.dirname(label_studio.__file__))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        self.env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "GUNICORN_CMD_ARGS", "PYTHONPATH", "DEBUG")
        }
        self.env.update(
            {
                "LABEL_STUDIO_BASE_DATA_DIR": str(self.data),
                "DJANGO_SETTINGS_MODULE": "label_studio.core.settings.label_studio",
                "PYTHONPATH": package,
                "LOG_LEVEL": "WARNING",
                "DEBUG": "false",
            }
        )
        self.annotators = 0

    def init(self):
        """``label-studio init``: database, organization, admin with a legacy API token."""
        subprocess.run(
            [
                str(self.venv / "bin" / "label-studio"),
                "init",
                "--username",
                "admin@bench.local",
                "--password",
                self.password,
                "--user-token",
                self.token,
                "--enable-legacy-api-token",
                "--no-browser",
                "-q",
            ],
            env=self.env,
            cwd=self.data,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def start(self, args):
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        command = [
            self.python,
            "-m",
            "gunicorn",
            "label_studio.core.wsgi:application",
            "-b",
            f"127.0.0.1:{port}",
            "--workers",
            str(args.workers),
            "--threads",
            str(args.threads),
            "--worker-class",
            "gthread",
            "--log-level",
            "warning",
        ]
        return self.launch(
            command, env=self.env, cwd=self.data, workers=args.workers, probe="/user/login/", stderr=subprocess.DEVNULL
        )

    # --- the admin's API ----------------------------------------------------------------------

    def api(self, method, path, **kwargs):
        r = requests.request(
            method, f"{self.base}{path}", headers={"Authorization": f"Token {self.token}"}, timeout=600, **kwargs
        )
        if r.status_code >= 300:
            raise SystemExit(f"{self.name}: {method} {path} answered {r.status_code}: {r.text[:300]}")
        return r.json()

    def new_project(self, title):
        return self.api("POST", "/api/projects/", json={"title": title, "label_config": LABEL_CONFIG})["id"]

    def import_tasks(self, project, tasks):
        """Import ``tasks`` (dicts with context, question, answer) into ``project``; returns the wall
        seconds of the call, after checking that every task is stored."""
        t0 = time.perf_counter()
        out = self.api("POST", f"/api/projects/{project}/import", json=tasks)
        seconds = time.perf_counter() - t0
        stored = self.api("GET", f"/api/projects/{project}/")["task_number"]
        if out.get("task_count") != len(tasks) or stored != len(tasks):
            raise SystemExit(f"{self.name}: imported {out.get('task_count')} / stored {stored} of {len(tasks)} tasks")
        return seconds


class LabelStudioAnnotator:
    """An annotator who signs up, logs in and labels ``project`` in Label Studio's labelling stream.
    Same interface as the platform's annotator in the judge benchmark: ``tree``, ``judged``,
    ``judge(n)`` returning the client latencies in ms (one per round trip)."""

    LABELS = ("correct", "partial", "incorrect")

    def __init__(self, server, project, rng):
        self.tree, self.project, self.rng = server, project, rng
        server.annotators += 1
        email = f"annotator{server.annotators}@bench.local"
        for page in ("signup", "login"):  # signing up logs in too: the login is a fresh session's
            self.session = requests.Session()
            url = f"{server.base}/user/{page}/"
            token = CSRF_INPUT.search(self.session.get(url, timeout=60).text).group(1)
            form = {"email": email, "password": server.password, "csrfmiddlewaretoken": token}
            r = self.session.post(url, data=form, headers={"Referer": url}, timeout=60, allow_redirects=False)
            if r.status_code != 302:
                raise SystemExit(f"{server.name}: {page} of {email} answered HTTP {r.status_code}")
        self.headers = {"X-CSRFToken": self.session.cookies.get("csrftoken"), "Referer": f"{server.base}/"}
        self.task = self.next_task()
        self.judged = 0

    def next_task(self):
        r = self.session.get(f"{self.tree.base}/api/projects/{self.project}/next", timeout=60)
        if r.status_code != 200:
            raise SystemExit(f"{self.tree.name}: next task answered HTTP {r.status_code}: {r.text[:200]}")
        return r.json()["id"]

    def judge(self, n):
        latencies = []
        for _ in range(n):
            body = {
                "result": [
                    {
                        "from_name": "label",
                        "to_name": "context",
                        "type": "choices",
                        "value": {"choices": [self.rng.choice(self.LABELS)]},
                    }
                ],
                "lead_time": round(self.rng.uniform(1, 30), 2),
                "project": self.project,
            }
            t0 = time.perf_counter()
            r = self.session.post(
                f"{self.tree.base}/api/tasks/{self.task}/annotations/?project={self.project}",
                json=body,
                headers=self.headers,
                timeout=60,
            )
            if r.status_code != 201:
                raise SystemExit(f"{self.tree.name}: annotation answered HTTP {r.status_code}: {r.text[:200]}")
            self.task = self.next_task()
            latencies.append((time.perf_counter() - t0) * 1000)
            self.judged += 1
        return latencies
