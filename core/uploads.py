"""Files uploaded through the web (admin forms, ``POST /api/imports/``) for a background job to read:
their size limit, where they are stored, and their removal once the job has read them."""

from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.crypto import get_random_string


def max_upload_size(upload):
    """Validator of uploads (API and admin forms): at most ``MAX_UPLOAD_BYTES``."""
    if upload.size > settings.MAX_UPLOAD_BYTES:
        raise ValidationError(f"file too large: {upload.size} bytes, at most {settings.MAX_UPLOAD_BYTES}")


def save_upload(upload):
    """Stream an upload to ``UPLOAD_DIR`` under a random name (imports read files twice: validate, then write)."""
    folder = Path(settings.UPLOAD_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    safe = "".join(c for c in Path(upload.name).name if c.isalnum() or c in "._-")[:80] or "upload"
    path = folder / f"{get_random_string(12)}-{safe}"
    with open(path, "wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    return path


def remove_upload(path):
    """A stored web upload is read by its job only: removed once the job ends, whatever the outcome."""
    if path and Path(path).resolve().parent == Path(settings.UPLOAD_DIR).resolve():
        Path(path).unlink(missing_ok=True)
