"""The import hot path's batch sizes and database-ready values. The statements that take them
(``executemany`` / ``COPY`` inserts, updates by primary key, ``ANALYZE`` after a bulk load) are in
``annotation.sql``; values given to them must already be database-ready (JSON fields as ``json.dumps``
strings, datetimes as ``now_value`` gives them).
"""

import json

from django.db import connection
from django.utils import timezone

# The one home of the batch sizes of the database shells (annotation's imports, triplets, folds).
IMPORT_BATCH = 5000  # rows per statement on the import path: executemany, label bulk_create, question flushes
ORM_BATCH = 2000  # rows per ORM bulk_create / bulk_update, and ids per ``IN (...)`` list, for triplets and fold items


def now_value():
    """The present moment as the database takes it in ``sql.insert_rows`` (text on SQLite), converted once
    for all the rows of a batch rather than by the driver for each row."""
    return connection.ops.adapt_datetimefield_value(timezone.now())


def json_value(value):
    """A JSON column's value for ``sql.insert_rows`` (an empty object or list needs no encoder call)."""
    return json.dumps(value) if value else ("{}" if isinstance(value, dict) else json.dumps(value))
