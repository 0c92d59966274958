"""Atomic imports of the interchange files into the database.

Each import runs in two passes over the file: pass 1 validates every line (streaming, keeping only
ids) against the file's rules and the database; pass 2 writes everything in one transaction.
Any error raises ``InterchangeError`` naming file, line and field, and nothing is written.
"""
from __future__ import annotations

import json

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from annotation import interchange
from annotation.bulk import insert_rows
from annotation.dedup import normalize_answer
from annotation.interchange import InterchangeError
from annotation.models import Corpus, Label, LabelEvent, Prediction, Question, System, Triplet
from annotation.roles import ANNOTATOR
from annotation.triplet_builder import extend_folds_if_any, lock_corpus, triplets_for

BATCH = 5000
REFERENCE = "reference"
PREDICTION_COLUMNS = ("system", "question", "answer", "triplet", "meta", "created_at")


def _noop(*args, **kwargs):
    pass


def _reader_for_corpus(path, fmt):
    fmt = fmt or interchange.detect_corpus_format(path)
    if fmt not in ("jsonl", "squad"):
        raise InterchangeError(f"unknown corpus format {fmt!r} (jsonl or squad)", path)
    return interchange.read_squad if fmt == "squad" else interchange.read_corpus


def import_corpus(path, corpus_name, fmt=None, reference_system=True, dedup_policy=None, progress=_noop):
    """Import a corpus file (JSONL or SQuAD JSON) into corpus ``corpus_name`` (created if new).

    With ``reference_system`` the first reference answer of each question becomes a prediction of
    the system ``reference``, so that annotators judge gold answers blind like any other.
    """
    reader = _reader_for_corpus(path, fmt)
    corpus = Corpus.objects.filter(name=corpus_name).first()
    taken = set(Question.objects.filter(corpus=corpus).values_list("external_id", flat=True)) if corpus else set()
    count = 0
    progress(message="validating corpus file")
    for line, record in reader(path):
        if record["id"] in taken:
            raise InterchangeError(f"question id {record['id']!r} is already in corpus {corpus_name}", path, line, "id")
        count += 1
        if count % 5000 == 0:
            progress(done=count, message=f"validated {count} questions")
    with transaction.atomic():
        if corpus is None:
            corpus = Corpus.objects.create(name=corpus_name, **({"dedup_policy": dedup_policy} if dedup_policy else {}))
        start = (Question.objects.filter(corpus=corpus).order_by("-position").values_list("position", flat=True).first() or -1) + 1
        reference = System.objects.get_or_create(name=REFERENCE, defaults={"kind": System.KIND_REFERENCE})[0] if reference_system else None
        batch, written = [], 0
        for i, (_, record) in enumerate(reader(path)):
            batch.append(_question(corpus, start + i, record))
            if len(batch) >= BATCH:
                written += _flush_questions(batch, reference, corpus)
                progress(done=written, total=count, message=f"wrote {written} of {count} questions")
        written += _flush_questions(batch, reference, corpus)
    return {"corpus": corpus.name, "questions": written,
            "new_triplets": Triplet.objects.filter(question__corpus=corpus).count() if reference_system else 0}


def _question(corpus, position, record):
    semantic = {k: record[k] for k in interchange.SEMANTIC_FIELDS if k in record}
    return Question(
        corpus=corpus, external_id=record["id"], position=position, context=record["context"],
        question=record["question"], answers=record["answers"], language=record["language"],
        meta=record["meta"], **semantic,
    )


def _flush_questions(batch, reference, corpus):
    """Insert questions; with a reference system, also its predictions, already linked to triplets."""
    if not batch:
        return 0
    created = Question.objects.bulk_create(batch)
    if reference is not None:
        rows = [(q.pk, q.pk, q.answers[0] if q.answers else "") for q in created]
        mapping, _ = triplets_for(corpus, rows)
        now = timezone.now()
        insert_rows(Prediction, PREDICTION_COLUMNS,
                    [(reference.pk, qid, answer, mapping[qid], "{}", now) for _, qid, answer in rows])
    n = len(batch)
    batch.clear()
    return n


