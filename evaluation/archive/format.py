"""Study archives (SPEC 14), the pure part: members, the manifest, checks and id remapping.

An archive is a zip file. Each archived model is one member ``rows/<app>.<Model>.jsonl`` (one JSON
object per row, its columns by attribute name, datetimes in full ISO 8601); ``users.jsonl`` holds the
accounts by name and role only; ``files/...`` holds files of finished jobs (report files).
``manifest.json`` lists every member with its row count, byte size and SHA-256, and the schema
version: the applied migration heads of each app of the project.

Nothing here touches a database: its database shells are ``collect.py`` (export), ``restore.py`` and
``insert.py`` (import).
"""

from __future__ import annotations

import datetime
import graphlib
import hashlib
import json
import re

from core.errors import UserFacingError

FORMAT = "qaeval-study"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
USERS = "users.jsonl"
ROWS_PREFIX = "rows/"
FILES_PREFIX = "files/"
NAME_RE = re.compile(r"^[-a-zA-Z0-9_]{1,100}$")


class ArchiveError(UserFacingError, ValueError):
    """An archive that cannot be restored, or a restore that is refused: the message says why."""

    def as_dict(self):
        """The error as data for a job's result.

        Returns
        -------
        dict
            ``{"message": the error's text}``.

        Examples
        --------
        >>> ArchiveError("member x is missing").as_dict()
        {'message': 'member x is missing'}
        """
        return {"message": str(self)}


def rows_member(label: str) -> str:
    """The member that holds the rows of the model ``label``.

    Parameters
    ----------
    label : str
        The model's label, "app.Model".

    Returns
    -------
    str
        The member's name in the zip.

    Examples
    --------
    >>> rows_member("annotation.Label")
    'rows/annotation.Label.jsonl'
    """
    return f"{ROWS_PREFIX}{label}.jsonl"


def _default(value):
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()  # full precision (DjangoJSONEncoder would cut microseconds)
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    raise TypeError(f"cannot archive a value of type {type(value).__name__}")


def encode_row(row: dict) -> str:
    """One row as its JSON Lines line (with its newline); datetimes in full ISO 8601.

    Parameters
    ----------
    row : dict
        The row's columns by attribute name.

    Returns
    -------
    str
        The line, to be written UTF-8 encoded.

    Examples
    --------
    >>> encode_row({"id": 1, "answer": "Denver"})
    '{"id": 1, "answer": "Denver"}\\n'
    """
    return json.dumps(row, ensure_ascii=False, default=_default) + "\n"


def encode_rows(rows) -> bytes:
    """Rows as JSON Lines bytes, UTF-8; datetimes in full ISO 8601 (microseconds kept).

    Parameters
    ----------
    rows : iterable of dict
        One dict per row, its columns by attribute name.

    Returns
    -------
    bytes
        One JSON object a line.

    Examples
    --------
    >>> import datetime
    >>> encode_rows([{"id": 1, "at": datetime.datetime(2026, 1, 2, 3, 4, 5, 678901)}])
    b'{"id": 1, "at": "2026-01-02T03:04:05.678901"}\\n'
    """
    return "".join(encode_row(row) for row in rows).encode("utf-8")


def decode_rows(data: bytes, member: str) -> list[dict]:
    """The rows of a JSON Lines member.

    Parameters
    ----------
    data : bytes
        The member's content.
    member : str
        Its name, for errors.

    Returns
    -------
    list of dict
        The rows; a line that is not a JSON object raises ``ArchiveError`` naming member and line.

    Examples
    --------
    >>> decode_rows(b'{"id": 1}\\n{"id": 2}\\n', "rows/x.jsonl")
    [{'id': 1}, {'id': 2}]
    >>> decode_rows(b'{"id": 1}\\n{"id"', "rows/x.jsonl")
    Traceback (most recent call last):
    ...
    evaluation.archive.format.ArchiveError: archive member rows/x.jsonl, line 2: not a JSON object
    """
    rows = []
    for number, line in enumerate(data.decode("utf-8").splitlines(), 1):
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        if not isinstance(row, dict):
            raise ArchiveError(f"archive member {member}, line {number}: not a JSON object")
        rows.append(row)
    return rows


