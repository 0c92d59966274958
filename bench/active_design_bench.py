"""Time to build the active design (SPEC 12) of the full SQuAD v1.1 dev data (about 35,000 triplets)
on a fresh SQLite file (default) or PostgreSQL (--database-url): the pilot with its folds, the main
draw once the pilot is labelled (residual model, chances, the main triplets into the folds), the pure
design alone, and the live page with the design.

    .venv/bin/python bench/active_design_bench.py [--data ../shared/data/squad-v1.1-dev] [--database-url URL]

The judge's labels are simulated (a random distribution q per triplet); the pilot's human labels are
written directly (not timed). The bar: building the design for 35,000 triplets under 2 s; the live
page within 1 s.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(timings, name, fn):
    """Run ``fn``; record (wall, CPU of this process) seconds: CPU is steadier on a busy machine."""
    start = time.perf_counter(), time.process_time()
    out = fn()
    timings[name] = (time.perf_counter() - start[0], time.process_time() - start[1])
    return out


def setup(url, tmp):
    if url.startswith("postgres"):
        name = url.rsplit("/", 1)[1]
        subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", name], check=True)
        subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", name], check=True)
    os.environ.update(
        DATABASE_URL=url, QAEVAL_TESTING="1", QAEVAL_VAR_DIR=tmp, DJANGO_SETTINGS_MODULE="config.settings"
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def simulated_judge(corpus, rng):
    """A judge with a random q on every triplet (not timed)."""
    from annotation.models import Triplet
    from models_runner.models import Judge, JudgeLabel
    from stats.labels import LABEL_VALUES

    judge = Judge.objects.create(name="sim")
    tids = list(Triplet.objects.filter(question__corpus=corpus).values_list("id", flat=True))
    q = rng.dirichlet([2.0, 0.5, 1.0], len(tids))
    rows = [
        JudgeLabel(
            judge=judge,
            triplet_id=t,
            value=LABEL_VALUES[int(p.argmax())],
            source="import",
            probs=dict(zip(LABEL_VALUES, p.round(4).tolist())),
        )
        for t, p in zip(tids, q)
    ]
    JudgeLabel.objects.bulk_create(rows, batch_size=2000)
    return judge, tids, q


def label_pilot(corpus, rng):
    """A human label on every pilot triplet (not timed)."""
    from django.contrib.auth import get_user_model

    from annotation.models import Label, Triplet

    user = get_user_model().objects.create(username="ann")
    pilot = Triplet.objects.filter(question__corpus=corpus, design_phase="pilot").values_list("id", flat=True)
    values = ("correct", "partial", "incorrect")
    Label.objects.bulk_create(
        [Label(triplet_id=t, annotator=user, value=values[int(rng.integers(3))]) for t in pilot], batch_size=2000
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "squad-v1.1-dev"))
    parser.add_argument("--database-url", help="e.g. postgres://postgres@127.0.0.1:5432/qaeval_bench (recreated)")
    parser.add_argument("--budget", default="5%")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="qaeval-bench-")
    url = args.database_url or f"sqlite:///{tmp}/bench.sqlite3"
    setup(url, tmp)
    import numpy as np

    from annotation import fold_designs, fold_store
    from annotation.importers import import_corpus, import_predictions
    from annotation.models import Corpus
    from stats import design

    data = Path(args.data)
    import_corpus(data / "corpus.jsonl", "squad-dev")
    corpus = Corpus.objects.get(name="squad-dev")
    import_predictions(data / "predictions.jsonl", corpus)
    rng = np.random.default_rng(0)
    judge, tids, q = simulated_judge(corpus, rng)
    timings = {}
    plan = timed(
        timings,
        "pilot: read the judge, draw (plan)",
        lambda: fold_designs.get("active").plan(corpus, budget=args.budget, judge=judge.name, seed=0),
    )
    timed(timings, "pilot: store the design, build 10 folds", lambda: fold_store.create_folds(corpus, design=plan))
    label_pilot(corpus, rng)
    timed(timings, "main: fit, draw, store, into the folds", lambda: fold_store.open_main_if_ready(corpus))
    f, u = design.expected_score(q), design.uncertainty(q)
    h = np.where(rng.random(len(tids)) < 0.5, 1.0, 0.0)
    b = design.budget_count(args.budget, len(tids))
    p1 = design.pilot_chance(b, len(tids))
    pilot = design.draw(np.full(len(tids), p1), 0)
    timed(
        timings,
        "the pure design alone (main_design)",
        lambda: design.main_design(f, u, pilot=pilot, h=h, budget=b, p1=p1),
    )
    meta = fold_store.fold_design(corpus)
    building = [sum(v[i] for k, v in timings.items() if k.startswith(("pilot", "main"))) for i in (0, 1)]

    from django.contrib.auth import get_user_model
    from django.test import Client

    from core import roles

    researcher = get_user_model().objects.create(username="res")
    researcher.groups.add(roles.ensure_groups()[roles.RESEARCHER])
    from django.conf import settings

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    client = Client()
    client.force_login(researcher)
    client.get("/research/conclusions/panel/?corpus=squad-dev")  # warm
    if os.environ.get("PROFILE"):
        import cProfile

        cProfile.runctx(
            "client.get('/research/conclusions/panel/?corpus=squad-dev')", globals(), locals(), sort="tottime"
        )
    response = timed(
        timings,
        "live page (the conclusions panel)",
        lambda: client.get("/research/conclusions/panel/?corpus=squad-dev"),
    )

    facts = meta["reason"] or f"residual model fitted on {meta['pilot_labels']} pilot labels"
    print(f"database: {url.split('://')[0]}; {len(tids):,} triplets, budget {b:,}, pilot {meta['n_pilot']:,}, ")
    print(f"main {meta['n_main']:,}, {facts}")
    print(f"{'step':<45} {'wall':>9} {'CPU':>9}")
    for name, (wall, cpu) in timings.items():
        print(f"{name:<45} {wall:7.3f} s {cpu:7.3f} s")
    print(f"{'building the design (pilot + main)':<45} {building[0]:7.3f} s {building[1]:7.3f} s  (bar: 2 s)")
    print(f"live page status {response.status_code}")


if __name__ == "__main__":
    main()
