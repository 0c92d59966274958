"""annotation's hand-written SQL, its one home (issue 43), every statement written with ``core.sql``:
names quoted through ``_meta``, a ``using=`` database, every value bound, rows through ``Model.from_db``.

Each statement is here because a measured saving asks for it (the figure is in its section), and has a
differential test giving the ORM's answers on SQLite and PostgreSQL (``tests/annotation/test_sql.py``).
The logic stays with the callers; the sections:

- the judge's locked read (``annotation.judgements``, the one save path of labels and checks);
- the annotator's round trip (``annotation.annotating``: the shown item, the assignment, the counters);
- a crowd study's entry page (``annotation.studies``: folds and their holders, anyone idle);
- the import path's bulk writes (``annotation.bulk`` holds the batch sizes and values; importers, fold and
  triplet stores call these), PostgreSQL's planner statistics and the corpus lock.
"""

from __future__ import annotations

import contextlib
import functools

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import DEFAULT_DB_ALIAS, connections, transaction

from annotation import crowd
from annotation.bulk import IMPORT_BATCH
from annotation.models import Assignment, Corpus, Fold, FoldItem, Label, Participant, Question, Study, Triplet
from core import sql

# --- the judge's locked read ----------------------------------------------------------------------


@functools.cache
def _locked_row_sql(model, names, using, *, vendor):
    """``SELECT`` of the row of ``model`` at the fields ``names`` (``FOR UPDATE`` where the database
    has it), written once per model and key names: building it with the ORM on every judgement cost
    more CPU than running it (measured: about 130 us instead of 600 us). ``vendor`` keys the cache by
    database."""
    where = " AND ".join(f"{sql.column(model, name, using=using)} = %s" for name in names)
    lock = " FOR UPDATE" if connections[using].features.has_select_for_update else ""
    return f"SELECT * FROM {sql.table(model, using=using)} WHERE {where}{lock}"


def locked_row(model, keys, *, using=DEFAULT_DB_ALIAS):
    """The row of ``model`` at ``keys`` (field name -> value or model instance), locked until the end
    of the transaction, or None (``annotation.judgements``, the one save path of labels and checks).
    ``keys`` are the fields of a unique constraint (at most one row)."""
    names = tuple(keys)
    statement = _locked_row_sql(model, names, using, vendor=connections[using].vendor)
    params = [getattr(keys[name], "pk", keys[name]) for name in names]
    return next(iter(model.objects.db_manager(using).raw(statement, params)), None)


# --- the annotator's round trip -------------------------------------------------------------------
# Building these reads with the ORM (joins, ``Exists``, a filtered relation, ``select_related``) cost
# several times more CPU than running them (measured: 5-10 times). Every item query returns the fold
# item with its triplet and question, the annotator's label (``my_label``, a Label or None) and
# ``has_previous`` (the annotator judged an item before it in the fold). ``annotating`` documents the
# semantics.
#
# Each picks its item first, alone: the fold's items walked along the ``(fold, position)`` unique
# index, the annotator's label of each looked up by its ``(triplet, annotator)`` unique index
# (``EXISTS``), ``LIMIT 1``; the triplet, the question and the label are joined to that one item
# afterwards. Picked inside the join instead (``LEFT JOIN`` the labels, ``WHERE l.id IS NULL``),
# PostgreSQL's planner, misjudging how many rows a ``LEFT JOIN ... IS NULL`` keeps, joined every item
# of the fold to its triplet and question and sorted them for the first one: 8-29 ms a judgement at
# 10x SQuAD dev against 0.7 ms at 1x (issue 46; the folds are the same size, the tables are not).

_ITEM_FIELDS = sql.in_model_order(FoldItem, {"id", "fold_id", "position", "triplet_id", "is_overlap", "handle"})
_TRIPLET_FIELDS = sql.in_model_order(Triplet, {"id", "question_id", "answer"})
_QUESTION_FIELDS = sql.in_model_order(Question, {"id", "corpus_id", "question", "context", "language"})
_ASSIGNMENT_FIELDS = sql.in_model_order(
    Assignment, {"id", "fold_id", "annotator_id", "done", "skipped", "total", "cursor"}
)
_FOLD_FIELDS = sql.in_model_order(Fold, {"id", "corpus_id", "kind", "index", "name"})

