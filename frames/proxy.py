"""The frame proxy of paper section 5 / SPEC 8, as pure functions: no database, no network.

1. :class:`TriggerIndex` finds every (frame, word) pair whose LU word occurs as a whole word in a
   question (case-insensitive; multiword LUs too). One index is built per lexicon: words are keyed
   by their first token, so a question only tests the LUs that start with one of its own tokens.
2. :func:`frame_prompt` / :func:`fe_prompt` are the paper's two prompts (appendix A.5).
3. :func:`parse_pair` and :func:`parse_fe_reply` read the LLM's replies in any reasonable form;
   :func:`resolve_pair` and :func:`validate_fes` check them against the lexicon.
4. :func:`annotate_question` chains all of it for one question, with the LLM injected as
   ``chat(messages, *, purpose) -> str``; it returns a :class:`ProxyResult` holding every prompt and reply.

Outcomes: ``no_trigger`` (no candidate), ``unknown_frame`` (the chosen frame is not in the lexicon),
``bad_output`` (a reply that cannot be read: no pair in the first, no JSON object in the second, or
an object whose every FE is foreign to the frame), ``done``; spelled once in ``frames.outcomes``.
"""

from __future__ import annotations

import ast
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field

from core import languages
from frames.framenet import lu_pos_code, lu_word, pos_name
from frames.outcomes import BAD_OUTPUT, DONE, NO_TRIGGER, UNKNOWN_FRAME

# The prompts are a language's words (``core.languages``: the paper's English, appendix A.5, and the
# French of issue 25); these names are the two the tests and the docs quote.
FRAME_PROMPT, FE_PROMPT, FE_HINT = (
    languages.ENGLISH_PROMPTS.frame,
    languages.ENGLISH_PROMPTS.fe,
    languages.ENGLISH_PROMPTS.fe_hint,
)
FRAME_PROMPT_FR, FE_PROMPT_FR, FE_HINT_FR = (
    languages.FRENCH_PROMPTS.frame,
    languages.FRENCH_PROMPTS.fe,
    languages.FRENCH_PROMPTS.fe_hint,
)


@dataclass(frozen=True)
class Prompts:
    language: str
    frame: str
    fe: str
    fe_hint: str


def prompts_for(language):
    """The prompts of a corpus language (its record in ``core.languages``, by primary subtag: ``fr-CA``
    is French); a language without prompts gets the paper's English.

    >>> prompts_for("fr-CA").frame.startswith("À partir"), prompts_for("de").frame.startswith("From")
    (True, True)
    """
    record = languages.get(language)
    if record is None or record.prompts is None:
        record = languages.default()
    words = record.prompts
    return Prompts(record.code, words.frame, words.fe, words.fe_hint)


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'"})
_TOKEN = re.compile(r"\w+")


def normalize_text(text):
    """Typographic apostrophes -> ``'``; the rest unchanged (matching is case-insensitive)."""
    return (text or "").translate(_APOSTROPHES)


def word_pattern(word):
    """Regex for ``word`` as a whole word: not preceded or followed by a letter/digit/underscore.

    Inner whitespace matches any run of whitespace. ``\\w`` is Unicode-aware, so ``Beyoncé`` is one
    word; an apostrophe is a boundary, so ``team`` matches in ``team's``, while ``o'clock`` needs its
    apostrophe.
    """
    parts = normalize_text(word).split()
    body = r"\s+".join(re.escape(p) for p in parts)
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


@dataclass(frozen=True)
class Candidate:
    frame: str
    word: str
    lus: tuple  # the LU names of that frame with that word, e.g. ("attack.v", "attack.n")
    start: int = 0  # first character offset of the match in the question

    def pair(self):
        return [self.frame, self.word]


