"""The ``baseline`` system: a sliding-window lexical-overlap extractor, no weights (pure functions).

Heuristic, in the spirit of the sliding-window baseline of MCTest (Richardson et al., 2013):

1. Words are Unicode ``\\w`` runs (with inner ``'`` and ``-``); a word's *key* is its case-folded
   form cut to its first 6 characters (a crude stemmer: "represented" and "representing" match).
2. The question's *content words* are its words minus a small stop list (English and French
   function words and wh-words) and minus one-character words.
3. Every window of ``window`` consecutive context words is scored by the number of distinct content
   keys it contains; the first best window wins. No match anywhere: the answer is empty.
4. Candidates are runs of at most ``max_answer_words`` consecutive context words that hold neither a
   question word nor a stop word at their edges, inside the best window widened by
   ``max_answer_words`` on each side ("next to the matched window").
5. A candidate scores ``-distance`` (words between it and the nearest matched question word in the
   window) ``+ 1`` if it holds a capitalised word or a number (answers are often names, dates,
   amounts); ties go to the longer, then the earlier candidate. The answer is the exact context
   text from the candidate's first to last character, so the baseline stays extractive.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

WORD = re.compile(r"\w+(?:['’\-]\w+)*", re.UNICODE)
KEY_LEN = 6

# English, then French; a word of both (a, on) is listed once.
# fmt: off
STOP_WORDS = frozenset(
    [
        "a", "an", "the", "of", "in", "on", "at", "to", "for", "from", "by", "with", "as", "is", "are", "was", "were",
        "be", "been", "being", "do", "does", "did", "has", "have", "had", "and", "or", "but", "not", "no", "nor", "so",
        "than", "that", "this", "these", "those", "it", "its", "it's", "which", "who", "whom", "whose", "what", "when",
        "where", "why", "how", "there", "their", "they", "them", "he", "she", "his", "her", "him", "we", "our", "you",
        "your", "i", "me", "my", "if", "then", "into", "about", "over", "under", "after", "before", "during", "between",
        "also", "can", "could", "would", "should", "will", "shall", "may", "might", "must", "very", "more", "most",
        "other", "such", "some", "any", "each", "many", "much", "one", "all", "both", "few", "own", "same", "just",
        "only", "up", "out", "off", "again", "further", "once",
        "de", "la", "le", "les", "l", "un", "une", "des", "du", "d", "et", "ou", "en", "au", "aux", "à", "est", "sont",
        "était", "été", "être", "avoir", "ont", "par", "pour", "sur", "dans", "avec", "sans", "sous", "que", "qui",
        "quoi", "quel", "quelle", "quels", "quelles", "dont", "où", "quand", "comment", "pourquoi", "combien", "ce",
        "cette", "ces", "son", "sa", "ses", "leur", "leurs", "il", "elle", "ils", "elles", "nous", "vous", "je", "se",
        "s", "ne", "pas", "plus", "y", "lui", "qu", "c", "n",
    ]
)
# fmt: on


@dataclass(frozen=True)
class Token:
    text: str
    key: str
    start: int
    end: int
    stop: bool


def tokenize(text: str) -> list[Token]:
    out = []
    for m in WORD.finditer(text):
        word = m.group(0)
        folded = word.casefold()
        out.append(Token(word, folded[:KEY_LEN], m.start(), m.end(), folded in STOP_WORDS or len(folded) == 1))
    return out


def content_keys(question: str) -> set[str]:
    return {t.key for t in tokenize(question) if not t.stop}


def best_window(tokens: list[Token], keys: set[str], window: int) -> tuple[int, int, int]:
    """(score, first, last) of the first window with the most distinct matched keys (last inclusive)."""
    best = (0, 0, -1)
    n = len(tokens)
    for first in range(max(1, n - window + 1)):
        last = min(n, first + window) - 1
        score = len({t.key for t in tokens[first : last + 1]} & keys)
        if score > best[0]:
            best = (score, first, last)
    return best


def _is_salient(token: Token) -> bool:
    return token.text[:1].isupper() or any(ch.isdigit() for ch in token.text)


def extract_answer(question: str, context: str, *, window: int = 10, max_answer_words: int = 4) -> str:
    if window < 1 or max_answer_words < 1:
        raise ValueError("window and max_answer_words must be at least 1")
    tokens = tokenize(context)
    keys = content_keys(question)
    question_keys = {t.key for t in tokenize(question)}
    if not tokens or not keys:
        return ""
    score, first, last = best_window(tokens, keys, window)
    if score == 0:
        return ""
    matched = [i for i in range(first, last + 1) if tokens[i].key in keys]
    lo, hi = max(0, first - max_answer_words), min(len(tokens) - 1, last + max_answer_words)
    free = [tokens[i].key not in question_keys for i in range(len(tokens))]
    best = None
    for s in range(lo, hi + 1):
        if not free[s] or tokens[s].stop:
            continue
        for e in range(s, min(hi, s + max_answer_words - 1) + 1):
            if not free[e]:
                break
            if tokens[e].stop:
                continue
            distance = min(min(abs(s - m), abs(e - m)) for m in matched) - 1
            salient = any(_is_salient(tokens[i]) for i in range(s, e + 1))
            rank = (-distance + (1 if salient else 0), e - s, -s)
            if best is None or rank > best[0]:
                best = (rank, s, e)
    if best is None:
        return ""
    _, s, e = best
    return context[tokens[s].start : tokens[e].end]
