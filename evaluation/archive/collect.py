"""Study archives (SPEC 14), the database shell's first half: which rows make a study, and their export
(``restore`` reads an archive back, ``insert`` writes its rows).

Which models are archived is derived from the models themselves, so a model added later is covered
without code here:

- a model with a chain of foreign keys to ``annotation.Corpus`` is *owned* by the corpus: its rows
  are those whose chain ends at the corpus, and an import creates them anew (new ids);
- a model without one (systems, judges, lexicons, jobs) is *shared*: its rows are those an owned row
  refers to (plus ``EXTRA_SCOPES``); an import reuses a row with the same natural key (a unique
  field or constraint: a system or judge of that name), or creates it;
- users are written by name and role only (``users.jsonl``): no password, no token, no e-mail; an
  import reuses an account of that name or creates an inactive one without a password;
- a model that belongs to no study is listed in ``NOT_ARCHIVED`` with the reason.

``tests/evaluation/test_archive.py`` walks every model of the project's apps and fails on one that
none of these rules covers.
"""

from __future__ import annotations

import io
import itertools
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.migrations.loader import MigrationLoader
from django.db.models import Q
from django.http import HttpResponse
from django.utils import timezone
from django.utils.translation import gettext_noop

from annotation.models import Corpus
from core import job_kinds
from core.models import Job
from core.roles import ADMIN, ROLES, is_admin
from evaluation import sql as evaluation_sql
from evaluation.archive import format as archive
from evaluation.archive import members as member_files
from evaluation.archive import personal
from evaluation.archive.format import ArchiveError

# Progress messages of the export, in English (pages translate them: core.job_kinds.message_text).
READING = gettext_noop("reading %(member)s")
WRITING = gettext_noop("writing the archive")
MESSAGES = (READING, WRITING)

USER = "users"  # the pseudo-model of users.jsonl in foreign-key maps
CORPUS = "annotation.Corpus"
JOB = "core.Job"
TRIPLET = "annotation.Triplet"

NOT_ARCHIVED = {
    "core.WorkerBeat": "a Celery worker's heartbeat: the state of one running installation, not of a study",
    "core.UserPreference": "a user's choice of interface language: a setting of an installation's accounts, "
    "not of a study",
    "models_runner.LLMEndpoint": "an installation's LLM servers (address, model, the name of the variable "
    "holding the key): configuration of a server, not of a study; runs, judges and exchanges keep the "
    "settings they used in their own rows",
}

# Rows a study holds beyond those its foreign keys reach: the whole lexicon its frame predictions use.
EXTRA_SCOPES = {
    "frames.FrameDef": ("lexicon__annotations__question__corpus",),
    "frames.FrameElementDef": ("frame__lexicon__annotations__question__corpus",),
    "frames.LexicalUnitDef": ("frame__lexicon__annotations__question__corpus",),
}

# Files a finished job wrote, archived under files/<kind>/<archived job id>/: job kind -> folder_of(job id).
# The app that runs the job names its folder in its kind's record (core.job_kinds: the report's ``files``),
# so this wing names no shell above it.
JOB_FILES = job_kinds.FILES


def register_not_archived(label, reason):
    """List the model ``label`` (``"app.Model"``) in ``NOT_ARCHIVED`` with ``reason``: a table of the
    shells above this wing (the archive names no other wing) that belongs to no study.

    Parameters
    ----------
    label : str
        ``"app.Model"``.
    reason : str
        Why no study archive holds it.

    Returns
    -------
    None
    """
    NOT_ARCHIVED[label] = reason


_PATH_DEPTH = 5
READ_CHUNK = 900  # ids per "pk IN (...)" query (under SQLite's 999 parameters)
_ITER_CHUNK = 2000  # rows fetched at a time by an export


def _noop(*args, **kwargs):
    return None


@dataclass
class Member:
    """One archived model: its columns, its foreign keys and how its rows are chosen."""

    model: type
    label: str
    columns: list
    foreign: dict  # column -> (target label or USER, nullable)
    paths: tuple = ()  # foreign-key chains to the corpus (owned models)
    extra: tuple = ()
    natural_key: tuple = ()  # columns of a unique key (shared models)
    referenced_by: list = field(default_factory=list)

    @property
    def owned(self):
        return bool(self.paths)


