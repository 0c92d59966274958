"""Import real SQuAD v1.1 dev data into a new corpus, side by side with a minimal baseline of the same
rows and, given ``--label-studio VENV``, with Label Studio importing the same items, on a fresh SQLite
file (default) or PostgreSQL (--database-url).

The items: ``--items 14282`` (default, the issue's count) takes the first questions of the dev set
(in its order) whose triplets (reference + 10 systems, deduplicated as the platform does) make that
count, or the nearest above it: 14,283 triplets from 4,356 questions and 43,557 system predictions
(+ 4,356 references); ``--items 0`` takes the whole set (10,570 questions, 105,687 system predictions
+ 10,570 references, 35,027 triplets).

Each repetition runs, in its own process on its own fresh database (migrated once, then copied):

- ``project``: ``import_corpus`` + ``import_predictions`` as the admin form, the API and the
  commands run them (both files validated line by line first, predictions deduplicated into
  triplets, everything in one transaction), then 10 folds (reported apart: an import elsewhere
  builds none);
- ``baseline``: the same rows with no checks at all: ``json.loads`` of every line, the questions,
  the distinct (question, normalized answer) triplets and every prediction written as plain rows
  (``annotation.sql.insert_rows``: executemany, COPY on PostgreSQL), ids read back by query.

- ``label-studio`` (with ``--label-studio``, ``bench/kit/label_studio.py``): the same triplets as
  Label Studio tasks (context, question, answer), imported through its API into a new project of a
  server started once for the run (the same gunicorn), the wall time of the import call; Label Studio
  does no deduplication, so it is given the triplets, not the predictions.

The runs alternate (project first, then baseline first, ...) so that a busy machine weighs on all.
Prints each run's wall and CPU seconds, the medians, the project's time over the baseline's (a slip
of the import shows there), and PASS / FAIL for the target of issue 34: the project's import (corpus
+ predictions, wall) no slower than Label Studio importing the same items in the same run (without
``--label-studio``: than ``--target-s``, the 3.1 s the issue measured).

    .venv/bin/python bench/import_bench.py --label-studio /tmp/ls-venv [--reps 3] [--items 0]
    .venv/bin/python bench/import_bench.py --database-url postgres://postgres@127.0.0.1:5432/qaeval_bench_mine
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kit.label_studio import LabelStudio, venv_from

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LABEL_STUDIO_S = 3.1  # Label Studio 1.23.2, same items, the issue's machine (issue 34)
ISSUE_ITEMS = 14282  # the issue's item count


def subset(data, items, tmp):
    """The data folder to import and the items as Label Studio tasks: the first questions whose
    triplets reach ``items`` (0: all), written to ``tmp`` when it is a part. The triplets are the
    platform's own (``annotation.dedup.build_triplets``, reference first, as ``import_corpus``)."""
    from annotation.dedup import build_triplets

    records = [json.loads(line) for line in (data / "corpus.jsonl").read_bytes().splitlines()]
    predictions = [json.loads(line) for line in (data / "predictions.jsonl").read_bytes().splitlines()]
    by_question = {}
    for p in predictions:
        by_question.setdefault(p["question_id"], []).append(p["answer"])
    chosen, tasks = [], []
    for r in records:
        answers = r["answers"][:1] + by_question.get(r["id"], [])
        groups = build_triplets((i, r["id"], a) for i, a in enumerate(answers))
        chosen.append(r)
        tasks += [{"context": r["context"], "question": r["question"], "answer": g.answer} for g in groups]
        if items and len(tasks) >= items:
            break
    if len(chosen) == len(records):
        return data, tasks, {"questions": len(records), "predictions": len(predictions), "triplets": len(tasks)}
    part = Path(tmp) / "data"
    part.mkdir()
    ids = {r["id"] for r in chosen}
    (part / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in chosen))
    kept = [p for p in predictions if p["question_id"] in ids]
    (part / "predictions.jsonl").write_text("".join(json.dumps(p) + "\n" for p in kept))
    return part, tasks, {"questions": len(chosen), "predictions": len(kept), "triplets": len(tasks)}


def clock():
    return time.perf_counter(), time.process_time()


def since(start):
    return time.perf_counter() - start[0], time.process_time() - start[1]


