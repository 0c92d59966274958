"""Every statement of annotation.sql (annotation's hand-written SQL, through core.sql) gives the ORM's answers,
on SQLite and, with ``DATABASE_URL=postgres://...``, on PostgreSQL (issue 43, point 2: a differential test
per statement): the judge's locked read; the annotator's round trip (every item query at every position,
the assignment read, the counter update); a study's entry page (folds and holders, a participant, anyone
idle, against the ORM and the rules of annotation.crowd); the import path's inserts and updates by
primary key, and the corpus lock."""

from datetime import timedelta
from itertools import product

import pytest
from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connection, transaction
from django.db.models import Count, F
from django.utils import timezone

from annotation import crowd, sql, studies
from annotation.models import Assignment, Fold, FoldItem, Label, Participant, Study, Triplet
from bench.kit.crowd import build_study
from core import roles
from core.roles import ensure_groups

pytestmark = pytest.mark.django_db


@pytest.fixture
def fold_and_user(tmp_path):
    study = build_study(tmp_path, n_questions=8, k=1)
    fold = Fold.objects.get(corpus=study.corpus, kind=Fold.KIND_TRIPLET)
    user = get_user_model().objects.create_user("ann", password=None)
    user.groups.add(ensure_groups()["annotator"])
    other = get_user_model().objects.create_user("other", password=None)
    items = list(FoldItem.objects.filter(fold=fold).order_by("position"))
    # judged, skipped and untouched items in between, and another annotator's labels everywhere
    for i, item in enumerate(items):
        Label.objects.create(triplet_id=item.triplet_id, annotator=other, fold=fold, value="incorrect")
        if i % 4 == 1:
            Label.objects.create(triplet_id=item.triplet_id, annotator=user, fold=fold, value="correct")
        elif i % 4 == 2:
            Label.objects.create(triplet_id=item.triplet_id, annotator=user, fold=fold, value=None, skipped=True)
    Assignment.objects.create(fold=fold, annotator=user, total=len(items))
    return fold, user, items


def _orm(kind, fold, user, *params):
    """What the ORM says each item query returns (the semantics ``annotating`` documents)."""
    mine = {lab.triplet_id: lab for lab in Label.objects.filter(annotator=user, triplet__fold_items__fold=fold)}
    items = list(FoldItem.objects.filter(fold=fold).select_related("triplet__question").order_by("position"))
    rules = {
        "by_id": lambda it, p: it.pk == p,
        "by_handle": lambda it, p: it.handle == p,
        "todo_from": lambda it, p: it.position >= p and it.triplet_id not in mine,
        "first_skipped": lambda it, p=None: it.triplet_id in mine and mine[it.triplet_id].value is None,
        "after": lambda it, p: it.position > p,
        "judged_before": lambda it, p: it.triplet_id in mine and it.position < p,
    }
    hits = [it for it in items if rules[kind](it, *params)]
    found = (hits[-1] if kind == "judged_before" else hits[0]) if hits else None
    if found is None:
        return None
    label = mine.get(found.triplet_id)
    earlier = any(it.triplet_id in mine for it in items if it.position < found.position)
    return (
        (found.pk, found.fold_id, found.position, found.triplet_id, found.is_overlap, found.handle),
        (found.triplet.answer, found.triplet.question.question, found.triplet.question.context),
        None if label is None else (label.pk, label.value, label.skipped),
        earlier,
    )


def _sql(kind, fold, user, *params):
    found = sql.fold_item(kind, fold.pk, user.pk, *params, using=DEFAULT_DB_ALIAS)
    if found is None:
        return None
    label = found.my_label
    return (
        (found.pk, found.fold_id, found.position, found.triplet_id, found.is_overlap, found.handle),
        (found.triplet.answer, found.triplet.question.question, found.triplet.question.context),
        None if label is None else (label.pk, label.value, label.skipped),
        found.has_previous,
    )


