"""Study archives (SPEC 14): reading a zip with bounded memory, trusting none of its sizes.

Every member is read streamed, ``CHUNK`` bytes of inflated data at a time (a zip bomb inflates one
chunk, never its whole self at once), and the bytes actually inflated are counted, not the sizes
the zip's headers or the manifest claim: a member is refused as soon as it inflates past the size
its manifest entry states, or the archive past ``QAEVAL_MAX_ARCHIVE_BYTES``. JSON Lines members are
decoded line by line as they stream (a line longer than ``MAX_LINE_BYTES`` is refused), hashed on
the way, and handed on in batches (``scan_member``): an import checks every member in a first pass
and writes the rows batch by batch in a second, so memory holds one batch of rows, whatever the
archive's size. File members are only hashed, then copied to disk streamed when restored. No
database here.
"""

from __future__ import annotations

import hashlib
import zipfile
import zlib
from contextlib import contextmanager

from evaluation.archive import format as archive
from evaluation.archive.format import ArchiveError
from evaluation.archive.values import loads_row

CHUNK = 1 << 20
MAX_LINE_BYTES = 64 << 20  # a row holding a context of 60 MiB still fits
BATCH_ROWS = 2000  # rows handed on at once by scan_member ...
BATCH_BYTES = 8 << 20  # ... or fewer, once their lines hold this many bytes


@contextmanager
def open_zip(source, label):
    """The zip of ``source``, open for the ``with`` block.

    Parameters
    ----------
    source : str, Path or binary file
        The archive.
    label : str
        How errors name it.

    Returns
    -------
    context manager
        Gives the ``zipfile.ZipFile``; one that is not a zip raises ``ArchiveError``.
    """
    try:
        zf = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise ArchiveError(f"{label}: not a readable zip archive, truncated or corrupt ({exc})") from None
    with zf:
        yield zf


class Budget:
    """The inflated bytes an archive may still produce (``QAEVAL_MAX_ARCHIVE_BYTES``), counted as read."""

    def __init__(self, limit, label):
        self.left, self.limit, self.label = limit, limit, label

    def take(self, n, name):
        """Count ``n`` more inflated bytes of member ``name``.

        Parameters
        ----------
        n : int
            Bytes just inflated.
        name : str
            The member, for the error.

        Returns
        -------
        None
            Raises ``ArchiveError`` once the archive passes its limit.
        """
        self.left -= n
        if self.left < 0:
            raise ArchiveError(
                f"{self.label}: more than {self.limit} bytes once unpacked (QAEVAL_MAX_ARCHIVE_BYTES), "
                f"reached in member {name}"
            )


def chunks(zf, name, *, most, budget):
    """The inflated bytes of member ``name``, ``CHUNK`` at a time, counted as they come.

    Parameters
    ----------
    zf : zipfile.ZipFile
        The archive.
    name : str
        The member.
    most : int
        The bytes it may inflate to (its manifest entry's size).
    budget : Budget
        What the whole archive may still inflate to.

    Yields
    ------
    bytes
        Chunks; past ``most`` or the budget, or a corrupt member, ``ArchiveError``.
    """
    seen = 0
    try:
        with zf.open(name) as f:
            while chunk := f.read(CHUNK):
                seen += len(chunk)
                if seen > most:
                    raise ArchiveError(
                        f"archive member {name}: more than the {most} bytes its manifest entry states once unpacked"
                    )
                budget.take(len(chunk), name)
                yield chunk
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as exc:
        raise ArchiveError(f"archive member {name} is corrupt ({exc})") from None


def _lines(pieces, name):
    """Complete lines of the byte stream ``pieces`` (without their end), one at a time."""
    parts, size = [], 0
    for piece in pieces:
        start = 0
        while (end := piece.find(b"\n", start)) >= 0:
            parts.append(piece[start:end])
            yield b"".join(parts)
            parts, size, start = [], 0, end + 1
        if start < len(piece):
            parts.append(piece[start:])
            size += len(piece) - start
            if size > MAX_LINE_BYTES:
                raise ArchiveError(f"archive member {name}: a line longer than {MAX_LINE_BYTES} bytes")
    last = b"".join(parts)
    if last.strip():
        yield last