def describe(data: bytes, rows: int | None = None) -> dict:
    """The manifest entry of a member.

    Parameters
    ----------
    data : bytes
        The member's content.
    rows : int or None
        Its row count; None for a file (a report's file).

    Returns
    -------
    dict
        ``rows``, ``bytes`` (size) and ``sha256`` (hex digest).

    Examples
    --------
    >>> describe(b"abc", rows=1)["sha256"][:12]
    'ba7816bf8f01'
    """
    return {"rows": rows, "bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def build_manifest(members: dict, *, corpus: str, schema: dict, exported_at: str) -> dict:
    """The manifest of an archive.

    Parameters
    ----------
    members : dict
        ``{member name: describe(...)}``.
    corpus : str
        The archived corpus's name.
    schema : dict
        ``{app: [applied migration heads]}``: the schema version.
    exported_at : str
        When, ISO 8601.

    Returns
    -------
    dict
        The manifest: format and its version, corpus, time, schema and members (sorted).

    Examples
    --------
    >>> m = build_manifest({"users.jsonl": describe(b"", 0)}, corpus="c", schema={"core": ["0001_initial"]},
    ...                    exported_at="2026-01-01T00:00:00+00:00")
    >>> m["format"], m["format_version"], m["corpus"], list(m["members"])
    ('qaeval-study', 1, 'c', ['users.jsonl'])
    """
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "corpus": corpus,
        "exported_at": exported_at,
        "schema": {app: sorted(heads) for app, heads in sorted(schema.items())},
        "members": dict(sorted(members.items())),
    }


