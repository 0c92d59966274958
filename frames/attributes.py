"""Factor attributes from raw text (SPEC 15), pure: the rules on parsed plain data, no spaCy, no database.

A context is parsed once (``frames.parsing`` runs spaCy) into a :class:`Parse`: tokens with their
characters, lemma, part of speech, dependency head and sentence. From it and a question's ``lu`` and
``frame`` this module derives

- the answer sentence (the first reference answer's span: its given offset when correct, else its first
  exact occurrence; an answer crossing sentences or not found leaves everything below missing);
- the context trigger (in the answer sentence, outside the answer, the first token whose lemma is the
  word of the question's own LU, else of another LU of the frame);
- ``trigger_in_question`` (found through the own LU: true; through another LU: false);
- ``dist`` (dependency arcs between the context trigger and the answer's head token);
- ``lu_pos`` (from the LU's suffix) and ``frame_freq`` (from an adaptation corpus's frames).

Each derived value is recorded with its source in ``meta["attribute_sources"]`` and an imported value
is never replaced unless asked (:func:`merge`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from frames.framenet import lu_pos_code, lu_word, pos_name

# meta keys of a question: where each attribute came from, and how the derived ones were found
SOURCES_KEY = "attribute_sources"
TRACE_KEY = "derivation"
DERIVED = "derived"
# the attributes this module derives (coref needs a coreference component: never derived here)
DERIVED_ATTRIBUTES = ("trigger_in_question", "dist", "lu_pos", "frame_freq")
# attributes the frame proxy writes: its values are predictions, not imported, so derivation may replace them
PROXY_ATTRIBUTES = ("lu_pos", "trigger_in_question")

# why an attribute stays missing (the words of the trace)
NO_LU = "no_lu"
NO_ANSWER = "answer_not_found"
CROSSES = "answer_crosses_sentences"
NO_TRIGGER = "no_context_trigger"
NO_FRAME = "no_frame"
NO_ADAPTATION = "no_adaptation_corpus"
VIA_OWN, VIA_OTHER = "own_lu", "other_lu"


@dataclass(frozen=True)
class Token:
    """One token: characters ``[start, end)`` of the context, lemma, POS, head (index of the head
    token in the whole parse; a root is its own head) and sentence index."""

    start: int
    end: int
    lemma: str
    pos: str
    head: int
    sent: int


@dataclass(frozen=True)
class Parse:
    """A parsed context: its tokens in order and its sentences as character spans."""

    tokens: tuple[Token, ...]
    sentences: tuple[tuple[int, int], ...]


@dataclass
class Derivation:
    """The derived values of one question, how they were found, and why the others are missing."""

    values: dict = field(default_factory=dict)
    trace: dict = field(default_factory=dict)
    missing: dict = field(default_factory=dict)


def answer_span(context, answers, starts=None):
    """``(start, end, how)`` of the first reference answer in ``context``, or None when absent.

    ``how`` is ``offset`` when ``starts[0]`` points at the answer, ``search`` when the offset was
    missing or wrong and the first exact occurrence was used.

    >>> answer_span("Il est né à Paris en 1900.", ["Paris"], [12])
    (12, 17, 'offset')
    >>> answer_span("Il est né à Paris en 1900.", ["Paris"], [3])
    (12, 17, 'search')
    >>> answer_span("Il est né à Paris.", ["Lyon"]) is None
    True
    """
    if not answers or not answers[0]:
        return None
    answer = answers[0]
    start = starts[0] if starts else None
    if isinstance(start, int) and not isinstance(start, bool) and context[start : start + len(answer)] == answer:
        return start, start + len(answer), "offset"
    found = context.find(answer)
    return None if found < 0 else (found, found + len(answer), "search")


def sentence_of(parse, start, end):
    """Index of the sentence holding characters ``[start, end)``, or None when they cross sentences."""
    for i, (s, e) in enumerate(parse.sentences):
        if s <= start and end <= e:
            return i
    return None


def span_tokens(parse, start, end):
    """Indices of the tokens overlapping characters ``[start, end)``."""
    return [i for i, t in enumerate(parse.tokens) if t.start < end and start < t.end]


def context_trigger(parse, sentence, *, answer, words):
    """``(token index, via)`` of the context trigger, or None.

    ``answer`` is the answer's token indices; ``words`` is ``(own word, other words of the frame)``;
    lemmas and words are compared in lower case.
    """
    own, others = words
    own = own.lower()
    others = {w.lower() for w in others} - {own}
    candidates = [i for i, t in enumerate(parse.tokens) if t.sent == sentence and i not in answer]
    for i in candidates:
        if parse.tokens[i].lemma.lower() == own:
            return i, VIA_OWN
    for i in candidates:
        if parse.tokens[i].lemma.lower() in others:
            return i, VIA_OTHER
    return None


def answer_head(parse, answer):
    """The first token of the answer whose head lies outside the answer (a root counts as such)."""
    inside = set(answer)
    for i in answer:
        head = parse.tokens[i].head
        if head == i or head not in inside:
            return i
    return answer[0]


def _ancestors(parse, i):
    path = [i]
    while parse.tokens[path[-1]].head != path[-1] and len(path) <= len(parse.tokens):
        path.append(parse.tokens[path[-1]].head)
    return path


def arc_distance(parse, a, b):
    """Number of dependency arcs on the path between tokens ``a`` and ``b`` (None when unconnected)."""
    up_a, up_b = _ancestors(parse, a), _ancestors(parse, b)
    depth_b = {t: d for d, t in enumerate(up_b)}
    for d, t in enumerate(up_a):
        if t in depth_b:
            return d + depth_b[t]
    return None


def frame_words(lexicon, frame, lu):
    """``(own word, other LU words of the frame)`` from ``lexicon`` (``{frame: [LU names]}``)."""
    own = lu_word(lu)
    others = [lu_word(name) for name in lexicon.get(frame, ()) if lu_word(name).lower() != own.lower()]
    return own, others


def frame_frequencies(frames):
    """Relative frequency of each frame among the questions that have one (``None`` entries: no frame).

    >>> frame_frequencies(["Attack", "Attack", "Being_born", None])
    {'Attack': 0.6666666666666666, 'Being_born': 0.3333333333333333}
    """
    counts = Counter(f for f in frames if f)
    total = sum(counts.values())
    return {f: n / total for f, n in counts.items()} if total else {}


def _missing(d, reason, attributes=("trigger_in_question", "dist")):
    for name in attributes:
        d.missing[name] = reason
    return d


def derive(record, parse, *, lexicon, frequencies=None):
    """The SPEC 15 attributes of one corpus record (``context``, ``answers``, ``lu``, ``frame``;
    ``meta.answer_starts`` or ``answer_starts``) on the parse of its context.

    ``lexicon`` is ``{frame: [LU names]}``; ``frequencies`` the adaptation corpus's
    :func:`frame_frequencies` (None: ``frame_freq`` is not derived).
    """
    d = Derivation()
    lu, frame = record.get("lu"), record.get("frame")
    if frame and frequencies is not None:
        d.values["frame_freq"] = float(frequencies.get(frame, 0.0))
    else:
        d.missing["frame_freq"] = NO_FRAME if not frame else NO_ADAPTATION
    if not lu:
        d.missing["lu_pos"] = NO_LU
        return _missing(d, NO_LU)
    if lu_pos_code(lu):
        d.values["lu_pos"] = pos_name(lu_pos_code(lu))
    else:
        d.missing["lu_pos"] = "lu_without_pos"
    meta = record.get("meta") or {}
    starts = record.get("answer_starts", meta.get("answer_starts"))
    span = answer_span(record.get("context") or "", record.get("answers") or [], starts)
    if span is None:
        return _missing(d, NO_ANSWER)
    start, end, how = span
    d.trace["answer"] = {"start": start, "end": end, "found_by": how}
    sentence = sentence_of(parse, start, end)
    answer = span_tokens(parse, start, end)
    if sentence is None or not answer:
        return _missing(d, CROSSES)
    d.trace["sentence"] = dict(zip(("start", "end"), parse.sentences[sentence]))
    found = context_trigger(parse, sentence, answer=answer, words=frame_words(lexicon, frame, lu))
    if found is None:
        return _missing(d, NO_TRIGGER)
    trigger, via = found
    head = answer_head(parse, answer)
    t = parse.tokens[trigger]
    d.trace["trigger"] = {"start": t.start, "end": t.end, "lemma": t.lemma, "via": via}
    d.trace["answer_head"] = {"start": parse.tokens[head].start, "end": parse.tokens[head].end}
    d.values["trigger_in_question"] = via == VIA_OWN
    distance = arc_distance(parse, trigger, head)
    if distance is None:
        d.missing["dist"] = "no_dependency_path"
    else:
        d.values["dist"] = distance
    return d


def is_replaceable(record, name):
    """Whether ``name`` on ``record`` may be replaced by a derived value without being asked: absent,
    derived before, or written by the frame proxy (``meta.frame_source``) rather than imported."""
    meta = record.get("meta") or {}
    if record.get(name) is None:
        return True
    if (meta.get(SOURCES_KEY) or {}).get(name, {}).get("source") == DERIVED:
        return True
    return name in PROXY_ATTRIBUTES and "frame_source" in meta


def merge(record, derivation, *, source, overwrite=False):
    """A copy of ``record`` with the derived values written where allowed, each with ``source``
    (``{"source": "derived", "parser": .., "adaptation": ..}``) in ``meta.attribute_sources``, the
    trace in ``meta.derivation``. Returns ``(record, kept)``: ``kept`` names the imported attributes
    left as they were (``overwrite`` replaces them too)."""
    out = dict(record)
    meta = dict(out.get("meta") or {})
    sources = dict(meta.get(SOURCES_KEY) or {})
    kept = []
    for name in DERIVED_ATTRIBUTES:
        replaceable = is_replaceable(record, name)
        if name in derivation.values:
            if replaceable or overwrite:
                out[name] = derivation.values[name]
                sources[name] = {**source, "source": DERIVED}
            else:
                kept.append(name)
        elif replaceable and record.get(name) is not None:
            out[name] = None  # derived earlier or by the proxy, not derivable now: the stale value goes
            sources.pop(name, None)
    meta[SOURCES_KEY] = sources
    meta[TRACE_KEY] = {**derivation.trace, "missing": dict(derivation.missing), "kept_imported": kept}
    if not sources:
        meta.pop(SOURCES_KEY)
    out["meta"] = meta
    return out, kept


def dist_class(dist):
    """``"1"`` for one arc, ``"2+"`` for two or more, None when unknown (or 0: trigger in the answer).

    >>> dist_class(1), dist_class(4), dist_class(None)
    ('1', '2+', None)
    """
    if dist is None or dist < 1:
        return None
    return "1" if dist == 1 else "2+"
