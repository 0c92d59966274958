"""Study archives (SPEC 14), the database shell's writes: one batch of a model's rows, read from an
archive, made rows of this database (ids remapped, defaults filled, shared rows reused by their natural
key, unique values refused when taken) and inserted as they are (``evaluation.sql.insert_returning``).
``restore`` reads the archive and calls ``insert_batch`` a batch at a time.
"""

from __future__ import annotations

from django.db import DEFAULT_DB_ALIAS, connections, models

from annotation.dedup import answer_key
from core.models import Job
from evaluation import sql as evaluation_sql
from evaluation.archive import format as archive
from evaluation.archive.collect import CORPUS, JOB, READ_CHUNK, TRIPLET
from evaluation.archive.format import ArchiveError


def _fix_row(member, row, context):
    """The rewrites a restored row needs beyond its foreign keys: the corpus name, job params."""
    if member.label == CORPUS:
        row["name"] = context["name"]
    elif member.label == TRIPLET:  # the unique key of its answer, computed here (archives before issue 44 lack it)
        row["answer_key"] = answer_key(row.get("normalized_answer") or "")
    elif member.label == JOB:
        for key in ("params", "result"):
            value = row.get(key)
            if isinstance(value, dict):
                value = dict(value)
                if "corpus" in value and value["corpus"] == context["old_name"]:
                    value["corpus"] = context["name"]
                if "corpus_id" in value:
                    value["corpus_id"] = context["corpus_id"]
                row[key] = value
        if row.get("status") not in Job.FINISHED:
            row["status"] = Job.CANCELLED
            row["error"] = "not finished when the study was archived"


def _existing(member, rows):
    """{archived id: id here} of shared rows whose natural key exists already."""
    if not member.natural_key or not rows:
        return {}
    first = member.natural_key[0]
    qs = member.model._base_manager.filter(**{f"{first}__in": {row[first] for row in rows}})
    here = {tuple(values[1:]): values[0] for values in qs.values_list("pk", *member.natural_key)}
    pk = member.model._meta.pk.attname
    return {row[pk]: here[key] for row in rows if (key := tuple(row[c] for c in member.natural_key)) in here}


# Values of these fields go to the database driver as JSON gave them (str, int, float, bool, None);
# any other field (datetimes, JSON) is prepared by the field itself, as Django would.
_AS_IS = (models.CharField, models.TextField, models.IntegerField, models.FloatField, models.BooleanField)


def _prepare(field, connection):
    if field.is_relation or (isinstance(field, _AS_IS) and not isinstance(field, models.JSONField)):
        return None
    return lambda value: field.get_db_prep_save(value, connection)


def _refuse_taken(member, rows):
    """Refuse rows whose value of a unique column is taken here (a crowd study's slug, a participant's
    account), naming the model, the column and the value, rather than fail on the constraint."""
    for f in member.model._meta.concrete_fields:
        if not f.unique or f.primary_key or not rows:
            continue
        values = {row[f.attname] for row in rows} - {None}
        taken = set()
        ordered = sorted(values, key=repr)
        for start in range(0, len(ordered), READ_CHUNK):
            chunk = ordered[start : start + READ_CHUNK]
            taken |= set(
                member.model._base_manager.filter(**{f"{f.attname}__in": chunk}).values_list(f.attname, flat=True)
            )
        if taken:
            value = sorted(taken, key=repr)[0]
            raise ArchiveError(
                f"{member.label}: {f.name} {value!r} is taken in this database; import into another installation "
                "or change it there first"
            )


def _insert(member, rows, using=DEFAULT_DB_ALIAS):
    """Insert ``rows`` as they are (times included: no ``auto_now``), returning their new ids in order
    (``evaluation.sql.insert_returning``); values the driver cannot take as JSON gave them are prepared
    by their field first, as Django would."""
    connection = connections[using]
    fields = [f for f in member.model._meta.concrete_fields if not f.primary_key]
    columns = [
        [row[f.attname] for row in rows] if convert is None else [convert(row[f.attname]) for row in rows]
        for f, convert in ((f, _prepare(f, connection)) for f in fields)
    ]
    return evaluation_sql.insert_returning(member.model, fields, columns, using=using)


def insert_batch(member, rows, maps, *, context):
    """Write a batch of the member's rows, read from the archive.

    Their foreign keys are remapped to the ids here (``maps``), their defaults filled, the corpus's name
    and the jobs' parameters rewritten (``context``); a shared row whose natural key exists here is
    reused, and a unique value taken here is refused with an ``ArchiveError`` naming it.

    Parameters
    ----------
    member : Member
        The archived model (``collect.plan``).
    rows : list of dict
        Its rows as the archive holds them (changed in place).
    maps : dict
        ``{label: {archived id: id here}}`` of the models written before.
    context : dict
        ``name``, ``old_name`` of the corpus; receives ``corpus_id`` once the corpus is written.

    Returns
    -------
    dict
        ``{archived id: id here}`` of these rows.
    """
    pk = member.model._meta.pk.attname
    defaults = {f.attname: f for f in member.model._meta.concrete_fields}
    for row in rows:
        for column in member.columns:
            if column not in row:
                row[column] = defaults[column].get_default()
    archive.remap(rows, member.foreign, maps, member=archive.rows_member(member.label))
    for row in rows:
        _fix_row(member, row, context)
    mapping = _existing(member, rows)
    fresh = [row for row in rows if row[pk] not in mapping]
    _refuse_taken(member, fresh)
    new_ids = _insert(member, [{k: v for k, v in row.items() if k != pk} for row in fresh])
    mapping.update(zip((row[pk] for row in fresh), new_ids, strict=True))
    if member.label == CORPUS:
        context["corpus_id"] = new_ids[0]
    return mapping
