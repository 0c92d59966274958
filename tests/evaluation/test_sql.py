"""Every statement of evaluation.sql (the study archives' hand-written SQL, through core.sql) gives the
ORM's answers, on SQLite and, with ``DATABASE_URL=postgres://...``, on PostgreSQL (issue 43, point 2):
the restore's ``INSERT ... RETURNING`` (multi-row ``VALUES`` on SQLite, ``unnest`` of one array per
column on PostgreSQL) writes what the ORM reads back, times kept as given, ids in the rows' order;
the export's snapshot is read only and repeatable on PostgreSQL."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from annotation.models import Corpus, FoldItem, Label
from bench.kit.crowd import build_study
from core.models import Job
from evaluation import sql


def _copy(model, rows, **changed):
    """``rows`` (dicts as ``values()`` gives them) inserted anew through ``sql.insert_returning``, with
    ``changed`` values, each prepared by its field as the archive's restore prepares it."""
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    columns = [[f.get_db_prep_save(changed.get(f.attname, row[f.attname]), connection) for row in rows] for f in fields]
    return sql.insert_returning(model, fields, columns)


def _fields(model, *leave_out):
    return [f.attname for f in model._meta.concrete_fields if not f.primary_key and f.attname not in leave_out]


@pytest.mark.django_db
@pytest.mark.parametrize("batch", [2, None])
def test_inserted_labels_read_back_as_given_with_their_ids_in_order(tmp_path, monkeypatch, batch):
    if batch:  # several statements: the ids of every batch, in order
        monkeypatch.setattr(sql, "PG_BATCH", batch)
        monkeypatch.setattr(sql, "SQLITE_BATCH", batch)
    study = build_study(tmp_path, n_questions=6, k=1)
    first, second = (get_user_model().objects.create_user(name, password=None) for name in ("first", "second"))
    items = list(FoldItem.objects.filter(fold__corpus=study.corpus).order_by("position")[:5])
    long_ago = timezone.now() - timedelta(days=400, microseconds=7)
    for i, item in enumerate(items):
        value, skipped = (None, True) if i % 3 == 0 else ("correct", False)
        label = Label.objects.create(
            triplet_id=item.triplet_id, annotator=first, fold_id=item.fold_id, value=value, skipped=skipped
        )
        Label.objects.filter(pk=label.pk).update(
            seconds_spent=1.5 * i, created_at=long_ago, updated_at=long_ago + timedelta(hours=i)
        )
    fields = _fields(Label)
    rows = list(Label.objects.filter(annotator=first).order_by("pk").values(*fields))
    ids = _copy(Label, rows, annotator_id=second.pk)
    assert len(ids) == len(rows) == 5 and len(set(ids)) == 5
    copies = {pk: row for pk, *row in Label.objects.filter(pk__in=ids).values_list("pk", *fields)}
    for pk, row in zip(ids, rows, strict=True):
        assert copies[pk] == [second.pk if f == "annotator_id" else row[f] for f in fields], pk
    assert {row["created_at"] for row in rows} == {long_ago}  # no auto_now: the archive's times stay


@pytest.mark.django_db
def test_inserted_jobs_keep_their_json_and_an_empty_batch_inserts_nothing():
    corpus = Corpus.objects.create(name="c")
    params = [{"corpus": "c", "corpus_id": corpus.pk, "nested": {"é": [1, 2.5, None, True]}}, {}, {"text": "a'b\"c"}]
    for i, p in enumerate(params):
        Job.objects.create(kind="report", status=Job.SUCCEEDED, params=p, result={"n": i}, message=f"m{i}")
    fields = _fields(Job)
    rows = list(Job.objects.order_by("pk").values(*fields))
    ids = _copy(Job, rows)
    assert list(Job.objects.filter(pk__in=ids).order_by("pk").values(*fields)) == rows
    assert ids == sorted(ids) and _copy(Job, []) == [] and Job.objects.count() == 6


@pytest.mark.django_db(transaction=True)
def test_the_exports_snapshot_is_read_only_and_repeatable_on_postgresql():
    with transaction.atomic():
        sql.read_only_snapshot()
        assert Corpus.objects.count() == 0  # reads go on
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SHOW transaction_isolation")
                assert cursor.fetchone()[0] == "repeatable read"
            with pytest.raises(DatabaseError, match="read-only"), transaction.atomic():
                Corpus.objects.create(name="refused")
    assert not Corpus.objects.filter(name="refused").exists()