def project_models():
    """Every model with a table of the project's own apps (top-level packages of BASE_DIR; a
    virtual environment inside the checkout, as ``.venv`` is, holds no project app).

    Returns
    -------
    dict
        ``{"app.Model": model class}``; proxies left out (no table of their own).
    """
    base = Path(settings.BASE_DIR).resolve()
    found = {}
    for config in apps.get_app_configs():
        if Path(config.path).resolve().parent == base:
            for model in config.get_models(include_auto_created=True):  # many-to-many tables too
                if not model._meta.proxy:  # a proxy has no table of its own
                    found[model._meta.label] = model
    return found


def _foreign_keys(model):
    return [f for f in model._meta.concrete_fields if f.is_relation and (f.many_to_one or f.one_to_one)]


def _corpus_paths(model, depth=_PATH_DEPTH, seen=()):
    """Foreign-key chains from ``model`` to Corpus, each with whether a link of it may be null."""
    found = []
    for f in _foreign_keys(model):
        target = f.related_model
        if target is Corpus:
            found.append((f.name, f.null))
        elif depth > 1 and target not in seen and target is not model and target is not get_user_model():
            found += [
                (f"{f.name}__{p}", f.null or null) for p, null in _corpus_paths(target, depth - 1, (*seen, model))
            ]
    return found


def _chosen_paths(model):
    """The shortest chain that is never null when there is one (one join path), else every chain."""
    if model is Corpus:
        return ("pk",)
    paths = _corpus_paths(model)
    required = sorted((p for p, null in paths if not null), key=lambda p: (p.count("__"), p))
    return (required[0],) if required else tuple(sorted(p for p, _ in paths))


def _natural_key(model):
    for f in model._meta.concrete_fields:
        if f.unique and not f.primary_key:
            return (f.attname,)
    for constraint in model._meta.constraints:
        fields = getattr(constraint, "fields", ())
        if fields and getattr(constraint, "condition", None) is None:
            return tuple(model._meta.get_field(name).attname for name in fields)
    return ()


def _member(label, model, known):
    user_model = get_user_model()
    foreign = {}
    for f in _foreign_keys(model):
        target = f.related_model
        if target is user_model:
            foreign[f.attname] = (USER, f.null)
        elif target._meta.label in known:
            foreign[f.attname] = (target._meta.label, f.null)
        else:
            raise ArchiveError(f"{label}.{f.name} refers to {target._meta.label}, which is not archived")
    paths = _chosen_paths(model)
    return Member(
        model=model,
        label=label,
        columns=[f.attname for f in model._meta.concrete_fields],
        foreign=foreign,
        paths=paths,
        extra=EXTRA_SCOPES.get(label, ()),
        natural_key=() if paths else _natural_key(model),
    )


def plan():
    """The archived models in insertion order (each after the models it refers to).

    Returns
    -------
    list of Member
        One per archived model. Raises ``ArchiveError`` for a model none of the rules covers
        (module docstring).
    """
    models = {label: m for label, m in project_models().items() if label not in NOT_ARCHIVED}
    members = {label: _member(label, model, models) for label, model in models.items()}
    for member in members.values():
        for target, _ in member.foreign.values():
            if target in members and target != member.label:
                members[target].referenced_by.append(member.label)
    for member in members.values():
        if not (member.owned or member.extra or member.referenced_by or member.label == JOB):
            raise ArchiveError(
                f"{member.label}: no foreign-key chain to a corpus and no archived row refers to it; "
                "archive it (EXTRA_SCOPES) or list it in NOT_ARCHIVED with a reason"
            )
    depends = {label: {t for t, _ in m.foreign.values() if t in members} for label, m in members.items()}
    depends[JOB].add(CORPUS)  # its params name the corpus by id: the corpus comes first
    return [members[label] for label in archive.insertion_order(depends)]