def import_predictions(path, corpus, progress=_noop):
    """Import predictions JSONL for questions of ``corpus``; systems are created as needed."""
    known = dict(Question.objects.filter(corpus=corpus).values_list("external_id", "id"))
    existing = set(
        Prediction.objects.filter(question__corpus=corpus).values_list("system__name", "question__external_id")
    )
    systems = set()
    count = 0
    progress(message="validating predictions file")
    for line, record in interchange.read_predictions(path, known_questions=known):
        if (record["system"], record["question_id"]) in existing:
            raise InterchangeError(
                f"system {record['system']!r} already has a prediction for question {record['question_id']!r}",
                path, line, "question_id",
            )
        if record["system"] == REFERENCE:
            raise InterchangeError("the system name 'reference' is reserved for the corpus answers", path, line, "system")
        systems.add(record["system"])
        count += 1
        if count % 20000 == 0:
            progress(done=count, message=f"validated {count} predictions")
    with transaction.atomic():
        lock_corpus(corpus.pk)  # another import or run of this corpus finishes first
        by_name = {}
        for name in sorted(systems):
            by_name[name] = System.objects.get_or_create(name=name, defaults={"kind": System.KIND_IMPORTED})[0]
        rows, meta = [], []
        taken = _taken_meanwhile(corpus, by_name.values())
        for i, (line, record) in enumerate(interchange.read_predictions(path)):
            rows.append((i, known[record["question_id"]], record["answer"]))
            meta.append((by_name[record["system"]], record["meta"]))
            if (by_name[record["system"]].pk, known[record["question_id"]]) in taken:
                raise InterchangeError(
                    f"system {record['system']!r} already has a prediction for question {record['question_id']!r} "
                    "(written by another job while this file was checked)", path, line, "question_id")
        progress(message="deduplicating into triplets")
        mapping, n_new = triplets_for(corpus, rows)
        now = timezone.now()
        written = 0
        for start in range(0, len(rows), BATCH):
            written += insert_rows(Prediction, PREDICTION_COLUMNS, [
                (meta[i][0].pk, qid, answer, mapping[i], json.dumps(meta[i][1]), now)
                for i, qid, answer in rows[start:start + BATCH]
            ])
            progress(done=written, total=count, message=f"wrote {written} of {count} predictions")
        triplets = {"new_triplets": n_new, "linked_predictions": written,
                    "added_to_folds": extend_folds_if_any(corpus)}
    return {"predictions": written, "systems": sorted(systems), **triplets}


def _taken_meanwhile(corpus, systems):
    """(system id, question id) pairs already stored, read under the corpus lock."""
    return set(Prediction.objects.filter(question__corpus=corpus, system__in=list(systems))
               .values_list("system_id", "question_id"))


def import_labels(path, corpus, progress=_noop, source="import"):
    """Import labels JSONL. Each line must match an existing triplet (question id + answer text).

    Annotators unknown to the platform are created as inactive annotator accounts (no password).
    A label that already exists is changed, and the change goes into its history.
    """
    known = dict(Question.objects.filter(corpus=corpus).values_list("external_id", "id"))
    triplets = {}
    for tid, qid, norm in Triplet.objects.filter(question__corpus=corpus).values_list("id", "question_id", "normalized_answer"):
        triplets[(qid, norm)] = tid
    seen = {}
    rows = []
    progress(message="validating labels file")
    for line, record in interchange.read_labels(path, known_questions=known):
        key = (known[record["question_id"]], normalize_answer(record["answer"], corpus.dedup_policy))
        tid = triplets.get(key)
        if tid is None:
            raise InterchangeError(
                f"no answer {record['answer']!r} among the triplets of question {record['question_id']!r}",
                path, line, "answer",
            )
        if (tid, record["annotator"]) in seen:
            raise InterchangeError(
                f"annotator {record['annotator']!r} labels this answer twice (first at line {seen[(tid, record['annotator'])]})",
                path, line, "annotator",
            )
        seen[(tid, record["annotator"])] = line
        rows.append((tid, record["annotator"], record["label"]))
    User = get_user_model()
    with transaction.atomic():
        group = Group.objects.get_or_create(name=ANNOTATOR)[0]
        names = sorted({r[1] for r in rows})
        users = {u.username: u for u in User.objects.filter(username__in=names)}
        for name in names:
            if name not in users:
                user = User(username=name, is_active=False)
                user.set_unusable_password()
                user.save()
                user.groups.add(group)
                users[name] = user
        current = {
            (l.triplet_id, l.annotator_id): l
            for l in Label.objects.filter(triplet__question__corpus=corpus, annotator__in=users.values())
        }
        new, changed = [], []
        for tid, name, value in rows:
            label = current.get((tid, users[name].pk))
            if label is None:
                new.append(Label(triplet_id=tid, annotator=users[name], value=value, source=source))
            elif label.value != value or label.skipped:
                label.value, label.skipped, label.source = value, False, source
                changed.append(label)
        created = Label.objects.bulk_create(new, batch_size=BATCH)
        Label.objects.bulk_update(changed, ["value", "skipped", "source"], batch_size=BATCH)
        LabelEvent.objects.bulk_create(
            [LabelEvent(label=l, value=l.value) for l in [*created, *changed]], batch_size=BATCH
        )
    return {"labels": len(rows), "created": len(created), "changed": len(changed), "annotators": names}
