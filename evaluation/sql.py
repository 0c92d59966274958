"""evaluation's hand-written SQL, its one home (issue 43), written with ``core.sql``: names quoted through
``_meta``, a ``using=`` database, every value bound. The study archives' two statements:

- the restore's insert (``evaluation.archive.insert``): ``INSERT ... RETURNING id`` per batch of rows,
  written here rather than by ``bulk_create`` because the archive's values need no model instances
  and their times must not be replaced by ``auto_now``; SQLite (3.35+) gets a multi-row ``VALUES``,
  PostgreSQL one array per column (``SELECT * FROM unnest(...)``: a few parameters per batch instead
  of one per value; measured on SQuAD dev's study, ``bench/archive_bench.py``);
- the export's read snapshot on PostgreSQL (``evaluation.archive.collect``).

Each has a differential test (``tests/evaluation/test_sql.py``: the ORM's rows, on SQLite and PostgreSQL).
"""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections

from core import sql

PG_BATCH = 5000  # rows per INSERT on PostgreSQL (one array per column: the parameters do not grow with it)
SQLITE_BATCH = 2000  # at most, rows per INSERT elsewhere (one parameter per value: the backend's limit first)


def insert_returning(model, fields, columns, *, using=DEFAULT_DB_ALIAS):
    """Insert rows given column by column and return their new primary keys, in the rows' order.

    Parameters
    ----------
    model : type
        The model whose table receives the rows.
    fields : list of Field
        Its concrete fields written (the primary key left out: the database gives it).
    columns : list of list
        One list of database-ready values per field, all of one length (the rows).
    using : str
        The database alias.

    Returns
    -------
    list of int
        The primary keys of the new rows, in order.
    """
    connection = connections[using]
    names = ", ".join(sql.column(model, f.name, using=using) for f in fields)
    head = f"INSERT INTO {sql.table(model, using=using)} ({names}) "
    tail = f" RETURNING {sql.quote(model._meta.pk.column, using=using)}"
    n = len(columns[0]) if columns else 0
    arrays = connection.vendor == "postgresql"
    if arrays:
        size = PG_BATCH
        unnest = "SELECT * FROM unnest(" + ", ".join(f"%s::{f.db_type(connection)}[]" for f in fields) + ")"
    else:
        size = max(1, min(SQLITE_BATCH, connection.ops.bulk_batch_size(fields, range(n))))
        one = f"({sql.placeholders(fields)})"
    ids = []
    with connection.cursor() as cursor:
        for start in range(0, n, size):
            batch = [values[start : start + size] for values in columns]
            if arrays:
                cursor.execute(head + unnest + tail, batch)
            else:
                params = [value for row in zip(*batch, strict=True) for value in row]
                cursor.execute(f"{head}VALUES {', '.join([one] * len(batch[0]))}{tail}", params)
            ids += [found[0] for found in cursor.fetchall()]
    return ids


def read_only_snapshot(*, using=DEFAULT_DB_ALIAS):
    """Make the transaction just begun on PostgreSQL ``REPEATABLE READ READ ONLY``: every later query
    of it reads the database as of its first one (an export's study as of one moment). Nothing
    elsewhere (SQLite's deferred transaction is a snapshot already, in WAL mode).

    Parameters
    ----------
    using : str
        The database alias (its transaction must have run no query yet).

    Returns
    -------
    None
    """
    if connections[using].vendor == "postgresql":
        sql.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", [], using=using)