def test_every_item_query_gives_the_orms_item_at_every_position(fold_and_user):
    fold, user, items = fold_and_user
    positions = range(-1, len(items) + 2)
    cases = [("first_skipped",)]
    cases += [(kind, p) for kind in ("todo_from", "after", "judged_before") for p in positions]
    cases += [("by_id", it.pk) for it in items] + [("by_handle", it.handle) for it in items]
    cases += [("by_id", 10**9), ("by_handle", 10**9)]
    for kind, *params in cases:
        assert _sql(kind, fold, user, *params) == _orm(kind, fold, user, *params), (kind, params)
    assert sum(_orm(k, fold, user, *p) is not None for k, *p in cases) > len(cases) // 2  # not all empty


def test_the_assignment_read_and_the_counter_update_match_the_orm(fold_and_user):
    fold, user, _items = fold_and_user
    found, is_annotator = sql.assignment(user.pk, fold.pk, kind=fold.kind, role=roles.ANNOTATOR)
    orm = Assignment.objects.select_related("fold").get(fold=fold, annotator=user)
    fields = ("pk", "fold_id", "annotator_id", "done", "skipped", "total", "cursor")
    assert [getattr(found, f) for f in fields] == [getattr(orm, f) for f in fields]
    assert (found.fold.pk, found.fold.name, found.fold.index) == (orm.fold.pk, orm.fold.name, orm.fold.index)
    assert is_annotator == user.groups.filter(name=roles.ANNOTATOR).exists() is True
    assert found.guidelines_changed is None  # never read: not known yet
    assert sql.assignment(user.pk, fold.pk, kind="frame", role=roles.ANNOTATOR) is None
    for start in (None, 3):  # ``done`` is NULL until counted: NULL + 2 stays NULL, as F("done") + 2 does
        Assignment.objects.filter(pk=orm.pk).update(done=start, skipped=1, cursor=0)
        sql.move_assignment(orm.pk, d_done=2, d_skipped=1, cursor=5)
        by_sql = Assignment.objects.values_list("done", "skipped", "cursor").get(pk=orm.pk)
        Assignment.objects.filter(pk=orm.pk).update(done=start, skipped=1, cursor=0)
        Assignment.objects.filter(pk=orm.pk).update(done=F("done") + 2, skipped=F("skipped") + 1, cursor=5)
        by_orm = Assignment.objects.values_list("done", "skipped", "cursor").get(pk=orm.pk)
        assert by_sql == by_orm == (None if start is None else 5, 2, 5)


def test_the_judges_locked_read_gives_the_orms_row(fold_and_user):
    """annotation.judgements' fixed locked read (through core.sql) of a label row: the ORM's row, every
    field, or None where there is none."""
    _fold, user, items = fold_and_user
    for item in items:
        with transaction.atomic():
            got = sql.locked_row(Label, {"triplet": item.triplet, "annotator": user})
        orm = Label.objects.filter(triplet=item.triplet, annotator=user).first()
        assert (got is None) == (orm is None)
        if orm is not None:
            fields = [f.attname for f in Label._meta.concrete_fields]
            assert [getattr(got, f) for f in fields] == [getattr(orm, f) for f in fields]
    assert any(Label.objects.filter(triplet=i.triplet, annotator=user).exists() for i in items)


# --- a crowd study's entry page ------------------------------------------------------------------


@pytest.fixture
def study(tmp_path):
    return build_study(tmp_path, n_questions=8, k=4, slots_per_fold=3, idle_minutes=30)


def _participant(study, i, fold_id, status):
    user = get_user_model().objects.create_user(f"u{i}", password=None)
    return Participant.objects.create(study=study, external_id=f"p{i}", user=user, fold_id=fold_id, status=status)