def _setup(url, tmp):
    os.environ.update(
        DATABASE_URL=url, QAEVAL_TESTING="1", QAEVAL_VAR_DIR=tmp, DJANGO_SETTINGS_MODULE="config.settings"
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def run_project(data):
    from annotation.fold_store import create_folds
    from annotation.importers import import_corpus, import_predictions
    from annotation.models import Corpus, Triplet

    start = clock()
    result = import_corpus(data / "corpus.jsonl", "squad-dev")
    corpus_step = since(start)
    corpus = Corpus.objects.get(name="squad-dev")
    t1 = clock()
    preds = import_predictions(data / "predictions.jsonl", corpus)
    preds_step = since(t1)
    imported = since(start)
    t2 = clock()
    folds = create_folds(corpus, k=10, seed=0)
    return {
        "import corpus (+ reference system)": corpus_step,
        "import predictions + dedup into triplets": preds_step,
        "import (corpus + predictions)": imported,
        "build 10 folds (10% overlap)": since(t2),
        "counts": {
            "questions": result["questions"],
            "predictions": preds["predictions"] + result["questions"] - result["without_reference"],
            "triplets": Triplet.objects.filter(question__corpus=corpus).count(),
            "folds": len(folds),
        },
    }


def run_baseline(data):
    """The same rows with no validation, no lock, no progress: the floor of a bulk insert."""
    from django.db import transaction

    from annotation.bulk import now_value
    from annotation.dedup import answer_key, normalize_answer
    from annotation.models import Corpus, Prediction, Question, System, Triplet
    from annotation.sql import insert_rows

    start = clock()
    with transaction.atomic():
        corpus = Corpus.objects.create(name="baseline")
        records = [json.loads(line) for line in (data / "corpus.jsonl").read_bytes().splitlines()]
        predictions = [json.loads(line) for line in (data / "predictions.jsonl").read_bytes().splitlines()]
        dump = json.dumps
        insert_rows(
            Question,
            ("corpus", "external_id", "position", "context", "question", "answers", "language", "meta"),
            [
                (corpus.pk, r["id"], i, r["context"], r["question"], dump(r["answers"]), "en", dump(r.get("meta", {})))
                for i, r in enumerate(records)
            ],
        )
        qid = dict(Question.objects.filter(corpus=corpus).values_list("external_id", "id"))
        systems = {p["system"] for p in predictions}
        system = {"reference": System.objects.get_or_create(name="reference")[0].pk}
        system.update({name: System.objects.get_or_create(name=name)[0].pk for name in sorted(systems)})
        rows = [(system["reference"], qid[r["id"]], r["answers"][0]) for r in records if r["answers"]]
        rows += [(system[p["system"]], qid[p["question_id"]], p["answer"]) for p in predictions]
        keys = {(q, normalize_answer(a)): a for _s, q, a in reversed(rows) if a.strip()}
        now = now_value()
        columns = ("question", "answer", "normalized_answer", "answer_key", "created_at")
        insert_rows(Triplet, columns, [(q, a, n, answer_key(n), now) for (q, n), a in keys.items()])
        triplets = Triplet.objects.filter(question__corpus=corpus)
        tid = {(q, n): t for t, q, n in triplets.values_list("id", "question", "normalized_answer")}
        insert_rows(
            Prediction,
            ("system", "question", "answer", "triplet", "meta", "created_at"),
            [(s, q, a, tid.get((q, normalize_answer(a))), "{}", now) for s, q, a in rows],
        )
    return {
        "import (corpus + predictions)": since(start),
        "counts": {"questions": len(records), "predictions": len(rows), "triplets": len(tid)},
    }


def child(args):
    _setup(args.url, args.tmp)
    out = run_project(Path(args.data)) if args.phase == "project" else run_baseline(Path(args.data))
    print("RESULT " + json.dumps(out))


# --- the parent: fresh databases, alternating runs, the summary -----------------------------------


class Databases:
    """A migrated template database and a fresh copy of it per run."""

    def __init__(self, url, tmp):
        self.tmp, self.base = Path(tmp), url
        self.pg = bool(url and url.startswith("postgres"))
        if self.pg:
            self.server, self.name = url.rsplit("/", 1)
            self.template = f"{self.name}_template"
            self._recreate(self.template)
            self.template_url = f"{self.server}/{self.template}"
        else:
            self.template_url = f"sqlite:///{self.tmp / 'template.sqlite3'}"
        env = {**os.environ, "DATABASE_URL": self.template_url, "QAEVAL_TESTING": "1", "QAEVAL_VAR_DIR": str(tmp)}
        env.pop("DJANGO_SETTINGS_MODULE", None)
        subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], cwd=ROOT, env=env, check=True)

    def _psql(self, sql):
        subprocess.run(
            ["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", "postgres", "-c", sql],
            check=True,
            stdout=subprocess.DEVNULL,
        )

    def _recreate(self, name, template=None):
        self._psql(f'DROP DATABASE IF EXISTS "{name}"')
        self._psql(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))

    def fresh(self, i):
        if self.pg:
            self._recreate(self.name, self.template)
            return self.base
        path = self.tmp / f"run{i}.sqlite3"
        shutil.copy(self.tmp / "template.sqlite3", path)
        return f"sqlite:///{path}"

    def drop(self):
        if self.pg:
            self._psql(f'DROP DATABASE IF EXISTS "{self.name}"')
            self._psql(f'DROP DATABASE IF EXISTS "{self.template}"')


