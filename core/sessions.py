"""Django's database sessions (``SESSION_ENGINE = "core.sessions"``), read with one fixed statement.

Every request of a logged-in user reads its session row. Django's store builds that read with the
ORM (``Session.objects.get(session_key=..., expire_date__gt=now)``), which cost about as much CPU as
the rest of the authentication; here it is one SQL string with two parameters, same table, same
rows, same answer: the row when it exists and has not expired, else the key is forgotten (a new
session starts). Writes, keys, expiry, the signed encoding and server-side invalidation (logout
deletes the row) are Django's own: an existing session stays valid across the change.
"""

from __future__ import annotations

import functools

from django.contrib.sessions.backends import db
from django.db import connections, router
from django.utils import timezone


class SessionStore(db.SessionStore):
    @functools.cached_property
    def _read_sql(self):
        connection = connections[router.db_for_read(self.model)]
        qn = connection.ops.quote_name
        return (
            f"SELECT {qn('session_data')} FROM {qn(self.model._meta.db_table)} "
            f"WHERE {qn('session_key')} = %s AND {qn('expire_date')} > %s"
        )

    def _get_session_from_db(self):
        key = self.session_key
        row = None
        if key is not None:
            connection = connections[router.db_for_read(self.model)]
            with connection.cursor() as cursor:
                cursor.execute(self._read_sql, [key, connection.ops.adapt_datetimefield_value(timezone.now())])
                row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        return self.model(session_key=key, session_data=row[0])