class TriggerIndex:
    """All LU words of a lexicon, precompiled. ``entries``: iterable of ``(frame_name, lu_name)``."""

    def __init__(self, entries):
        by_word = defaultdict(lambda: defaultdict(list))  # word key -> frame -> [lu names]
        spelling = {}
        for frame, lu_name in entries:
            word = lu_word(lu_name)
            if not word:
                continue
            key = normalize_text(word).casefold()
            spelling.setdefault(key, word)
            if lu_name not in by_word[key][frame]:
                by_word[key][frame].append(lu_name)
        self._words = []  # (pattern, word, {frame: (lu names)})
        self._by_first = defaultdict(list)
        self._always = []  # words without any \w token (rare): tested on every question
        for key, frames in by_word.items():
            entry = (word_pattern(spelling[key]), spelling[key], {f: tuple(lus) for f, lus in frames.items()})
            self._words.append(entry)
            first = _TOKEN.search(key)
            (self._by_first[first.group(0)] if first else self._always).append(entry)
        self.n_words = len(self._words)
        self.n_pairs = sum(len(e[2]) for e in self._words)

    @classmethod
    def from_lexicon(cls, lexicon):
        return cls((f.name, lu.name) for f in lexicon.frames.values() for lu in f.lexical_units)

    def candidates(self, question):
        """(frame, word) candidates in order of their first occurrence in the question, then frame name."""
        text = normalize_text(question)
        tested, found = set(), []
        pools = [self._by_first.get(tok.casefold(), ()) for tok in _TOKEN.findall(text)] + [self._always]
        for pool in pools:
            for entry in pool:
                if id(entry) in tested:
                    continue
                tested.add(id(entry))
                pattern, word, frames = entry
                match = pattern.search(text)
                if match:
                    found.extend(Candidate(f, word, lus, match.start()) for f, lus in frames.items())
        found.sort(key=lambda c: (c.start, c.frame, c.word))
        return found


# --- prompts -------------------------------------------------------------------------------------


def format_pair(frame, word):
    return repr((frame, word))


def format_list(candidates):
    return "[" + ", ".join(format_pair(c.frame, c.word) for c in candidates) + "]"


def frame_prompt(question, candidates, template=FRAME_PROMPT):
    return template.format(list=format_list(candidates), question=question)


def fe_prompt(question, frame, word, *, template=FE_PROMPT, elements=None, hint=FE_HINT):
    text = template.format(pair=format_pair(frame, word), question=question)
    if elements:
        text += hint.format(elements=", ".join(elements))
    return text


def messages(prompt):
    return [{"role": "user", "content": prompt}]


# --- reading the replies -------------------------------------------------------------------------

_QUOTES = "'\"`\u201c\u201d\u2018\u2019\u00ab\u00bb "
_FRAME_NAME = re.compile(r"^[A-Za-z][\w\-]*(?: [A-Za-z][\w\-]*)*$")
_FENCE = re.compile(r"```[ \t]*(?:json|JSON|python)?[ \t]*\n?(.*?)```", re.DOTALL)
_FRAME_KEYS = {"frame", "framename", "semanticframe"}
_WORD_KEYS = {"lexicalunit", "lu", "word", "trigger", "lutrigger", "lexicalunittrigger", "target", "luname"}
# French replies: "unité lexicale", "mot", "déclencheur" (``_key`` keeps a-z only: é is dropped).
_WORD_KEYS |= {"unitlexicale", "mot", "dclencheur", "unitlexicaledclencheur"}


def _key(text):
    return re.sub(r"[^a-z]", "", str(text).lower())


def _strip_quotes(text):
    return str(text).strip().strip(_QUOTES).strip()


def _looks_like_frame(text):
    return bool(_FRAME_NAME.match(text)) and len(text) <= 80


def _json_values(text):
    """Every JSON (or Python-literal) object/array found in ``text``, code fences first."""
    sources = [m.group(1) for m in _FENCE.finditer(text or "")] + [text or ""]
    decoder = json.JSONDecoder()
    for source in sources:
        for i, ch in enumerate(source):
            if ch not in "{[":
                continue
            try:
                yield decoder.raw_decode(source[i:])[0]
                continue
            except ValueError:
                pass
            end = _balanced_end(source, i)
            if end:
                try:
                    value = ast.literal_eval(source[i:end])
                except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
                    continue
                if isinstance(value, (dict, list, tuple)):
                    yield value


def _balanced_end(text, start):
    opening, closing = text[start], {"{": "}", "[": "]"}[text[start]]
    depth, quote = 0, None
    for j in range(start, min(len(text), start + 20000)):
        ch = text[j]
        if quote:
            if ch == quote and text[j - 1] != "\\":
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == opening:
            depth += 1
        elif ch == closing:
            depth -= 1
            if depth == 0:
                return j + 1
    return None


@dataclass(frozen=True)
class Pair:
    frame: str
    word: str | None = None