def one_run(phase, url, data, tmp):
    cmd = [sys.executable, __file__, "--phase", phase, "--url", url, "--tmp", tmp, "--data", str(data)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"{phase} run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.split("RESULT ", 1)[1])


def summary(runs, args):
    key = "import (corpus + predictions)"
    med = {
        phase: [statistics.median(r[key][k] for r in runs[phase]) for k in (0, 1)] for phase in ("project", "baseline")
    }
    measured = [r["seconds"] for r in runs.get("label-studio", [])]
    print(f"\nmedian of {args.reps} (wall / CPU s):")
    for name in runs["project"][0]:
        if name != "counts":
            wall, cpu = (statistics.median(r[name][k] for r in runs["project"]) for k in (0, 1))
            print(f"  project  {name:<45} {wall:7.2f} {cpu:7.2f}")
    print(f"  baseline {key:<45} {med['baseline'][0]:7.2f} {med['baseline'][1]:7.2f}")
    if measured:
        print(f"  label-studio import of the same triplets as tasks          {statistics.median(measured):7.2f}")
    ratio = med["project"][0] / med["baseline"][0]
    print(f"project / baseline: {ratio:.2f}x wall, {med['project'][1] / med['baseline'][1]:.2f}x CPU")
    if measured:
        target, where = statistics.median(measured), "measured in this run"
        print(f"project / label-studio: {med['project'][0] / target:.2f}x wall")
    else:
        target, where = args.target_s, "given by --target-s, not measured"
    print(f"load average (1 min) at the end: {os.getloadavg()[0]:.1f}")
    ok = med["project"][0] <= target
    print(
        f"{'PASS' if ok else 'FAIL'}  project import (corpus + predictions) {med['project'][0]:.2f} s wall "
        f"<= Label Studio's {target:.2f} s on the same items ({where})"
    )
    return {
        "median": med,
        "label_studio_s": target,
        "label_studio_measured": bool(measured),
        "ratio_wall": ratio,
        "pass": ok,
    }


def parent(args):
    tmp = tempfile.mkdtemp(prefix="qaeval-bench-")
    data, tasks, counts = subset(Path(args.data), args.items, tmp)
    print(
        f"items: {counts['triplets']} triplets from {counts['questions']} questions "
        f"and {counts['predictions']} system predictions"
    )
    dbs = Databases(args.database_url, tmp)
    phases = ["project", "baseline"]
    runs = {"project": [], "baseline": []}
    label_studio = None
    try:
        if args.label_studio:
            label_studio = LabelStudio(args.label_studio, tmp)
            label_studio.init()
            label_studio.start(argparse.Namespace(workers=args.workers, threads=args.threads))
            phases.append("label-studio")
            runs["label-studio"] = []
        for rep in range(args.reps):
            order = phases if rep % 2 == 0 else phases[::-1]
            for phase in order:
                if phase == "label-studio":
                    project = label_studio.new_project(f"squad-dev {rep}")
                    seconds = label_studio.import_tasks(project, tasks)
                    runs[phase].append({"seconds": seconds, "tasks": len(tasks)})
                    print(f"rep {rep} {phase:<8} import {seconds:6.2f} s wall  {{'tasks': {len(tasks)}}}", flush=True)
                    continue
                result = one_run(phase, dbs.fresh(len(runs["project"]) + len(runs["baseline"])), data, tmp)
                runs[phase].append(result)
                wall, cpu = result["import (corpus + predictions)"]
                print(
                    f"rep {rep} {phase:<8} import {wall:6.2f} s wall {cpu:6.2f} s CPU  {result['counts']}", flush=True
                )
                if result["counts"]["triplets"] != len(tasks):
                    raise SystemExit(f"{phase} made {result['counts']['triplets']} triplets, not {len(tasks)}")
    finally:
        if label_studio:
            label_studio.stop()
        dbs.drop()
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"database: {(args.database_url or 'sqlite').split('://')[0]}, data {args.data}, {counts['triplets']} items")
    out = summary(runs, args)
    if args.json:
        Path(args.json).write_text(json.dumps({"runs": runs, **out}, indent=1))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "squad-v1.1-dev"))
    parser.add_argument("--database-url", help="e.g. postgres://postgres@127.0.0.1:5432/qaeval_bench_mine (recreated)")
    parser.add_argument("--reps", type=int, default=2, help="repetitions of each (project, baseline), alternating")
    parser.add_argument(
        "--items", type=int, default=ISSUE_ITEMS, help="triplets to import: the first questions that make them (0: all)"
    )
    parser.add_argument(
        "--label-studio",
        help="virtual environment with label-studio (1.23.2) and gunicorn: import the same items there, side by "
        "side (default: $LABEL_STUDIO_VENV)",
    )
    parser.add_argument("--workers", type=int, default=2, help="Label Studio's gunicorn workers")
    parser.add_argument("--threads", type=int, default=4, help="Label Studio's gunicorn threads per worker")
    parser.add_argument(
        "--target-s", type=float, default=LABEL_STUDIO_S, help="Label Studio's time when it does not run here"
    )
    parser.add_argument("--json", help="also write every run's figures to this file")
    parser.add_argument("--check", action="store_true", help="exit 1 when the target is not met")
    parser.add_argument("--phase", choices=["project", "baseline"], help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--tmp", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        return child(args)
    args.label_studio = venv_from(args.label_studio)
    out = parent(args)
    if args.check and not out["pass"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
