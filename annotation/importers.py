"""Atomic imports of the interchange files into the database.

Each import runs in two passes over the file: pass 1 validates every line (streaming) against the
file's rules and the database, keeping a compact copy of its records when the file is not larger
than ``READ_ONCE_BYTES``; pass 2 writes everything in one transaction, from that copy or from the
file read again.
Any error raises ``InterchangeError`` naming file, line and field, and nothing is written.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, fields
from pathlib import Path

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import DatabaseError, IntegrityError, models, transaction
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_noop

from annotation import formats, interchange
from annotation.bulk import IMPORT_BATCH, ORM_BATCH, json_value, now_value
from annotation.fold_store import extend_folds_if_any
from annotation.helm import read_helm
from annotation.interchange import REFERENCE, InterchangeError
from annotation.label_files import TripletIndex, history_of, plan_labels
from annotation.models import Corpus, Label, LabelEvent, Prediction, Question, System, Triplet
from annotation.sql import analyze_after_commit, bulk_cache, insert_rows
from annotation.triplet_store import lock_corpus, triplets_for
from core.roles import ANNOTATOR, IMPORTED

# Progress messages of its jobs, in English (pages translate them: core.job_kinds.message_text).
VALIDATING_CORPUS = gettext_noop("validating corpus file")
WROTE_QUESTIONS = gettext_noop("wrote %(done)s of %(total)s questions")
VALIDATED_LINES = gettext_noop("validated %(count)s lines")
READING_HELM = gettext_noop("reading HELM runs")
VALIDATING_PREDICTIONS = gettext_noop("validating predictions file")
DEDUPLICATING = gettext_noop("deduplicating into triplets")
WROTE_PREDICTIONS = gettext_noop("wrote %(done)s of %(total)s predictions")
VALIDATING_LABELS = gettext_noop("validating labels file")
MESSAGES = (
    VALIDATING_CORPUS,
    WROTE_QUESTIONS,
    VALIDATED_LINES,
    READING_HELM,
    VALIDATING_PREDICTIONS,
    DEDUPLICATING,
    WROTE_PREDICTIONS,
    VALIDATING_LABELS,
)


PREDICTION_COLUMNS = ("system", "question", "answer", "triplet", "meta", "created_at")


def _noop(*args, **kwargs):
    pass


def with_file_named(fn, path, *args, **kwargs):
    """``fn(path, ...)``, an import, with a database refusal that the file's rules did not foresee
    turned into ``InterchangeError`` naming the file (the rules name line and field; this is the net
    under them: the transaction is rolled back, nothing is written, no traceback reaches the user)."""
    try:
        return fn(path, *args, **kwargs)
    except DatabaseError as exc:
        raise refused_by_database(exc, kwargs.get("name") or interchange._name_of(path)) from exc


def refused_by_database(exc, name):
    """The ``InterchangeError`` naming file ``name`` for a database error ``exc`` of its import."""
    reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
    return InterchangeError(f"the database refused the file, nothing was imported: {reason}", name)


#: Files up to this size are parsed once: the validation pass keeps its records for the writing
#: pass; larger files are read twice, in constant memory. The records kept are compact (a
#: prediction as a tuple naming its question by id and its system by one shared string, a corpus's
#: contexts shared by their questions): about 1.8 bytes per byte of a predictions file, 1.2 of a
#: corpus file (10x SQuAD dev, 107 and 111 MB: measured in ``bench/scale_bench.py``'s import step).
#: Parsing a file a second time was a third of a large import's time (issue 46).
READ_ONCE_BYTES = 256 * 1024 * 1024


def _kept_records(path):
    """A list for pass 1 to keep its ``(line, record)`` pairs in, or None when the file is read again
    (too large, or not a file on disk)."""
    try:
        return [] if os.path.getsize(path) <= READ_ONCE_BYTES else None
    except (TypeError, OSError):
        return None


def import_corpus(path, corpus_name, *, fmt=None, reference_system=True, dedup_policy=None, progress=_noop, name=None):
    """Import a corpus file (JSONL or SQuAD JSON) into corpus ``corpus_name`` (created if new).

    With ``reference_system`` the first reference answer of each question becomes a prediction of
    the system ``reference``, so that annotators judge gold answers blind like any other.
    """
    reader = formats.reader_for(path, fmt)
    name = name or interchange._name_of(path)
    corpus = Corpus.objects.filter(name=corpus_name).first()
    taken = set(Question.objects.filter(corpus=corpus).values_list("external_id", flat=True)) if corpus else set()
    progress(message=VALIDATING_CORPUS)
    kept = None
    if reader is interchange.read_corpus:
        seen, kept, contexts = {}, _kept_records(path), {}

        def check(line, record):
            if record["id"] in taken:
                raise InterchangeError(
                    f"question id {record['id']!r} is already in corpus {corpus_name}", name, line, field="id"
                )
            if record["id"] in seen:
                raise InterchangeError(
                    f"duplicate id {record['id']!r} (first at line {seen[record['id']]})", name, line, field="id"
                )
            seen[record["id"]] = line
            if kept is not None:  # one string per context, however many questions share it
                record["context"] = contexts.setdefault(record["context"], record["context"])
                kept.append((line, record))

        count = _validate(interchange.each_line(path, interchange.corpus_record, name), check, name, progress=progress)
        contexts.clear()
    else:
        count, seen = 0, {}
        for line, record in reader(path, name):
            if record["id"] in taken:
                raise InterchangeError(
                    f"question id {record['id']!r} is already in corpus {corpus_name}", name, line, field="id"
                )
            seen.setdefault(record["id"], line)
            count += 1
    with transaction.atomic(), bulk_cache():
        corpus, new_corpus = _corpus_to_fill(corpus_name, dedup_policy)
        lock_corpus(corpus.pk)  # imports and runs of this corpus one after the other: positions and ids stay unique
        _refuse_taken_meanwhile(corpus, seen, name)
        last = Question.objects.filter(corpus=corpus).aggregate(last=models.Max("position"))["last"]
        start = 0 if last is None else last + 1  # (a last position of 0 is a position: not "none")
        reference = (
            System.objects.get_or_create(name=REFERENCE, defaults={"kind": System.KIND_REFERENCE})[0]
            if reference_system
            else None
        )
        records = (record for _, record in (kept if kept is not None else reader(path)))
        written, unanswered = _write_questions(
            corpus, records, start=start, reference=reference, count=count, progress=progress
        )
        if new_corpus:
            _set_language(corpus)
        analyze_after_commit(Question, Triplet, Prediction, rows=written)
    return {
        "corpus": corpus.name,
        "questions": written,
        "without_reference": unanswered,
        "new_triplets": Triplet.objects.filter(question__corpus=corpus).count() if reference_system else 0,
    }


def _corpus_to_fill(corpus_name, dedup_policy):
    """``(corpus, created)``: the corpus of that name, created when new. Two imports creating the same
    new corpus at once: the second finds the first's (its ids are then checked under the corpus lock)."""
    corpus = Corpus.objects.filter(name=corpus_name).first()
    if corpus is not None:
        return corpus, False
    try:
        with transaction.atomic():
            return Corpus.objects.create(
                name=corpus_name, **({"dedup_policy": dedup_policy} if dedup_policy else {})
            ), True
    except IntegrityError:
        return Corpus.objects.get(name=corpus_name), False