def _pair_from_value(value):
    if isinstance(value, dict):
        keys = {_key(k): v for k, v in value.items()}
        frame = next((keys[k] for k in _FRAME_KEYS if k in keys), None)
        if isinstance(frame, str) and frame.strip():
            word = next((keys[k] for k in _WORD_KEYS if k in keys), None)
            return Pair(_strip_quotes(frame), _strip_quotes(word) if isinstance(word, str) else None)
        if len(value) == 1:
            ((k, v),) = value.items()
            if isinstance(v, str) and _looks_like_frame(_strip_quotes(k)):
                return Pair(_strip_quotes(k), _strip_quotes(v))
            return _pair_from_value(v)
    if isinstance(value, (list, tuple)):
        if len(value) == 2 and all(isinstance(v, str) for v in value) and _looks_like_frame(_strip_quotes(value[0])):
            return Pair(_strip_quotes(value[0]), _strip_quotes(value[1]))
        if len(value) == 1:
            return _pair_from_value(value[0])
    return None


_TUPLE = re.compile(r"[\(\[]([^()\[\]\n]*?,[^()\[\]\n]*?)[\)\]]")
_LABELED_FRAME = re.compile(r"\bframe(?:\s*name)?\s*[:=]\s*[\"'`\u201c\u2018*]*([A-Za-z][\w\-]*)", re.IGNORECASE)
_LABELED_WORD = re.compile(
    r"\b(?:lexical[\s_]*unit|lu|word|trigger|target|unité[\s_]*lexicale|mot|déclencheur)"
    r"(?:\s*/\s*(?:trigger|déclencheur))?\s*[:=]\s*[\"'`\u201c\u2018*]*([^\"`\u201d\u2019,\n;)*]+)",
    re.IGNORECASE,
)
_SEPARATED = re.compile(
    r"^[\s\"'`\u201c\u2018*(\[]*([A-Za-z][\w\-]*)[\"'`\u201d\u2019*]*\s*(?:-|\u2013|\u2014|:|,|/|\||->|=>)\s*"
    r"[\"'`\u201c\u2018*]*([^\"`\u201d\n]+?)[\"'`\u201d\u2019*)\]]*\s*\.?\s*$"
)


def parse_pair(reply):
    """The (frame, word) pair named in an LLM reply, or None when none can be read.

    Accepted: ``("Attack", "attack")`` in any quotes or brackets, JSON (``{"frame": .., "lexical
    unit": ..}``, ``["Attack", "attack"]``, ``{"Attack": "attack"}``), labels (``Frame: Attack, word:
    attack``), separators (``Attack - attack``, ``Attack: attack``), and a bare frame name.
    """
    text = (reply or "").strip()
    if not text:
        return None
    for value in _json_values(text):
        pair = _pair_from_value(value)
        if pair:
            return pair
    frame = _LABELED_FRAME.search(text)
    if frame:
        word = _LABELED_WORD.search(text)
        return Pair(frame.group(1), _strip_quotes(word.group(1)) if word else None)
    for match in _TUPLE.finditer(text):
        first, _, second = match.group(1).partition(",")
        first, second = _strip_quotes(first), _strip_quotes(second)
        if _looks_like_frame(first) and second:
            return Pair(first, second)
    for line in text.splitlines():
        match = _SEPARATED.match(line.strip())
        if match and _looks_like_frame(match.group(1)):
            return Pair(match.group(1), _strip_quotes(match.group(2)))
    bare = _strip_quotes(text.rstrip("."))
    if re.fullmatch(r"[A-Za-z][\w\-]*", bare) and ("_" in bare or bare[0].isupper()):
        return Pair(bare, None)
    return None


def mentioned_frames(reply, frame_names):
    """Frame names (from ``frame_names``) that occur as whole words in the reply (``_`` or space)."""
    text = normalize_text(reply or "")
    found = []
    for name in frame_names:
        body = r"[\s_]+".join(re.escape(p) for p in name.split("_"))
        if re.search(rf"(?<!\w){body}(?!\w)", text, re.IGNORECASE):
            found.append(name)
    return found


@dataclass
class Choice:
    outcome: str  # DONE-so-far, UNKNOWN_FRAME or BAD_OUTPUT
    frame_name: str = ""  # as the LLM wrote it
    frame: object = None  # framenet.Frame when known
    word: str = ""
    lu: str = ""
    flags: dict = field(default_factory=dict)


_NOUN_CUES = {
    "the",
    "a",
    "an",
    "this",
    "that",
    "these",
    "those",
    "his",
    "her",
    "its",
    "their",
    "our",
    "my",
    "your",
    "whose",
    "which",
    "what",
    "first",
    "last",
    "s",
    # French determiners ("quelle guerre", "l'attaque": the elided l' is the token "l")
    "le",
    "la",
    "les",
    "l",
    "un",
    "une",
    "des",
    "du",
    "au",
    "aux",
    "ce",
    "cet",
    "cette",
    "ces",
    "son",
    "sa",
    "ses",
    "leur",
    "leurs",
    "quel",
    "quelle",
    "quels",
    "quelles",
    "premier",
    "première",
    "dernier",
    "dernière",
}