def test_folds_and_counts_match_the_orm(study):
    folds = studies.fold_ids(study)
    for i, status in enumerate(["consented", "active", "completed", "idle", "returned", "excluded", "active"]):
        _participant(study, i, folds[i % 2], status)
    ids, counts = sql.study_folds_and_counts(study)
    holding = Participant.objects.filter(study=study, status__in=crowd.HOLDING, fold__isnull=False)
    expected = dict(holding.values_list("fold").annotate(n=Count("id")).values_list("fold", "n"))
    assert ids == folds and counts == expected == {folds[0]: 3, folds[1]: 1}
    study.folds.set(folds[2:])  # chosen folds replace the corpus's
    assert sql.study_folds_and_counts(Study.objects.get(pk=study.pk)) == (folds[2:], {})


def test_any_idle_agrees_with_the_rule_on_every_side_of_the_limit(study):
    now = timezone.now().replace(microsecond=500000)
    limit = crowd.idle_limit(now, study.idle_minutes)
    moments = [None, limit - timedelta(minutes=5), limit, limit + timedelta(microseconds=1), now]
    fold = studies.fold_ids(study)[0]
    item = FoldItem.objects.filter(fold_id=fold).first()
    cases = 0
    for status, consented, slot, last in product(["active", "consented", "completed"], moments[1:], moments, moments):
        Participant.objects.filter(study=study).delete()
        p = _participant(study, cases, fold, status)
        Participant.objects.filter(pk=p.pk).update(consented_at=consented, slot_at=slot)
        if last is not None:
            Label.objects.create(triplet_id=item.triplet_id, annotator=p.user, value="correct")
            Label.objects.filter(annotator=p.user).update(updated_at=last)
        expected = bool(studies._idle(study, now)[1])
        assert sql.study_any_idle(study, limit) is expected, (status, consented, slot, last)
        cases += 1
    assert cases == 3 * 4 * 5 * 5


def test_a_participant_is_found_by_panel_id_as_the_orm_finds_it(study):
    folds = studies.fold_ids(study)
    for i, status in enumerate(["consented", "active", "returned"]):
        _participant(study, i, folds[0], status)
    other = Study.objects.create(corpus=study.corpus, slug="other-study", title="other")
    _participant(other, 9, folds[0], "active")  # p9 belongs to another study
    for external_id in ("p0", "p1", "p2", "p9", "nobody", ""):
        orm = Participant.objects.filter(study=study, external_id=external_id).values_list("id", flat=True).first()
        assert sql.study_participant_id(study, external_id) == orm, external_id
    assert sql.study_participant_id(other, "p9") is not None


# --- the import path's bulk writes ----------------------------------------------------------------

QUESTION_FIELDS = ("corpus", "external_id", "position", "context", "question", "answers", "language", "meta")


def _questions(corpus):
    rows = corpus.questions.order_by("position").values_list(*QUESTION_FIELDS[1:])
    return [tuple(row) for row in rows]


@pytest.mark.parametrize("batch", [2, 5000])
def test_inserted_rows_read_back_as_the_orms_bulk_create_writes_them(study, batch):
    """``insert_rows`` (executemany in batches, COPY on PostgreSQL) against ``bulk_create`` of the same
    values: every column, JSON and text with quotes, tabs and new lines included."""
    from annotation.bulk import json_value
    from annotation.models import Corpus, Question

    by_sql, by_orm = Corpus.objects.create(name="by-sql"), Corpus.objects.create(name="by-orm")
    values = [
        (f"q{i}", i, f"ctx {i}\t'quoted'\n\\ back", f'what "{i}"?', ["a", {"b": i}] if i % 2 else [], "fr", {})
        for i in range(5)
    ]
    written = sql.insert_rows(
        Question,
        QUESTION_FIELDS,
        [(by_sql.pk, e, p, c, q, json_value(a), lang, json_value(m)) for e, p, c, q, a, lang, m in values],
        batch=batch,
    )
    Question.objects.bulk_create(
        Question(corpus=by_orm, external_id=e, position=p, context=c, question=q, answers=a, language=lang, meta=m)
        for e, p, c, q, a, lang, m in values
    )
    assert written == 5 and _questions(by_sql) == _questions(by_orm) == [tuple(v) for v in values]