#: How each item query picks its item: ``(condition on the fold's item "pick", order of positions,
#: its parameters)``; ``{mine}`` is the annotator's label of the item (a subquery), ``arg`` the
#: caller's parameter, ``user`` the annotator.
_PICKS = {
    "by_id": ("pick.id = %s", "ASC", ("arg",)),
    "by_handle": ("pick.handle = %s", "ASC", ("arg",)),
    "todo_from": ("pick.position >= %s AND NOT EXISTS ({mine})", "ASC", ("arg", "user")),
    "first_skipped": ("EXISTS ({mine} AND x.value IS NULL)", "ASC", ("user",)),
    "after": ("pick.position > %s", "ASC", ("arg",)),
    "judged_before": ("EXISTS ({mine}) AND pick.position < %s", "DESC", ("user", "arg")),
}


def _item_sql(kind, using):
    """``(statement, parameter names)`` of the item query ``kind`` (``_PICKS``)."""
    fi, t, q, lab = (sql.table(m, using=using) for m in (FoldItem, Triplet, Question, Label))
    cols = functools.partial(sql.columns, using=using)
    condition, order, names = _PICKS[kind]
    mine = f"SELECT 1 FROM {lab} x WHERE x.triplet_id = pick.triplet_id AND x.annotator_id = %s"
    statement = (
        f"SELECT {cols('fi', FoldItem, _ITEM_FIELDS)}, {cols('t', Triplet, _TRIPLET_FIELDS)}, "
        f"{cols('q', Question, _QUESTION_FIELDS)}, l.id, l.value, l.skipped, "
        f"EXISTS (SELECT 1 FROM {fi} pi JOIN {lab} pl ON pl.triplet_id = pi.triplet_id AND pl.annotator_id = %s "
        f"WHERE pi.fold_id = fi.fold_id AND pi.position < fi.position) "
        f"FROM (SELECT pick.id FROM {fi} pick WHERE pick.fold_id = %s AND {condition.format(mine=mine)} "
        f"ORDER BY pick.position {order} LIMIT 1) chosen "
        f"JOIN {fi} fi ON fi.id = chosen.id JOIN {t} t ON t.id = fi.triplet_id JOIN {q} q ON q.id = t.question_id "
        f"LEFT JOIN {lab} l ON l.triplet_id = fi.triplet_id AND l.annotator_id = %s"
    )
    return statement, ("user", "fold", *names, "user")


