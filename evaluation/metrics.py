"""Automatic metrics per prediction (SPEC section 4): EM, token F1 and ROUGE-L. Pure, no database.

- ``squad`` normalization (English, the official SQuAD v1.1 script): lowercase, drop ASCII
  punctuation, drop the articles a/an/the, collapse whitespace.
- ``french`` normalization: lowercase, split elisions (``l'homme`` -> ``l homme``), drop Unicode
  punctuation, drop the French articles (le, la, les, l', un, une, des, du, de, d'), collapse
  whitespace. Accents are kept.
- ``generic`` (any other language): lowercase, drop Unicode punctuation, no article list.

EM and F1 take the maximum over the reference answers; empty vs empty is 1 (SPEC 4, unlike the
v1.1 script, whose F1 gives 0 there). ROUGE-L is the LCS F-measure of ``rouge-score`` with a
Unicode-aware tokenizer (its default tokenizer keeps only ``[a-z0-9]``). Both F-measures are one
division of integers, 2 * common / (|pred| + |ref|) (``f_measure``), so that equal ratios are the
same float (SPEC 4: the Mann-Whitney ties depend on it); the tests check the values against
``rouge-score`` and the official SQuAD script.

The scoring loop runs once per unique (question, answer) pair, never per prediction: ten systems
that give the same answer cost one evaluation.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache

import numpy as np
from rapidfuzz.distance import LCSseq
from rapidfuzz.process import cpdist

from annotation.dedup import ASCII_PUNCT_TABLE, EN_ARTICLES, normalize_squad

ARTICLES = {
    "en": ("a", "an", "the"),
    # l' and d' become the tokens "l" and "d" once elisions are split.
    "fr": ("le", "la", "les", "l", "un", "une", "des", "du", "de", "d"),
}
_ELISION = re.compile(r"\b(qu|jusqu|lorsqu|puisqu|[cdjlmnst])['’]", re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+")


def _drop_unicode_punct(text: str) -> str:
    return "".join(ch for ch in text if not unicodedata.category(ch).startswith("P"))


def normalize_french(text: str) -> str:
    """French normalization: elisions split, accents kept, French articles removed.

    Lowercase after NFC, ``l'homme`` -> ``l homme``, Unicode punctuation dropped, then the
    articles of ``ARTICLES["fr"]`` (the elided ``l`` and ``d`` included) are removed.

    Parameters
    ----------
    text : str
        An answer or a reference.

    Returns
    -------
    str
        The normalized text, tokens separated by one space.

    Examples
    --------
    >>> from evaluation.metrics import normalize_french
    >>> normalize_french("L'homme et la femme, d'accord.")
    'homme et femme accord'
    """
    text = unicodedata.normalize("NFC", text).lower()
    text = _ELISION.sub(r"\1 ", text)
    text = _drop_unicode_punct(text)
    articles = set(ARTICLES["fr"])
    return " ".join(tok for tok in text.split() if tok not in articles)


def normalize_generic(text: str, articles=()) -> str:
    """Normalization of any other language: lowercase (after NFC), Unicode punctuation dropped.

    Parameters
    ----------
    text : str
        An answer or a reference.
    articles : iterable of str, optional
        Tokens to drop (none by default: no article list is known for the language).

    Returns
    -------
    str
        The normalized text, tokens separated by one space.

    Examples
    --------
    >>> from evaluation.metrics import normalize_generic
    >>> normalize_generic("Der Hund, bellt!", articles=("der",))
    'hund bellt'
    """
    text = _drop_unicode_punct(unicodedata.normalize("NFC", text).lower())
    drop = set(articles)
    return " ".join(tok for tok in text.split() if tok not in drop)


NORMALIZERS = {"squad": normalize_squad, "french": normalize_french, "generic": normalize_generic}
LANGUAGE_NORMALIZER = {"en": "squad", "fr": "french"}


def normalizer_for(language: str):
    """The normalization of a language: ``en`` -> squad, ``fr`` -> french, any other -> generic.

    Parameters
    ----------
    language : str
        A language tag; only its primary subtag counts (``fr-CA`` is ``fr``). Empty means ``en``.

    Returns
    -------
    callable
        One of ``NORMALIZERS``: text -> normalized text.

    Examples
    --------
    >>> from evaluation.metrics import normalizer_for
    >>> normalizer_for("fr-CA").__name__, normalizer_for("de").__name__
    ('normalize_french', 'normalize_generic')
    """
    base = (language or "en").split("-")[0].lower()
    return NORMALIZERS[LANGUAGE_NORMALIZER.get(base, "generic")]


def normalize(text: str, language: str = "en") -> str:
    """Normalize ``text`` as the metrics of ``language`` do (``normalizer_for``).

    Parameters
    ----------
    text : str or None
        An answer or a reference; None is the empty answer.
    language : str, default "en"
        The question's language.

    Returns
    -------
    str
        The normalized text.

    Examples
    --------
    >>> from evaluation.metrics import normalize
    >>> normalize("An apple.", "en")
    'apple'
    """
    return normalizer_for(language)(text or "")


def exact_match(prediction: str, references, language: str = "en") -> float:
    """Exact match (SPEC 4): 1.0 when the normalized prediction equals a normalized reference.

    Parameters
    ----------
    prediction : str or None
        The system's answer.
    references : iterable of str
        The reference answers; none counts as one empty reference.
    language : str, default "en"
        Chooses the normalization (``normalizer_for``).

    Returns
    -------
    float
        1.0 or 0.0, the maximum over the references (empty vs empty is 1.0).

    Examples
    --------
    >>> from evaluation.metrics import exact_match
    >>> exact_match("the Broncos", ["Carolina", "Broncos"])
    1.0
    >>> exact_match("Broncos", ["Denver Broncos"])
    0.0
    """
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
    return f_measure(same, len(pred), len(ref))


def f_measure(common: int, n_pred: int, n_ref: int) -> float:
    """The F-measure of ``common`` shared tokens between ``n_pred`` and ``n_ref`` tokens.

    Computed as the one division 2 * common / (n_pred + n_ref) of two integers (SPEC 4: equal
    ratios, equal floats; 2PR / (P + R) from the float precision and recall gives 1/11 three
    different ways).

    Parameters
    ----------
    common : int
        Tokens shared by the prediction and the reference (or the LCS length for ROUGE-L).
    n_pred, n_ref : int
        Tokens of the prediction and of the reference.

    Returns
    -------
    float
        The F-measure; 0.0 when nothing is shared.

    Examples
    --------
    >>> from evaluation.metrics import f_measure
    >>> f_measure(1, 10, 1)
    0.18181818181818182
    >>> f_measure(0, 3, 3)
    0.0
    """
    if common == 0 or n_pred + n_ref == 0:
        return 0.0
    return (2 * common) / (n_pred + n_ref)


def f1(prediction: str, references, language: str = "en") -> float:
    """Token F1 (SQuAD) of the normalized prediction, the maximum over the references.

    Parameters
    ----------
    prediction : str or None
        The system's answer.
    references : iterable of str
        The reference answers; none counts as one empty reference.
    language : str, default "en"
        Chooses the normalization (``normalizer_for``).

    Returns
    -------
    float
        In [0, 1]; empty vs empty is 1.0 (SPEC 4, unlike the v1.1 script).

    Examples
    --------
    >>> from evaluation.metrics import f1
    >>> f1("the cat sat", ["cat sat down"])
    0.8
    >>> f1("cat", ["dog", "a cat"])
    1.0
    """
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
        """The tokens of ``text``: lowercase runs of Unicode letters and digits.

        Parameters
        ----------
        text : str or None
            Any text; None has no token.

        Returns
        -------
        list of str
            The tokens, in order.

        Examples
        --------
        >>> from evaluation.metrics import UnicodeTokenizer
        >>> UnicodeTokenizer().tokenize("Café au lait, 2 €!")
        ['café', 'au', 'lait', '2']
        """
        return list(self._tokenize(text or ""))


_TOKENIZER = UnicodeTokenizer()


def rouge_l(prediction: str, references) -> float:
    """ROUGE-L F-measure (the LCS one of ``rouge-score``), the maximum over the references.

    Tokens come from ``UnicodeTokenizer``; both sides without tokens counts as 1.

    Parameters
    ----------
    prediction : str or None
        The system's answer.
    references : iterable of str
        The reference answers; none counts as one empty reference.

    Returns
    -------
    float
        In [0, 1].

    Examples
    --------
    >>> from evaluation.metrics import rouge_l
    >>> round(rouge_l("the cat sat", ["the cat sat down"]), 4)
    0.8571
    >>> rouge_l("", [""])
    1.0
    """
    pred = prediction or ""
    pred_tokens = _TOKENIZER.tokenize(pred)
    best = 0.0
    for given in list(references) or [""]:
        ref = given or ""
        ref_tokens = _TOKENIZER.tokenize(ref)
        if ref_tokens == pred_tokens:
            return 1.0  # identical token sequences (both empty included): LCS F-measure 1
        if ref_tokens and pred_tokens:
            best = max(best, f_measure(_lcs_length(pred_tokens, ref_tokens), len(pred_tokens), len(ref_tokens)))
    return best


_JOIN = "\x00"  # joins texts for one pass of each string operation (see _tokens_in_bulk)


def _tokens_in_bulk(texts: list, language: str):
    """(normalized tokens, ROUGE tokens) of each text, as ``normalize`` and ``UnicodeTokenizer``
    give them text by text, from one pass of each string operation over the texts joined by NUL
    (not whitespace, punctuation, a word character, cased or case-ignorable, and composing with
    nothing: each text keeps its boundaries). None where that does not apply: a language other
    than SQuAD's normalization, or a text holding NUL."""
    joined = _JOIN.join(texts)
    if normalizer_for(language) is not normalize_squad or joined.count(_JOIN) != len(texts) - 1:
        return None
    squad = EN_ARTICLES.sub(" ", joined.lower().translate(ASCII_PUNCT_TABLE)).split(_JOIN)
    rouge = unicodedata.normalize("NFC", joined).lower().split(_JOIN)
    return [tuple(t.split()) for t in squad], [tuple(_WORD.findall(t)) for t in rouge]


