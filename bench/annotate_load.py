"""Load benchmark of the annotator's label-and-next loop, end to end over real HTTP.

What it does, all on 127.0.0.1:

1. sets up a throwaway database (SQLite file in a temp dir, or a fresh PostgreSQL database with
   ``--db postgres``), migrates it and loads the demo (``load_demo``: the small SQuAD dev set,
   10 systems, one fold per annotator, with the 10 % overlap copies shared between folds);
2. starts gunicorn on a free port (``gthread`` workers, configurable);
3. N annotators, each in its own thread with its own cookie session, log in through ``/login/``
   like a browser (CSRF token from the form), open ``/annotate/<fold>/`` and then run the htmx loop:
   POST ``/annotate/<fold>/judge/`` with the fragment's item and submission_id, parse the next
   fragment, repeat (``--requests-per-user`` judgements, at most ``--max-seconds``). A share of the
   posts (``--double-submit``) is sent twice with the same submission_id, as a double click would
   (same label: 200 and nothing added; another label under that id: 409 and nothing stored);
4. prints p50/p95/p99 latency and throughput of the judge requests, and the errors;
5. checks in the database that every acknowledged judgement is stored exactly once, with the
   value sent, and that the repeated submissions added nothing.

``--check`` exits 1 on any error or lost/duplicated label; ``--short`` is the small CI form.

    python bench/annotate_load.py --users 8 --requests-per-user 100
    python bench/annotate_load.py --users 50 --db postgres
    python bench/annotate_load.py --short --check
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests
from kit.servers import free_port, stop

REPO = Path(__file__).resolve().parent.parent
PASSWORD = "bench-" + secrets.token_hex(6)
LABELS = ("correct", "partial", "incorrect")

ITEM_RE = re.compile(r'name="item" value="(\d+)"')
SUBMISSION_RE = re.compile(r'name="submission_id" value="([0-9a-f]+)"')
CSRF_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
DONE_RE = re.compile(r"Fold finished")


# --- environment: database, demo data, server ---------------------------------------------------


def make_env(args, workdir):
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "DJANGO_SETTINGS_MODULE", "AXES_ENABLED")}
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "QAEVAL_VAR_DIR": str(workdir),
            "LOG_LEVEL": "WARNING",
            "PYTHONPATH": str(REPO),
        }
    )
    if args.db == "postgres":
        env["DATABASE_URL"] = f"{args.pg_url.rstrip('/')}/{args.pg_name}"
    else:
        env["DATABASE_URL"] = f"sqlite:///{workdir / 'bench.sqlite3'}"
    return env


def pg_admin(args, sql):
    import psycopg

    with psycopg.connect(f"{args.pg_url.rstrip('/')}/postgres", autocommit=True) as conn:
        conn.execute(sql)


def manage(env, *argv):
    subprocess.run(
        [sys.executable, str(REPO / "manage.py"), *argv], env=env, cwd=REPO, check=True, stdout=subprocess.DEVNULL
    )


def start_server(args, env, port):
    # bin/run-demo's configuration (app preloaded in the master), with this benchmark's sizing.
    cmd = [
        sys.executable,
        "-m",
        "gunicorn",
        "-c",
        "config/gunicorn.conf.py",
        "--bind",
        f"127.0.0.1:{port}",
        "--worker-class",
        args.worker_class,
        "--workers",
        str(args.workers),
        "--threads",
        str(args.threads),
        "--timeout",
        "60",
        "--backlog",
        "256",
        "--log-level",
        "warning",
        "--access-logfile",
        "/dev/null",
    ]
    proc = subprocess.Popen(cmd, env=env, cwd=REPO, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"gunicorn exited with {proc.returncode}")
        try:
            if requests.get(f"http://127.0.0.1:{port}/login/", timeout=2).status_code == 200:
                return proc
        except requests.RequestException:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("gunicorn did not answer within 120 s")


def stop_server(proc):
    stop(proc)


# --- one annotator ------------------------------------------------------------------------------


@dataclass
class Annotator:
    username: str
    fold_id: int
    base: str
    judge_ms: list = field(default_factory=list)
    page_ms: list = field(default_factory=list)
    sent: dict = field(default_factory=dict)  # item id -> label value acknowledged by the server
    repeats: int = 0
    errors: list = field(default_factory=list)
    finished: bool = False

    def error(self, what):
        self.errors.append(f"{self.username}: {what}")


def parse_fragment(text):
    """``(item_id, submission_id, csrf)`` of a page or fragment; item None when the fold is done."""
    csrf = CSRF_RE.search(text)
    item, sub = ITEM_RE.search(text), SUBMISSION_RE.search(text)
    if item and sub and csrf:
        return int(item.group(1)), sub.group(1), csrf.group(1)
    if DONE_RE.search(text):
        return None, None, None
    raise ValueError("fragment has no item form and is not the finished page")


def login(session, base, username, timeout):
    page = session.get(f"{base}/login/", timeout=timeout)
    token = CSRF_RE.search(page.text).group(1)
    r = session.post(
        f"{base}/login/",
        data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token, "next": ""},
        headers={"Referer": f"{base}/login/"},
        timeout=timeout,
        allow_redirects=False,
    )
    if r.status_code != 302:
        raise RuntimeError(f"login failed with HTTP {r.status_code}")


def run_annotator(a, args, start_gate, clock, rng):
    session = requests.Session()
    timeout = args.timeout
    try:
        login(session, a.base, a.username, timeout)
    except Exception as exc:
        a.error(f"login: {exc}")
        start_gate.wait()
        return
    start_gate.wait()
    while "stop_at" not in clock:
        time.sleep(0.001)
    stop_at = clock["stop_at"]
    url = f"{a.base}/annotate/{a.fold_id}/"
    try:
        t0 = time.perf_counter()
        r = session.get(url, timeout=timeout)
        a.page_ms.append((time.perf_counter() - t0) * 1000)
        if r.status_code != 200:
            a.error(f"GET page: HTTP {r.status_code}")
            return
        item, sub, csrf = parse_fragment(r.text)
    except Exception as exc:
        a.error(f"GET page: {exc!r}")
        return
    headers = {"HX-Request": "true", "HX-Current-URL": url, "Referer": url}
    for _ in range(args.requests_per_user):
        if item is None:
            a.finished = True
            return
        if time.monotonic() >= stop_at:
            return
        if args.think_ms:
            time.sleep(rng.expovariate(1000.0 / args.think_ms))
        value = rng.choice(LABELS)
        data = {
            "csrfmiddlewaretoken": csrf,
            "item": str(item),
            "submission_id": sub,
            "seconds": f"{rng.uniform(1, 30):.2f}",
            "value": value,
        }
        try:
            t0 = time.perf_counter()
            r = session.post(f"{url}judge/", data=data, headers=headers, timeout=timeout)
            a.judge_ms.append((time.perf_counter() - t0) * 1000)
            if r.status_code != 200:
                a.error(f"POST judge item {item}: HTTP {r.status_code}")
                return
            a.sent[item] = value
            if rng.random() < args.double_submit:
                # The same form posted again (double click, retried request) must change nothing:
                # with the same label it is a no-op (200); with another label under the used
                # submission id it is refused loudly (409), never stored nor silently dropped.
                again_value = rng.choice(LABELS)
                t0 = time.perf_counter()
                again = session.post(
                    f"{url}judge/", data={**data, "value": again_value}, headers=headers, timeout=timeout
                )
                a.judge_ms.append((time.perf_counter() - t0) * 1000)
                expected = 200 if again_value == value else 409
                if again.status_code != expected:
                    a.error(f"repeated POST item {item}: HTTP {again.status_code}, expected {expected}")
                    return
                a.repeats += 1
            item, sub, csrf = parse_fragment(r.text)
        except Exception as exc:
            a.error(f"POST judge item {item}: {exc!r}")
            return


# --- database check -----------------------------------------------------------------------------


def check_database(env, annotators):
    """Compare what the server acknowledged with what the database holds. Returns problem strings."""
    payload = {a.username: {str(k): v for k, v in a.sent.items()} for a in annotators}
    code = r"""
