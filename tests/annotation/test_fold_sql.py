"""annotation.fold_sql (the annotator's round trip as fixed SQL, through core.sql) and the judge's locked read
(annotation.sql, for annotation.judgements) give the ORM's answers:
every item query at every position, the assignment read and the counter update, on SQLite and, with
``DATABASE_URL=postgres://...``, on PostgreSQL (issue 43, point 2: a differential test per statement)."""

import pytest
from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS
from django.db.models import F

from annotation import fold_sql
from annotation.models import Assignment, Fold, FoldItem, Label
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
    found = fold_sql.item(kind, fold.pk, user.pk, *params, using=DEFAULT_DB_ALIAS)
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
    found, is_annotator = fold_sql.assignment(user.pk, fold.pk, kind=fold.kind, role=roles.ANNOTATOR)
    orm = Assignment.objects.select_related("fold").get(fold=fold, annotator=user)
    fields = ("pk", "fold_id", "annotator_id", "done", "skipped", "total", "cursor")
    assert [getattr(found, f) for f in fields] == [getattr(orm, f) for f in fields]
    assert (found.fold.pk, found.fold.name, found.fold.index) == (orm.fold.pk, orm.fold.name, orm.fold.index)
    assert is_annotator == user.groups.filter(name=roles.ANNOTATOR).exists() is True
    assert found.guidelines_changed is None  # never read: not known yet
    assert fold_sql.assignment(user.pk, fold.pk, kind="frame", role=roles.ANNOTATOR) is None
    for start in (None, 3):  # ``done`` is NULL until counted: NULL + 2 stays NULL, as F("done") + 2 does
        Assignment.objects.filter(pk=orm.pk).update(done=start, skipped=1, cursor=0)
        fold_sql.move(orm.pk, d_done=2, d_skipped=1, cursor=5)
        by_sql = Assignment.objects.values_list("done", "skipped", "cursor").get(pk=orm.pk)
        Assignment.objects.filter(pk=orm.pk).update(done=start, skipped=1, cursor=0)
        Assignment.objects.filter(pk=orm.pk).update(done=F("done") + 2, skipped=F("skipped") + 1, cursor=5)
        by_orm = Assignment.objects.values_list("done", "skipped", "cursor").get(pk=orm.pk)
        assert by_sql == by_orm == (None if start is None else 5, 2, 5)


def test_the_judges_locked_read_gives_the_orms_row(fold_and_user):
    """annotation.judgements' fixed locked read (through core.sql) of a label row: the ORM's row, every
    field, or None where there is none."""
    from django.db import transaction

    from annotation import sql

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
