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
from django.db import DEFAULT_DB_ALIAS, connections

from annotation.models import Assignment, Corpus, Fold, FoldItem, Label, Question, Triplet


def _in_model_order(model, names):
    """``names`` (attnames) in the order of the model's concrete fields: ``Model.from_db`` takes the
    values of a partial row in that order."""
    order = [f.attname for f in model._meta.concrete_fields]
    unknown = set(names) - set(order)
    if unknown:
        raise ValueError(f"{model.__name__} has no field(s) {sorted(unknown)}")
    return tuple(sorted(names, key=order.index))


_ITEM_FIELDS = _in_model_order(FoldItem, {"id", "fold_id", "position", "triplet_id", "is_overlap", "handle"})
_TRIPLET_FIELDS = _in_model_order(Triplet, {"id", "question_id", "answer"})
_QUESTION_FIELDS = _in_model_order(Question, {"id", "corpus_id", "question", "context", "language"})
_ASSIGNMENT_FIELDS = _in_model_order(
    Assignment, {"id", "fold_id", "annotator_id", "done", "skipped", "total", "cursor"}
)
_FOLD_FIELDS = _in_model_order(Fold, {"id", "corpus_id", "kind", "index", "name"})


def _q(name):
    return connections[DEFAULT_DB_ALIAS].ops.quote_name(name)


def _cols(alias, model, fields):
    return ", ".join(f"{alias}.{_q(model._meta.get_field(f).column)}" for f in fields)


def _item_sql(where, order):
    fi, t, q, lab = (_q(m._meta.db_table) for m in (FoldItem, Triplet, Question, Label))
    return (
        f"SELECT {_cols('fi', FoldItem, _ITEM_FIELDS)}, {_cols('t', Triplet, _TRIPLET_FIELDS)}, "
        f"{_cols('q', Question, _QUESTION_FIELDS)}, l.id, l.value, l.skipped, "
        f"EXISTS (SELECT 1 FROM {fi} pi JOIN {lab} pl ON pl.triplet_id = pi.triplet_id AND pl.annotator_id = %s "
        f"WHERE pi.fold_id = fi.fold_id AND pi.position < fi.position) "
        f"FROM {fi} fi JOIN {t} t ON t.id = fi.triplet_id JOIN {q} q ON q.id = t.question_id "
        f"LEFT JOIN {lab} l ON l.triplet_id = fi.triplet_id AND l.annotator_id = %s "
        f"WHERE fi.fold_id = %s AND {where} ORDER BY fi.position {order} LIMIT 1"
    )


@functools.cache
def _statements():
    """The statements, built on first use (the connection's quoting is known by then)."""
    user_groups = get_user_model().groups.through._meta.db_table
    return {
        "by_id": _item_sql("fi.id = %s", "ASC"),
        "by_handle": _item_sql("fi.handle = %s", "ASC"),
        "todo_from": _item_sql("fi.position >= %s AND l.id IS NULL", "ASC"),
        "first_skipped": _item_sql("l.id IS NOT NULL AND l.value IS NULL", "ASC"),
        "after": _item_sql("fi.position > %s", "ASC"),
        "judged_before": _item_sql("l.id IS NOT NULL AND fi.position < %s", "DESC"),
        "assignment": (
            f"SELECT {_cols('a', Assignment, _ASSIGNMENT_FIELDS)}, {_cols('f', Fold, _FOLD_FIELDS)}, "
            f"CASE WHEN a.{_q('guidelines_seen')} IS NULL THEN NULL "
            f"WHEN a.{_q('guidelines_seen')} = c.{_q('guidelines')} THEN 0 ELSE 1 END, "
            f"EXISTS (SELECT 1 FROM {_q(user_groups)} ug JOIN {_q(Group._meta.db_table)} g ON g.id = ug.group_id "
            f"WHERE ug.user_id = a.annotator_id AND g.name = %s) "
            f"FROM {_q(Assignment._meta.db_table)} a JOIN {_q(Fold._meta.db_table)} f ON f.id = a.fold_id "
            f"JOIN {_q(Corpus._meta.db_table)} c ON c.id = f.corpus_id "
            f"WHERE a.fold_id = %s AND a.annotator_id = %s AND f.kind = %s"
        ),
        "move": (
            f"UPDATE {_q(Assignment._meta.db_table)} SET {_q('done')} = {_q('done')} + %s, "
            f"{_q('skipped')} = {_q('skipped')} + %s, {_q('cursor')} = %s WHERE id = %s"
        ),
    }


def _fetchone(sql, params):
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _item(row):
    if row is None:
        return None
    n_item, n_triplet, n_question = len(_ITEM_FIELDS), len(_TRIPLET_FIELDS), len(_QUESTION_FIELDS)
    values = list(row)
    overlap = _ITEM_FIELDS.index("is_overlap")
    values[overlap] = bool(values[overlap])  # an integer on SQLite
    item = FoldItem.from_db(DEFAULT_DB_ALIAS, _ITEM_FIELDS, values[:n_item])
    triplet = Triplet.from_db(DEFAULT_DB_ALIAS, _TRIPLET_FIELDS, values[n_item : n_item + n_triplet])
    start = n_item + n_triplet
    triplet.question = Question.from_db(DEFAULT_DB_ALIAS, _QUESTION_FIELDS, values[start : start + n_question])
    item.triplet = triplet
    label_id, value, skipped, has_previous = values[start + n_question :]
    item.my_label = None if label_id is None else Label(pk=label_id, value=value, skipped=bool(skipped))
    item.has_previous = bool(has_previous)
    return item


SQL_INT_RANGE = range(-(2**63), 2**63)  # what a parameter of these statements may be on both databases


def item(kind, fold_id, user_id, *params):
    """One item of ``fold_id`` for annotator ``user_id``: ``kind`` is one of by_id (item id),
    by_handle (what annotators see), todo_from (position), first_skipped, after (position),
    judged_before (position). None when there is none, an id beyond 64 bits included (no such row;
    SQLite could not even take it; the edges check ids and positions first: ``core.ids``)."""
    if any(isinstance(v, int) and v not in SQL_INT_RANGE for v in (fold_id, user_id, *params)):
        return None
    return _item(_fetchone(_statements()[kind], [user_id, user_id, fold_id, *params]))


def assignment(user_id, fold_id, *, kind, role):
    """``(Assignment with its fold, user has ``role``)`` or None when the fold is not assigned to them.

    The Assignment carries ``guidelines_changed``: None when the annotator's read of the guidelines
    is not known yet, else whether the corpus's guidelines differ from what they last read."""
    row = _fetchone(_statements()["assignment"], [role, fold_id, user_id, kind])
    if row is None:
        return None
    n = len(_ASSIGNMENT_FIELDS)
    found = Assignment.from_db(DEFAULT_DB_ALIAS, _ASSIGNMENT_FIELDS, row[:n])
    found.fold = Fold.from_db(DEFAULT_DB_ALIAS, _FOLD_FIELDS, row[n : n + len(_FOLD_FIELDS)])
    found.guidelines_changed = None if row[-2] is None else bool(row[-2])
    return found, bool(row[-1])


def move(assignment_id, *, d_done, d_skipped, cursor):
    """Add to the counters and set the cursor of an Assignment (inside the caller's transaction)."""
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor_:
        cursor_.execute(_statements()["move"], [d_done, d_skipped, cursor, assignment_id])
