"""The HTTP half of ``bench/scale_bench.py``: against each size's database, the annotator round trip
(``bench/annotate_load.py``'s annotators on folds of the big corpus) and a crowd arrival burst
(``bench/crowd_load.py``'s arrivals on a small study ``load<round>`` beside it), gunicorn started as
``bin/run-demo`` does (``bench/kit/crowd.py``).

Both sizes' servers run side by side and the sizes take turns round by round, in the order
small, large, large, small, ... (``--http-rounds``); each size's median is over the requests of all
its rounds. A machine whose speed drifts (a shared host) then weighs on both sizes alike: one
round of each, minutes apart, compared a 10 % target with the drift of the machine."""

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
for r in range(int(sys.argv[6])):  # one study a round: each burst meets empty slots
    build_study(folder, n_questions=2 * folds, k=folds, slug=f"load{r}", slots_per_fold=2)
group = ensure_groups()[ANNOTATOR]
found = []
for i, fold in enumerate(Fold.objects.filter(corpus__name=corpus, kind=Fold.KIND_TRIPLET).order_by("index")[:n], 1):
    user = get_user_model().objects.create_user(f"annotator{i}", password=password)
    user.groups.add(group)
    assign_fold(fold, user)
    found.append([user.username, fold.pk])
print(json.dumps(found))
"""


def _setup(env, work, annotators, folds, rounds):
    numbers = [str(annotators), str(folds), str(rounds)]
    done = subprocess.run(
        [sys.executable, "-c", SETUP, str(work), "scale", annotate_load.PASSWORD, *numbers],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"HTTP setup failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def round_trip(base, accounts, args):
    """Annotators labeling at once, each ``args.judgements`` times: ``(judge request times in ms, errors)``."""
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
    return [ms for a in people for ms in a.judge_ms], sum(len(a.errors) for a in people)


def burst(base, args, slug):
    """``args.participants`` arrivals at study ``slug`` within ``args.burst_seconds``:
    ``(entry + consent times in ms, arrivals, errors)``."""
    options = Namespace(
        seed=args.seed, seconds=args.burst_seconds, participants=args.participants, timeout=60, slug=slug
    )
    results, _ = crowd_load.arrivals(options, base)
    spent = [r["entry_ms"] + (r["consent_ms"] or 0) for r in results if r["entry_ms"] is not None]
    return spent, len(results), sum(r["outcome"].startswith("error") for r in results)


def turns(rounds, sizes=2):
    """The order the sizes take each round: 0 1, 1 0, 0 1, ... (each size first as often as the other)."""
    return [list(range(sizes)) if r % 2 == 0 else list(reversed(range(sizes))) for r in range(rounds)]


def _median(times):
    return round(statistics.median(times), 1) if times else float("nan")


def over_http(sizes, args):
    """``[{"round trip": {...}, "arrivals": {...}}]``, one per ``(env, work)`` of ``sizes``, their
    rounds interleaved (module docstring)."""
    rounds = max(1, args.http_rounds)
    folds = max(2, args.participants // 4)  # 2 slots a fold: half the arrivals get one, the rest are told "full"
    accounts = [_setup(env, work, args.annotators, folds, rounds) for env, work in sizes]
    servers, bases = [], []
    try:
        for env, _ in sizes:
            port = free_port()
            servers.append(start_gunicorn(env, port))
            bases.append(f"http://127.0.0.1:{port}")
        judged = [{"times": [], "errors": 0} for _ in sizes]
        arrived = [{"times": [], "arrivals": 0, "errors": 0} for _ in sizes]
        for r, order in enumerate(turns(rounds, len(sizes))):
            for i in order:
                times, errors = round_trip(bases[i], accounts[i], args)
                judged[i]["times"] += times
                judged[i]["errors"] += errors
                times, n, errors = burst(bases[i], args, f"load{r}")
                arrived[i]["times"] += times
                arrived[i]["arrivals"] += n
                arrived[i]["errors"] += errors
    finally:
        for server in servers:
            stop_gunicorn(server)
    return [
        {
            "round trip": {"ms": _median(j["times"]), "requests": len(j["times"]), "errors": j["errors"]},
            "arrivals": {"ms": _median(a["times"]), "arrivals": a["arrivals"], "errors": a["errors"]},
            "rounds": rounds,
        }
        for j, a in zip(judged, arrived)
    ]
