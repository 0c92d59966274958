"""The reads of a crowd study's entry page, as SQL written once per process (as ``fold_sql``).

When a study goes live, hundreds of people open its link within seconds, and most of them are told
the study is full before the consent (``studies.looks_full``). Built with the ORM, that answer took
four queries and about 3 ms of CPU per arrival (the joins, ``Exists`` and aggregates are compiled
on every request); here it is one fixed statement for the folds and their holders, and one for an
idle participant when no fold has room. ``studies`` is the only user; the rules stay in ``crowd``.
Valid on SQLite and PostgreSQL.
"""

from __future__ import annotations

import functools

from django.db import DEFAULT_DB_ALIAS

from annotation import crowd
from annotation.models import Fold, Label, Participant, Study
from core import sql


@functools.cache
def _statements(using=DEFAULT_DB_ALIAS):
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
        # A working participant whose last activity (the later of the slot and the last label, as
        # ``studies._idle``) is at or before the limit: ``crowd.idle_ids`` would release them.
        "participant": f"SELECT p.id FROM {part} p WHERE p.study_id = %s AND p.external_id = %s",
        "idle": (
            f"SELECT 1 FROM {part} p WHERE p.study_id = %s AND p.status IN ({sql.placeholders(crowd.WORKING)}) "
            f"AND COALESCE(p.slot_at, p.consented_at) <= %s "
            f"AND COALESCE((SELECT MAX(l.updated_at) FROM {label} l WHERE l.annotator_id = p.user_id), "
            f"p.consented_at) <= %s LIMIT 1"
        ),
    }


def folds_and_counts(study, *, using=DEFAULT_DB_ALIAS):
    """``(fold ids in the study's order, {fold: participants holding a slot})``, in one query: the
    folds chosen for the study, or (none chosen) every answer fold of its corpus (``studies.fold_ids``)."""
    s = study.pk
    params = [s, s, *crowd.HOLDING, Fold.KIND_TRIPLET, study.corpus_id, s]
    rows = sql.fetch_all(_statements(using)["folds"], params, using=using)
    picked = [(pk, n) for pk, _corpus, chosen, n in rows if chosen]
    mine = picked or [(pk, n) for pk, corpus, _chosen, n in rows if corpus == study.corpus_id]
    return [pk for pk, _n in mine], {pk: n for pk, n in mine if n}


def participant_id(study, external_id, *, using=DEFAULT_DB_ALIAS):
    """The id of the study's participant with this panel id, or None (most arrivals are new: one
    light query, and the row is read only when there is one)."""
    row = sql.fetch_one(_statements(using)["participant"], [study.pk, external_id], using=using)
    return row and row[0]


def any_idle(study, limit, *, using=DEFAULT_DB_ALIAS):
    """True when a working participant of ``study`` had no activity after ``limit`` (a datetime)."""
    at = sql.datetime_param(limit, using=using)
    params = [study.pk, *crowd.WORKING, at, at]
    return sql.fetch_one(_statements(using)["idle"], params, using=using) is not None
