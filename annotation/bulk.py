"""Fast bulk inserts for the import hot path: ``executemany`` on the model's own table and columns.

The ORM's ``bulk_create`` spends most of its time building model instances and per-value SQL for
100k-row imports; this writes plain tuples instead. Values must already be database-ready (JSON
fields as ``json.dumps`` strings, datetimes aware). Runs inside the caller's transaction; on
PostgreSQL it streams the rows with ``COPY``.
"""

import json

from django.db import connection, transaction
from django.utils import timezone

# The one home of the batch sizes of the database shells (annotation's imports, triplets, folds).
IMPORT_BATCH = 5000  # rows per statement on the import path: executemany, label bulk_create, question flushes
ORM_BATCH = 2000  # rows per ORM bulk_create / bulk_update, and ids per ``IN (...)`` list, for triplets and fold items


def now_value():
    """The present moment as the database takes it in ``insert_rows`` (text on SQLite), converted once
    for all the rows of a batch rather than by the driver for each row."""
    return connection.ops.adapt_datetimefield_value(timezone.now())


def json_value(value):
    """A JSON column's value for ``insert_rows`` (an empty object or list needs no encoder call)."""
    return json.dumps(value) if value else ("{}" if isinstance(value, dict) else json.dumps(value))


def insert_rows(model, fields, rows, *, batch=IMPORT_BATCH):
    """Insert ``rows`` (tuples in the order of ``fields``, model field names) into ``model``'s table."""
    opts = model._meta
    columns = [opts.get_field(name).column for name in fields]
    qn = connection.ops.quote_name
    sql = "INSERT INTO {} ({}) VALUES ({})".format(
        qn(opts.db_table), ", ".join(qn(c) for c in columns), ", ".join(["%s"] * len(columns))
    )
    written = 0
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # COPY is PostgreSQL's bulk path: one stream instead of a statement per row.
            copy_sql = "COPY {} ({}) FROM STDIN".format(qn(opts.db_table), ", ".join(qn(c) for c in columns))
            with cursor.cursor.copy(copy_sql) as copy:
                for row in rows:
                    copy.write_row(row)
            return len(rows)
        for start in range(0, len(rows), batch):
            chunk = rows[start : start + batch]
            cursor.executemany(sql, chunk)
            written += len(chunk)
    return written


ANALYZE_ROWS = 10_000  # rows a bulk load writes from which PostgreSQL's planner statistics are refreshed


def analyze_after_commit(*models, rows):
    """Refresh PostgreSQL's planner statistics of these models' tables once the transaction commits,
    when a bulk load wrote ``rows`` rows (at least ``ANALYZE_ROWS``). Without it the planner goes on
    believing the tables a fresh database just received are nearly empty until autovacuum comes
    round, and picks nested loops that take minutes over a million rows (the live page's counts of
    a 35,000-triplet study, right after its import). After the commit, one table at a time, so that
    parallel imports never wait on each other's ``ANALYZE`` inside their transactions. Nothing on SQLite."""
    if connection.vendor != "postgresql" or rows < ANALYZE_ROWS:
        return

    def analyze():
        qn = connection.ops.quote_name
        with connection.cursor() as cursor:
            for model in models:
                cursor.execute(f"ANALYZE {qn(model._meta.db_table)}")

    transaction.on_commit(analyze)


def update_rows(model, fields, rows, *, batch=IMPORT_BATCH):
    """Set ``fields`` of many rows by primary key: ``rows`` are tuples ``(pk, *values)`` in the order of
    ``fields`` (model field names, values database-ready). The ORM's ``bulk_update`` builds one
    ``CASE WHEN`` per field and row, which takes minutes for 35,000 triplets; this runs one
    ``UPDATE ... FROM (VALUES ...)`` per batch on PostgreSQL and ``executemany`` of a plain ``UPDATE``
    by primary key elsewhere. Runs inside the caller's transaction."""
    opts = model._meta
    qn = connection.ops.quote_name
    table, pk = qn(opts.db_table), qn(opts.pk.column)
    columns = [qn(opts.get_field(name).column) for name in fields]
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
                sql = f"UPDATE {table} SET {sets} FROM (VALUES {values}) AS v({names}) WHERE {table}.{pk} = v.id"
                cursor.execute(sql, [x for row in chunk for x in row])
            return len(rows)
        sql = "UPDATE {} SET {} WHERE {} = %s".format(table, ", ".join(f"{c} = %s" for c in columns), pk)
        for start in range(0, len(rows), batch):
            cursor.executemany(sql, [(*row[1:], row[0]) for row in rows[start : start + batch]])
    return len(rows)
