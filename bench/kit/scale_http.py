"""The HTTP half of ``bench/scale_bench.py``: against a study's database, the annotator round trip
(``bench/annotate_load.py``'s annotators on folds of the big corpus) and a crowd arrival burst
(``bench/crowd_load.py``'s arrivals on a small study ``load`` beside it), gunicorn started as
``bin/run-demo`` does (``bench/kit/crowd.py``)."""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import sys
import threading
import time
from argparse import Namespace
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "bench")]

import annotate_load  # noqa: E402  (bench/annotate_load.py)
import crowd_load  # noqa: E402  (bench/crowd_load.py)

from bench.kit.crowd import start_gunicorn, stop_gunicorn  # noqa: E402
from bench.kit.servers import free_port  # noqa: E402

SETUP = """
import json, sys
from pathlib import Path
import django
django.setup()
from django.contrib.auth import get_user_model
from annotation.assignments import assign_fold
from annotation.models import Fold
from bench.kit.crowd import build_study
from core.roles import ANNOTATOR, ensure_groups

folder, corpus, password, n, folds = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
build_study(folder, n_questions=2 * folds, k=folds, slug="load", slots_per_fold=2)
group = ensure_groups()[ANNOTATOR]
found = []
for i, fold in enumerate(Fold.objects.filter(corpus__name=corpus, kind=Fold.KIND_TRIPLET).order_by("index")[:n], 1):
    user = get_user_model().objects.create_user(f"annotator{i}", password=password)
    user.groups.add(group)
    assign_fold(fold, user)
    found.append([user.username, fold.pk])
print(json.dumps(found))
"""


def _setup(env, work, annotators, folds):
    done = subprocess.run(
        [sys.executable, "-c", SETUP, str(work), "scale", annotate_load.PASSWORD, str(annotators), str(folds)],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"HTTP setup failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def round_trip(base, accounts, args):
    """Annotators labeling at once, each ``args.judgements`` times: the median judge request (ms)."""
    options = Namespace(requests_per_user=args.judgements, timeout=60, think_ms=0, double_submit=0.0)
    people = [annotate_load.Annotator(username=u, fold_id=f, base=base) for u, f in accounts]
    gate, clock = threading.Event(), {}
    threads = [
        threading.Thread(target=annotate_load.run_annotator, args=(a, options, gate, clock, random.Random(i)))
        for i, a in enumerate(people)
    ]
    for t in threads:
        t.start()
    time.sleep(1.0)  # every annotator logged in
    clock["stop_at"] = time.monotonic() + 300
    gate.set()
    for t in threads:
        t.join()
    times = [ms for a in people for ms in a.judge_ms]
    errors = [e for a in people for e in a.errors]
    return {
        "ms": round(statistics.median(times), 1) if times else float("nan"),
        "requests": len(times),
        "errors": len(errors),
    }


def burst(base, args):
    """``args.participants`` arrivals within ``args.burst_seconds``: the median entry + consent (ms)."""
    options = Namespace(seed=args.seed, seconds=args.burst_seconds, participants=args.participants, timeout=60)
    results, _ = crowd_load.arrivals(options, base)
    spent = [r["entry_ms"] + (r["consent_ms"] or 0) for r in results if r["entry_ms"] is not None]
    errors = sum(r["outcome"].startswith("error") for r in results)
    return {
        "ms": round(statistics.median(spent), 1) if spent else float("nan"),
        "arrivals": len(results),
        "errors": errors,
    }


def over_http(env, work, args):
    """``{"round trip": {...}, "arrivals": {...}}`` against the database of ``env``."""
    folds = max(2, args.participants // 4)  # 2 slots a fold: half the arrivals get one, the rest are told "full"
    accounts = _setup(env, work, args.annotators, folds)
    port = free_port()
    server = start_gunicorn(env, port)
    try:
        base = f"http://127.0.0.1:{port}"
        return {"round trip": round_trip(base, accounts, args), "arrivals": burst(base, args)}
    finally:
        stop_gunicorn(server)
