"""Study archives (SPEC 14), the database shell's import: an archive read and checked, then restored in
one transaction (accounts by name, every model's rows a batch at a time through ``insert``, the files of
archived jobs), or nothing written. Which models and in which order: ``collect.plan``.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import DatabaseError, IntegrityError, transaction
from django.utils.translation import gettext_noop

from annotation import privacy
from annotation.models import Corpus, Study
from annotation.sql import analyze_after_commit
from core.roles import ensure_groups
from evaluation.archive import checks, collect, insert, unpack
from evaluation.archive import format as archive
from evaluation.archive.collect import CORPUS, JOB, JOB_FILES, NOT_ARCHIVED, USER
from evaluation.archive.format import ArchiveError

# Progress messages of the import, in English (pages translate them: core.job_kinds.message_text).
RESTORING = gettext_noop("restoring %(member)s")
MESSAGES = (RESTORING,)


def _noop(*args, **kwargs):
    return None


def read_archive(source, label="archive"):
    """Read and check an archive; nothing is written.

    Parameters
    ----------
    source : str, Path or binary file
        The zip.
    label : str
        How errors name it (the uploaded file's name).

    Returns
    -------
    tuple
        ``(manifest, {member: rows, or None for a file})``, every member streamed and checked against
        its size and SHA-256 (``evaluation/archive/unpack.py``); a problem raises ``ArchiveError``
        naming it.
    """
    with unpack.open_zip(source, label) as zf:
        return _read_checked(zf, label)


def _read_checked(zf, label):
    checks.claimed_check(zf, label)
    budget = unpack.Budget(settings.MAX_ARCHIVE_BYTES, label)  # lying headers: counted as inflated
    manifest = unpack.read_manifest(zf, label, budget)
    data = {
        name: unpack.read_member(zf, name, entry=entry, budget=budget) for name, entry in manifest["members"].items()
    }
    return manifest, data


def _restore_users(rows):
    """{archived id: id here}: an account of the same name is reused, else created inactive."""
    user_model = get_user_model()
    groups = ensure_groups()
    names = [str(row.get("username", "")) for row in rows]
    existing = dict(user_model._base_manager.filter(username__in=names).values_list("username", "pk"))
    mapping = {}
    for row, name in zip(rows, names, strict=True):
        if not name:
            raise ArchiveError(f"archive member {archive.USERS}: a user without a name")
        if name not in existing:
            user = user_model(username=name, is_active=False)
            user.set_unusable_password()
            user.save()
            user.groups.add(*(groups[r] for r in row.get("roles", ()) if r in groups))
            existing[name] = user.pk
        mapping[row["id"]] = existing[name]
    return mapping


def _file_target(name, job_map):
    """Where the archived file ``name`` goes: inside the folder of its job, or an ``ArchiveError``."""
    parts = name[len(archive.FILES_PREFIX) :].split("/", 2)
    if len(parts) == 3:
        kind, old_id, rest = parts
        if kind in JOB_FILES and old_id.isdigit() and int(old_id) in job_map and rest:
            folder = JOB_FILES[kind](job_map[int(old_id)])
            path = folder / rest
            if path.resolve().is_relative_to(folder.resolve()) and not Path(rest).is_absolute():
                return path
    raise ArchiveError(f"archive member {name}: not a file of an archived job")


def _restore_files(zf, manifest, *, job_map, written):
    members = manifest["members"]
    targets = {name: _file_target(name, job_map) for name in members if name.startswith(archive.FILES_PREFIX)}
    budget = unpack.Budget(settings.MAX_ARCHIVE_BYTES, "archive")
    for name, path in targets.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        written.append(path)
        unpack.copy_member(zf, name, path=path, entry=members[name], budget=budget)


def _check_target(manifest, name):
    if problem := collect.schema_problem(manifest["schema"]):
        raise ArchiveError(problem)
    if Corpus.objects.filter(name=name).exists():
        raise ArchiveError(f"a corpus named {name!r} exists already: choose another name (--corpus NEW_NAME)")


def import_study(source, name=None, *, progress=_noop, label="archive"):
    """Restore an archive, in one transaction: on any error nothing is written.

    Two passes, each streamed: the first checks every member (size, SHA-256, rows, values, counts)
    and keeps nothing; the second writes the rows a batch at a time (``unpack.scan_member``). Memory
    holds a batch of rows and the id maps of the models other rows refer to, whatever the archive's
    size.

    Parameters
    ----------
    source : str, Path or binary file
        The zip.
    name : str, optional
        The restored corpus's name; by default the archived one.
    progress : callable
        ``progress(done=, total=, message=)``: one step per model.
    label : str
        How errors name the archive.

    Returns
    -------
    dict
        ``corpus`` (name), ``corpus_id``, ``users`` (accounts named) and ``rows`` (per model).
        A refusal raises ``ArchiveError`` naming the problem.
    """
    with unpack.open_zip(source, label) as zf:
        checks.claimed_check(zf, label)
        manifest = unpack.read_manifest(zf, label, unpack.Budget(settings.MAX_ARCHIVE_BYTES, label))
        members = collect.plan()
        counts, users = checks.check_all(zf, manifest, members=members, label=label, skipped=NOT_ARCHIVED)
        name = archive.check_name(name or manifest["corpus"])
        _check_target(manifest, name)
        context = {"name": name, "old_name": manifest["corpus"], "label": label}
        _restore_all(zf, manifest, members=members, context=context, progress=progress)
    # SPEC 18: whoever was erased here since the archive was made stays erased
    erased = privacy.reapply_tombstones(Study.objects.filter(corpus_id=context["corpus_id"]))
    rows = dict(sorted(counts.items()))
    return {"corpus": name, "corpus_id": context["corpus_id"], "users": users, "rows": rows, "erased": erased}


def _restore_member(zf, member, maps, *, entry, budget, context):
    """Write one member's rows, batch by batch; keeps {archived id: new id} where rows refer to it."""
    name = archive.rows_member(member.label)
    keep = member.referenced_by or member.label in (JOB, CORPUS) or (member.label, False) in member.foreign.values()
    keep = keep or (member.label, True) in member.foreign.values()  # a model that refers to itself
    maps[member.label] = mapping = {}

    def write(rows, first):
        found = insert.insert_batch(member, rows, maps, context=context)
        if keep:
            mapping.update(found)

    count = unpack.scan_member(zf, name, entry=entry, budget=budget, each=write)
    analyze_after_commit(member.model, rows=count or 0)  # PostgreSQL's planner told of the new rows


def _restore_all(zf, manifest, *, members, context, progress):
    """Every row and file, in one transaction; a database's refusal names the member being written."""
    written, current = [], archive.USERS
    budget = unpack.Budget(settings.MAX_ARCHIVE_BYTES, context["label"])
    listed = manifest["members"]
    try:
        with transaction.atomic():
            _check_target(manifest, context["name"])  # again, under the transaction
            users = unpack.read_member(zf, archive.USERS, entry=listed[archive.USERS], budget=budget)
            maps = {USER: _restore_users(users)}
            for done, member in enumerate(members):
                current = archive.rows_member(member.label)
                progress(done=done, total=len(members) + 1, message=RESTORING % {"member": member.label})
                if current in listed:
                    _restore_member(zf, member, maps, entry=listed[current], budget=budget, context=context)
                else:
                    maps[member.label] = {}
            current = "files/"
            _restore_files(zf, manifest, job_map=maps.get(JOB, {}), written=written)
    except IntegrityError as exc:
        _remove(written)
        raise ArchiveError(f"the archive conflicts with rows of this database, nothing imported: {exc}") from None
    except (DatabaseError, OverflowError, TypeError, ValueError) as exc:
        _remove(written)
        if isinstance(exc, ArchiveError):
            raise
        first = str(exc).strip().split("\n", 1)[0][:300]
        raise ArchiveError(
            f"archive member {current}: a value this database cannot store, nothing imported ({first})"
        ) from None
    except BaseException:
        _remove(written)
        raise


def _remove(paths):
    for path in paths:
        path.unlink(missing_ok=True)
