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


def unpack(archive, folder, *, original_name):
    """Unpack ``archive`` (zip or tar) into ``folder``; refuse members that would land outside it."""
    folder = Path(folder).resolve()
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as z:
                for member in z.namelist():
                    if not (folder / member).resolve().is_relative_to(folder):
                        raise LexiconUploadError(f"{original_name}: member {member!r} would leave the folder")
                z.extractall(folder)
        elif tarfile.is_tarfile(archive):
            with tarfile.open(archive) as t:
                t.extractall(folder, filter="data")  # no absolute paths, '..', devices or outside links
        else:
            raise LexiconUploadError(f"{original_name}: not a zip or tar archive ({', '.join(ARCHIVES)})")
    except (zipfile.BadZipFile, tarfile.TarError, OSError) as exc:
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
