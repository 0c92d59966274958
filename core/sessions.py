"""Django's database sessions (``SESSION_ENGINE = "core.sessions"``), read with one fixed statement.

Every request of a logged-in user reads its session row. Django's store builds that read with the
ORM (``Session.objects.get(session_key=..., expire_date__gt=now)``), which cost about as much CPU as
the rest of the authentication; here it is one SQL string with two parameters, same table, same
rows, same answer: the row when it exists and has not expired, else the key is forgotten (a new
session starts). Writes, keys, expiry, the signed encoding and server-side invalidation (logout
deletes the row) are Django's own: an existing session stays valid across the change. The saving
is what keeps this module rather than Django's ``db`` backend: about 60 us per read instead of 320 us
(the review of issue 43, on SQLite). The statement is core's, in ``core.sql``.
"""

from __future__ import annotations

from django.contrib.sessions.backends import db
from django.db import router
from django.utils import timezone

from core import sql


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        key = self.session_key
        data = None
        if key is not None:
            data = sql.session_data(self.model, key, timezone.now(), using=router.db_for_read(self.model))
        if data is None:
            self._session_key = None
            return None
        return self.model(session_key=key, session_data=data)