def choose_lu(lus, question, word):
    """One LU name among same-word LUs of a frame: a noun after a determiner, else a verb, else the first."""
    if not lus:
        return ""
    if len(lus) == 1:
        return lus[0]
    text = normalize_text(question)
    match = word_pattern(word).search(text)
    before = _TOKEN.findall(text[: match.start()]) if match else []
    wanted = ("n",) if before and before[-1].casefold() in _NOUN_CUES else ("v", "n")
    for code in wanted:
        for lu in lus:
            if lu_pos_code(lu) == code:
                return lu
    return lus[0]


def resolve_pair(reply, candidates, lexicon, *, question=""):
    """Check the first reply against the candidates and the lexicon; returns a :class:`Choice`."""
    pair = parse_pair(reply)
    flags = {}
    if pair is None:
        # Fallback for prose replies: exactly one candidate frame named somewhere in the reply.
        named = mentioned_frames(reply, sorted({c.frame for c in candidates}))
        if len(named) != 1:
            return Choice(BAD_OUTPUT, flags={"reason": "no (frame, lexical unit) pair in the reply"})
        flags["pair_from_mention"] = True
        pair = Pair(named[0], None)
    frame = lexicon.frame(pair.frame)
    if frame is None:
        return Choice(
            UNKNOWN_FRAME,
            frame_name=pair.frame,
            word=pair.word or "",
            flags={"reason": f"frame {pair.frame!r} is not in the lexicon"},
        )
    mine = [c for c in candidates if c.frame == frame.name]
    word = pair.word or ""
    chosen = next((c for c in mine if c.word.casefold() == normalize_text(word).casefold()), None)
    if chosen is None and mine:
        if word:
            flags["word_replaced"] = word
        chosen = mine[0]
    if chosen is None:
        flags["not_a_candidate"] = True
        lus = tuple(lu.name for lu in frame.lexical_units if lu.word.casefold() == normalize_text(word).casefold())
    else:
        word, lus = chosen.word, chosen.lus
    return Choice(
        DONE, frame_name=pair.frame, frame=frame, word=word, lu=choose_lu(list(lus), question, word), flags=flags
    )


_FE_WRAPPERS = {"frameelements", "fes", "fe", "elements", "frameelement", "arguments", "roles"}
_NAME_KEYS = ("name", "fe", "frameelement", "element", "role", "label", "type")
_SPAN_KEYS = ("text", "span", "value", "filler", "content", "phrase", "mention")
_EMPTY = {"", "null", "none", "n/a", "na", "-", "unknown", "not mentioned", "not specified", "not present"}


def _span(value):
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        text = value.strip()
        return None if text.casefold() in _EMPTY else text
    if isinstance(value, (list, tuple)):
        parts = [s for s in (_span(v) for v in value) if s]
        return "; ".join(parts) or None
    if isinstance(value, dict):
        keys = {_key(k): v for k, v in value.items()}
        for k in _SPAN_KEYS:
            if k in keys:
                return _span(keys[k])
    return None


def _fes_from_value(value):
    """FE name -> span (None for an FE named without a usable span), or None if not FE-shaped."""
    if isinstance(value, dict):
        keys = {_key(k): k for k in value}
        for wrapper in _FE_WRAPPERS:
            if wrapper in keys and isinstance(value[keys[wrapper]], (dict, list)):
                return _fes_from_value(value[keys[wrapper]])
        meta = _FRAME_KEYS | _WORD_KEYS | {"question", "pair"}
        return {str(k).strip(): _span(v) for k, v in value.items() if _key(k) not in meta}
    if isinstance(value, (list, tuple)):
        out = {}
        for item in value:
            if isinstance(item, dict):
                keys = {_key(k): v for k, v in item.items()}
                name = next((keys[k] for k in _NAME_KEYS if k in keys and isinstance(keys[k], str)), None)
                if name is None:
                    sub = _fes_from_value(item)
                    out.update(sub or {})
                    continue
                out[name.strip()] = _span(next((keys[k] for k in _SPAN_KEYS if k in keys), None))
            elif isinstance(item, str):
                out[item.strip()] = None
            else:
                return None
        return out
    return None