def _batches(lines, name):
    """``(number of the first line, rows)`` of the line stream, at most ``BATCH_ROWS`` rows or about
    ``BATCH_BYTES`` bytes of text a batch; each line checked (``values.loads_row``)."""
    batch, size, first = [], 0, 1
    for number, line in enumerate(lines, 1):
        batch.append(loads_row(line, name, number))
        size += len(line)
        if len(batch) >= BATCH_ROWS or size >= BATCH_BYTES:
            yield first, batch
            batch, size, first = [], 0, number + 1
    if batch:
        yield first, batch


def scan_member(zf, name, *, entry, budget, each=None):
    """Member ``name`` streamed and checked against its manifest entry (size and SHA-256), its rows
    handed on in batches: memory holds one batch, whatever the member's size.

    Parameters
    ----------
    zf : zipfile.ZipFile
        The archive.
    name : str
        The member.
    entry : dict
        Its manifest entry (``bytes``, ``sha256``).
    budget : Budget
        What the archive may still inflate to.
    each : callable, optional
        ``each(rows, first)`` for every batch of a JSON Lines member: ``rows`` a list of dicts (each
        line checked, ``values.loads_row``), ``first`` the line number of ``rows[0]``. An
        ``ArchiveError`` it raises is raised once the whole member is read, and only if the member is
        the one the manifest lists (else: altered).

    Returns
    -------
    int or None
        The member's row count for a JSON Lines member, None for a file.
    """
    if not isinstance(entry, dict) or not isinstance(entry.get("bytes"), int):
        raise ArchiveError(f"manifest.json: the entry of {name} is not an object with its size")
    digest, size = hashlib.sha256(), 0

    def hashed():
        nonlocal size
        for chunk in chunks(zf, name, most=entry["bytes"], budget=budget):
            digest.update(chunk)
            size += len(chunk)
            yield chunk

    stream, count, bad = hashed(), None, None
    if name.endswith(".jsonl"):
        count = 0
        try:
            for first, rows in _batches(_lines(stream, name), name):
                if each is not None:
                    each(rows, first)
                count += len(rows)
        except ArchiveError as exc:  # a bad line: say so only if the member is the one the manifest lists
            bad = exc
    for _chunk in stream:  # the rest (all of a file member), hashed and counted
        pass
    if size != entry["bytes"] or digest.hexdigest() != entry.get("sha256"):
        raise ArchiveError(f"archive member {name} was altered: its SHA-256 differs from the manifest's")
    if bad is not None:
        raise bad
    return count


def read_member(zf, name, *, entry, budget):
    """Member ``name`` streamed and checked against its manifest entry (size and SHA-256), its rows
    kept (``scan_member`` without keeping them).

    Parameters
    ----------
    zf : zipfile.ZipFile
        The archive.
    name : str
        The member.
    entry : dict
        Its manifest entry (``bytes``, ``sha256``).
    budget : Budget
        What the archive may still inflate to.

    Returns
    -------
    list of dict or None
        Its rows for a JSON Lines member (each line checked, ``values.loads_row``), None for a file.
    """
    rows = []
    count = scan_member(zf, name, entry=entry, budget=budget, each=lambda batch, first: rows.extend(batch))
    return None if count is None else rows


def read_manifest(zf, label, budget):
    """The archive's manifest, checked against the members the zip holds.

    Parameters
    ----------
    zf : zipfile.ZipFile
        The archive.
    label : str
        How errors name it.
    budget : Budget
        What the archive may still inflate to.

    Returns
    -------
    dict
        The manifest (``format.parse_manifest``).
    """
    names = zf.namelist()
    if archive.MANIFEST not in names:
        raise ArchiveError(f"{label}: manifest.json is missing, so this is not a study archive")
    data = b"".join(chunks(zf, archive.MANIFEST, most=MAX_LINE_BYTES, budget=budget))
    manifest = archive.parse_manifest(data)
    archive.check_members(manifest["members"], names)
    return manifest


def copy_member(zf, name, *, path, entry, budget):
    """Write member ``name`` to ``path``, streamed.

    Parameters
    ----------
    zf : zipfile.ZipFile
        The archive.
    name : str
        The member.
    path : Path
        Where it goes.
    entry : dict
        Its manifest entry: at most ``bytes`` are written.
    budget : Budget
        What the archive may still inflate to.

    Returns
    -------
    None
    """
    with open(path, "wb") as out:
        for chunk in chunks(zf, name, most=entry["bytes"], budget=budget):
            out.write(chunk)
