"""annotation's hand-written SQL (issue 43: one home per app, written with ``core.sql``).

Each statement is here because a measured saving asks for it, and has a differential test giving the
ORM's answers on SQLite and PostgreSQL (``tests/annotation/test_fold_sql.py``). The annotator's round
trip (``fold_sql``) and a study's entry page (``study_sql``) join this module once the branches
changing their importers have landed (bin/check-architecture lists them in ``SQL_ELSEWHERE``).
"""

from __future__ import annotations

import functools

from django.db import DEFAULT_DB_ALIAS, connections

from core import sql


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