def parse_fe_reply(reply):
    """FE name -> text span from the second reply, or None when it holds no JSON object.

    The object may be bare, inside a fenced code block, followed by text, wrapped in a
    ``frame_elements`` key, or a list of ``{"name", "text"}`` items. FEs with empty or null
    spans are kept with ``None`` (the caller drops them).
    """
    for value in _json_values(reply or ""):
        if isinstance(value, dict) or (
            isinstance(value, (list, tuple)) and value and all(isinstance(v, dict) for v in value)
        ):
            fes = _fes_from_value(value)
            if fes is not None:
                return fes
    return None


def validate_fes(fes, frame, trigger=""):
    """Keep the FEs of ``frame`` with a span; returns ``(kept {name: span}, dropped [{name, reason}])``.

    Names are matched ignoring case, spaces and underscores and rewritten to the lexicon's spelling.
    Dropped: FEs foreign to the frame, FEs without a span, and an FE whose span is the trigger
    itself (the prompt says "The LU can't be a FE").
    """
    kept, dropped = {}, []
    trigger_key = normalize_text(trigger).casefold().strip()
    for name, span in fes.items():
        element = frame.element(name)
        if element is None:
            dropped.append({"name": name, "reason": "not an FE of the frame"})
        elif span is None:
            dropped.append({"name": element.name, "reason": "empty span"})
        elif trigger_key and normalize_text(span).casefold().strip() == trigger_key:
            dropped.append({"name": element.name, "reason": "the span is the trigger"})
        elif element.name in kept:
            kept[element.name] = f"{kept[element.name]}; {span}"
        else:
            kept[element.name] = span
    return kept, dropped


# --- one question --------------------------------------------------------------------------------


@dataclass
class ProxyResult:
    outcome: str
    candidates: list = field(default_factory=list)  # [[frame, word], ...]
    frame_name: str = ""
    frame: str = ""  # lexicon spelling, when known
    trigger: str = ""
    lu: str = ""
    lu_pos: str = ""
    frame_elements: dict = field(default_factory=dict)
    frame_prompt: str = ""
    frame_reply: str = ""
    fe_prompt: str = ""
    fe_reply: str = ""
    flags: dict = field(default_factory=dict)


FRAME_SELECTION = "frame_selection"  # the purpose of the first request: which frame (``FRAME_PROMPT``)
FRAME_ELEMENTS = "frame_elements"  # the purpose of the second: its frame elements (``FE_PROMPT``)


def annotate_question(question, index, lexicon, *, chat, fe_hint=False, language="en"):
    """Run the proxy on one question. ``chat(messages, *, purpose) -> str`` is the LLM, told the
    purpose of each request (``FRAME_SELECTION``, ``FRAME_ELEMENTS``); its errors propagate.
    ``language`` (the corpus's) chooses the prompts (``prompts_for``)."""
    prompts = prompts_for(language)
    candidates = index.candidates(question)
    result = ProxyResult(outcome=NO_TRIGGER, candidates=[c.pair() for c in candidates])
    if not candidates:
        return result
    result.frame_prompt = frame_prompt(question, candidates, template=prompts.frame)
    result.frame_reply = chat(messages(result.frame_prompt), purpose=FRAME_SELECTION)
    choice = resolve_pair(result.frame_reply, candidates, lexicon, question=question)
    result.frame_name, result.trigger, result.flags = choice.frame_name, choice.word, dict(choice.flags)
    if choice.outcome != DONE:
        result.outcome = choice.outcome
        return result
    frame = choice.frame
    result.frame, result.lu = frame.name, choice.lu
    result.lu_pos = pos_name(lu_pos_code(choice.lu)) if choice.lu else ""
    elements = [fe.name for fe in frame.elements] if fe_hint else None
    result.fe_prompt = fe_prompt(
        question, frame.name, choice.word, template=prompts.fe, elements=elements, hint=prompts.fe_hint
    )
    result.fe_reply = chat(messages(result.fe_prompt), purpose=FRAME_ELEMENTS)
    fes = parse_fe_reply(result.fe_reply)
    if fes is None:
        result.outcome = BAD_OUTPUT
        result.flags["reason"] = "no JSON object in the frame-element reply"
        return result
    kept, dropped = validate_fes(fes, frame, choice.word)
    if dropped:
        result.flags["dropped_fes"] = dropped
    if not kept and any(d["reason"] == "not an FE of the frame" for d in dropped):
        result.outcome = BAD_OUTPUT
        result.flags["reason"] = f"no frame element of {frame.name} in the reply"
        return result
    result.frame_elements = kept
    result.outcome = DONE
    return result