def _prefill(answers, references, languages, *, normed_for, rouge_cache) -> None:
    """Fill ``score_pairs``' token caches in bulk when every pair has one language."""
    if len(answers) == 0 or len(set(languages)) != 1:
        return
    ref_lists = {id(refs): refs for refs in references}.values()
    texts = list(dict.fromkeys([a or "" for a in answers] + [r or "" for refs in ref_lists for r in refs]))
    bulk = _tokens_in_bulk(texts, languages[0])
    if bulk is not None:
        normed_for(languages[0])[0].update(zip(texts, bulk[0]))
        rouge_cache.update(zip(texts, bulk[1]))


def score_pairs(answers, references, languages):
    """EM, F1 and ROUGE-L for aligned sequences (answer, reference list, language).

    Python only normalizes and tokenizes (once per distinct text); the comparisons run in bulk:
    the tokens of a question's references get one character each (a token no reference has gets
    a character none has), so token sequences become strings and ``rapidfuzz`` computes every
    longest common subsequence in one ``cpdist`` call: ROUGE-L's on the sequences, and F1's
    overlap (the size of the multiset intersection) as the LCS of the sorted sequences.

    Parameters
    ----------
    answers : sequence of str or None
        The answers to score.
    references : sequence of lists of str
        The reference answers of each answer's question. Pass the same list object for all the
        answers of one question: its codes are computed once.
    languages : sequence of str
        The language of each answer's question.

    Returns
    -------
    em, f1, rouge_l : ndarray of float
        Equal to ``exact_match``, ``f1`` and ``rouge_l`` of each triple.

    Examples
    --------
    >>> from evaluation.metrics import score_pairs
    >>> em, f1, rl = score_pairs(["the Broncos", "cat sat", ""],
    ...                          [["Denver Broncos"], ["the cat sat down"], [""]], ["en", "en", "en"])
    >>> em.tolist(), f1.round(3).tolist(), rl.round(3).tolist()
    ([0.0, 0.0, 1.0], [0.667, 0.8, 1.0], [0.5, 0.667, 1.0])
    """
    f1_pairs, rouge_pairs = _PairEncoder().encode(answers, references, languages)
    if len(answers) == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    em, f1s = _em_f1_scores(f1_pairs)
    return em, f1s, _rouge_l_scores(rouge_pairs)


