"""What helps an annotator judge: corpus guidelines in Markdown, rendered safely, and the answer
located in the passage. Pure functions (no database).

Markdown goes through markdown-it-py in CommonMark mode with raw HTML disabled: ``<script>`` or
``<img onerror=...>`` in the guidelines come out as text, and links with ``javascript:``/``data:``
targets are not made links (markdown-it's own link validation).
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt

_MARKDOWN = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")


def render_markdown(text):
    """HTML of ``text`` (Markdown); raw HTML in the source is escaped, never passed through."""
    return _MARKDOWN.render(text or "")


def answer_segments(context, answer):
    """``context`` cut into ``(text, is_answer)`` pieces: every case-insensitive occurrence of the
    answer (whitespace-flexible) is a piece of its own. An empty answer or no occurrence: one piece."""
    words = (answer or "").split()
    if not words or not context:
        return [(context or "", False)]
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
    pieces, start = [], 0
    for match in pattern.finditer(context):
        if match.start() > start:
            pieces.append((context[start : match.start()], False))
        pieces.append((match.group(0), True))
        start = match.end()
    if start < len(context):
        pieces.append((context[start:], False))
    return pieces or [("", False)]