def encode_manifest(manifest: dict) -> bytes:
    """The manifest as the archive stores it.

    Parameters
    ----------
    manifest : dict
        From ``build_manifest``.

    Returns
    -------
    bytes
        Indented JSON, UTF-8, ending with a newline.

    Examples
    --------
    >>> encode_manifest({"format": "qaeval-study"})
    b'{\\n  "format": "qaeval-study"\\n}\\n'
    """
    return (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def parse_manifest(data: bytes) -> dict:
    """The manifest read back and checked.

    Parameters
    ----------
    data : bytes
        The content of ``manifest.json``.

    Returns
    -------
    dict
        The manifest; one that is not JSON, not of this format or version, or lacks ``members``,
        ``schema`` or ``corpus`` raises ``ArchiveError`` saying which.

    Examples
    --------
    >>> parse_manifest(b'{"format": "other"}')
    Traceback (most recent call last):
    ...
    evaluation.archive.format.ArchiveError: manifest.json: not a study archive (format 'other', expected 'qaeval-study')
    """
    try:
        manifest = json.loads(data.decode("utf-8"))
    except ValueError:
        raise ArchiveError("manifest.json: not valid JSON") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        got = manifest.get("format") if isinstance(manifest, dict) else None
        raise ArchiveError(f"manifest.json: not a study archive (format {got!r}, expected {FORMAT!r})")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ArchiveError(
            f"manifest.json: archive format version {manifest.get('format_version')!r}; this installation "
            f"reads version {FORMAT_VERSION}"
        )
    for key, kind in (("members", dict), ("schema", dict), ("corpus", str)):
        if not isinstance(manifest.get(key), kind):
            raise ArchiveError(f"manifest.json: '{key}' missing or not a {kind.__name__}")
    return manifest


def check_member(name: str, data: bytes, entry: dict) -> None:
    """Refuse a member whose size or SHA-256 differs from its manifest entry.

    Parameters
    ----------
    name : str
        The member.
    data : bytes
        Its content as read from the zip.
    entry : dict
        Its manifest entry (``describe``).

    Returns
    -------
    None
        Raises ``ArchiveError`` naming the member when it was altered.

    Examples
    --------
    >>> check_member("users.jsonl", b"abd", describe(b"abc", 1))
    Traceback (most recent call last):
    ...
    evaluation.archive.format.ArchiveError: archive member users.jsonl was altered: its SHA-256 differs
    from the manifest's
    """
    if not isinstance(entry, dict):
        raise ArchiveError(f"manifest.json: the entry of {name} is not an object")
    if len(data) != entry.get("bytes") or hashlib.sha256(data).hexdigest() != entry.get("sha256"):
        raise ArchiveError(f"archive member {name} was altered: its SHA-256 differs from the manifest's")


def check_members(listed, present) -> None:
    """Refuse an archive with a listed member missing, or a member the manifest does not list.

    Parameters
    ----------
    listed : iterable of str
        The members the manifest lists.
    present : iterable of str
        The members in the zip.

    Returns
    -------
    None
        Raises ``ArchiveError`` naming the first member missing (or not listed).

    Examples
    --------
    >>> check_members(["manifest.json", "users.jsonl", "rows/a.B.jsonl"], ["manifest.json", "users.jsonl"])
    Traceback (most recent call last):
    ...
    evaluation.archive.format.ArchiveError: archive member rows/a.B.jsonl is missing (listed in manifest.json)
    """
    listed, present = set(listed) - {MANIFEST}, set(present) - {MANIFEST}
    if missing := sorted(listed - present):
        raise ArchiveError(f"archive member {missing[0]} is missing (listed in manifest.json)")
    if extra := sorted(present - listed):
        raise ArchiveError(f"archive member {extra[0]} is not listed in manifest.json")
    if USERS not in listed:
        raise ArchiveError(f"archive member {USERS} is missing")


def schema_problem(archived: dict, known: set, applied: set) -> str | None:
    """Why an archive of schema ``archived`` cannot be restored here, or None.

    An archive from an older schema is fine (its missing columns take their defaults).

    Parameters
    ----------
    archived : dict
        The archive's schema version, ``{app: [migration heads]}``.
    known : set of tuple
        This installation's migrations, ``(app, name)``.
    applied : set of tuple
        Those applied to its database.

    Returns
    -------
    str or None
        The reason in words, or None when the archive can be restored.

    Examples
    --------
    >>> known = {("annotation", "0001_initial"), ("annotation", "0002_more")}
    >>> schema_problem({"annotation": ["0001_initial"]}, known, known) is None
    True
    >>> print(schema_problem({"annotation": ["0003_future"]}, known, known).replace(": ", ":\\n"))
    the archive was made with a newer schema (migration annotation.0003_future is unknown here):
    upgrade this installation first
    >>> schema_problem({"annotation": ["0002_more"]}, known, {("annotation", "0001_initial")})
    'the database lacks migration annotation.0002_more of the archive: run manage.py migrate first'
    """
    for app, heads in sorted(archived.items()):
        for head in heads if isinstance(heads, list) else [heads]:
            if (app, head) not in known:
                return (
                    f"the archive was made with a newer schema (migration {app}.{head} is unknown here): "
                    "upgrade this installation first"
                )
            if (app, head) not in applied:
                return f"the database lacks migration {app}.{head} of the archive: run manage.py migrate first"
    return None


def check_name(name: str) -> str:
    """A corpus name as the corpus model accepts it.

    Parameters
    ----------
    name : str
        The name asked for.

    Returns
    -------
    str
        ``name``, if it is a slug of at most 100 characters; else ``ArchiveError``.

    Examples
    --------
    >>> check_name("squad-2")
    'squad-2'
    >>> check_name("no spaces")
    Traceback (most recent call last):
    ...
    evaluation.archive.format.ArchiveError: corpus name 'no spaces': use 1-100 letters, digits, '-' or '_'
    """
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ArchiveError(f"corpus name {name!r}: use 1-100 letters, digits, '-' or '_'")
    return name


def insertion_order(depends: dict) -> list:
    """Models in an order where each comes after every model it refers to.

    Parameters
    ----------
    depends : dict
        ``{model: set of the models it refers to}`` (a reference to itself is ignored).

    Returns
    -------
    list
        The models, each after those it refers to.

    Examples
    --------
    >>> insertion_order({"label": {"triplet"}, "triplet": {"question"}, "question": set()})
    ['question', 'triplet', 'label']
    """
    sorter = graphlib.TopologicalSorter({name: set(deps) - {name} for name, deps in depends.items()})
    return list(sorter.static_order())


def remap(rows: list, foreign: dict, maps: dict, *, member: str) -> None:
    """Replace, in place, every foreign key of ``rows`` by the new id of the row it names.

    Parameters
    ----------
    rows : list of dict
        The rows of one model.
    foreign : dict
        ``{column: (model it refers to, nullable)}``.
    maps : dict
        ``{model: {archived id: new id}}``.
    member : str
        The member's name, for errors.

    Returns
    -------
    None
        A nullable reference to a row the archive does not hold becomes None; a required one
        raises ``ArchiveError``.

    Examples
    --------
    >>> rows = [{"id": 7, "question_id": 3, "exchange_id": 9}]
    >>> remap(rows, {"question_id": ("q", False), "exchange_id": ("x", True)}, {"q": {3: 30}, "x": {}},
    ...       member="rows/t.jsonl")
    >>> rows
    [{'id': 7, 'question_id': 30, 'exchange_id': None}]
    >>> remap([{"question_id": 4}], {"question_id": ("q", False)}, {"q": {3: 30}}, member="rows/t.jsonl")
    Traceback (most recent call last):
    ...
    evaluation.archive.format.ArchiveError: archive member rows/t.jsonl: question_id 4 names a row the archive
    does not hold
    """
    for column, (model, nullable) in foreign.items():
        mapping = maps[model]
        for row in rows:
            old = row.get(column)
            if old is None:
                continue
            new = mapping.get(old)
            if new is None and not nullable:
                raise ArchiveError(f"archive member {member}: {column} {old} names a row the archive does not hold")
            row[column] = new
