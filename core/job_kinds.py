"""The kinds of background job in words (issue 32).

A job row keeps its kind, its result's keys and its progress message in English, as the worker wrote
them (the API, the logs and the downloads read them so); the pages name them in the reader's language
through this registry. Each app registers, in its ``AppConfig.ready``, the kinds of job it starts: a
title, the words of the keys of its result, and the templates of the progress messages its body
writes (``gettext_noop`` strings with named placeholders, such as
``"wrote %(done)s of %(total)s questions"``; the body writes ``TEMPLATE % values``).
``message_text`` finds the template a stored message was written from and translates it.
"""

import re
from dataclasses import dataclass, field

from django.utils import formats
from django.utils.translation import gettext, pgettext


@dataclass(frozen=True)
class JobKind:
    """One kind of job: ``title`` and the ``results`` titles are lazy translations (``gettext_lazy``)."""

    kind: str
    title: object
    results: dict = field(default_factory=dict)
    messages: tuple = ()


_KINDS: dict[str, JobKind] = {}
_RESULTS: dict[str, object] = {}
_MESSAGES: dict[str, re.Pattern] = {}
_PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")
_DECIMAL = re.compile(r"\d+\.\d+")


def register(kind, title, *, results=None, messages=()):
    """Register a kind of job (again: replaced), with the words of its result keys and its messages."""
    _KINDS[kind] = JobKind(kind, title, dict(results or {}), tuple(messages))
    _RESULTS.update(results or {})
    for template in messages:
        _MESSAGES[template] = _pattern(template)
    return _KINDS[kind]


def register_messages(*templates):
    """Register message templates that any kind of job may write (the reaper's, for one)."""
    for template in templates:
        _MESSAGES[template] = _pattern(template)


def registered():
    """Every registered kind, by its key."""
    return dict(_KINDS)


def kind_title(kind):
    """The title of ``kind`` in the active language (the key itself for a kind nobody registered)."""
    found = _KINDS.get(kind)
    return str(found.title) if found else kind


def result_title(key):
    """The words of a result key in the active language (the key itself when none were registered)."""
    return str(_RESULTS[key]) if key in _RESULTS else key


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
    for template, pattern in _MESSAGES.items():
        found = pattern.fullmatch(message)
        if found:
            return gettext(template) % {k: _decimal(v) if k == "rate" else v for k, v in found.groupdict().items()}
    return message


def _decimal(value):
    """A rate of a message (``1.5`` q/s: a ``%(rate)s`` placeholder) with the reader's decimal mark
    (names and ids keep their points)."""
    if _DECIMAL.fullmatch(value):
        return value.replace(".", formats.get_format("DECIMAL_SEPARATOR"))
    return value


def _pattern(template):
    """The regular expression of a message template: each placeholder matches any text."""
    parts = _PLACEHOLDER.split(template)
    regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    return re.compile(regex, re.DOTALL)
