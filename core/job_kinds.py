"""The kinds of background job in words (issue 32).

A job row keeps its kind, its result's keys and its progress message in English, as the worker wrote
them (the API, the logs and the downloads read them so); the pages name them in the reader's language
through this registry. Each app registers, in its ``AppConfig.ready``, the kinds of job it starts: a
title, the words of the keys of its result, and the templates of the progress messages its body
writes (``gettext_noop`` strings with named placeholders, such as
``"wrote %(done)s of %(total)s questions"``; the body writes ``TEMPLATE % values``).
``message_text`` finds the template a stored message was written from and translates it.

The record of a kind is also where the rest of the platform learns what to do with its jobs: the next
step the job page offers once one succeeded (``core.next_steps``), the reaper's resume function for a
resumable kind (``core.reaper.resumers``) and the folder of the files a job wrote, which study
archives carry (``evaluation.archive.collect.JOB_FILES``). ``resume`` and ``files`` may be dotted paths
(``"frames.tasks:resume"``), imported on first use, so that registering at start-up loads neither the
Celery shells nor the report stack.
"""

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from django.utils import formats
from django.utils.translation import gettext, pgettext

from core.registry import Registry, resolve


@dataclass(frozen=True)
class JobKind:
    """One kind of job: ``title`` and the ``results`` titles are lazy translations (``gettext_lazy``);
    ``messages``, the templates of its progress messages; ``next_step(job) -> (text, url)`` once a job
    succeeded (``core.next_steps``); ``resume(job)`` sends a stale job's task again (the reaper; None: not
    resumable); ``files(job_id) -> Path``, the folder of a job's files (study archives). ``resume`` and
    ``files`` may be dotted paths (``resumer`` and ``files_folder`` import them)."""

    kind: str
    title: object
    results: dict = field(default_factory=dict)
    messages: tuple = ()
    next_step: Callable | None = None
    resume: Callable | str | None = None
    files: Callable | str | None = None

    def resumer(self):
        """``resume`` (imported if it is a dotted path), or None."""
        return resolve(self.resume) if isinstance(self.resume, str) else self.resume

    def files_folder(self):
        """``files`` (imported if it is a dotted path), or None."""
        return resolve(self.files) if isinstance(self.files, str) else self.files


#: kind -> JobKind (core.registry's shape); ``ANY`` holds the messages any kind of job may write.
KINDS = Registry("job kinds")
ANY = ""
_PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")
_DECIMAL = re.compile(r"\d+\.\d+")


def register(kind, title, *, results=None, messages=(), next_step=None, resume=None, files=None):
    """Register a kind of job (again: replaced), with the words of its result keys and its messages, its
    next step, its resume function and its files (see :class:`JobKind`)."""
    record = JobKind(kind, title, dict(results or {}), tuple(messages), next_step, resume, files)
    return KINDS.register(kind, record)


def register_messages(*templates):
    """Register message templates that any kind of job may write (the reaper's, for one)."""
    known = KINDS.get(ANY)
    register(ANY, "", messages=(*(known.messages if known else ()), *templates))


def registered():
    """Every registered kind, by its key."""
    return {kind: record for kind, record in KINDS.all().items() if kind != ANY}


def get(kind):
    """The record of ``kind``, or None (no app registered it)."""
    return KINDS.get(kind) if kind != ANY else None


class _Files(Mapping):
    """kind -> ``files(job_id) -> Path`` for the kinds whose jobs write files (read-only, always current)."""

    def __getitem__(self, kind):
        record = get(kind)
        folder_of = record.files_folder() if record else None
        if folder_of is None:
            raise KeyError(kind)
        return folder_of

    def __iter__(self):
        return iter([kind for kind, record in registered().items() if record.files])

    def __len__(self):
        return len(list(iter(self)))


#: The folders of the files jobs wrote, by kind (``JobKind.files``): what study archives carry.
FILES = _Files()


def templates():
    """Every registered message template (each once, in the order of registration)."""
    return tuple(dict.fromkeys(t for record in KINDS.all().values() for t in record.messages))


def kind_title(kind):
    """The title of ``kind`` in the active language (the key itself for a kind nobody registered)."""
    found = get(kind)
    return str(found.title) if found else kind


def result_title(key):
    """The words of a result key in the active language (the key itself when none were registered;
    the kind registered last wins when two give the same key different words)."""
    words = {k: v for record in KINDS.all().values() for k, v in record.results.items()}
    return str(words[key]) if key in words else key


def message_text(message):
    """A stored progress message in the active language: a whole message marked for translation, or
    one written from a registered template (its values kept as written); else the message as stored."""
    if not message:
        return message
    if message == "done":
        return pgettext("job progress", "done")
    translated = gettext(message)
    if translated != message:
        return translated
    for template in templates():
        found = _pattern(template).fullmatch(message)
        if found:
            return gettext(template) % {k: _decimal(v) if k == "rate" else v for k, v in found.groupdict().items()}
    return message


def _decimal(value):
    """A rate of a message (``1.5`` q/s: a ``%(rate)s`` placeholder) with the reader's decimal mark
    (names and ids keep their points)."""
    if _DECIMAL.fullmatch(value):
        return value.replace(".", formats.get_format("DECIMAL_SEPARATOR"))
    return value


@functools.cache
def _pattern(template):
    """The regular expression of a message template: each placeholder matches any text."""
    parts = _PLACEHOLDER.split(template)
    regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    return re.compile(regex, re.DOTALL)
