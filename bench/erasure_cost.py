"""What an erasure (SPEC 18) costs: one participant erased in each mode, and a purge, on a study with
many participants, labels and live sessions (the erasure finds a person's sessions by decoding the
session rows: the table keys them by a random key only). Prints the seconds and SQL queries of each.

    .venv/bin/python bench/erasure_cost.py [--participants 200] [--labels 40] [--sessions 5000]
                                           [--database-url URL]
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def setup(url, tmp):
    os.environ.update(
        DATABASE_URL=url, QAEVAL_TESTING="1", QAEVAL_VAR_DIR=tmp, DJANGO_SETTINGS_MODULE="config.settings"
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def fill(folder, n_participants, n_labels, n_sessions):
    """A study with ``n_participants`` admitted (each with up to ``n_labels`` labels and their history)
    and ``n_sessions`` session rows, one per participant logged in, the rest anonymous."""
    from django.contrib.sessions.backends.db import SessionStore
    from django.utils import timezone

    from annotation import studies
    from annotation.models import FoldItem, Label, LabelEvent
    from bench.kit.crowd import build_study

    study = build_study(Path(folder), n_questions=max(20, n_labels // 2), k=1, slots_per_fold=n_participants)
    people, labels, now = [], [], timezone.now()
    for i in range(n_participants):
        p, _new = studies.admit(study, (f"bench-{i:05d}", "s", "x"), token=f"t{i}")
        people.append(p)
        items = FoldItem.objects.filter(fold_id=p.fold_id).order_by("position")[:n_labels]
        labels += [
            Label(triplet_id=it.triplet_id, annotator_id=p.user_id, fold_id=p.fold_id, value="correct", updated_at=now)
            for it in items
        ]
    Label.objects.bulk_create(labels, batch_size=2000)
    events = [LabelEvent(label=label, value=label.value, submission_id=f"b{label.pk}") for label in labels]
    LabelEvent.objects.bulk_create(events, batch_size=2000)
    for i in range(n_sessions):
        store = SessionStore()
        if i < len(people):
            store["_auth_user_id"] = str(people[i].user_id)
        store["n"] = i
        store.create()
    return study, people


def timed(fn):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        out = fn()
        seconds = time.perf_counter() - started
    return out, seconds, len(queries)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--participants", type=int, default=200)
    parser.add_argument("--labels", type=int, default=40)
    parser.add_argument("--sessions", type=int, default=5000)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        setup(args.database_url or f"sqlite:///{tmp}/bench.sqlite3", tmp)
        from annotation import privacy, retention
        from annotation.models import Label, Study

        started = time.perf_counter()
        study, people = fill(tmp, args.participants, args.labels, args.sessions)
        print(
            f"filled: {len(people)} participants, {Label.objects.count()} labels, {args.sessions} sessions "
            f"in {time.perf_counter() - started:.1f} s"
        )
        stone, s, q = timed(lambda: privacy.erase(people[0], "withdraw", "bench"))
        print(f"erase withdraw: {s * 1000:.0f} ms, {q} queries, removed {stone.counts}")
        stone, s, q = timed(lambda: privacy.erase(people[1], "identity", "bench"))
        print(f"erase identity: {s * 1000:.0f} ms, {q} queries, removed {stone.counts}")
        Study.objects.filter(pk=study.pk).update(open=False, privacy_closed_at=study.created_at)
        later = study.created_at.replace(year=study.created_at.year + 1)
        lines, s, q = timed(lambda: retention.purge(later, dry_run=True))
        print(f"purge --dry-run: {s:.2f} s, {q} queries, {len(lines)} lines")
        lines, s, q = timed(lambda: retention.purge(later))
        per = s / max(1, len(people) - 2)
        print(f"purge (identity for {len(people) - 2} participants): {s:.2f} s ({per * 1000:.0f} ms each), {q} queries")


if __name__ == "__main__":
    main()
