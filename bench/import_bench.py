"""Time to import, deduplicate and fold the full SQuAD v1.1 dev data (10,570 questions, 10 systems
+ reference), on a fresh SQLite file (default) or PostgreSQL (--database-url).

    .venv/bin/python bench/import_bench.py [--data ../shared/data/squad-v1.1-dev] [--database-url URL]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def clock():
    return time.perf_counter(), time.process_time()


def since(start):
    return time.perf_counter() - start[0], time.process_time() - start[1]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "squad-v1.1-dev"))
    parser.add_argument("--database-url", help="e.g. postgres://postgres@127.0.0.1:5432/qaeval_bench (recreated)")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="qaeval-bench-")
    url = args.database_url or f"sqlite:///{tmp}/bench.sqlite3"
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
    from annotation.fold_store import create_folds
    from annotation.importers import import_corpus, import_predictions
    from annotation.models import Corpus, Triplet

    data = Path(args.data)
    timings = {}  # step: (wall seconds, CPU seconds of this process: steadier on a busy machine)
    start = clock()
    result = import_corpus(data / "corpus.jsonl", "squad-dev")
    timings["import corpus (+ reference system)"] = since(start)
    corpus = Corpus.objects.get(name="squad-dev")
    t1 = clock()
    preds = import_predictions(data / "predictions.jsonl", corpus)
    timings["import predictions + dedup into triplets"] = since(t1)
    t2 = clock()
    folds = create_folds(corpus, k=10, seed=0)
    timings["build 10 folds (10% overlap)"] = since(t2)
    total = since(start)
    print(f"database: {url.split('://')[0]}")
    print(
        f"questions: {result['questions']}, predictions: {preds['predictions']} + {result['questions']} reference, "
        f"systems: {len(preds['systems'])}, triplets: {Triplet.objects.filter(question__corpus=corpus).count()}, "
        f"folds: {len(folds)}"
    )
    print(f"{'step':<45} {'wall':>9} {'CPU':>9}")
    for name, (wall, cpu) in [*timings.items(), ("total", total)]:
        print(f"{name:<45} {wall:7.2f} s {cpu:7.2f} s")


if __name__ == "__main__":
    main()
