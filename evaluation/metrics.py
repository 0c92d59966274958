"""Automatic metrics per prediction (SPEC section 4): EM, token F1 and ROUGE-L. Pure, no database.

- ``squad`` normalization (English, the official SQuAD v1.1 script): lowercase, drop ASCII
  punctuation, drop the articles a/an/the, collapse whitespace.
- ``french`` normalization: lowercase, split elisions (``l'homme`` -> ``l homme``), drop Unicode
  punctuation, drop the French articles (le, la, les, l', un, une, des, du, de, d'), collapse
  whitespace. Accents are kept.
- ``generic`` (any other language): lowercase, drop Unicode punctuation, no article list.

EM and F1 take the maximum over the reference answers; empty vs empty is 1 (SPEC 4, unlike the
v1.1 script, whose F1 gives 0 there). ROUGE-L is the LCS F-measure of ``rouge-score`` with a
Unicode-aware tokenizer (its default tokenizer keeps only ``[a-z0-9]``).

The scoring loop runs once per unique (question, answer) pair, never per prediction: ten systems
that give the same answer cost one evaluation.
"""
from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from functools import lru_cache

import numpy as np
from rouge_score import rouge_scorer

ARTICLES = {
    "en": ("a", "an", "the"),
    # l' and d' become the tokens "l" and "d" once elisions are split.
    "fr": ("le", "la", "les", "l", "un", "une", "des", "du", "de", "d"),
}
_ASCII_PUNCT = set(string.punctuation)
_EN_ARTICLES = re.compile(r"\b(a|an|the)\b")
_ELISION = re.compile(r"\b(qu|jusqu|lorsqu|puisqu|[cdjlmnst])['’]", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+")


def _drop_unicode_punct(text: str) -> str:
    return "".join(ch for ch in text if not unicodedata.category(ch).startswith("P"))


def normalize_squad(text: str) -> str:
    """The official SQuAD v1.1 ``normalize_answer``, verbatim in behaviour."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _ASCII_PUNCT)
    text = _EN_ARTICLES.sub(" ", text)
    return " ".join(text.split())


def normalize_french(text: str) -> str:
    """French: elisions split (``l'homme`` -> ``l homme``), accents kept, French articles removed."""
    text = unicodedata.normalize("NFC", text).lower()
    text = _ELISION.sub(r"\1 ", text)
    text = _drop_unicode_punct(text)
    articles = set(ARTICLES["fr"])
    return " ".join(tok for tok in text.split() if tok not in articles)


def normalize_generic(text: str, articles=()) -> str:
    text = _drop_unicode_punct(unicodedata.normalize("NFC", text).lower())
    drop = set(articles)
    return " ".join(tok for tok in text.split() if tok not in drop)


NORMALIZERS = {"squad": normalize_squad, "french": normalize_french, "generic": normalize_generic}
LANGUAGE_NORMALIZER = {"en": "squad", "fr": "french"}


def normalizer_for(language: str):
    """The normalization of a language: ``en`` -> squad, ``fr`` -> french, else generic."""
    base = (language or "en").split("-")[0].lower()
    return NORMALIZERS[LANGUAGE_NORMALIZER.get(base, "generic")]


def normalize(text: str, language: str = "en") -> str:
    return normalizer_for(language)(text or "")


def exact_match(prediction: str, references, language: str = "en") -> float:
    norm = normalizer_for(language)
    pred = norm(prediction or "")
    refs = list(references) or [""]
    return float(max(pred == norm(r or "") for r in refs))


def _f1_tokens(pred: list, ref: list) -> float:
    if not pred and not ref:
        return 1.0
    if not pred or not ref:
        return 0.0
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def f1(prediction: str, references, language: str = "en") -> float:
    norm = normalizer_for(language)
    pred = norm(prediction or "").split()
    refs = list(references) or [""]
    return max(_f1_tokens(pred, norm(r or "").split()) for r in refs)


class UnicodeTokenizer:
    """A ``rouge-score`` tokenizer that keeps every letter and digit of every script.

    Lowercase (after NFC), then words are the runs of Unicode letters and digits. No stemming: the
    package's Porter stemmer is English-only. Tokenizations are memoized (answers repeat a lot).
    """

    def __init__(self, cache_size: int = 1 << 20):
        self._tokenize = lru_cache(maxsize=cache_size)(self._tokenize_uncached)

    @staticmethod
    def _tokenize_uncached(text: str) -> tuple:
        return tuple(_WORD.findall(unicodedata.normalize("NFC", text).lower()))

    def tokenize(self, text):
        return list(self._tokenize(text or ""))


_TOKENIZER = UnicodeTokenizer()
_SCORER = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False, tokenizer=_TOKENIZER)


def rouge_l(prediction: str, references) -> float:
    """ROUGE-L F-measure, maximum over references; both sides without tokens counts as 1."""
    pred = prediction or ""
    pred_tokens = _TOKENIZER.tokenize(pred)
    best = 0.0
    for ref in list(references) or [""]:
        ref = ref or ""
        ref_tokens = _TOKENIZER.tokenize(ref)
        if ref_tokens == pred_tokens:
            return 1.0  # identical token sequences (both empty included): LCS F-measure 1
        if ref_tokens and pred_tokens:
            best = max(best, _SCORER.score(ref, pred)["rougeL"].fmeasure)
    return best


def score_pairs(answers, references, languages):
    """EM, F1 and ROUGE-L for aligned sequences (answer, reference list, language).

    Returns three float arrays. Each distinct (answer, references, language) is scored once.
    """
    n = len(answers)
    em = np.zeros(n)
    f1s = np.zeros(n)
    rl = np.zeros(n)
    norm_cache: dict = {}

    def normed(text, language):
        key = (text, language)
        out = norm_cache.get(key)
        if out is None:
            out = norm_cache[key] = normalizer_for(language)(text).split()
        return out

    for i, (answer, refs, language) in enumerate(zip(answers, references, languages)):
        answer = answer or ""
        refs = [r or "" for r in refs] or [""]
        pred = normed(answer, language)
        pred_str = " ".join(pred)
        best_em = best_f1 = 0.0
        for ref in dict.fromkeys(refs):  # duplicates of a reference cannot change a maximum
            ref_toks = normed(ref, language)
            if pred_str == " ".join(ref_toks):
                best_em = best_f1 = 1.0
                break
            best_f1 = max(best_f1, _f1_tokens(pred, ref_toks))
        em[i], f1s[i] = best_em, best_f1
        rl[i] = rouge_l(answer, dict.fromkeys(refs))
    return em, f1s, rl