# --- schema version ------------------------------------------------------------------------------


def _loader(using=DEFAULT_DB_ALIAS):
    return MigrationLoader(connections[using], ignore_no_migrations=True)


def schema_version(using=DEFAULT_DB_ALIAS):
    """The schema version an archive records: the applied migration heads of the project's apps.

    Parameters
    ----------
    using : str
        The database alias.

    Returns
    -------
    dict
        ``{app: [migration names]}`` (apps without migrations left out).
    """
    loader = _loader(using)
    applied = set(loader.applied_migrations)
    labels = {m._meta.app_label for m in project_models().values()}
    version = {}
    for app in sorted(labels):
        mine = {name for a, name in applied if a == app}
        heads = [
            n for n in mine if not any(c[0] == app and c[1] in mine for c in loader.graph.node_map[(app, n)].children)
        ]
        if heads:
            version[app] = sorted(heads)
    return version


def schema_problem(archived, using=DEFAULT_DB_ALIAS):
    """Why an archive of schema ``archived`` cannot be restored into this database, or None.

    Parameters
    ----------
    archived : dict
        The archive's schema version (``schema_version`` where it was made).
    using : str
        The database alias.

    Returns
    -------
    str or None
        ``archive.schema_problem`` against this installation's migrations and those applied.
    """
    loader = _loader(using)
    return archive.schema_problem(archived, set(loader.graph.nodes), set(loader.applied_migrations))


# --- export --------------------------------------------------------------------------------------


def _by_ids(member, ids):
    """The rows of ``ids``, read a chunk of ids at a time."""
    ids = sorted(ids)
    for start in range(0, len(ids), READ_CHUNK):
        chunk = ids[start : start + READ_CHUNK]
        yield from member.model._base_manager.filter(pk__in=chunk).order_by("pk").values(*member.columns)


def _scope(member, corpus):
    q = Q()
    for path in member.paths + member.extra:
        q |= Q(**{path: corpus.pk})
    if member.label == JOB:
        q |= Q(params__corpus=corpus.name) | Q(params__corpus_id=corpus.pk)
    return q


def _select(member, corpus, referenced):
    """The member's rows of ``corpus``, streamed: its scope, then the rows archived rows refer to.
    The first row is read before it returns (the read has begun: an export's snapshot is taken)."""
    rows = _stream(member, corpus, referenced)
    first = next(rows, None)
    return rows if first is None else itertools.chain((first,), rows)


def _stream(member, corpus, referenced):
    wanted = set(referenced)
    pk = member.model._meta.pk.attname
    q = _scope(member, corpus)
    if q:
        qs = member.model._base_manager.filter(q).values(*member.columns).order_by("pk")
        for row in (qs.distinct() if member.extra else qs).iterator(chunk_size=_ITER_CHUNK):
            wanted.discard(row[pk])
            yield row
    yield from _by_ids(member, wanted)


def _user_rows(ids):
    users = get_user_model()._base_manager.filter(pk__in=ids).prefetch_related("groups").order_by("pk")
    rows = []
    for user in users:
        roles = {g.name for g in user.groups.all()} & set(ROLES)
        if is_admin(user):
            roles.add(ADMIN)
        rows.append({"id": user.pk, "username": user.get_username(), "roles": sorted(roles)})
    return rows


def _job_files(jobs):
    """{member name: path} of the files finished jobs wrote (report files)."""
    found = {}
    for job in jobs:
        folder_of = JOB_FILES.get(job["kind"])
        if folder_of is None or job["status"] != Job.SUCCEEDED:
            continue
        folder = folder_of(job["id"])
        for path in sorted(p for p in folder.rglob("*") if p.is_file()) if folder.is_dir() else ():
            found[f"{archive.FILES_PREFIX}{job['kind']}/{job['id']}/{path.relative_to(folder).as_posix()}"] = path
    return found