def _refuse_taken_meanwhile(corpus, lines, name):
    """Under the corpus lock: the file's question ids (``{id: line}``) that another import wrote
    while this file was checked are refused, naming the first such line, as a re-import would be."""
    ids = sorted(lines)
    taken = set()
    for start in range(0, len(ids), IMPORT_BATCH):
        chunk = ids[start : start + IMPORT_BATCH]
        taken |= set(
            Question.objects.filter(corpus=corpus, external_id__in=chunk).values_list("external_id", flat=True)
        )
    if taken:
        first = min(taken, key=lines.get)
        raise InterchangeError(
            f"question id {first!r} is already in corpus {corpus.name} (written by another import while this file "
            "was checked)",
            name,
            lines[first],
            field="id",
        )


def _set_language(corpus):
    """A new corpus speaks the language most of its questions are in (``Corpus.language``)."""
    most = (
        Question.objects.filter(corpus=corpus)
        .values("language")
        .annotate(n=models.Count("id"))
        .order_by("-n", "language")
        .values_list("language", flat=True)
        .first()
    )
    if most and most != corpus.language:
        corpus.language = most
        corpus.save(update_fields=["language"])


def reference_answer(answers):
    """The answer of the system ``reference`` for a question: its first non-blank reference answer,
    or None (SQuAD 2.0's unanswerable ``answers: []``, an open question): no empty answer is ever a
    triplet shown to annotators.

    >>> reference_answer(["", "  ", "Denver"]), reference_answer([]), reference_answer([" "])
    ('Denver', None, None)
    """
    return next((a for a in answers if a.strip()), None)


