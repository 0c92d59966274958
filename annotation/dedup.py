"""Answer normalization and triplet building (SPEC section 2). Pure functions on plain data.

Policies, from weakest to strongest merge:
- ``exact``: the answer string as given.
- ``whitespace`` (default): Unicode NFC, strip, collapse runs of whitespace (any Unicode space: the
  no-break spaces of French typography, U+00A0 and U+202F, included) to one space, and write the
  typographic apostrophes U+2019 and U+02BC as ``'`` (``l’armée`` and ``l'armée`` are one answer to
  a reader, as two spellings of one accented letter are under NFC).
- ``casefold``: ``whitespace`` then Unicode case folding.
Never stronger by default: two answers a human could judge differently must not merge. So accents
are kept (``côte``/``cote``, ``État``/``Etat``), and articles and elisions are never dropped
(``l'armée``/``armée``, ``Le Rouillon``/``Rouillon``): the metrics' normalization compares those
(``evaluation.science.metrics``), deduplication does not.

``normalize_squad`` is not a dedup policy but the official SQuAD answer normalization (much
stronger); label files use it to match answers (``label_files``), the metrics to score them.
"""

from __future__ import annotations

import hashlib
import re
import string
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from core import languages

POLICIES = ("whitespace", "casefold", "exact")


def gettext_noop(text):
    """Marks a word for the catalogues (``makemessages`` collects this name) without importing Django."""
    return text


#: Each policy in words, for the pages (English here; pages translate them with gettext).
POLICY_TITLES = {
    "whitespace": gettext_noop("spaces normalized"),
    "casefold": gettext_noop("spaces and case normalized"),
    "exact": gettext_noop("exact string"),
}
DEFAULT_POLICY = "whitespace"
_WS = re.compile(r"\s+")
ASCII_PUNCT_TABLE = str.maketrans("", "", string.punctuation)
EN_ARTICLES = re.compile(r"\b(" + "|".join(languages.get("en").articles) + r")\b")  # SQuAD's: a|an|the
# Typographic apostrophes (right single quotation mark, modifier letter apostrophe) -> "'". Not
# U+2018, an opening quotation mark.
APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'"})


def normalize_answer(text: str, policy: str = DEFAULT_POLICY) -> str:
    if policy not in POLICIES:
        raise ValueError(f"unknown dedup policy {policy!r}; choose one of {', '.join(POLICIES)}")
    if policy == "exact":
        return text
    text = displayed(text).translate(APOSTROPHES)
    if policy == "casefold":
        text = text.casefold()
    return text


def answer_key(normalized: str) -> str:
    """The fixed-size key a triplet is unique by within its question: the SHA-256 of its normalized
    answer (64 hexadecimal characters), so that answers of any length fit a database index (a btree
    entry of PostgreSQL holds at most 2,704 bytes). Stores compare the texts too, so two answers of
    one key are never merged silently (``triplet_store``).

    >>> answer_key("Paris")[:12], len(answer_key("x" * 1_000_000))
    ('5dd272b4f316', 64)
    """
    return hashlib.sha256(normalized.encode("utf-8", "surrogatepass")).hexdigest()


def displayed(text: str) -> str:
    """An answer as annotators see it: NFC, stripped, whitespace collapsed; its apostrophes as written."""
    return _WS.sub(" ", unicodedata.normalize("NFC", text)).strip()


_JOIN = "\x00"  # joins texts for one pass of each string operation (see normalize_answers)


def normalize_answers(texts: list, policy: str = DEFAULT_POLICY) -> list:
    """``normalize_answer`` of each text, from one pass of each string operation over the texts
    joined by NUL (not whitespace, and composing with nothing under NFC: each text keeps its
    boundaries; the one space a run of whitespace leaves at a boundary is then dropped). Text by
    text where a text holds NUL.

    >>> normalize_answers(["Denver  Broncos ", " a\u00a0b", "", " "])
    ['Denver Broncos', 'a b', '', '']
    """
    texts = list(texts)
    if policy == "exact" or not texts:
        normalize_answer("", policy)  # validates the policy
        return texts
    joined = _JOIN.join(texts)
    if joined.count(_JOIN) != len(texts) - 1:
        return [normalize_answer(t, policy) for t in texts]
    joined = _WS.sub(" ", unicodedata.normalize("NFC", joined))
    joined = joined.replace(" " + _JOIN, _JOIN).replace(_JOIN + " ", _JOIN).strip(" ").translate(APOSTROPHES)
    if policy == "casefold":
        joined = joined.casefold()
    return joined.split(_JOIN)


def normalize_squad(text: str) -> str:
    """The official SQuAD v1.1 ``normalize_answer``, verbatim in behaviour: lower case, ASCII
    punctuation and the articles a/an/the dropped, whitespace collapsed.

    >>> normalize_squad("The  Denver Broncos!")
    'denver broncos'
    """
    text = text.lower().translate(ASCII_PUNCT_TABLE)  # drops the characters of string.punctuation
    text = EN_ARTICLES.sub(" ", text)
    return " ".join(text.split())


@dataclass
class TripletGroup:
    """One triplet to be: a question, the displayed answer, its key and the predictions behind it."""

    question_key: object
    answer: str
    normalized: str
    prediction_keys: list = field(default_factory=list)


def build_triplets(predictions: Iterable[tuple], policy: str = DEFAULT_POLICY) -> list[TripletGroup]:
    """Group ``(prediction_key, question_key, answer)`` tuples into triplets.

    Order is stable: triplets come out in first-seen order, and the displayed answer of a triplet is
    the whitespace-normalized form of the first prediction seen (so the reference, loaded first,
    usually gives the displayed spelling). An answer that is empty once normalized is no triplet
    (nobody is shown an empty answer): its prediction is in no group.

    >>> [(g.answer, g.prediction_keys) for g in build_triplets([(1, "q", "Paris"), (2, "q", " "), (3, "q", None)])]
    [('Paris', [1])]
    """
    groups: dict[tuple, TripletGroup] = {}
    for pred_key, question_key, given in predictions:
        answer = given or ""
        key = (question_key, normalize_answer(answer, policy))
        if not answer.strip():
            continue
        group = groups.get(key)
        if group is None:
            shown = answer if policy == "exact" else displayed(answer)
            group = groups[key] = TripletGroup(question_key, shown, key[1])
        group.prediction_keys.append(pred_key)
    return list(groups.values())