import json, sys
import django
django.setup()
from annotation.models import FoldItem, Label, LabelEvent
sent = json.load(sys.stdin)
problems = []
names = list(sent)
labels = {}
for l in Label.objects.filter(annotator__username__in=names).values(
    "annotator__username", "triplet_id", "value", "events__id"
):
    labels.setdefault((l["annotator__username"], l["triplet_id"]), {"value": l["value"], "events": 0})
    labels[(l["annotator__username"], l["triplet_id"])]["events"] += l["events__id"] is not None
item_triplet = {  # items travel by handle (unique within a fold), resolved through each annotator's folds
    (name, handle): triplet
    for name, handle, triplet in FoldItem.objects.filter(
        fold__assignments__annotator__username__in=names, handle__in={int(i) for s in sent.values() for i in s}
    ).values_list("fold__assignments__annotator__username", "handle", "triplet_id")
}
expected = {}
for name, items in sent.items():
    for item, value in items.items():
        key = (name, item_triplet[(name, int(item))])
        if key in expected:
            problems.append(f"{name} was shown triplet {key[1]} twice")
        expected[key] = value
for key, value in expected.items():
    got = labels.get(key)
    if got is None:
        problems.append(f"lost label: {key[0]} triplet {key[1]}")
    elif got["value"] != value:
        problems.append(f"{key[0]} triplet {key[1]}: stored {got['value']!r}, sent {value!r}")
    elif got["events"] != 1:
        problems.append(f"{key[0]} triplet {key[1]}: {got['events']} history events for one judgement")