class _PairEncoder:
    """The (answer, references) pairs of ``score_pairs`` as strings of token codes, with the
    normalized and tokenized texts cached (once per distinct text and language)."""

    def __init__(self):
        self.norm_caches: dict = {}  # language -> ({text: normalized tokens}, normalizer)
        self.rouge_cache: dict = {}
        self.ref_cache: dict = {}  # (id of a reference list, language) -> its codes; the list is kept alive in it
        self.tokenize = _TOKENIZER._tokenize

    def normed_for(self, language):
        cache = self.norm_caches.get(language)
        if cache is None:
            cache = self.norm_caches[language] = ({}, normalizer_for(language))
        return cache

    @staticmethod
    def normed(text, cache):
        out = cache[0].get(text)
        if out is None:
            out = cache[0][text] = tuple(cache[1](text).split())
        return out

    def rouge_tokens(self, text):
        out = self.rouge_cache.get(text)
        if out is None:
            out = self.rouge_cache[text] = self.tokenize(text)
        return out

    def question_refs(self, refs, language):
        """Codes of one question's reference tokens, its normalized references (coded, and coded
        and sorted) and its ROUGE references (coded), each distinct one once."""
        # The references of one question come as one list object for all its pairs: keyed by its
        # identity (the entry holds the list, so no other object can take its id meanwhile).
        refs_given = refs
        cache = self.normed_for(language)
        refs = [r or "" for r in refs] or [""]
        codes: dict = {}

        def encode(tokens):
            return "".join([codes.setdefault(t, chr(len(codes) + 1)) for t in tokens])

        norm = []
        for tokens in dict.fromkeys(self.normed(r, cache) for r in refs):  # duplicates cannot change a max
            code = encode(tokens)
            norm.append((code, "".join(sorted(code))))
        rouge = [encode(tokens) for tokens in dict.fromkeys(self.rouge_tokens(r) for r in refs)]
        return codes, norm, rouge, cache, refs_given

    def encode(self, answers, references, languages):
        """((F1 starts, sorted predictions, sorted references, equal flags), (ROUGE starts,
        predictions, references)): one entry per (answer, distinct reference), each answer's
        entries from its start on."""
        n = len(answers)
        _prefill(answers, references, languages, normed_for=self.normed_for, rouge_cache=self.rouge_cache)
        normed, rouge_tokens, ref_cache = self.normed, self.rouge_tokens, self.ref_cache
        f1_start, f1_pred, f1_ref, f1_equal = np.zeros(n, dtype=np.int64), [], [], []
        rl_start, rl_pred, rl_ref = np.zeros(n, dtype=np.int64), [], []
        for i, (given, refs, language) in enumerate(zip(answers, references, languages)):
            answer = given or ""
            key = (id(refs), language)
            entry = ref_cache.get(key)
            if entry is None:
                entry = ref_cache[key] = self.question_refs(refs, language)
            codes, norm_refs, rouge_refs, cache = entry[:4]
            get = codes.get
            pred = "".join([get(t, "\0") for t in normed(answer, cache)])
            f1_start[i] = len(f1_ref)
            if len(norm_refs) == 1:
                code, code_sorted = norm_refs[0]
                f1_pred.append("".join(sorted(pred))), f1_ref.append(code_sorted), f1_equal.append(pred == code)
            else:
                pred_sorted = "".join(sorted(pred))
                for code, code_sorted in norm_refs:
                    f1_pred.append(pred_sorted), f1_ref.append(code_sorted), f1_equal.append(pred == code)
            pred = "".join([get(t, "\0") for t in rouge_tokens(answer)])
            rl_start[i] = len(rl_ref)
            for code in rouge_refs:
                rl_pred.append(pred), rl_ref.append(code)
        return (f1_start, f1_pred, f1_ref, f1_equal), (rl_start, rl_pred, rl_ref)


