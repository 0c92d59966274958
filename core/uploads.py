"""Uploaded files that a background job reads (imports of corpora, predictions, labels, study
archives): the size limit checked at the edge, and where and how an upload is stored."""

from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.crypto import get_random_string


def max_upload_size(upload):
    """Validator of import uploads (API and admin forms): at most ``MAX_UPLOAD_BYTES``."""
    if upload.size > settings.MAX_UPLOAD_BYTES:
        raise ValidationError(f"file too large: {upload.size} bytes, at most {settings.MAX_UPLOAD_BYTES}")


def save_upload(upload):
    """Stream an upload to disk (imports read files twice: validate, then write)."""
    folder = Path(settings.UPLOAD_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    safe = "".join(c for c in Path(upload.name).name if c.isalnum() or c in "._-")[:80] or "upload"
    path = folder / f"{get_random_string(12)}-{safe}"
    with open(path, "wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    return path