def _validate(entries, check, name, *, progress, every=5000):
    """Pass 1 of an import: every line checked (its own rules, then ``check(line, record)`` for the
    rules across lines and against the database); all bad lines raise together (``BadLines``)."""
    rejects, count = [], 0
    for line, raw, record in entries:
        problem = record if isinstance(record, InterchangeError) else None
        if problem is None:
            try:
                check(line, record)
            except InterchangeError as exc:
                problem = exc
        if problem is not None:
            rejects.append(interchange.rejected(line, raw, problem))
            continue
        count += 1
        if count % every == 0:
            progress(done=count, message=VALIDATED_LINES % {"count": count})
    if rejects:
        raise interchange.BadLines(name, rejects)
    return count


QUESTION_COLUMNS = (
    "corpus",
    "external_id",
    "position",
    "context",
    "question",
    "answers",
    "language",
    *interchange.SEMANTIC_FIELDS,
    "meta",
)
_JSON_COLUMNS = {f.name for f in Question._meta.concrete_fields if isinstance(f, models.JSONField)}


def _question_row(corpus_id, position, record):
    """A checked corpus record as the values of ``QUESTION_COLUMNS`` (JSON as text, absent attributes NULL)."""
    values = {**record, "corpus": corpus_id, "external_id": record["id"], "position": position}
    return tuple(
        json_value(value) if name in _JSON_COLUMNS and value is not None else value
        for name in QUESTION_COLUMNS
        for value in (values.get(name),)
    )


def _write_questions(corpus, records, *, start, reference, count, progress):
    """Insert the questions of ``records`` from position ``start`` on, as plain rows in batches; with a
    ``reference`` system, then its predictions (first reference answers), linked to their triplets in
    one pass. Returns ``(questions written, questions without a reference answer)``."""
    written, answers, batch = 0, [], []
    for i, record in enumerate(records):
        batch.append(_question_row(corpus.pk, start + i, record))
        answers.append(reference_answer(record["answers"]))
        if len(batch) >= IMPORT_BATCH:
            written += insert_rows(Question, QUESTION_COLUMNS, batch)
            batch.clear()
            progress(done=written, total=count, message=WROTE_QUESTIONS % {"done": written, "total": count})
    written += insert_rows(Question, QUESTION_COLUMNS, batch)
    if reference is not None and written:
        ids = dict(Question.objects.filter(corpus=corpus, position__gte=start).values_list("position", "id"))
        rows = [(ids[start + i], ids[start + i], a) for i, a in enumerate(answers) if a is not None]
        mapping, _ = triplets_for(corpus, rows)
        now = now_value()
        insert_rows(
            Prediction, PREDICTION_COLUMNS, [(reference.pk, qid, a, mapping[qid], "{}", now) for _, qid, a in rows]
        )
    return written, answers.count(None)


def import_helm(path, corpus_name, *, reference_system=True, progress=_noop):
    """Import a HELM run or suite directory (``annotation.helm``): its instances as questions of
    ``corpus_name`` (those already there are kept), each run's completions as predictions of a
    system named by its model, whose ``meta`` keeps run spec, adapter and deployment. Atomic."""
    progress(message=READING_HELM)
    data = read_helm(path)
    corpus = Corpus.objects.filter(name=corpus_name).first()
    known = set(Question.objects.filter(corpus=corpus).values_list("external_id", flat=True)) if corpus else set()
    with tempfile.TemporaryDirectory() as tmp, transaction.atomic():
        questions = Path(tmp) / "corpus.jsonl"
        with open(questions, "w", encoding="utf-8") as out:
            interchange.write_jsonl([q for q in data["questions"] if q["id"] not in known], out)
        result = {"questions": 0}
        if questions.stat().st_size:
            result = import_corpus(
                questions, corpus_name, fmt="jsonl", reference_system=reference_system, progress=progress
            )
        corpus = Corpus.objects.get(name=corpus_name)
        predictions = Path(tmp) / "predictions.jsonl"
        with open(predictions, "w", encoding="utf-8") as out:
            interchange.write_jsonl(
                [
                    {"question_id": qid, "system": run["system"], "answer": answer, "meta": {"helm_run": run["name"]}}
                    for run in data["runs"]
                    for qid, answer in run["answers"].items()
                ],
                out,
            )
        imported = import_predictions(predictions, corpus, progress=progress)
        for run in data["runs"]:
            System.objects.filter(name=run["system"]).update(meta=run["meta"], description=f"HELM run {run['name']}")
    return {
        "corpus": corpus_name,
        "questions": result["questions"],
        "runs": [r["name"] for r in data["runs"]],
        "failed_requests": sum(r["failed"] for r in data["runs"]),
        **imported,
    }


