"""What helps an annotator judge: corpus guidelines in Markdown, rendered safely, and the answer
located in the passage. Pure functions (no database).

Markdown goes through markdown-it-py in CommonMark mode with raw HTML disabled: ``<script>`` or
``<img onerror=...>`` in the guidelines come out as text, and links with ``javascript:``/``data:``
targets are not made links (markdown-it's own link validation).
"""

from __future__ import annotations

import difflib
import functools
import re

from markdown_it import MarkdownIt

_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")


@functools.lru_cache(maxsize=64)
def render_markdown(text):
    """HTML of ``text`` (Markdown); raw HTML in the source is escaped, never passed through.

    Kept for the last 64 texts: a study's consent and a corpus's guidelines are the same for every
    arrival and every page (a pure function of the text, so an edit is simply a new text)."""
    return _MARKDOWN.render(text or "")


def changes(before, after):
    r"""What changed between two versions of the guidelines, line by line: ``(kind, line)`` with kind
    ``added`` or ``removed``, in the order of the text; blank lines are left out.

    >>> changes("Judge the answer.\nEmpty is incorrect.", "Judge the answer.\nEmpty is correct if none.")
    [('removed', 'Empty is incorrect.'), ('added', 'Empty is correct if none.')]
    """
    kinds = {"+ ": "added", "- ": "removed"}
    diff = difflib.ndiff((before or "").splitlines(), (after or "").splitlines())
    return [(kinds[d[:2]], d[2:]) for d in diff if d[:2] in kinds and d[2:].strip()]


# A number as written in a passage: digits joined by decimal or thousands separators ("14,2",
# "1.5", "100 000" with a space, NBSP or narrow NBSP before groups of three, "1'000").
_NUMBER = re.compile(r"(?<!\d)\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)|\d+(?:[.,'\u2019\u00a0\u202f]\d+)*")
_APOSTROPHES = "'\u2019\u02bc"


# A number written with digit groups (French "100 000", also with U+00A0 or U+202F): 1-3 digits first.
_GROUPED = re.compile(r"(?<!\d)\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)")
_GROUP_SEPARATOR = "[ \u00a0\u202f]"


_PLAIN_GROUP_SPACE = re.compile(r"(?<!\d)(\d{1,3})((?: \d{3})+)(?!\d)")


def keep_digit_groups(text):
    """``text`` with a no-break space for every plain space between the digit groups of a number
    ("13 000" never breaks between 13 and 000 at the end of a line); for the page only, the corpus
    keeps its text. A year beside a number ("2016 410") is not a grouped number and is left alone.

    >>> keep_digit_groups("13 000 hommes, 1 250 000 euros, en 2016 410 votes") == (
    ...     "13\u00a0000 hommes, 1\u00a0250\u00a0000 euros, en 2016 410 votes")
    True
    """
    if not text or " " not in text:
        return text
    return _PLAIN_GROUP_SPACE.sub(lambda m: m.group(1) + m.group(2).replace(" ", "\u00a0"), text)


def _digits_pattern(digits):
    """A run of 4+ digits as written without or with a separator before every group of three:
    "20000" finds "20 000"; "2016410" does not find "2016 410" (a year then a number)."""
    head = len(digits) % 3 or 3
    groups = [digits[:head], *(digits[i : i + 3] for i in range(head, len(digits), 3))]
    return f"(?:{digits}|{_GROUP_SEPARATOR.join(groups)})"


def _part_pattern(part):
    return "".join(
        _digits_pattern(piece) if re.fullmatch(r"\d{4,}", piece) else re.escape(piece)
        for piece in re.split(r"(\d+)", part)
    )


def _answer_pattern(words):
    """The regular expression of an answer: whitespace-flexible, any apostrophe for any apostrophe
    (l'armée, l’armée), a number with or without its digit groups' spaces (20 000, 20000), and not
    inside a word where the answer starts or ends with a letter or digit. ``words``: the answer split
    on whitespace once its numbers' digit groups are joined (``answer_segments``)."""
    apostrophe = f"[{_APOSTROPHES}]"
    body = r"\s+".join(apostrophe.join(_part_pattern(part) for part in re.split(f"[{_APOSTROPHES}]", w)) for w in words)
    head = r"(?<!\w)" if words[0][0].isalnum() else ""
    tail = r"(?!\w)" if words[-1][-1].isalnum() else ""
    return re.compile(head + body + tail, re.IGNORECASE)


def _cuts_a_number(context, match, numbers):
    """True when ``match`` starts or ends strictly inside a number of the passage ("14" in "14,2")."""
    return any(s < match.start() < e or s < match.end() < e for s, e in numbers)


def answer_segments(context, answer):
    """``context`` cut into ``(text, is_answer)`` pieces: every case-insensitive occurrence of the
    answer (whitespace-flexible) on word and number boundaries is a piece of its own; an empty
    answer or no occurrence: one piece.

    Boundaries are Unicode-aware: "41" is not lit in "141 yards", "14" not in "14,2", "000" not in
    "100 000", "armée" is lit in "l'armée" but not in "armées". A number matches with or without
    the spaces of its digit groups: "20000" lights "20 000" (or "20\u202f000"), and back.

    >>> answer_segments("On 141 yards, 41 ran.", "41")
    [('On 141 yards, ', False), ('41', True), (' ran.', False)]
    >>> [t for t, hit in answer_segments("L’armée et les armées", "l'armée") if hit]
    ['L’armée']
    """
    words = _GROUPED.sub(lambda m: re.sub(r"\D", "", m.group(0)), answer or "").split()
    if not words or not context:
        return [(context or "", False)]
    numbers = [m.span() for m in _NUMBER.finditer(context)] if any(c.isdigit() for c in answer) else []
    pieces, start = [], 0
    for match in _answer_pattern(words).finditer(context):
        if _cuts_a_number(context, match, numbers):
            continue
        if match.start() > start:
            pieces.append((context[start : match.start()], False))
        pieces.append((match.group(0), True))
        start = match.end()
    if start < len(context):
        pieces.append((context[start:], False))
    return pieces or [("", False)]
