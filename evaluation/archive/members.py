"""Writing a study archive's members as they come (SPEC 14, streamed: issue 46): rows encoded and written a
chunk at a time, files copied a chunk at a time, each with its manifest entry (rows, bytes, SHA-256)."""

from __future__ import annotations

import hashlib

from evaluation.archive import format as archive

_WRITE_CHUNK = 1 << 18  # bytes of encoded rows written into the zip at a time


def write_rows(zf, name, rows):
    """Write the rows into member ``name`` of ``zf`` as they come, a few hundred KiB at a time.

    Returns its manifest entry (``format.describe``: rows, bytes, SHA-256)."""
    digest, size, count, lines, pending = hashlib.sha256(), 0, 0, [], 0
    with zf.open(name, "w", force_zip64=True) as out:

        def flush():
            nonlocal size
            data = "".join(lines).encode("utf-8")
            digest.update(data)
            out.write(data)
            size += len(data)
            lines.clear()

        for row in rows:
            line = archive.encode_row(row)
            lines.append(line)
            count, pending = count + 1, pending + len(line)
            if pending >= _WRITE_CHUNK:
                flush()
                pending = 0
        flush()
    return {"rows": count, "bytes": size, "sha256": digest.hexdigest()}


def write_file(zf, name, path):
    """Copy the file at ``path`` into member ``name`` of ``zf``, a chunk at a time; its manifest entry."""
    digest, size = hashlib.sha256(), 0
    with zf.open(name, "w", force_zip64=True) as out, open(path, "rb") as f:
        while chunk := f.read(_WRITE_CHUNK):
            digest.update(chunk)
            out.write(chunk)
            size += len(chunk)
    return {"rows": None, "bytes": size, "sha256": digest.hexdigest()}