def import_predictions(path, corpus, *, progress=_noop, name=None):
    """Import predictions JSONL for questions of ``corpus``; systems are created as needed.

    Pass 1 checks every line, keeping per system the line of each question's prediction in an array
    (not a set of pairs) and, for a file up to ``READ_ONCE_BYTES``, each prediction as a compact tuple;
    pass 2 deduplicates and writes the predictions a slice of questions at a time
    (``_write_predictions``), from those tuples or from the file read again."""
    name = name or interchange._name_of(path)
    known = dict(Question.objects.filter(corpus=corpus).values_list("external_id", "id"))
    existing = set(
        Prediction.objects.filter(question__corpus=corpus).values_list("system__name", "question__external_id")
    )
    systems, kept = {}, _kept_records(path)  # systems: one string per system name
    seen = interchange.PredictionLines(known)  # per system, an array of the line of each question's prediction
    progress(message=VALIDATING_PREDICTIONS)

    def check(line, record):
        key = (record["system"], record["question_id"])
        if record["question_id"] not in known:
            raise InterchangeError(f"unknown question id {record['question_id']!r}", name, line, field="question_id")
        if first := seen.first(*key):
            raise InterchangeError(
                f"duplicate prediction of system {key[0]!r} for question {key[1]!r} (first at line {first})",
                name,
                line,
                field="question_id",
            )
        if key in existing:
            raise InterchangeError(
                f"system {key[0]!r} already has a prediction for question {key[1]!r}", name, line, field="question_id"
            )
        if record["system"] == REFERENCE:
            raise InterchangeError(
                "the system name 'reference' is reserved for the corpus answers", name, line, field="system"
            )
        systems.setdefault(key[0], key[0])
        seen.add(*key, line)
        if kept is not None:
            kept.append(_compact_prediction(line, record, known=known, systems=systems))

    count = _validate(
        interchange.each_line(path, interchange.prediction_record, name), check, name, progress=progress, every=20000
    )
    existing.clear()
    seen = None  # its arrays freed before the writing pass
    with transaction.atomic(), bulk_cache():
        lock_corpus(corpus.pk)  # another import or run of this corpus finishes first
        by_name = {}
        for system_name in sorted(systems):
            by_name[system_name] = System.objects.get_or_create(
                name=system_name, defaults={"kind": System.KIND_IMPORTED}
            )[0]
        records = kept if kept is not None else _reread_predictions(path, name, known=known, systems=systems)
        written, linked, n_new = _write_predictions(
            corpus, records, known=known, by_name=by_name, name=name, count=count, progress=progress
        )
        triplets = {
            "new_triplets": n_new,
            "linked_predictions": linked,
            "empty_answers": written - linked,  # no triplet: nobody is shown an empty answer
            "added_to_folds": extend_folds_if_any(corpus),
        }
        analyze_after_commit(Prediction, Triplet, rows=written)
    return {"predictions": written, "systems": sorted(by_name), **triplets}


def _compact_prediction(line, record, *, known, systems):
    """A checked prediction as pass 2 needs it: ``(line, question id, system name, answer, meta as
    JSON text)``, the question by its database id and the system by the one string of its name."""
    return line, known[record["question_id"]], systems[record["system"]], record["answer"], json_value(record["meta"])


def _reread_predictions(path, name, *, known, systems):
    """Pass 2 of a file too large to keep: its lines parsed again, as ``_compact_prediction`` gives them
    (pass 1 checked every rule, duplicates included)."""
    for line, obj in interchange.iter_json_lines(path, name):
        yield _compact_prediction(line, interchange.prediction_record(obj, name, line), known=known, systems=systems)