def test_rows_updated_by_primary_key_read_back_as_the_orms_bulk_update_leaves_them(study):
    """``update_rows`` (executemany by primary key; one ``UPDATE ... FROM (VALUES ...)`` per batch on
    PostgreSQL) against ``bulk_update`` of the same values, NULLs and booleans included."""
    fields = ("design_pi", "design_sampled", "design_phase", "design_p1")
    triplets = list(Triplet.objects.filter(question__corpus=study.corpus).order_by("pk")[:5])
    values = [
        (t.pk, 0.5 / (i + 1), bool(i % 2), "phase-2" if i % 2 else "", None if i % 3 else 0.25)
        for i, t in enumerate(triplets)
    ]
    before = list(Triplet.objects.filter(pk__in=[t.pk for t in triplets]).order_by("pk").values_list("pk", *fields))

    def read():
        return list(Triplet.objects.filter(pk__in=[t.pk for t in triplets]).order_by("pk").values_list("pk", *fields))

    assert sql.update_rows(Triplet, fields, values, batch=2) == 5
    by_sql = read()
    Triplet.objects.bulk_update([Triplet(pk=pk, **dict(zip(fields, row))) for pk, *row in before], fields)
    assert read() == before
    Triplet.objects.bulk_update([Triplet(pk=pk, **dict(zip(fields, row))) for pk, *row in values], fields)
    assert by_sql == read() == [tuple(v) for v in values]


def test_the_corpus_lock_is_held_until_the_transaction_ends(db):
    """PostgreSQL: ``pg_advisory_xact_lock`` (CORPUS_LOCK, corpus id) in ``pg_locks`` once taken (the
    test's transaction holds it to its end), that corpus's only; SQLite: nothing to take, and no error."""
    from annotation.models import Corpus
    from annotation.triplet_store import CORPUS_LOCK, lock_corpus

    locked, other = Corpus.objects.create(name="locked"), Corpus.objects.create(name="other")

    def held(corpus):
        if connection.vendor != "postgresql":
            return None
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND objid = %s "
                "AND pid = pg_backend_pid()",
                [CORPUS_LOCK, corpus.pk],
            )
            return cursor.fetchone()[0]

    with transaction.atomic():
        assert held(locked) in (None, 0)
        lock_corpus(locked.pk)
        lock_corpus(locked.pk)  # taken again by the same transaction: no wait
        assert held(locked) == (1 if connection.vendor == "postgresql" else None)
        assert held(other) in (None, 0)


def test_analyze_waits_for_the_commit_on_postgresql_and_is_nothing_on_sqlite(django_capture_on_commit_callbacks):
    """The callbacks are counted, not run: an ``ANALYZE`` of the near-empty tables of this test would
    leave PostgreSQL's planner statistics (``reltuples``, kept across the test's rollback) saying
    "empty" to every later test of the same database, and its large imports then crawl on nested
    loops. ``test_bulk_analyze`` runs them on a real load."""
    from annotation.models import Question

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        sql.analyze_after_commit(Question, Triplet, rows=sql.ANALYZE_ROWS - 1)
    assert callbacks == []
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        sql.analyze_after_commit(Question, Triplet, rows=sql.ANALYZE_ROWS)
    assert len(callbacks) == (1 if connection.vendor == "postgresql" else 0)


@pytest.mark.django_db
def test_bulk_cache_raises_sqlite_page_cache_for_the_load_only():
    """A bulk load's connection gets ``BULK_CACHE_KIB`` of SQLite page cache, then its own again,
    even when the load fails; PostgreSQL's settings are not touched."""
    from core import sql as core_sql

    def cache():
        return core_sql.fetch_one("PRAGMA cache_size", [])[0] if connection.vendor == "sqlite" else None

    before = cache()
    with sql.bulk_cache():
        inside = cache()
    assert cache() == before
    with pytest.raises(RuntimeError), sql.bulk_cache():
        raise RuntimeError("the load failed")
    assert cache() == before
    if connection.vendor == "sqlite":
        assert inside == -sql.BULK_CACHE_KIB and before != inside
