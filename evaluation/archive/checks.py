"""Study archives (SPEC 14): the checks of an import's first pass, streamed, before anything is
written: every member against its size and SHA-256 (``unpack.scan_member``), every row against this
installation's models (columns, values: ``values.check_rows``), every count against the manifest.
Nothing is kept but the counts; the second pass (``restore.import_study``) writes the rows."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations

from evaluation.archive import format as archive
from evaluation.archive import unpack, values
from evaluation.archive.format import ArchiveError


def claimed_check(zf, label):
    """Refuse an archive whose headers honestly claim more than ``QAEVAL_MAX_ARCHIVE_BYTES``."""
    claimed = sum(info.file_size for info in zf.infolist())  # honest headers: refused before reading
    if claimed > settings.MAX_ARCHIVE_BYTES:
        raise ArchiveError(
            f"{label}: {claimed} bytes once unpacked, more than QAEVAL_MAX_ARCHIVE_BYTES ({settings.MAX_ARCHIVE_BYTES})"
        )


def member_label(name):
    """The model label of a rows member's name, or None for another member."""
    if name.startswith(archive.ROWS_PREFIX) and name.endswith(".jsonl"):
        return name[len(archive.ROWS_PREFIX) : -len(".jsonl")]
    return None


def row_check(member, name):
    """``check(rows, first)`` for ``unpack.scan_member``: the member's rows against this installation's
    model, its columns and every value against its column (``evaluation/archive/values.py``)."""
    specs, convert = column_specs(member.model)
    pk, columns = member.model._meta.pk.attname, set(member.columns)

    def check(rows, first):
        unknown = set().union(*(row.keys() for row in rows)) - columns
        if unknown:
            raise ArchiveError(f"archive member {name}: column(s) {', '.join(sorted(unknown))} unknown here")
        values.check_rows(rows, specs, name, convert=convert, required=(pk,), start=first)

    return check


def check_users(rows, first):
    values.check_rows(rows, USER_SPECS, archive.USERS, required=("id", "username"), start=first)


def check_all(zf, manifest, *, members, label, skipped=()):
    """The first pass of an import, streamed, nothing kept and nothing written: every member against
    its size and SHA-256, every row against this installation's models, every count against the
    manifest.

    Parameters
    ----------
    zf : zipfile.ZipFile
        The archive.
    manifest : dict
        Its manifest (``unpack.read_manifest``).
    members : list
        The archived models here (``store.plan()``).
    label : str
        How errors name the archive.
    skipped : collection of str
        Models whose members are read (hashed) but not restored (``store.NOT_ARCHIVED``).

    Returns
    -------
    tuple
        ``({model label: rows}, number of users)``; a problem raises ``ArchiveError`` naming it.
    """
    budget = unpack.Budget(settings.MAX_ARCHIVE_BYTES, label)  # lying headers: counted as inflated
    by_label = {m.label: m for m in members}
    counts, users = {}, 0
    for name, entry in manifest["members"].items():
        model = member_label(name)
        if model is None:
            check = check_users if name == archive.USERS else None
        else:
            check = row_check(by_label[model], name) if model in by_label else None
        count = unpack.scan_member(zf, name, entry=entry, budget=budget, each=check)
        if model is not None and model not in by_label and model not in skipped:
            raise ArchiveError(f"archive member {name}: model {model} is unknown here (an archive of a newer schema?)")
        if (name == archive.USERS or model in by_label) and entry.get("rows") != count:
            raise ArchiveError(f"archive member {name} holds {count} rows; the manifest says {entry.get('rows')}")
        if name == archive.USERS:
            users = count
        elif model in by_label:
            counts[model] = count
    return counts, users


USER_SPECS = {
    "id": {"kind": "int", "null": False},
    "username": {"kind": "str", "null": False, "max_length": 150},
    "roles": {"kind": "list", "null": True},
}


def column_specs(model):
    """``({column: spec}, {column: parser})`` of ``model``'s columns for ``values.check_rows``: the
    integer ranges of PostgreSQL on every database, so SQLite refuses what PostgreSQL would."""
    specs, convert = {}, {}
    for f in model._meta.concrete_fields:
        spec = {"null": f.null}
        if f.is_relation or isinstance(f, models.IntegerField):
            spec["kind"] = "int"
            if not f.is_relation:
                spec["range"] = BaseDatabaseOperations.integer_field_ranges.get(f.get_internal_type())
        elif isinstance(f, models.FloatField):
            spec["kind"] = "float"
        elif isinstance(f, models.BooleanField):
            spec["kind"] = "bool"
        elif isinstance(f, models.JSONField):
            spec["kind"] = "json"
        elif isinstance(f, (models.CharField, models.TextField)):
            spec.update(kind="str", max_length=f.max_length)
        else:
            spec["kind"] = "other"
            convert[f.attname] = f.to_python
        specs[f.attname] = spec
    return specs, convert