def _write_predictions(corpus, records, *, known, by_name, name, count, progress):
    """Pass 2 of a predictions import: the checked predictions (``_compact_prediction``) deduplicated into triplets
    and written, a slice of at most ``ORM_BATCH`` questions at a time (a question's predictions stay
    in one slice when the file keeps them together; ``triplets_for`` gives the same triplets either
    way). Returns ``(predictions written, linked to a triplet, new triplets)``."""
    taken = _taken_meanwhile(corpus, by_name.values())
    progress(message=DEDUPLICATING)
    now = now_value()
    written = linked = n_new = 0
    rows, meta, questions = [], [], set()

    def flush():
        nonlocal written, linked, n_new
        mapping, new = triplets_for(corpus, rows)
        for start in range(0, len(rows), IMPORT_BATCH):  # one statement and one progress line per batch of rows
            batch = [
                (meta[i][0], qid, answer, mapping.get(k), meta[i][1], now)
                for i, (k, qid, answer) in enumerate(rows[start : start + IMPORT_BATCH], start)
            ]
            written += insert_rows(Prediction, PREDICTION_COLUMNS, batch)
            progress(done=written, total=count, message=WROTE_PREDICTIONS % {"done": written, "total": count})
        linked, n_new = linked + len(mapping), n_new + new
        rows.clear(), meta.clear(), questions.clear()

    for i, (line, qid, system_name, answer, meta_json) in enumerate(records):
        system = by_name[system_name].pk
        if (system, qid) in taken:
            external = next(e for e, q in known.items() if q == qid)
            raise InterchangeError(
                f"system {system_name!r} already has a prediction for question {external!r} "
                "(written by another job while this file was checked)",
                name,
                line,
                field="question_id",
            )
        if qid not in questions and len(questions) >= ORM_BATCH:
            flush()
        questions.add(qid)
        rows.append((i, qid, answer))
        meta.append((system, meta_json))
    if rows:
        flush()
    return written, linked, n_new


def _taken_meanwhile(corpus, systems):
    """(system id, question id) pairs already stored, read under the corpus lock."""
    return set(
        Prediction.objects.filter(question__corpus=corpus, system__in=list(systems)).values_list(
            "system_id", "question_id"
        )
    )


def match_label_rows(path, corpus, match="dedup", *, meta=False):
    """Match a labels-format file (SPEC 9) to the triplets of ``corpus`` without writing anything:
    ``[(triplet id, annotator, label)]`` (plus each line's ``meta`` and line number when ``meta``), or
    ``BadLines`` listing every line that matches no triplet or repeats one (all or nothing). Used by
    imports that are not human labels (judge labels)."""
    questions = dict(Question.objects.filter(corpus=corpus).values_list("external_id", "id"))
    index = TripletIndex(
        Triplet.objects.filter(question__corpus=corpus).values_list("id", "question_id", "answer", "normalized_answer"),
        corpus.dedup_policy,
    )
    name = interchange._name_of(path)
    plan = plan_labels(interchange.each_label_line(path, name), questions, index, mode=match)
    if plan.rejects:
        raise interchange.BadLines(name, plan.rejects)
    if meta:
        return [(row["triplet"], row["annotator"], row["label"], row["meta"], row["line"]) for row in plan.rows]
    return [(row["triplet"], row["annotator"], row["label"]) for row in plan.rows]


@dataclass(frozen=True)
class LabelImportOptions:
    """The options of a labels import (``import_labels``), as the web and the command give them."""

    match: str = "dedup"
    dry_run: bool = False
    rejects: str | Path | list | None = None
    attach_existing: bool = False
    annotator_prefix: str = ""


LABEL_OPTIONS = tuple(f.name for f in fields(LabelImportOptions))


