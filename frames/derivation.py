"""Deriving the SPEC 15 attributes over a list of corpus records: the shared path of the offline
command ``derive_attributes`` and of the derivation job (``frames.attribute_jobs``).

Records are the plain dicts of SPEC 9 (``annotation.interchange.corpus_record``). The contexts are
parsed once each by a ``parse(contexts, progress) -> {context: Parse}`` callable
(:func:`spacy_parser` builds it on ``frames.parsing``), the rules are ``frames.attributes``.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import partial
from pathlib import Path

from frames import attributes, parsing
from frames.framenet import LexiconError, load_lexicon


def gettext_noop(text):
    """Marks a job message for the catalogues (``makemessages`` collects this name) without Django."""
    return text


# Progress messages of its jobs, in English (pages translate them: core.job_kinds.message_text).
PARSING = gettext_noop("parsing the contexts of %(total)s questions with a frame")
PARSED = gettext_noop("parsing: %(done)s/%(total)s distinct contexts")
DERIVED = gettext_noop("attributes derived")
MESSAGES = (PARSING, PARSED, DERIVED)


def _noop(*args, **kwargs):
    pass


def spacy_parser(name):
    """``(parse, description)``: a parse callable on the spaCy pipeline ``name`` and its
    ``{"parser", "parser_version"}``. :class:`parsing.ParserError` when it is not installed."""
    nlp = parsing.load(name)
    return partial(_parse_with, nlp), parsing.describe(nlp)


def _parse_with(nlp, contexts, progress=None):
    return parsing.parse_contexts(nlp, contexts, progress=progress)


def lexicon_words(lexicon):
    """``{frame: [LU names]}`` of a :class:`frames.framenet.Lexicon`."""
    return {name: [lu.name for lu in frame.lexical_units] for name, frame in lexicon.frames.items()}


def read_lexicon(path):
    """``{frame: [LU names]}`` from a FrameNet directory (framenet_v17 layout) or a JSON file of that shape."""
    path = Path(path)
    if path.is_dir():
        return lexicon_words(load_lexicon(path))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LexiconError(f"{path}: not a FrameNet directory nor a JSON lexicon ({exc})") from None
    if not isinstance(data, dict) or not all(
        isinstance(v, list) and all(isinstance(x, str) for x in v) for v in data.values()
    ):
        raise LexiconError(f"{path}: a JSON lexicon is an object {{frame: [LU names, ...]}}")
    return data


def derive_records(records, parse, *, lexicon, options):
    """Derive the attributes of every record; returns ``(records, summary)``.

    ``options``: ``source`` (``{"parser", "parser_version", "adaptation"}``), ``frequencies``
    (``attributes.frame_frequencies`` of the adaptation corpus, or None), ``overwrite`` (replace
    imported values), ``progress(done=, total=, message=)``. Records without ``lu`` and ``frame`` are
    left as they are (counted in ``summary["without_frame"]``), and so are those whose context the
    parser did not take (longer than its ``max_length``): ``summary["not_parsed"]`` names each by id.
    """
    progress = options.get("progress") or _noop
    todo = [r for r in records if r.get("lu") and r.get("frame")]
    total = len(todo)
    progress(done=0, total=total, message=PARSING % {"total": total}, force=True)

    def parse_progress(done, contexts):
        progress(done=done, total=contexts, message=PARSED % {"done": done, "total": contexts})

    parsed = parse([r.get("context") or "" for r in todo], parse_progress)
    out, derived, missing, kept, unparsed = [], Counter(), Counter(), Counter(), []
    for record in records:
        if not (record.get("lu") and record.get("frame")):
            out.append(record)
            continue
        if record.get("context") and record["context"] not in parsed:  # too long for the parser: left as it is
            unparsed.append(
                {
                    "question": record.get("id"),
                    "reason": f"context of {len(record['context'])} characters, more than the parser takes",
                }
            )
            out.append(record)
            continue
        parse_ = parsed.get(record.get("context") or "") or attributes.Parse(tokens=(), sentences=())
        result = attributes.derive(record, parse_, lexicon=lexicon, frequencies=options.get("frequencies"))
        merged, kept_here = attributes.merge(
            record, result, source=options["source"], overwrite=bool(options.get("overwrite"))
        )
        out.append(merged)
        derived.update(set(result.values) - set(kept_here))
        missing.update(f"{name}: {why}" for name, why in result.missing.items())
        kept.update(kept_here)
    summary = {
        "questions": len(records),
        "with_frame": total,
        "without_frame": len(records) - total,
        "contexts_parsed": len(parsed),
        "derived": {name: derived.get(name, 0) for name in attributes.DERIVED_ATTRIBUTES},
        "missing": dict(sorted(missing.items())),
        "kept_imported": dict(kept),
        "not_parsed": unparsed,
        "source": options["source"],
    }
    progress(done=total, total=total, message=DERIVED, force=True)
    return out, summary
