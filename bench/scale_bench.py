"""A study at ten times SQuAD (issue 46): every step's wall time and peak memory at two sizes, and
their ratios, on SQLite and PostgreSQL, in one run.

Sizes: 1x is the real SQuAD dev set (``/work/shared/data/squad-v1.1-dev``: 10,570 questions, 10
systems, about 35,000 triplets); ``--scales 1,10`` compares it with 10x (every question copied with a
new id and a context varied by a few characters, so that nothing deduplicates them together: about
350,000 triplets). Below 1 the first questions of the dev set are taken (``--scales 0.1,1`` to try
the bench quickly). One label for 30 % of the triplets (``--label-share``), seeded.

Steps, each in its own process (its wall time, and its peak memory: ``ru_maxrss``, the process's
whole resident peak, Django included), the two sizes in turn step by step (a shared machine's speed
drifts: 266 and 389 s for one step in one hour here), so that drift weighs on both members of a ratio:

- ``import``: corpus and predictions (``annotation.importers``);
- ``folds``: folds of about 3,500 triplets (10 at 1x), one annotator account each;
- ``labels``: the labels file (``import_labels``);
- ``report``: the offline report without figures (``manage.py report``) on the labels file; ``report
  ds``, Dawid-Skene alone, and ``report bootstrap2``, Dawid-Skene with the two-way bootstrap the report
  runs with it, on the same triplets labelled twice (``labels-twice.jsonl``: SPEC 17 refuses
  Dawid-Skene on one label per triplet);
- ``live``: the live sequences of every system, as the background job computes them from no stored
  state (``evaluation.live_state.refresh``);
- ``live page``: the live page's panel as a researcher reads it once ``live`` stored its figures
  (median of 5 requests through Django's test client: the view's own time, no network);
- ``export``: the study archive; ``restore``: it imported into a fresh database;
- over HTTP against the study's database, with gunicorn as ``bin/run-demo`` starts it: the annotator
  round trip (``bench/annotate_load.py``'s annotators, median judge request) and a crowd arrival burst
  (``bench/crowd_load.py``'s arrivals on a small study beside the big one, median entry + consent);
  both sizes' servers up at once, the sizes taking turns for ``--http-rounds`` rounds (small, large,
  large, small, ...), each median over all its rounds (``bench/kit/scale_http.py``).

Targets (``--check`` exits 1 when one fails): time ratio at most 1.2 x the size ratio (12 for 1x /
10x); peak memory at the larger size at most max(1.5 x the smaller size's, 1 GiB); the round trip and
the arrivals within 10 % (the larger size's median at most 1.1 x the smaller's); the live page within
300 ms at the larger size.

``--steps live,live page`` runs those steps and the ones they need (import, labels, ...), and
compares those only (with ``--no-http``: no round trip or arrivals).

    .venv/bin/python bench/scale_bench.py --scales 0.1,1 --db sqlite          # a few minutes
    .venv/bin/python bench/scale_bench.py --check                              # 1x and 10x, both databases
    .venv/bin/python bench/scale_bench.py --steps "live,live page" --no-http   # some steps only
    .venv/bin/python bench/scale_bench.py --step NAME --work DIR               # one step (used inside)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("QAEVAL_SHARED_DATA", REPO.parent / "shared" / "data")) / "squad-v1.1-dev"
CORPUS = "scale"
FOLD_SIZE = 3500  # triplets per fold: 10 folds at 1x
STEPS = (
    "import",
    "folds",
    "labels",
    "report",
    "report ds",
    "report bootstrap2",
    "live",
    "live page",
    "export",
    "restore",
)
NEEDS = {"folds": "import", "labels": "import", "live": "labels", "live page": "live", "export": "labels"}
NEEDS |= {"restore": "export", **{s: "labels" for s in STEPS if s.startswith("report")}}
PAGE_MS = 300  # issue 46: the live page answers within 300 ms at 10x
GIB = 1024
PASSWORD = "bench-" + secrets.token_hex(6)


# --- the data: SQuAD dev, scaled -------------------------------------------------------------------


def _read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_data(scale, folder, data=DATA):
    """``corpus.jsonl`` and ``predictions.jsonl`` of SQuAD dev at ``scale``; returns the question count."""
    questions = _read_jsonl(data / "corpus.jsonl")
    by_question = {}
    for p in _read_jsonl(data / "predictions.jsonl"):
        by_question.setdefault(p["question_id"], []).append(p)
    wanted = round(len(questions) * scale)
    written = 0
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as c, open(folder / "predictions.jsonl", "w") as p:
        for copy in range(math.ceil(scale)):
            for q in questions:
                if written >= wanted:
                    return written
                qid = q["id"] if copy == 0 else f"{q['id']}-x{copy}"
                context = q["context"] if copy == 0 else f"{q['context']} ({copy})"  # answers' offsets unchanged
                c.write(json.dumps({**q, "id": qid, "context": context}, ensure_ascii=False) + "\n")
                for pred in by_question.get(q["id"], ()):
                    p.write(json.dumps({**pred, "question_id": qid}, ensure_ascii=False) + "\n")
                written += 1
    return written


# --- the steps, each run in its own process (``--step``) -------------------------------------------


def _corpus():
    from annotation.models import Corpus

    return Corpus.objects.get(name=CORPUS)


def step_import(work, scale):
    from annotation.importers import import_corpus, import_predictions

    import_corpus(work / "corpus.jsonl", CORPUS)
    result = import_predictions(work / "predictions.jsonl", _corpus())
    return {"triplets": result["new_triplets"]}


def step_folds(work, scale):
    from annotation.fold_store import create_folds
    from annotation.models import Triplet

    n = Triplet.objects.filter(question__corpus__name=CORPUS).count()
    folds = create_folds(_corpus(), k=max(2, round(n / FOLD_SIZE)), seed=0)
    return {"folds": len(folds)}


def prepare_labels(work, scale, share, seed):
    """The labels file (not timed): one label for ``share`` of the triplets, seeded."""
    from annotation.models import Triplet

    rng = random.Random(seed)
    annotators = max(2, round(10 * scale))
    rows = Triplet.objects.filter(question__corpus__name=CORPUS).order_by("id")
    written = 0
    with open(work / "labels.jsonl", "w", encoding="utf-8") as out, open(work / TWICE, "w", encoding="utf-8") as twice:
        for question, answer in rows.values_list("question__external_id", "answer").iterator(chunk_size=5000):
            if rng.random() < share:
                label = rng.choices(("correct", "partial", "incorrect"), (6, 1, 3))[0]
                record = {"question_id": question, "answer": answer, "annotator": f"ann{written % annotators}"}
                out.write(json.dumps({**record, "label": label}, ensure_ascii=False) + "\n")
                # the same triplet a second time, by the next annotator, agreeing 4 times in 5: the labels
                # of the Dawid-Skene variants (SPEC 17 refuses ds on one label per triplet)
                second = label if rng.random() < 0.8 else rng.choice(("correct", "partial", "incorrect"))
                twice.write(json.dumps({**record, "label": label}, ensure_ascii=False) + "\n")
                again = {**record, "annotator": f"ann{(written + 1) % annotators}", "label": second}
                twice.write(json.dumps(again, ensure_ascii=False) + "\n")
                written += 1
    return {"labels": written}


def step_labels(work, scale):
    from annotation.importers import import_labels

    return {"labels": import_labels(work / "labels.jsonl", _corpus())["created"]}


#: the labels file of the Dawid-Skene variants: every labelled triplet labelled twice
TWICE = "labels-twice.jsonl"


def report_variants():
    """{variant: (extra options of ``manage.py report``, its labels file)}: the plain report on one label
    for a share of the triplets; ``report ds``, Dawid-Skene alone (no bootstrap), and ``report bootstrap2``,
    Dawid-Skene with the two-way bootstrap the report runs with it (SPEC 17: participants, then questions;
    at most ``crowd_section.MAX_TWO_WAY`` replicates, each refitting Dawid-Skene), both on two labels per
    labelled triplet."""
    return {
        "report": ({}, "labels.jsonl"),
        "report ds": ({"human_aggregate": "ds", "n_boot": 0}, TWICE),
        "report bootstrap2": ({"human_aggregate": "ds"}, TWICE),
    }


def step_report(work, scale, variant="report"):
    from django.core.management import call_command

    options, labels = report_variants()[variant]
    out = work / f"report-{variant.replace(' ', '-')}"
    files = {n: str(work / f"{n}.jsonl") for n in ("corpus", "predictions")}
    with open(os.devnull, "w") as quiet:
        call_command(
            "report", **files, labels=str(work / labels), out=str(out), no_figures=True, stdout=quiet, **options
        )
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    return {"aggregate": data.get("human_aggregate"), "bootstrap": data.get("bootstrap")}


def step_live(work, scale):
    """The live sequences of every system as the background job computes them (SPEC 16:
    ``evaluation.live_state.refresh``, a full recomputation from no stored state, then the close rules)."""
    from evaluation import live_state
    from evaluation.models import LiveState

    corpus = _corpus()
    LiveState.objects.filter(corpus=corpus).delete()  # from scratch: the first run of the job
    results = live_state.refresh(corpus.pk)
    return {
        "through": "evaluation.live_state.refresh",
        "systems": max((len(r["rows"]) for r in results.values()), default=0),
    }


def step_live_page(work, scale):
    """The live page's panel, read by a researcher once ``live`` stored its figures: the median of 5
    requests (after one that warms the templates) through Django's test client, the view's own time;
    ``computed_ms``: one view of an aggregate not stored yet, computed in the request (as every view
    was before issue 46)."""
    import statistics

    from django.contrib.auth import get_user_model
    from django.test import Client

    from core.roles import RESEARCHER, ensure_groups
    from evaluation.models import LiveState

    stored = LiveState.objects.get(corpus=_corpus()).results[""]
    assert stored["fixed"]["mean"]["rows"], "the live step stored no fixed intervals"
    user, _ = get_user_model().objects.get_or_create(username="bench-researcher")
    user.groups.add(ensure_groups()[RESEARCHER])
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    url = f"/research/conclusions/panel/?corpus={CORPUS}&half_width=0.02"
    times = []
    for _ in range(6):
        started = time.perf_counter()
        page = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        body = page.content.decode()
        assert page.status_code == 200 and 'data-pending="yes"' not in body and "data-system=" in body, body[:500]
    started = time.perf_counter()  # an aggregate with nothing stored yet: computed in the request, as before
    assert client.get(url + "&human_aggregate=majority").status_code == 200
    computed = round((time.perf_counter() - started) * 1000, 1)
    return {"ms": round(statistics.median(times[1:]), 1), "requests": len(times) - 1, "computed_ms": computed}


def step_export(work, scale):
    from evaluation.archive.collect import export_study

    manifest = export_study(_corpus(), work / "study.zip")
    return {"rows": sum(m["rows"] or 0 for m in manifest["members"].values()), "mb": _mb(work / "study.zip")}


def step_restore(work, scale):
    from evaluation.archive.restore import import_study

    return {"rows": sum(import_study(work / "study.zip", CORPUS)["rows"].values())}


def _mb(path):
    return round(path.stat().st_size / 1e6, 1)


def _cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_step(name, work, scale):
    """One step in this process: prints ``{"s", "peak_mib", ...}`` as the last line."""
    os.chdir(REPO)
    sys.path.insert(0, str(REPO))
    import django

    django.setup()
    from django.core.management import call_command

    if name == "migrate":
        call_command("migrate", verbosity=0)
        print(json.dumps({}))
        return
    print(json.dumps(timed_step(name, work, scale)))


def timed_step(name, work, scale):
    """Run step ``name`` in this process (Django set up): ``{"s", "peak_mib", "cpu_s", ...}``."""
    started, cpu0 = time.perf_counter(), _cpu()
    if name == "prepare labels":
        extra = prepare_labels(work, scale, float(os.environ["SCALE_SHARE"]), int(os.environ["SCALE_SEED"]))
    elif name.startswith("report"):
        extra = step_report(work, scale, name)
    else:
        extra = globals()[f"step_{name.replace(' ', '_')}"](work, scale)
    seconds = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime - cpu0  # this process's own: steadier than wall time on a busy machine
    peak = usage.ru_maxrss / 1024  # KiB on Linux
    return {"s": round(seconds, 2), "peak_mib": round(peak), "cpu_s": round(cpu, 2), **extra}


# --- the driver --------------------------------------------------------------------------------------


def make_env(url, work, args):
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "AXES_ENABLED")}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="127.0.0.1,localhost",
        QAEVAL_VAR_DIR=str(work / "var"),
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(REPO),
        DATABASE_URL=url,
        SCALE_SHARE=str(args.label_share),
        SCALE_SEED=str(args.seed),
    )
    return env


def step(name, work, scale, env):
    cmd = [sys.executable, str(Path(__file__).resolve()), "--step", name, "--work", str(work), "--scale", str(scale)]
    done = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"step {name} at {scale}x failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def database(db, tag, work, args):
    """A fresh database: its URL."""
    if db == "sqlite":
        return f"sqlite:///{work / f'{tag}.sqlite3'}"
    import psycopg

    name = f"{args.pg_prefix}_{tag}".replace(".", "_")
    with psycopg.connect(f"{args.pg_url.rstrip('/')}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    CREATED.append(name)
    return f"{args.pg_url.rstrip('/')}/{name}"


CREATED = []  # the PostgreSQL databases this run made: dropped at its end unless --keep


def drop_created(args):
    import psycopg

    with psycopg.connect(f"{args.pg_url.rstrip('/')}/postgres", autocommit=True) as conn:
        for name in CREATED:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def prepare_size(db, scale, args, root):
    """The data files and the two fresh databases (migrated) of one size: ``(work, env, restore_env, questions)``."""
    work = root / f"{db}-{scale:g}"
    work.mkdir(parents=True)
    (work / "var").mkdir()
    questions = write_data(scale, work, Path(args.data))
    env = make_env(database(db, f"study_{scale:g}", work, args), work, args)
    restore_env = {**env, "DATABASE_URL": database(db, f"restore_{scale:g}", work, args)}
    step("migrate", work, scale, env)
    step("migrate", work, scale, restore_env)
    return work, env, restore_env, questions


def both_sizes(db, scales, args, root):
    """Every step at both sizes, the sizes taken in turn step by step (the smaller, then the larger,
    then the next step): a machine whose speed drifts over the run (a shared host) then weighs on
    both members of each ratio alike, not on every step of one size. ``[{step: figures}]`` per size."""
    prepared = [prepare_size(db, scale, args, root) for scale in scales]
    figures = [{"questions": questions} for *_, questions in prepared]
    if args.workers:
        for scale, (work, env, restore_env, _), got in zip(scales, prepared, figures):
            got.update(through_workers(work, scale, env, restore_env, args, db))
    for name in args.run if not args.workers else ():
        for scale, (work, env, restore_env, _), got in zip(scales, prepared, figures):
            if name == "labels":
                step("prepare labels", work, scale, env)
            got[name] = step(name, work, scale, restore_env if name == "restore" else env)
            show(db, scale, name, got[name])
    if not args.no_http and "folds" in args.run:
        sys.path.insert(0, str(REPO))
        from bench.kit.scale_http import over_http

        measured = over_http([(env, work) for work, env, _, _ in prepared], args)
        for scale, got, http in zip(scales, figures, measured):
            got.update({name: http[name] for name in ("round trip", "arrivals")})
            for name in ("round trip", "arrivals"):
                print(f"  {db} {scale:g}x {name:<18} median {got[name]['ms']} ms  {got[name]}", flush=True)
    return figures


def show(db, scale, name, got):
    shown = {k: v for k, v in got.items() if k not in ("s", "peak_mib")}
    print(f"  {db} {scale:g}x {name:<18} {got.get('s', '-')!s:>8} s {got.get('peak_mib', '-')!s:>6} MiB  {shown}")


def through_workers(work, scale, env, restore_env, args, db):
    """``--workers N``: every step a Celery task taken by N real workers (``bench/kit/scale_workers.py``),
    the steps that do not depend on each other sent at once; the figures as ``step`` gives them."""
    sys.path.insert(0, str(REPO))
    from bench.kit.scale_workers import run_waves

    return run_waves(work, scale, env, restore_env, args, show=lambda name, got: show(db, scale, name, got))


def compare(small, large, ratio, steps=STEPS):
    """Rows ``(step, figures..., ok)`` of the smaller and larger size, with the targets' verdicts."""
    rows = []
    for name in steps:
        a, b = small[name], large[name]
        if name == "live page":  # a request: its median time, the target absolute
            rows.append((name, a["ms"], b["ms"], b["ms"] / max(a["ms"], 0.01), None, None, None, b["ms"] <= PAGE_MS))
            continue
        if "skipped" in a or "skipped" in b:
            rows.append((name, None, None, None, None, None, None, a.get("skipped") or b.get("skipped")))
            continue
        t, m = b["s"] / max(a["s"], 0.01), b["peak_mib"] / a["peak_mib"]
        ok = t <= 1.2 * ratio and b["peak_mib"] <= max(1.5 * a["peak_mib"], GIB)
        rows.append((name, a["s"], b["s"], t, a["peak_mib"], b["peak_mib"], m, ok))
        if "cpu_s" in a and "cpu_s" in b:
            cpu = b["cpu_s"] / max(a["cpu_s"], 0.01)
            print(f"  {name}: CPU of its own process {a['cpu_s']} -> {b['cpu_s']} s, ratio {cpu:.2f}")
    for name in ("round trip", "arrivals"):
        if name in small and name in large:
            a, b = small[name]["ms"], large[name]["ms"]
            rows.append((name, a, b, b / a, None, None, None, b <= 1.1 * a))
    return rows