def collect(corpus, progress=_noop):
    """Every archived row of ``corpus``, streamed (call it inside one transaction for a consistent read).

    Models come in reverse insertion order, each after the models that refer to it, so that the
    rows archived rows refer to are known when their model is read.

    Parameters
    ----------
    corpus : Corpus
        The study's corpus.
    progress : callable
        ``progress(done=, total=, message=)``, as a job body's.

    Yields
    ------
    tuple
        ``(label, rows)`` per model, ``rows`` an iterator of row dicts to read before the next model
        (the references it records choose the next models' rows); then ``(USER, list of user dicts)``.
    """
    members = plan()
    referenced = {}

    def noted(member, rows):
        foreign = [(column, referenced.setdefault(target, set())) for column, (target, _) in member.foreign.items()]
        for row in rows:
            for column, ids in foreign:
                if row[column] is not None:
                    ids.add(row[column])
            yield row

    for done, member in enumerate(reversed(members)):
        progress(done=done, total=len(members) + 2, message=READING % {"member": member.label})
        yield member.label, noted(member, _select(member, corpus, referenced.pop(member.label, ())))
    yield USER, _user_rows(referenced.get(USER, ()))


@contextmanager
def _snapshot(using=DEFAULT_DB_ALIAS):
    """One read transaction for every query of an export: the study as of one moment, while people
    go on labeling. SQLite: a deferred transaction (in WAL mode a reader's snapshot takes no write
    lock; the platform's IMMEDIATE mode would hold writers back). PostgreSQL: REPEATABLE READ, read
    only. Inside a caller's transaction, that one."""
    connection = connections[using]
    if connection.in_atomic_block:
        yield
        return
    connection.ensure_connection()
    mode = getattr(connection, "transaction_mode", None)
    if connection.vendor == "sqlite":
        connection.transaction_mode = "DEFERRED"
    try:
        with transaction.atomic(using=using):
            evaluation_sql.read_only_snapshot(using=using)
            yield
    finally:
        if connection.vendor == "sqlite":
            connection.transaction_mode = mode


def export_study(corpus, out, progress=_noop, *, full=False):
    """Write the archive of ``corpus`` (a file written with mode 0600 when ``out`` is a path), streamed:
    each model's rows go into its member as the
    database yields them (memory holds a chunk of rows and the ids archived rows refer to, never a
    member); ``manifest.json`` comes last, once every member's size and SHA-256 is known.

    Parameters
    ----------
    corpus : Corpus
        The study's corpus.
    out : str, Path or binary file
        Where the zip goes (a file object must be seekable).
    progress : callable
        ``progress(done=, total=, message=)``.
    full : bool
        Keep the participants' panel ids (an admin's full archive; the manifest says so).

    Returns
    -------
    dict
        The manifest written into the archive.
    """
    members, jobs = {}, []
    personal.owner_only(out)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        with _snapshot():
            for label, found in collect(corpus, progress):
                rows = (jobs.append(row) or row for row in found) if label == JOB else found
                if label == personal.PARTICIPANT and not full:  # SPEC 18: the default archive holds no panel id
                    rows = map(personal.pseudonymize_row, rows)
                name = archive.USERS if label == USER else archive.rows_member(label)
                members[name] = member_files.write_rows(zf, name, rows)
            schema = schema_version()
        progress(message=WRITING, force=True)
        for name, path in _job_files(jobs).items():
            members[name] = member_files.write_file(zf, name, path)
        manifest = archive.build_manifest(
            members, corpus=corpus.name, schema=schema, exported_at=timezone.now().isoformat()
        )
        manifest["panel_ids"] = personal.PANEL_IDS_FULL if full else personal.PANEL_IDS_REMOVED
        zf.writestr(archive.MANIFEST, archive.encode_manifest(manifest))
    return manifest


def archive_response(corpus, *, full=False):
    """The archive of ``corpus`` as a download (the admin's action and the API).

    Parameters
    ----------
    corpus : Corpus
        The study's corpus.

    Returns
    -------
    HttpResponse
        The zip, as an attachment named ``<corpus>.study.zip``.
    """
    buffer = io.BytesIO()
    export_study(corpus, buffer, full=full)
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{corpus.name}.study.zip"'
    return response