def _em_f1_scores(pairs):
    """Token F1 (SQuAD) and EM of each answer, the maximum over its references: overlap / lengths;
    both empty 1, one empty or no overlap 0; EM: equal normalized sequences."""
    start, pred, ref, equal = pairs
    same = _lcs(pred, ref)
    lp, lr = _lengths(pred), _lengths(ref)
    f = np.where((lp == 0) & (lr == 0), 1.0, _f_measures(same, lp, lr))
    em = np.maximum.reduceat(np.array(equal, dtype=float), start)
    return em, np.maximum.reduceat(f, start)


def _rouge_l_scores(pairs):
    """ROUGE-L F-measure of each answer (rouge-score's _score_lcs), the maximum over its
    references: identical sequences 1, one side empty 0."""
    start, pred, ref = pairs
    lcs = _lcs(pred, ref)
    lp, lr = _lengths(pred), _lengths(ref)
    f = _f_measures(lcs, lp, lr)
    equal = np.array([a == b for a, b in zip(pred, ref)], dtype=bool)
    f = np.where(equal, 1.0, np.where((lp > 0) & (lr > 0), f, 0.0))
    return np.maximum.reduceat(f, start)


def _f_measures(common: np.ndarray, n_pred: np.ndarray, n_ref: np.ndarray) -> np.ndarray:
    """``f_measure`` elementwise: one integer division each (0 where nothing is shared)."""
    total = n_pred + n_ref
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((common > 0) & (total > 0), (2 * common) / np.maximum(total, 1), 0.0)


def _lcs_length(a, b) -> int:
    """Length of the longest common subsequence of two token sequences."""
    codes: dict = {}
    return int(
        LCSseq.similarity([codes.setdefault(t, len(codes)) for t in a], [codes.setdefault(t, len(codes)) for t in b])
    )


def _lcs(a: list, b: list) -> np.ndarray:
    """Length of the longest common subsequence of each pair of strings a[i], b[i]."""
    return np.asarray(cpdist(a, b, scorer=LCSseq.similarity, workers=-1), dtype=np.int64)


def _lengths(strings: list) -> np.ndarray:
    return np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