def print_table(db, scales, rows):
    lo, hi = scales
    print(f"\n{db}: {lo:g}x against {hi:g}x (time in s, or median ms over HTTP; peak resident memory in MiB)")
    a, b = f"{lo:g}x", f"{hi:g}x"
    sizes = f"{'t ' + a:>9} {'t ' + b:>9} {'ratio':>6} {'mem ' + a:>8} {'mem ' + b:>8}"
    print(f"{'step':<18} {sizes} {'ratio':>6}  target")
    for name, ta, tb, tr, ma, mb, mr, ok in rows:
        if isinstance(ok, str):
            print(f"{name:<18} skipped: {ok}")
            continue
        mem = f"{ma:>8} {mb:>8} {mr:>6.2f}" if ma is not None else f"{'':>8} {'':>8} {'':>6}"
        print(f"{name:<18} {ta:>9.2f} {tb:>9.2f} {tr:>6.2f} {mem}  {'PASS' if ok else 'FAIL'}")


def main(argv=None):
    sys.stdout.reconfigure(line_buffering=True)
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", default="1,10", help="the two sizes compared, in SQuAD dev's (e.g. 0.1,1)")
    parser.add_argument("--db", default="sqlite,postgresql", help="sqlite, postgresql or both (comma-separated)")
    parser.add_argument("--data", default=str(DATA))
    parser.add_argument("--label-share", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pg-url", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--pg-prefix", default="qaeval_scale", help="databases <prefix>_study_<scale>, dropped first")
    parser.add_argument("--no-http", action="store_true", help="leave out the round trip and the arrival burst")
    parser.add_argument("--annotators", type=int, default=4, help="annotators of the round trip")
    parser.add_argument("--judgements", type=int, default=40, help="judge requests per annotator")
    parser.add_argument("--participants", type=int, default=60, help="arrivals of the burst")
    parser.add_argument("--burst-seconds", type=float, default=5.0)
    parser.add_argument(
        "--http-rounds", type=int, default=4, help="rounds of the round trip and the burst, the sizes taking turns"
    )
    parser.add_argument("--steps", help="only these steps (comma-separated) and those they need: " + ", ".join(STEPS))
    parser.add_argument("--check", action="store_true", help="exit 1 when a target fails")
    parser.add_argument(
        "--workers", type=int, default=0, help="run the steps as tasks of this many Celery workers (PostgreSQL, Redis)"
    )
    parser.add_argument("--broker", default="redis://127.0.0.1:6379/5", help="the workers' broker (--workers)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder and the PostgreSQL databases")
    parser.add_argument("--step", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    parser.add_argument("--scale", type=float, default=1.0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.step:
        return run_step(args.step, Path(args.work), args.scale)
    args.compared = [s.strip() for s in args.steps.split(",")] if args.steps else list(STEPS)
    if unknown := [s for s in args.compared if s not in STEPS]:
        parser.error(f"--steps: unknown {', '.join(unknown)}; steps are {', '.join(STEPS)}")
    wanted, todo = set(), list(args.compared)
    while todo:
        name = todo.pop()
        wanted.add(name)
        todo += [NEEDS[name]] if name in NEEDS else []
    args.run = [s for s in STEPS if s in wanted]
    scales = [float(s) for s in args.scales.split(",")]
    if len(scales) != 2 or scales[0] >= scales[1]:
        parser.error("--scales: two sizes, the smaller first")
    root = Path(tempfile.mkdtemp(prefix="qaeval-scale-"))
    print(f"work folder {root}; load average {os.getloadavg()[0]:.1f}", flush=True)
    results, failed = {}, False
    try:
        for db in args.db.split(","):
            sizes = both_sizes(db, scales, args, root)
            results[db] = compare(*sizes, scales[1] / scales[0], args.compared)
            print_table(db, scales, results[db])
            failed |= any(row[-1] is False for row in results[db])
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
            if CREATED:
                drop_created(args)
    if len(results) > 1:
        print_side_by_side(results)
    print(f"\ntargets: {'FAIL' if failed else 'PASS'}")
    return 1 if (failed and args.check) else 0


def print_side_by_side(results):
    dbs = list(results)
    print("\nside by side: time ratio / memory ratio / target")
    print(f"{'step':<18} " + " ".join(f"{db:>24}" for db in dbs))
    for i, row in enumerate(results[dbs[0]]):
        cells = []
        for db in dbs:
            _, _, _, tr, _, _, mr, ok = results[db][i]
            if isinstance(ok, str):
                cells.append(f"{'skipped':>24}")
            else:
                mem = f"{mr:.2f}" if mr is not None else "-"
                cells.append(f"{f'{tr:.2f} / {mem} / ' + ('PASS' if ok else 'FAIL'):>24}")
        print(f"{row[0]:<18} " + " ".join(cells))


if __name__ == "__main__":
    sys.exit(main())
