"""The one helper of hand-written SQL (issue 43): names quoted through the model's ``_meta`` and the
connection's own quoting, the database chosen by ``using``, every value bound as a parameter (never
formatted into the text, lists included), and rows mapped to model instances with ``Model.from_db``.

Hand-written SQL is for the few statements whose saving was measured (each says its figure); it
lives in its app's ``sql.py`` (core's is this module: the session read), which bin/check-architecture
holds to (SQL text elsewhere is a breach, but in its closed ``SQL_ELSEWHERE`` list).
Each statement has a differential test: the ORM's answers, on SQLite and on PostgreSQL.

>>> placeholders(["a", "b"]), placeholders([])
('%s, %s', 'NULL')
"""

from __future__ import annotations

import functools

from django.db import DEFAULT_DB_ALIAS, connections


def quote(name: str, *, using: str = DEFAULT_DB_ALIAS) -> str:
    """A table or column name quoted for the database ``using``."""
    return connections[using].ops.quote_name(name)


def table(model, *, using: str = DEFAULT_DB_ALIAS) -> str:
    """The quoted table of ``model`` (a model class, or a many-to-many ``through`` model)."""
    return quote(model._meta.db_table, using=using)


def column(model, field: str, *, alias: str | None = None, using: str = DEFAULT_DB_ALIAS) -> str:
    """The quoted column of ``model``'s field ``field`` (a name or an attname), after ``alias.`` if given."""
    name = quote(model._meta.get_field(field).column, using=using)
    return f"{alias}.{name}" if alias else name


def columns(alias: str, model, fields, *, using: str = DEFAULT_DB_ALIAS) -> str:
    """``alias.col, alias.col, ...`` of ``fields`` of ``model``, quoted."""
    return ", ".join(column(model, f, alias=alias, using=using) for f in fields)


def placeholders(values) -> str:
    """``%s`` for each of ``values`` (bind them in that order), for ``IN (...)``; ``NULL`` for none, so
    that ``x IN (NULL)`` holds for no row."""
    return ", ".join(["%s"] * len(values)) or "NULL"


def in_model_order(model, names) -> tuple:
    """``names`` (attnames) in the order of the model's concrete fields, the order ``Model.from_db`` takes
    the values of a partial row in; ``ValueError`` for a name the model does not have."""
    order = [f.attname for f in model._meta.concrete_fields]
    unknown = set(names) - set(order)
    if unknown:
        raise ValueError(f"{model.__name__} has no field(s) {sorted(unknown)}")
    return tuple(sorted(names, key=order.index))


def instance(model, fields, values, *, using: str = DEFAULT_DB_ALIAS):
    """A ``model`` instance from a partial row (``fields`` in model order: :func:`in_model_order`); the
    fields not read are deferred, as the ORM's ``only()`` leaves them. Booleans are made booleans (SQLite
    returns integers)."""
    values = list(values)
    for i in _booleans(model, tuple(fields)):
        if values[i] is not None:
            values[i] = bool(values[i])
    return model.from_db(using, fields, values)


@functools.cache
def _booleans(model, fields: tuple) -> tuple:
    """The positions of ``fields`` that are boolean fields of ``model`` (once per model and fields: the
    annotator's round trip reads a row per request)."""
    kinds = [model._meta.get_field(name).get_internal_type() for name in fields]
    return tuple(i for i, kind in enumerate(kinds) if kind == "BooleanField")


def fetch_one(sql: str, params, *, using: str = DEFAULT_DB_ALIAS):
    """The first row of ``sql`` with ``params`` bound, or None."""
    with connections[using].cursor() as cursor:
        cursor.execute(sql, list(params))
        return cursor.fetchone()


def fetch_all(sql: str, params, *, using: str = DEFAULT_DB_ALIAS) -> list:
    """Every row of ``sql`` with ``params`` bound."""
    with connections[using].cursor() as cursor:
        cursor.execute(sql, list(params))
        return cursor.fetchall()


def execute(sql: str, params, *, using: str = DEFAULT_DB_ALIAS) -> int:
    """Run ``sql`` with ``params`` bound (inside the caller's transaction); the number of rows changed."""
    with connections[using].cursor() as cursor:
        cursor.execute(sql, list(params))
        return cursor.rowcount


def datetime_param(value, *, using: str = DEFAULT_DB_ALIAS):
    """A datetime as the database ``using`` compares it (SQLite stores text)."""
    return connections[using].ops.adapt_datetimefield_value(value)


# --- core's own statements (core's sql.py is this module) ---------------------------------------------


@functools.cache
def _session_sql(model, using: str) -> str:
    data, key, expiry = (column(model, f, using=using) for f in ("session_data", "session_key", "expire_date"))
    return f"SELECT {data} FROM {table(model, using=using)} WHERE {key} = %s AND {expiry} > %s"


def session_data(model, key: str, now, *, using: str = DEFAULT_DB_ALIAS):
    """The encoded data of the session ``key`` of ``model`` (Django's ``Session``) when it has not expired
    at ``now``, else None: the session read of ``core.sessions`` (measured: about 60 us instead of the
    ORM's 320 us)."""
    row = fetch_one(_session_sql(model, using), [key, datetime_param(now, using=using)], using=using)
    return row[0] if row else None
