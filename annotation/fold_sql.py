"""The reads and the counter update of the annotator's round trip, as SQL written once per process.

Building these queries with the ORM (joins, ``Exists``, a filtered relation, ``select_related``)
cost several times more CPU than running them; here each is a fixed string with parameters, valid
on SQLite and PostgreSQL, and the rows become model instances with ``Model.from_db`` (the fields
not read are deferred). ``annotating`` is the only user; the semantics are documented there.

Every item query returns the fold item with its triplet and question, the annotator's label
(``my_label``, a Label or None) and ``has_previous`` (the annotator judged an item before it in the
fold), and walks the ``(fold, position)`` unique index from a known position: no query here reads
the annotator's past beyond the first hit.
"""

from __future__ import annotations

import functools

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import DEFAULT_DB_ALIAS

from annotation.models import Assignment, Corpus, Fold, FoldItem, Label, Question, Triplet
from core import sql
from core.sql import in_model_order as _in_model_order

_ITEM_FIELDS = _in_model_order(FoldItem, {"id", "fold_id", "position", "triplet_id", "is_overlap", "handle"})
_TRIPLET_FIELDS = _in_model_order(Triplet, {"id", "question_id", "answer"})
_QUESTION_FIELDS = _in_model_order(Question, {"id", "corpus_id", "question", "context", "language"})
_ASSIGNMENT_FIELDS = _in_model_order(
    Assignment, {"id", "fold_id", "annotator_id", "done", "skipped", "total", "cursor"}
)
_FOLD_FIELDS = _in_model_order(Fold, {"id", "corpus_id", "kind", "index", "name"})


def _item_sql(where, order, using):
    fi, t, q, lab = (sql.table(m, using=using) for m in (FoldItem, Triplet, Question, Label))
    cols = functools.partial(sql.columns, using=using)
    return (
        f"SELECT {cols('fi', FoldItem, _ITEM_FIELDS)}, {cols('t', Triplet, _TRIPLET_FIELDS)}, "
        f"{cols('q', Question, _QUESTION_FIELDS)}, l.id, l.value, l.skipped, "
        f"EXISTS (SELECT 1 FROM {fi} pi JOIN {lab} pl ON pl.triplet_id = pi.triplet_id AND pl.annotator_id = %s "
        f"WHERE pi.fold_id = fi.fold_id AND pi.position < fi.position) "
        f"FROM {fi} fi JOIN {t} t ON t.id = fi.triplet_id JOIN {q} q ON q.id = t.question_id "
        f"LEFT JOIN {lab} l ON l.triplet_id = fi.triplet_id AND l.annotator_id = %s "
        f"WHERE fi.fold_id = %s AND {where} ORDER BY fi.position {order} LIMIT 1"
    )


@functools.cache
def _statements(using=DEFAULT_DB_ALIAS):
    """The statements for the database ``using``, built on first use (its quoting is known by then)."""
    user_groups = get_user_model().groups.through
    table, quote = functools.partial(sql.table, using=using), functools.partial(sql.quote, using=using)
    seen, guidelines = sql.column(Assignment, "guidelines_seen", alias="a", using=using), quote("guidelines")
    return {
        "by_id": _item_sql("fi.id = %s", "ASC", using),
        "by_handle": _item_sql("fi.handle = %s", "ASC", using),
        "todo_from": _item_sql("fi.position >= %s AND l.id IS NULL", "ASC", using),
        "first_skipped": _item_sql("l.id IS NOT NULL AND l.value IS NULL", "ASC", using),
        "after": _item_sql("fi.position > %s", "ASC", using),
        "judged_before": _item_sql("l.id IS NOT NULL AND fi.position < %s", "DESC", using),
        "assignment": (
            f"SELECT {sql.columns('a', Assignment, _ASSIGNMENT_FIELDS, using=using)}, "
            f"{sql.columns('f', Fold, _FOLD_FIELDS, using=using)}, "
            f"CASE WHEN {seen} IS NULL THEN NULL WHEN {seen} = c.{guidelines} THEN 0 ELSE 1 END, "
            f"EXISTS (SELECT 1 FROM {table(user_groups)} ug JOIN {table(Group)} g ON g.id = ug.group_id "
            f"WHERE ug.user_id = a.annotator_id AND g.name = %s) "
            f"FROM {table(Assignment)} a JOIN {table(Fold)} f ON f.id = a.fold_id "
            f"JOIN {table(Corpus)} c ON c.id = f.corpus_id "
            f"WHERE a.fold_id = %s AND a.annotator_id = %s AND f.kind = %s"
        ),
        "move": (
            f"UPDATE {table(Assignment)} SET {quote('done')} = {quote('done')} + %s, "
            f"{quote('skipped')} = {quote('skipped')} + %s, {quote('cursor')} = %s WHERE id = %s"
        ),
    }


def _item(row, using):
    if row is None:
        return None
    n_item, n_triplet, n_question = len(_ITEM_FIELDS), len(_TRIPLET_FIELDS), len(_QUESTION_FIELDS)
    values = list(row)
    item = sql.instance(FoldItem, _ITEM_FIELDS, values[:n_item], using=using)
    triplet = sql.instance(Triplet, _TRIPLET_FIELDS, values[n_item : n_item + n_triplet], using=using)
    start = n_item + n_triplet
    triplet.question = sql.instance(Question, _QUESTION_FIELDS, values[start : start + n_question], using=using)
    item.triplet = triplet
    label_id, value, skipped, has_previous = values[start + n_question :]
    item.my_label = None if label_id is None else Label(pk=label_id, value=value, skipped=bool(skipped))
    item.has_previous = bool(has_previous)
    return item


SQL_INT_RANGE = range(-(2**63), 2**63)  # what a parameter of these statements may be on both databases


def item(kind, fold_id, user_id, *params, using=DEFAULT_DB_ALIAS):
    """One item of ``fold_id`` for annotator ``user_id``: ``kind`` is one of by_id (item id),
    by_handle (what annotators see), todo_from (position), first_skipped, after (position),
    judged_before (position). None when there is none, an id beyond 64 bits included (no such row;
    SQLite could not even take it; the edges check ids and positions first: ``core.ids``)."""
    if any(isinstance(v, int) and v not in SQL_INT_RANGE for v in (fold_id, user_id, *params)):
        return None
    row = sql.fetch_one(_statements(using)[kind], [user_id, user_id, fold_id, *params], using=using)
    return _item(row, using)


def assignment(user_id, fold_id, *, kind, role, using=DEFAULT_DB_ALIAS):
    """``(Assignment with its fold, user has ``role``)`` or None when the fold is not assigned to them.

    The Assignment carries ``guidelines_changed``: None when the annotator's read of the guidelines
    is not known yet, else whether the corpus's guidelines differ from what they last read."""
    row = sql.fetch_one(_statements(using)["assignment"], [role, fold_id, user_id, kind], using=using)
    if row is None:
        return None
    n = len(_ASSIGNMENT_FIELDS)
    found = sql.instance(Assignment, _ASSIGNMENT_FIELDS, row[:n], using=using)
    found.fold = sql.instance(Fold, _FOLD_FIELDS, row[n : n + len(_FOLD_FIELDS)], using=using)
    found.guidelines_changed = None if row[-2] is None else bool(row[-2])
    return found, bool(row[-1])


def move(assignment_id, *, d_done, d_skipped, cursor, using=DEFAULT_DB_ALIAS):
    """Add to the counters and set the cursor of an Assignment (inside the caller's transaction)."""
    sql.execute(_statements(using)["move"], [d_done, d_skipped, cursor, assignment_id], using=using)