for key in set(labels) - set(expected):
    problems.append(f"unexpected label: {key[0]} triplet {key[1]}")
print(json.dumps({"labels": len(labels), "expected": len(expected),
                  "events": LabelEvent.objects.filter(label__annotator__username__in=names).count(),
                  "problems": problems[:50], "n_problems": len(problems)}))
"""
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=REPO,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def fold_of_each_annotator(env, n):
    code = r"""
import json, django
django.setup()
from annotation.models import Assignment, Fold
rows = Assignment.objects.filter(
    fold__kind=Fold.KIND_TRIPLET, annotator__username__startswith="annotator"
).values_list("annotator__username", "fold_id")
print(json.dumps(sorted(rows)))
"""
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, check=True)
    rows = json.loads(out.stdout.strip().splitlines()[-1])
    folds = {}
    for name, fold in rows:
        folds.setdefault(name, fold)
    return [(f"annotator{i}", folds[f"annotator{i}"]) for i in range(1, n + 1)]


# --- figures ------------------------------------------------------------------------------------


def percentile(values, q):
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary(annotators, elapsed):
    judge = [ms for a in annotators for ms in a.judge_ms]
    pages = [ms for a in annotators for ms in a.page_ms]
    return {
        "judge_requests": len(judge),
        "judgements": sum(len(a.sent) for a in annotators),
        "repeated_submits": sum(a.repeats for a in annotators),
        "elapsed_s": round(elapsed, 2),
        "throughput_rps": round(len(judge) / elapsed, 1) if elapsed else 0.0,
        "p50_ms": round(percentile(judge, 50), 1),
        "p95_ms": round(percentile(judge, 95), 1),
        "p99_ms": round(percentile(judge, 99), 1),
        "max_ms": round(max(judge), 1) if judge else float("nan"),
        "mean_ms": round(statistics.fmean(judge), 1) if judge else float("nan"),
        "page_p50_ms": round(percentile(pages, 50), 1),
        "errors": sum(len(a.errors) for a in annotators),
        "folds_finished": sum(a.finished for a in annotators),
    }


def run(args):
    workdir = Path(tempfile.mkdtemp(prefix="qaeval-bench-"))
    (workdir / "staticfiles").mkdir()
    if args.db == "postgres":
        args.pg_name = args.pg_name or f"qaeval_bench_{os.getpid()}"
        pg_admin(args, f'DROP DATABASE IF EXISTS "{args.pg_name}"')
        pg_admin(args, f'CREATE DATABASE "{args.pg_name}"')
    env = make_env(args, workdir)
    server = None
    try:
        t0 = time.monotonic()
        manage(env, "migrate", "-v", "0")
        manage(env, "load_demo", "--password", PASSWORD, "--annotators", str(args.users))
        print(f"setup: {time.monotonic() - t0:.1f} s ({args.db})", flush=True)
        port = free_port()
        server = start_server(args, env, port)
        base = f"http://127.0.0.1:{port}"
        annotators = [Annotator(name, fold, base) for name, fold in fold_of_each_annotator(env, args.users)]
        gate = threading.Barrier(len(annotators) + 1)
        clock = {}
        threads = [
            threading.Thread(
                target=run_annotator, args=(a, args, gate, clock, random.Random(args.seed * 1000 + i)), daemon=True
            )
            for i, a in enumerate(annotators)
        ]
        for t in threads:
            t.start()
        # Logins (password hashing) happen before the gate: the measured phase starts together.
        gate.wait()
        started = clock["started"] = time.monotonic()
        clock["stop_at"] = started + args.max_seconds
        for t in threads:
            t.join(max(0.0, clock["stop_at"] + args.timeout + 5 - time.monotonic()))
        elapsed = time.monotonic() - started
        stop_server(server)
        server = None
        figures = summary(annotators, elapsed)
        db = check_database(env, annotators)
        figures.update(
            {
                "db": args.db,
                "users": args.users,
                "workers": args.workers,
                "threads": args.threads,
                "worker_class": args.worker_class,
                "think_ms": args.think_ms,
                "labels_stored": db["labels"],
                "label_events": db["events"],
                "integrity_problems": db["n_problems"],
            }
        )
        report(figures, annotators, db)
        ok = (
            figures["errors"] == 0
            and db["n_problems"] == 0
            and db["labels"] == figures["judgements"]
            and db["events"] == figures["judgements"]
            and figures["judgements"] > 0
        )
        if args.json:
            Path(args.json).write_text(json.dumps(figures, indent=2))
        return 0 if ok or not args.check else 1
    finally:
        if server is not None:
            stop_server(server)
        if args.db == "postgres" and not args.keep:
            try:
                pg_admin(args, f'DROP DATABASE IF EXISTS "{args.pg_name}" WITH (FORCE)')
            except Exception as exc:
                print(f"could not drop {args.pg_name}: {exc}", file=sys.stderr)
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


def report(f, annotators, db):
    print(
        f"\n{f['users']} annotators, {f['db']}, gunicorn {f['worker_class']} {f['workers']}x{f['threads']}"
        f"{', think ' + str(f['think_ms']) + ' ms' if f['think_ms'] else ''}"
    )
    print(
        f"  judge requests {f['judge_requests']} ({f['judgements']} judgements + {f['repeated_submits']} repeated)"
        f" in {f['elapsed_s']} s = {f['throughput_rps']} req/s"
    )
    print(
        f"  latency ms: p50 {f['p50_ms']}  p95 {f['p95_ms']}  p99 {f['p99_ms']}  max {f['max_ms']}"
        f"  (first page p50 {f['page_p50_ms']})"
    )
    print(f"  errors {f['errors']}; folds finished {f['folds_finished']}")
    for line in [e for a in annotators for e in a.errors][:10]:
        print(f"    {line}")
    print(
        f"  database: {db['labels']} labels, {db['events']} history events for {db['expected']} acknowledged"
        f" judgements; {db['n_problems']} problems"
    )
    for line in db["problems"][:10]:
        print(f"    {line}")
    print("  " + json.dumps(f), flush=True)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--users", type=int, default=8, help="concurrent annotators (one fold each)")
    p.add_argument("--requests-per-user", type=int, default=60, help="judgements each annotator submits")
    p.add_argument("--max-seconds", type=float, default=120, help="stop the load after this long")
    p.add_argument(
        "--think-ms",
        type=float,
        default=0.0,
        help="mean pause before each judgement (0: closed loop, no pause - the stress case)",
    )
    p.add_argument("--double-submit", type=float, default=0.05, help="share of judgements posted twice")
    p.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    p.add_argument("--pg-url", default=os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432"))
    p.add_argument("--pg-name", default=None, help="database to create (dropped at the end)")
    p.add_argument("--worker-class", default="gthread")
    p.add_argument("--workers", type=int, default=3, help="gunicorn workers (default suits 2 cores)")
    p.add_argument("--threads", type=int, default=4, help="threads per gthread worker")
    p.add_argument("--timeout", type=float, default=30.0, help="client timeout per request, seconds")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="also write the figures to this file")
    p.add_argument("--keep", action="store_true", help="keep the temp dir / database")
    p.add_argument("--check", action="store_true", help="exit 1 on any error or lost/duplicated label")
    p.add_argument("--short", action="store_true", help="CI form: 8 annotators x 15 judgements, 60 s at most")
    args = p.parse_args(argv)
    if args.short:
        args.users, args.requests_per_user, args.max_seconds = min(args.users, 8), 15, 60
    return args


if __name__ == "__main__":
    sys.exit(run(parse_args()))
