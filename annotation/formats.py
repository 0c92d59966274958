"""The corpus file formats an import reads: the one registry that the importer, the upload form,
the API and ``manage.py import_corpus`` read (a new format is one ``CorpusFormat`` here, with its
reader: docs/architecture.md, "Where new things go").

A reader takes ``(source, file=None)`` and yields the interchange corpus records (SPEC 9), raising
``InterchangeError`` with file, line and field. HELM runs are directories with predictions, imported
apart (``annotation.importers.import_helm``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from annotation import interchange
from annotation.interchange import InterchangeError


@dataclass(frozen=True)
class CorpusFormat:
    """A corpus format: its ``name`` (form, API and command value), ``title`` (in words), the file
    ``suffixes`` that select it when no format is given, and its ``reader``."""

    name: str
    title: str
    suffixes: tuple
    reader: Callable


CORPUS_FORMATS = {
    f.name: f
    for f in (
        CorpusFormat("jsonl", "JSONL", (".jsonl",), interchange.read_corpus),
        CorpusFormat("squad", "SQuAD JSON", (".json",), interchange.read_squad),
    )
}
DEFAULT_FORMAT = "jsonl"  # a file whose suffix names no format


def names() -> list:
    """The format names, for the choices of the form, the API and the command."""
    return list(CORPUS_FORMATS)


def choices() -> list:
    """``(name, title)`` of each format."""
    return [(f.name, f.title) for f in CORPUS_FORMATS.values()]


def detect(path_or_name) -> str:
    """The format a file's suffix names (``squad`` for ``.json``), else ``DEFAULT_FORMAT``."""
    suffix = Path(str(path_or_name)).suffix.lower()
    return next((f.name for f in CORPUS_FORMATS.values() if suffix in f.suffixes), DEFAULT_FORMAT)


def reader_for(path, fmt=None) -> Callable:
    """The reader of ``fmt`` (or of the format ``path``'s suffix names); ``InterchangeError`` for an unknown one."""
    fmt = fmt or detect(path)
    if fmt not in CORPUS_FORMATS:
        raise InterchangeError(f"unknown corpus format {fmt!r} ({' or '.join(CORPUS_FORMATS)})", path)
    return CORPUS_FORMATS[fmt].reader