@functools.cache
def _round_trip(using=DEFAULT_DB_ALIAS):
    """The round trip's statements for the database ``using``, built on first use (its quoting is known);
    the item queries as ``(statement, parameter names)``."""
    user_groups = get_user_model().groups.through
    table, quote = functools.partial(sql.table, using=using), functools.partial(sql.quote, using=using)
    seen, guidelines = sql.column(Assignment, "guidelines_seen", alias="a", using=using), quote("guidelines")
    return {
        **{kind: _item_sql(kind, using) for kind in _PICKS},
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


def fold_item(kind, fold_id, user_id, *params, using=DEFAULT_DB_ALIAS):
    """One item of ``fold_id`` for annotator ``user_id``: ``kind`` is one of by_id (item id),
    by_handle (what annotators see), todo_from (position), first_skipped, after (position),
    judged_before (position). None when there is none, an id beyond 64 bits included (no such row;
    SQLite could not even take it; the edges check ids and positions first: ``core.ids``)."""
    if any(isinstance(v, int) and v not in SQL_INT_RANGE for v in (fold_id, user_id, *params)):
        return None
    return _item(sql.fetch_one(*item_statement(kind, fold_id, user_id, *params, using=using), using=using), using)


def item_statement(kind, fold_id, user_id, *params, using=DEFAULT_DB_ALIAS):
    """``(statement, bound values)`` of the item query ``kind`` (``fold_item``'s, to read its plan)."""
    statement, names = _round_trip(using)[kind]
    args, values = iter(params), {"user": user_id, "fold": fold_id}
    return statement, [next(args) if n == "arg" else values[n] for n in names]


def assignment(user_id, fold_id, *, kind, role, using=DEFAULT_DB_ALIAS):
    """``(Assignment with its fold, user has ``role``)`` or None when the fold is not assigned to them.

    The Assignment carries ``guidelines_changed``: None when the annotator's read of the guidelines
    is not known yet, else whether the corpus's guidelines differ from what they last read."""
    row = sql.fetch_one(_round_trip(using)["assignment"], [role, fold_id, user_id, kind], using=using)
    if row is None:
        return None
    n = len(_ASSIGNMENT_FIELDS)
    found = sql.instance(Assignment, _ASSIGNMENT_FIELDS, row[:n], using=using)
    found.fold = sql.instance(Fold, _FOLD_FIELDS, row[n : n + len(_FOLD_FIELDS)], using=using)
    found.guidelines_changed = None if row[-2] is None else bool(row[-2])
    return found, bool(row[-1])


def move_assignment(assignment_id, *, d_done, d_skipped, cursor, using=DEFAULT_DB_ALIAS):
    """Add to the counters and set the cursor of an Assignment (inside the caller's transaction)."""
    sql.execute(_round_trip(using)["move"], [d_done, d_skipped, cursor, assignment_id], using=using)


# --- a crowd study's entry page -------------------------------------------------------------------
# When a study goes live, hundreds of people open its link within seconds, and most are told the study
# is full before the consent (``studies.looks_full``). Built with the ORM that answer took four queries
# and about 3 ms of CPU per arrival; here it is one statement for the folds and their holders, and one
# for an idle participant when no fold has room. The rules stay in ``crowd`` and ``studies``.


@functools.cache
def _study_entry(using=DEFAULT_DB_ALIAS):
    fold, part, label = (sql.table(m, using=using) for m in (Fold, Participant, Label))
    chosen = sql.table(Study.folds.through, using=using)
    return {
        # Every answer fold of the study's corpus and every fold chosen for it, in the study's order,
        # with whether it was chosen and how many participants hold a slot of it.
        "folds": (
            f"SELECT f.id, f.corpus_id, "
            f"EXISTS (SELECT 1 FROM {chosen} c WHERE c.study_id = %s AND c.fold_id = f.id), "
            f"(SELECT COUNT(*) FROM {part} p WHERE p.study_id = %s AND p.fold_id = f.id "
            f"AND p.status IN ({sql.placeholders(crowd.HOLDING)})) "
            f"FROM {fold} f WHERE f.kind = %s AND (f.corpus_id = %s OR f.id IN "
            f"(SELECT c.fold_id FROM {chosen} c WHERE c.study_id = %s)) "
            f"ORDER BY {sql.column(Fold, 'index', alias='f', using=using)}, f.id"
        ),
        "participant": f"SELECT p.id FROM {part} p WHERE p.study_id = %s AND p.external_id = %s",
        # A working participant whose last activity (the later of the slot and the last label, as
        # ``studies._idle``) is at or before the limit: ``crowd.idle_ids`` would release them.
        "idle": (
            f"SELECT 1 FROM {part} p WHERE p.study_id = %s AND p.status IN ({sql.placeholders(crowd.WORKING)}) "
            f"AND COALESCE(p.slot_at, p.consented_at) <= %s "
            f"AND COALESCE((SELECT MAX(l.updated_at) FROM {label} l WHERE l.annotator_id = p.user_id), "
            f"p.consented_at) <= %s LIMIT 1"
        ),
    }


def study_folds_and_counts(study, *, using=DEFAULT_DB_ALIAS):
    """``(fold ids in the study's order, {fold: participants holding a slot})``, in one query: the
    folds chosen for the study, or (none chosen) every answer fold of its corpus (``studies.fold_ids``)."""
    s = study.pk
    params = [s, s, *crowd.HOLDING, Fold.KIND_TRIPLET, study.corpus_id, s]
    rows = sql.fetch_all(_study_entry(using)["folds"], params, using=using)
    picked = [(pk, n) for pk, _corpus, chosen, n in rows if chosen]
    mine = picked or [(pk, n) for pk, corpus, _chosen, n in rows if corpus == study.corpus_id]
    return [pk for pk, _n in mine], {pk: n for pk, n in mine if n}


def study_participant_id(study, external_id, *, using=DEFAULT_DB_ALIAS):
    """The id of the study's participant with this panel id, or None (most arrivals are new: one
    light query, and the row is read only when there is one)."""
    row = sql.fetch_one(_study_entry(using)["participant"], [study.pk, external_id], using=using)
    return row and row[0]


def study_any_idle(study, limit, *, using=DEFAULT_DB_ALIAS):
    """True when a working participant of ``study`` had no activity after ``limit`` (a datetime)."""
    at = sql.datetime_param(limit, using=using)
    params = [study.pk, *crowd.WORKING, at, at]
    return sql.fetch_one(_study_entry(using)["idle"], params, using=using) is not None


# --- the import path's bulk writes ----------------------------------------------------------------
# The ORM's ``bulk_create`` spends most of its time building model instances and per-value SQL for
# 100k-row imports, and ``bulk_update`` one ``CASE WHEN`` per field and row (minutes for 35,000
# triplets); these write plain tuples (values database-ready: ``annotation.bulk``'s ``json_value`` and
# ``now_value``), inside the caller's transaction, ``batch`` rows per statement (``bulk.IMPORT_BATCH``).


def _names(model, fields, using):
    return ", ".join(sql.column(model, name, using=using) for name in fields)


def insert_rows(model, fields, rows, *, batch=IMPORT_BATCH, using=DEFAULT_DB_ALIAS):
    """Insert ``rows`` (tuples in the order of ``fields``, model field names) into ``model``'s table:
    ``executemany``, or on PostgreSQL one ``COPY`` stream. Returns the number of rows written."""
    connection = connections[using]
    columns = _names(model, fields, using)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {sql.table(model, using=using)} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return len(rows)
        statement = f"INSERT INTO {sql.table(model, using=using)} ({columns}) VALUES ({sql.placeholders(fields)})"
        for start in range(0, len(rows), batch):
            cursor.executemany(statement, rows[start : start + batch])
    return len(rows)


def update_rows(model, fields, rows, *, batch=IMPORT_BATCH, using=DEFAULT_DB_ALIAS):
    """Set ``fields`` of many rows by primary key: ``rows`` are tuples ``(pk, *values)`` in the order of
    ``fields`` (model field names, values database-ready). One ``UPDATE ... FROM (VALUES ...)`` per
    batch on PostgreSQL, ``executemany`` of a plain ``UPDATE`` by primary key elsewhere. Returns the
    number of rows given."""
    connection = connections[using]
    opts = model._meta
    table, pk = sql.table(model, using=using), sql.quote(opts.pk.column, using=using)
    columns = [sql.column(model, name, using=using) for name in fields]
    rows = list(rows)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            types = [opts.pk.db_type(connection), *(opts.get_field(name).db_type(connection) for name in fields)]
            casts = "(" + ", ".join(f"%s::{t}" for t in types) + ")"
            names = ", ".join(["id", *(f"v{i}" for i in range(len(fields)))])
            sets = ", ".join(f"{c} = v.v{i}" for i, c in enumerate(columns))
            for start in range(0, len(rows), batch):
                chunk = rows[start : start + batch]
                values = ", ".join([casts] * len(chunk))
                statement = f"UPDATE {table} SET {sets} FROM (VALUES {values}) AS v({names}) WHERE {table}.{pk} = v.id"
                cursor.execute(statement, [x for row in chunk for x in row])
            return len(rows)
        statement = f"UPDATE {table} SET {', '.join(f'{c} = %s' for c in columns)} WHERE {pk} = %s"
        for start in range(0, len(rows), batch):
            cursor.executemany(statement, [(*row[1:], row[0]) for row in rows[start : start + batch]])
    return len(rows)


ANALYZE_ROWS = 10_000  # rows a bulk load writes from which PostgreSQL's planner statistics are refreshed


def analyze_after_commit(*models, rows, using=DEFAULT_DB_ALIAS):
    """Refresh PostgreSQL's planner statistics of these models' tables once the transaction commits,
    when a bulk load wrote ``rows`` rows (at least ``ANALYZE_ROWS``). Without it the planner goes on
    believing the tables a fresh database just received are nearly empty until autovacuum comes
    round, and picks nested loops that take minutes over a million rows (the live page's counts of
    a 35,000-triplet study, right after its import). After the commit, one table at a time, so that
    parallel imports never wait on each other's ``ANALYZE`` inside their transactions. Nothing on SQLite."""
    if connections[using].vendor != "postgresql" or rows < ANALYZE_ROWS:
        return

    def analyze():
        for model in models:
            sql.execute(f"ANALYZE {sql.table(model, using=using)}", [], using=using)

    transaction.on_commit(analyze, using=using)


#: SQLite's page cache (KiB) while a bulk load writes: a 10x SQuAD dev study's indexes (350,000
#: triplets, a million predictions) outgrow the default 2 MiB, and each insert then reads its index
#: pages back from the operating system (issue 46)
BULK_CACHE_KIB = 65536


@contextlib.contextmanager
def bulk_cache(using=DEFAULT_DB_ALIAS):
    """SQLite's page cache raised to ``BULK_CACHE_KIB`` for a bulk load, then the connection's own
    again (the pages beyond it are freed): a web process's connections keep their small cache.
    Nothing on PostgreSQL, whose buffers are the server's."""
    if connections[using].vendor != "sqlite":
        yield
        return
    before = int(sql.fetch_one("PRAGMA cache_size", [], using=using)[0])
    sql.execute(f"PRAGMA cache_size = -{int(BULK_CACHE_KIB)}", [], using=using)
    try:
        yield
    finally:
        sql.execute(f"PRAGMA cache_size = {before}", [], using=using)


def advisory_lock(namespace, key, *, using=DEFAULT_DB_ALIAS):
    """PostgreSQL's transaction-level advisory lock ``(namespace, key)``, held until the transaction
    ends (``triplet_store.lock_corpus``); nothing elsewhere (SQLite serialises writers already)."""
    if connections[using].vendor == "postgresql":
        sql.fetch_one("SELECT pg_advisory_xact_lock(%s, %s)", [namespace, int(key)], using=using)
