"""The spaCy shell of SPEC 15: load a pipeline by name, parse each distinct context once, in batches.

Sentences, tokens, lemmas, POS and dependency heads come from the pipeline and nothing else; they are
turned into the plain :class:`frames.attributes.Parse` that the pure rules read. spaCy is imported
on first use only (the web path never loads it).
"""

from __future__ import annotations

from functools import lru_cache

from core import languages
from core.errors import UserFacingError
from frames.attributes import Parse, Token

# components the rules never read: not run
UNUSED_COMPONENTS = ("ner",)
BATCH_SIZE = 64


class ParserError(UserFacingError, ValueError):
    """No such pipeline, or spaCy itself is missing: the message says what to install."""


def pipeline_name(language, name=None):
    """The pipeline to use: ``name`` when given, else the default of ``language`` (its record in
    ``core.languages``, by primary subtag: ``fr-CA`` is French).

    >>> pipeline_name("fr-CA"), pipeline_name("de", "de_core_news_sm")
    ('fr_core_news_sm', 'de_core_news_sm')
    """
    if name:
        return name
    record = languages.get(language) if languages.primary(language) else None
    if record is None or not record.spacy_pipeline:
        known = ", ".join(f"{r.code}: {r.spacy_pipeline}" for r in languages.all_languages() if r.spacy_pipeline)
        shown = (language or "").lower()
        raise ParserError(f"no default spaCy pipeline for language {shown!r} ({known}): name one with --parser")
    return record.spacy_pipeline


@lru_cache(maxsize=4)
def load(name):
    """The spaCy pipeline ``name`` (cached); :class:`ParserError` naming what to install when absent."""
    try:
        import spacy
    except ImportError:
        raise ParserError("spaCy is not installed: pip install spacy (pinned in requirements.txt)") from None
    try:
        return spacy.load(name, exclude=list(UNUSED_COMPONENTS))
    except OSError:
        package = name.replace("_", "-")
        raise ParserError(
            f"spaCy pipeline {name!r} is not installed: pip install {package} (or python -m spacy download {name})"
        ) from None


def describe(nlp):
    """``{"parser": name, "parser_version": version}`` of a loaded pipeline (its package's name)."""
    meta = nlp.meta
    return {"parser": f"{meta.get('lang', '')}_{meta.get('name', '')}", "parser_version": meta.get("version", "")}


def to_parse(doc):
    """A spaCy ``Doc`` as the plain :class:`Parse`."""
    sentences = list(doc.sents)
    sentence_of = {}
    for s, sent in enumerate(sentences):
        for token in sent:
            sentence_of[token.i] = s
    tokens = tuple(
        Token(
            start=t.idx,
            end=t.idx + len(t.text),
            lemma=t.lemma_,
            pos=t.pos_,
            head=t.head.i,
            sent=sentence_of[t.i],
        )
        for t in doc
    )
    spans = tuple((s.start_char, s.end_char) for s in sentences)
    return Parse(tokens=tokens, sentences=spans)


def parse_contexts(nlp, contexts, *, batch_size=BATCH_SIZE, progress=None):
    """``{context: Parse}`` for each distinct context, parsed once through ``nlp.pipe`` in batches.

    ``progress(done, total)`` is called after each parsed context (every ``batch_size``-th, and the last).
    A context longer than ``nlp.max_length`` (spaCy's E088) is left out: the caller reports its
    questions, the others are parsed.
    """
    limit = getattr(nlp, "max_length", None) or float("inf")
    distinct = list(dict.fromkeys(c for c in contexts if c and len(c) <= limit))
    parsed = {}
    for i, doc in enumerate(nlp.pipe(distinct, batch_size=batch_size), 1):
        parsed[distinct[i - 1]] = to_parse(doc)
        if progress is not None and (i % batch_size == 0 or i == len(distinct)):
            progress(i, len(distinct))
    return parsed
