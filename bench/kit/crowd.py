"""A crowd study to test with: a generated corpus (one answer per question, so every triplet is one
item), K folds, optional gold items in every fold, and a Study row. Used by the unit tests, the
browser tests, the parallel-arrivals test and ``bench/crowd_load.py``."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import requests

from .servers import stop

CONSENT = "## What you do\n\nYou judge **answers**. <script>alert(1)</script>\n\n- paid by the minute\n"


def write_study_corpus(folder, n_questions):
    corpus, preds = folder / "crowd-corpus.jsonl", folder / "crowd-preds.jsonl"
    with open(corpus, "w", encoding="utf-8") as f:
        for i in range(n_questions):
            f.write(
                json.dumps(
                    {
                        "id": f"c{i}",
                        "context": f"Item {i} of the study is the river number {i}.",
                        "question": f"Which river is item {i}?",
                        "answers": [f"river number {i}"],
                    }
                )
                + "\n"
            )
    with open(preds, "w", encoding="utf-8") as f:
        for i in range(n_questions):
            f.write(json.dumps({"question_id": f"c{i}", "system": "sys-a", "answer": f"lake {i}"}) + "\n")
    return corpus, preds


def build_study(folder, *, n_questions=8, k=4, gold=0, slug="pilot", **settings):
    """A study over a fresh corpus ``<slug>-corpus``: ``n_questions`` questions with the reference and
    one system (two triplets per question), ``k`` folds, the first ``gold`` reference triplets made gold
    (expected ``correct``) and put into every fold. ``settings`` go to the Study (open by default)."""
    from annotation import gold as gold_module
    from annotation.fold_store import create_folds
    from annotation.importers import import_corpus, import_predictions
    from annotation.models import Corpus, GoldItem, Study, Triplet

    corpus_file, preds_file = write_study_corpus(folder, n_questions)
    name = f"{slug}-corpus"
    import_corpus(corpus_file, name)
    corpus = Corpus.objects.get(name=name)
    import_predictions(preds_file, corpus)
    golden = list(
        Triplet.objects.filter(question__corpus=corpus, answer__startswith="river")
        .order_by("question__position")
        .values_list("pk", flat=True)[:gold]
    )
    GoldItem.objects.bulk_create([GoldItem(triplet_id=t, expected="correct") for t in golden])
    create_folds(corpus, k=k, seed=0, overlap=0)
    if gold:
        gold_module.interleave_gold(corpus)
    defaults = {
        "title": "Judge answers to questions",
        "consent": CONSENT,
        "completion_code": "C0DE42",
        "completion_url": "https://app.prolific.com/submissions/complete?cc={code}",
        "open": True,
    }
    return Study.objects.create(slug=slug, corpus=corpus, **{**defaults, **settings})


# --- a live server and arriving participants (the parallel-arrivals test and bench/crowd_load.py) --------

REPO = Path(__file__).resolve().parents[2]  # the repository root (this file is bench/kit/crowd.py)
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def start_gunicorn(env, port, *extra):
    """gunicorn as ``bin/run-demo`` starts it (``config/gunicorn.conf.py``: gthread, 2 workers x 8
    threads, app preloaded), on 127.0.0.1:``port``; returns the process once it answers."""
    cmd = [sys.executable, "-m", "gunicorn", "-c", "config/gunicorn.conf.py", "--bind", f"127.0.0.1:{port}"]
    proc = subprocess.Popen(
        [*cmd, "--access-logfile", "/dev/null", "--backlog", "512", *extra], env=env, cwd=REPO, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {proc.returncode}")
        try:
            if requests.get(f"http://127.0.0.1:{port}/login/", timeout=2).status_code == 200:
                return proc
        except requests.RequestException:
            time.sleep(0.2)
    stop_gunicorn(proc)
    raise RuntimeError("gunicorn did not answer within 120 s")


def stop_gunicorn(proc):
    stop(proc)


def arrive_over_http(base, slug, pid, *, timeout=60):
    """One participant through real HTTP with their own cookies: GET the link, POST consent.

    Returns ``{"outcome": "slot" | "full" | "error: ...", "entry_ms", "consent_ms", "fold"}``; a study
    already full says so on the entry page (no consent request then).
    """
    url = f"{base}/study/{slug}/?PROLIFIC_PID={pid}&STUDY_ID=load&SESSION_ID=s-{pid}"
    out = {"pid": pid, "entry_ms": None, "consent_ms": None, "fold": None}
    session = requests.Session()
    try:
        t0 = time.perf_counter()
        page = session.get(url, timeout=timeout)
        out["entry_ms"] = (time.perf_counter() - t0) * 1000
        token = CSRF.search(page.text)
        if page.status_code == 200 and "This study is full" in page.text:
            out["outcome"] = "full"  # said on the entry page, before the consent
            return out
        if page.status_code != 200 or token is None:
            out["outcome"] = f"error: entry HTTP {page.status_code}"
            return out
        t0 = time.perf_counter()
        resp = session.post(
            url,
            data={"consent": "yes", "csrfmiddlewaretoken": token.group(1)},
            headers={"Referer": url},
            timeout=timeout,
            allow_redirects=False,
        )
        out["consent_ms"] = (time.perf_counter() - t0) * 1000
        where = resp.headers.get("Location", "")
        if resp.status_code == 302 and where.startswith("/annotate/"):
            out["outcome"], out["fold"] = "slot", int(where.split("/")[2])
            if session.get(base + where, timeout=timeout).status_code != 200:
                out["outcome"] = "error: annotate page"
        elif resp.status_code == 200 and "This study is full" in resp.text:
            out["outcome"] = "full"
        else:
            out["outcome"] = f"error: consent HTTP {resp.status_code}"
    except requests.RequestException as exc:
        out["outcome"] = f"error: {type(exc).__name__}"
    return out
