"""Shared argument handling for the annotation management commands."""

from django.core.management.base import CommandError

from annotation.importers import with_file_named
from annotation.interchange import InterchangeError
from annotation.models import Corpus


def get_corpus(name):
    try:
        return Corpus.objects.get(name=name)
    except Corpus.DoesNotExist:
        known = ", ".join(Corpus.objects.values_list("name", flat=True)) or "none yet"
        raise CommandError(f"no corpus named {name!r} (known: {known})") from None


def run_import(command, fn, *args, **kwargs):
    """Run an importer; a bad input becomes a CommandError with file, line and field, and a refusal
    of the database that no rule of the file foresaw one naming the file (never a traceback)."""
    try:
        return with_file_named(fn, *args, progress=_printer(command), **kwargs)
    except InterchangeError as exc:
        raise CommandError(f"nothing imported: {exc}") from None


def _printer(command):
    def progress(done=None, total=None, message=None, *, force=False):
        if message and getattr(command, "verbosity", 1) > 1:
            command.stderr.write(message)

    return progress
