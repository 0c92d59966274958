"""Export and import of the full SQuAD dev study (SPEC 14): 10,570 questions, 10 systems + reference
(35,044 triplets), 10 folds, 10 annotators and 10,000 labels with their history, on a fresh SQLite
file (default) or PostgreSQL (--database-url). Prints the time of each, the archive's size, and the
number of SQL queries each issued (bulk reads and writes: no query per row).

    .venv/bin/python bench/archive_bench.py [--data ../shared/data/squad-v1.1-dev] [--database-url URL]

The study is built by the importers (corpus, predictions, folds); the labels are written in bulk
(one ``Label`` and one or two ``LabelEvent`` rows each, as the save path leaves them), since the
bench measures the archive, not labeling.
"""

import argparse
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
N_LABELS = 10_000
ANNOTATORS = 10


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


def build_study(data):
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from annotation.assignments import assign_fold
    from annotation.fold_store import create_folds
    from annotation.importers import import_corpus, import_predictions
    from annotation.models import Corpus, FoldItem, Label, LabelEvent

    import_corpus(data / "corpus.jsonl", "squad-dev")
    corpus = Corpus.objects.get(name="squad-dev")
    import_predictions(data / "predictions.jsonl", corpus)
    folds = create_folds(corpus, k=ANNOTATORS, seed=0)
    users = [get_user_model().objects.create_user(f"bench{i}") for i in range(ANNOTATORS)]
    labels, now = [], timezone.now()
    for fold, user in zip(folds, users, strict=True):
        assign_fold(fold, user)
        for n, (tid,) in enumerate(FoldItem.objects.filter(fold=fold).order_by("position").values_list("triplet_id")):
            if n >= N_LABELS // ANNOTATORS:
                break
            value = ("correct", "partial", "incorrect")[n % 3]
            labels.append(Label(triplet_id=tid, annotator=user, fold=fold, value=value, seconds_spent=2.0))
    Label.objects.bulk_create(labels, batch_size=2000)
    events = [LabelEvent(label=label, value=label.value, seconds=2.0, created_at=now) for label in labels]
    events += [LabelEvent(label=label, value="correct", seconds=1.0) for label in labels[::5]]  # changes of mind
    LabelEvent.objects.bulk_create(events, batch_size=2000)
    return corpus


def timed(what):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    t0 = time.perf_counter()
    with CaptureQueriesContext(connection) as queries:
        result = what()
    return result, time.perf_counter() - t0, len(queries)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "squad-v1.1-dev"))
    parser.add_argument("--database-url", help="e.g. postgres://postgres@127.0.0.1:5432/qaeval_bench (recreated)")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="qaeval-archive-bench-")
    url = args.database_url or f"sqlite:///{tmp}/bench.sqlite3"
    setup(url, tmp)
    from annotation.models import Label, LabelEvent, Triplet
    from evaluation.archive.collect import export_study
    from evaluation.archive.restore import import_study

    t0 = time.perf_counter()
    corpus = build_study(Path(args.data))
    print(f"database: {url.split('://')[0]}; study built in {time.perf_counter() - t0:.1f} s")
    triplets = Triplet.objects.filter(question__corpus=corpus).count()
    labels = Label.objects.filter(triplet__question__corpus=corpus).count()
    events = LabelEvent.objects.filter(label__triplet__question__corpus=corpus).count()
    print(f"triplets: {triplets}, labels: {labels}, label events: {events}")
    buffer = io.BytesIO()
    manifest, export_s, export_q = timed(lambda: export_study(corpus, buffer))
    rows = sum(entry["rows"] or 0 for entry in manifest["members"].values())
    size = len(buffer.getvalue()) / 1e6
    print(f"{'export':<8} {export_s:7.2f} s  {export_q:5d} queries  {rows} rows, {size:.1f} MB zip")
    buffer.seek(0)
    if os.environ.get("ARCHIVE_BENCH_PROFILE"):
        import cProfile

        cProfile.runctx("import_study(buffer, 'profiled')", globals(), locals(), sort="cumtime")
        buffer.seek(0)
    summary, import_s, import_q = timed(lambda: import_study(buffer, "squad-dev-restored"))
    print(f"{'import':<8} {import_s:7.2f} s  {import_q:5d} queries  {sum(summary['rows'].values())} rows")
    restored = Label.objects.filter(triplet__question__corpus__name="squad-dev-restored").count()
    assert restored == labels, (restored, labels)
    limit = 60
    print(f"both under {limit} s: {'yes' if max(export_s, import_s) < limit else 'NO'}")


if __name__ == "__main__":
    main()
