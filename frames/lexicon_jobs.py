"""A FrameNet lexicon uploaded in the admin, imported as a background job (``core.runner``).

The upload is an archive (``.zip``, ``.tar``, ``.tar.gz``, ``.tgz``) of a directory in the NLTK
``framenet_v17`` layout (``frameIndex.xml``, ``frame/*.xml``, optional ``luIndex.xml``), as
``manage.py import_framenet`` reads it. The job unpacks it into a temporary folder (no member may
leave it: absolute paths, ``..`` and links are refused), imports it under its name (the same name
again updates it) and removes the upload and the folder whatever the outcome.
"""

import tarfile
import tempfile
import zipfile
import zlib
from pathlib import Path

from core.errors import UserFacingError
from core.runner import BrokerUnavailable, create_job, enqueue
from core.uploads import remove_upload
from frames.framenet import LexiconError
from frames.lexicon_store import import_lexicon

JOB_KIND = "frames_lexicon"
ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz")


class LexiconUploadError(UserFacingError):
    """An upload that is no lexicon archive, or a lexicon file that does not parse."""


def start_lexicon_import(path, *, name, user=None, original_name=None):
    """Create the lexicon job of a stored upload and queue it."""
    params = {"path": str(path), "name": name, "file": original_name or Path(path).name}
    job = create_job(JOB_KIND, params, user=user)
    try:
        enqueue(job, "frames.tasks.import_lexicon_upload")
    except BrokerUnavailable:
        remove_upload(path)  # nothing will read it
        raise
    return job


CHUNK = 1 << 20
#: The files of a lexicon that ``frames.framenet.load_lexicon`` reads; no other member is written.
READ_FILES = ("frameIndex.xml", "luIndex.xml")


def is_read(name):
    """Whether the archive member ``name`` is a file the lexicon import reads: ``frameIndex.xml``,
    ``luIndex.xml`` or ``frame/<Name>.xml``, under any folder (NLTK's ``lu/`` and ``fulltext/``,
    hundreds of MiB in FrameNet 1.7, are never read, so never unpacked).

    >>> [is_read(n) for n in ("fn/frameIndex.xml", "fn/frame/Attack.xml", "fn/lu/lu10.xml", "frame/x.txt")]
    [True, True, False, False]
    """
    parts = name.replace("\\", "/").strip("/").split("/")
    return parts[-1] in READ_FILES or (len(parts) >= 2 and parts[-2] == "frame" and parts[-1].endswith(".xml"))


class _Room:
    """What the unpacked lexicon may still take: bytes actually written and members, counted."""

    def __init__(self, original_name):
        from django.conf import settings

        self.bytes, self.members, self.name = settings.MAX_LEXICON_BYTES, settings.MAX_LEXICON_MEMBERS, original_name

    def member(self):
        self.members -= 1
        if self.members < 0:
            raise LexiconUploadError(f"{self.name}: more members than QAEVAL_MAX_LEXICON_MEMBERS")

    def copy(self, source, target):
        """Copy the open member ``source`` to ``target``, a chunk at a time, counting what it inflates to."""
        with open(target, "wb") as out:
            while chunk := source.read(CHUNK):
                self.bytes -= len(chunk)
                if self.bytes < 0:
                    raise LexiconUploadError(
                        f"{self.name}: more than QAEVAL_MAX_LEXICON_BYTES once unpacked (a zip bomb?), refused "
                        f"at member {Path(target).name!r}"
                    )
                out.write(chunk)


def _unpack_zip(archive, folder, room):
    with zipfile.ZipFile(archive) as z:
        for info in z.infolist():
            target = (folder / info.filename).resolve()
            if not target.is_relative_to(folder):
                raise LexiconUploadError(f"{room.name}: member {info.filename!r} would leave the folder")
            room.member()
            if info.is_dir() or not is_read(info.filename):
                continue  # folders come with their files; what is not read is not written
            target.parent.mkdir(parents=True, exist_ok=True)
            with z.open(info) as source:
                room.copy(source, target)


def _unpack_tar(archive, folder, room):
    with tarfile.open(archive) as t:
        for raw in t:  # streamed: a .tar.gz is inflated as its members are read
            member = tarfile.data_filter(raw, str(folder))  # no absolute paths, '..', devices or links out
            room.member()
            target = (folder / member.name).resolve()
            if member.isfile() and is_read(member.name):
                target.parent.mkdir(parents=True, exist_ok=True)
                with t.extractfile(member) as source:
                    room.copy(source, target)
            # links and anything else: a lexicon needs none


def unpack(archive, folder, *, original_name):
    """Unpack the files a lexicon import reads (``is_read``) of ``archive`` (zip or tar) into ``folder``,
    streamed: members that would land outside it are refused, and so is an archive whose read files
    inflate past ``QAEVAL_MAX_LEXICON_BYTES`` (counted on the bytes written, never the headers' sizes)
    or that holds more than ``QAEVAL_MAX_LEXICON_MEMBERS`` members. Disk use stays under the limit,
    memory under a chunk per member."""
    folder = Path(folder).resolve()
    room = _Room(original_name)
    try:
        if zipfile.is_zipfile(archive):
            _unpack_zip(archive, folder, room)
        elif tarfile.is_tarfile(archive):
            _unpack_tar(archive, folder, room)
        else:
            raise LexiconUploadError(f"{original_name}: not a zip or tar archive ({', '.join(ARCHIVES)})")
    except tarfile.FilterError as exc:
        raise LexiconUploadError(f"{original_name}: member refused: {exc}") from None
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise LexiconUploadError(f"{original_name}: cannot unpack: {exc}") from None


def lexicon_job_body(job, progress):
    """``run_job`` body (``frames.tasks.import_lexicon_upload``): unpack, import, clean up."""
    p = job.params
    try:
        with tempfile.TemporaryDirectory(prefix="lexicon-") as folder:
            unpack(p["path"], folder, original_name=p.get("file") or "upload")
            roots = [Path(folder), *(d for d in Path(folder).iterdir() if d.is_dir())]
            directory = next(
                (d for d in roots if (d / "frameIndex.xml").is_file() or (d / "framenet_v17").is_dir()), None
            )
            if directory is None:
                raise LexiconUploadError(f"{p.get('file')}: no frameIndex.xml (expected the framenet_v17 layout)")
            try:
                row, stats = import_lexicon(directory, name=p["name"])
            except LexiconError as exc:
                raise LexiconUploadError(str(exc).replace(folder, p.get("file") or "upload")) from None
    finally:
        remove_upload(p.get("path"))
    return {"lexicon": row.name, **stats}
