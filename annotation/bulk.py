"""Fast bulk inserts for the import hot path: ``executemany`` on the model's own table and columns.

The ORM's ``bulk_create`` spends most of its time building model instances and per-value SQL for
100k-row imports; this writes plain tuples instead. Values must already be database-ready (JSON
fields as ``json.dumps`` strings, datetimes aware). Runs inside the caller's transaction.
"""
from django.db import connection

BATCH = 5000


def insert_rows(model, fields, rows, batch=BATCH):
    """Insert ``rows`` (tuples in the order of ``fields``, model field names) into ``model``'s table."""
    opts = model._meta
    columns = [opts.get_field(name).column for name in fields]
    qn = connection.ops.quote_name
    sql = "INSERT INTO {} ({}) VALUES ({})".format(
        qn(opts.db_table), ", ".join(qn(c) for c in columns), ", ".join(["%s"] * len(columns))
    )
    written = 0
    with connection.cursor() as cursor:
        for start in range(0, len(rows), batch):
            chunk = rows[start:start + batch]
            cursor.executemany(sql, chunk)
            written += len(chunk)
    return written