def import_labels(path, corpus, *, progress=_noop, source="import", name=None, **options):
    """Import labels JSONL (SPEC 9). Each line must match a triplet of its question (``match``:
    ``dedup`` or ``squad``, see ``annotation.label_files``); ``options``: :class:`LabelImportOptions`.

    All or nothing by default: any bad line refuses the file, every bad line listed. ``dry_run``
    checks everything and changes nothing; ``rejects`` (a path, or a list to fill) imports the
    valid lines in one transaction and puts each rejected line with its reason there. ``name``:
    the file name shown in messages (default: ``path``).
    Annotators unknown to the platform become inactive accounts without a password, in the groups
    ``annotator`` and ``imported``; ``annotator_prefix`` goes before every name. A name that is an
    account with labels made in the browser or the API is refused unless ``attach_existing``.
    A label that already exists is changed (the change goes into its history); a line carrying the
    ``history`` of a labels export recreates that history on a new label.
    """
    o = LabelImportOptions(**options)
    match, dry_run, rejects = o.match, o.dry_run, o.rejects
    attach_existing, annotator_prefix = o.attach_existing, o.annotator_prefix
    questions = dict(Question.objects.filter(corpus=corpus).values_list("external_id", "id"))
    index = TripletIndex(
        Triplet.objects.filter(question__corpus=corpus).values_list("id", "question_id", "answer", "normalized_answer"),
        corpus.dedup_policy,
    )
    browser = set(Label.objects.exclude(source="import").values_list("annotator__username", flat=True).distinct())
    progress(message=VALIDATING_LABELS)
    name = name or interchange._name_of(path)
    plan = plan_labels(
        interchange.each_label_line(path, name),
        questions,
        index,
        mode=match,
        prefix=annotator_prefix or "",
        browser_accounts=browser,
        attach_existing=attach_existing,
    )
    summary = {"lines": len(plan.rows) + len(plan.rejects), "rejected": len(plan.rejects), "match": match}
    if dry_run:
        User = get_user_model()
        existing = set(User.objects.filter(username__in=plan.annotators).values_list("username", flat=True))
        return {
            **summary,
            "dry_run": True,
            "labels": len(plan.rows),
            "created": 0,
            "changed": 0,
            "annotators": sorted(plan.annotators),
            "new_annotators": sorted(plan.annotators - existing),
            "problems": plan.problems(name, limit=len(plan.rejects)),
        }
    if plan.rejects and rejects is None:
        raise interchange.BadLines(name, plan.rejects)
    if not plan.rows and not plan.rejects:
        raise InterchangeError("no label to import", name)
    result = _write_labels(plan, corpus, source)
    if rejects is not None:
        if isinstance(rejects, list):
            rejects.extend(plan.rejects)
        else:
            with open(rejects, "w", encoding="utf-8") as out:
                interchange.write_jsonl(plan.rejects, out)
    return {**summary, **result}


@transaction.atomic
def _write_labels(plan, corpus, source):
    User = get_user_model()
    groups = [Group.objects.get_or_create(name=n)[0] for n in (ANNOTATOR, IMPORTED)]
    names = sorted(plan.annotators)
    users = {u.username: u for u in User.objects.filter(username__in=names)}
    created_names = [n for n in names if n not in users]
    for name in created_names:
        user = User(username=name, is_active=False)
        user.set_unusable_password()
        user.save()
        user.groups.add(*groups)
        users[name] = user
    current = {
        (l.triplet_id, l.annotator_id): l
        for l in Label.objects.filter(triplet__question__corpus=corpus, annotator__in=users.values())
    }
    new, histories, changed = [], [], []
    for row in plan.rows:
        user = users[row["annotator"]]
        label = current.get((row["triplet"], user.pk))
        if label is None:
            history = history_of(row["meta"])
            seconds = row["meta"].get("seconds_spent")
            seconds = (
                float(seconds)
                if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds >= 0
                else 0.0
            )
            new.append(
                Label(
                    triplet_id=row["triplet"], annotator=user, value=row["label"], source=source, seconds_spent=seconds
                )
            )
            histories.append(history)
        elif label.value != row["label"] or label.skipped:
            label.value, label.skipped, label.source = row["label"], False, source
            changed.append(label)
    created = Label.objects.bulk_create(new, batch_size=IMPORT_BATCH)
    Label.objects.bulk_update(changed, ["value", "skipped", "source"], batch_size=IMPORT_BATCH)
    events, times = [], []
    for label, history in zip(created, histories):
        for event in history or [{"label": label.value, "skipped": False, "seconds": 0.0, "at": None}]:
            events.append(
                LabelEvent(label=label, value=event["label"], skipped=event["skipped"], seconds=event["seconds"])
            )
            times.append(event["at"])
    events.extend(LabelEvent(label=l, value=l.value) for l in changed)
    times.extend([None] * len(changed))
    events = LabelEvent.objects.bulk_create(events, batch_size=IMPORT_BATCH)
    dated = []
    for event, at in zip(events, times):
        when = parse_datetime(at) if at else None
        if when is not None:
            event.created_at = when
            dated.append(event)
    LabelEvent.objects.bulk_update(dated, ["created_at"], batch_size=IMPORT_BATCH)  # keeps exported history times
    analyze_after_commit(Label, LabelEvent, rows=len(events))
    return {
        "labels": len(plan.rows),
        "created": len(created),
        "changed": len(changed),
        "annotators": names,
        "new_annotators": created_names,
    }
