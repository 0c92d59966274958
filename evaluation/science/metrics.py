"""Automatic metrics per prediction (SPEC section 4): EM, token F1 and ROUGE-L. Pure, no database.

- ``squad`` normalization (English, the official SQuAD v1.1 script): lowercase, drop ASCII
  punctuation, drop the articles a/an/the, collapse whitespace.
- ``french`` normalization: lowercase, join a number's digit groups (``100 000``), split elisions
  (``l'homme`` -> ``l homme``), drop Unicode punctuation, drop the French articles (le, la, les,
  l', un, une, des, du, de, d'), collapse whitespace. Accents are kept.
- ``generic`` (any other language): lowercase, drop Unicode punctuation, drop the articles its record in
  ``core.languages`` lists (none for a language without a record).

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
import string
import unicodedata
from collections import Counter
from functools import lru_cache
from itertools import chain

import numpy as np
import pandas as pd
from rapidfuzz.distance import LCSseq
from rapidfuzz.process import cpdist

from annotation.dedup import ASCII_PUNCT_TABLE, EN_ARTICLES, normalize_squad
from core import languages as language_registry

# The articles a language's normalization drops are its record's (``core.languages``).
_FRENCH_ARTICLES = frozenset(language_registry.get("fr").articles)
_ELISION = re.compile(r"\b(qu|jusqu|lorsqu|puisqu|[cdjlmnst])['’]", re.IGNORECASE)
# A French number's digit groups: "100 000" (space, U+00A0 or U+202F before each group of three),
# joined as "100000", as the English "100,000" is once its comma goes. Only 1-3 digits before the
# first group: "en 2016 410 personnes" stays two numbers.
_DIGIT_GROUPS = re.compile(r"(?<!\d)\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)")
_WORD = re.compile(r"[^\W_]+")


def _drop_unicode_punct(text: str) -> str:
    return "".join(ch for ch in text if not unicodedata.category(ch).startswith("P"))


def normalize_french(text: str) -> str:
    """French normalization: elisions split, accents kept, French articles removed.

    Lowercase after NFC, the digit groups of a number joined (``100 000`` -> ``100000``, with a
    space or a no-break space), ``l'homme`` -> ``l homme``, Unicode punctuation dropped, then the
    articles of French's record in ``core.languages`` (the elided ``l`` and ``d`` included) are removed.

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
    >>> from evaluation.science.metrics import normalize_french
    >>> normalize_french("L'homme et la femme, d'accord.")
    'homme et femme accord'
    """
    text = unicodedata.normalize("NFC", text).lower()
    text = _DIGIT_GROUPS.sub(lambda m: re.sub(r"\D", "", m.group(0)), text)
    text = _ELISION.sub(r"\1 ", text)
    text = _drop_unicode_punct(text)
    return " ".join(tok for tok in text.split() if tok not in _FRENCH_ARTICLES)


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
    >>> from evaluation.science.metrics import normalize_generic
    >>> normalize_generic("Der Hund, bellt!", articles=("der",))
    'hund bellt'
    """
    text = _drop_unicode_punct(unicodedata.normalize("NFC", text).lower())
    drop = set(articles)
    return " ".join(tok for tok in text.split() if tok not in drop)


NORMALIZERS = {"squad": normalize_squad, "french": normalize_french, "generic": normalize_generic}


def normalizer_for(language: str):
    """The normalization of a language: its record's normalizer (``core.languages``): ``en`` -> squad,
    ``fr`` -> french; a language without a record, or whose record says ``generic``, -> generic
    (dropping the record's articles).

    Parameters
    ----------
    language : str
        A language tag; only its primary subtag counts (``fr-CA`` is ``fr``). Empty means ``en``.

    Returns
    -------
    callable
        One of ``NORMALIZERS`` (or generic with a record's articles): text -> normalized text.

    Examples
    --------
    >>> from evaluation.science.metrics import normalizer_for
    >>> normalizer_for("fr-CA").__name__, normalizer_for("de").__name__
    ('normalize_french', 'normalize_generic')
    """
    record = language_registry.get(language)
    if record is None:
        return normalize_generic
    if record.normalizer == "generic" and record.articles:
        return _generic_dropping(record.articles)
    return NORMALIZERS[record.normalizer]


@lru_cache(maxsize=32)
def _generic_dropping(articles):
    def normalize_generic_articles(text: str) -> str:
        return normalize_generic(text, articles)

    return normalize_generic_articles


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
    >>> from evaluation.science.metrics import normalize
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
    >>> from evaluation.science.metrics import exact_match
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
    >>> from evaluation.science.metrics import f_measure
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
    >>> from evaluation.science.metrics import f1
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
        >>> from evaluation.science.metrics import UnicodeTokenizer
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
    >>> from evaluation.science.metrics import rouge_l
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
_ROUGE_OR_JOIN = re.compile(_WORD.pattern + "|" + _JOIN)
_SURROGATES = (0xD800, 0xE000)  # code points a token's character skips (not valid alone in UTF-32)
_MAX_CHARS = 0x10FFFF - (_SURROGATES[1] - _SURROGATES[0])  # distinct tokens that fit in characters


def _tokens_in_bulk(texts: list, language: str):
    """(normalized tokens, ROUGE tokens) of the texts, as ``normalize`` and ``UnicodeTokenizer``
    give them text by text (the normalized ones possibly with the articles still in: dropped as
    tokens by ``_coded_tokens``), each flat with the texts separated by a NUL token: from one pass of
    each string operation over the texts joined by NUL (not whitespace, punctuation, a word
    character, cased or case-ignorable, and composing with nothing: each text keeps its
    boundaries). None where that does not apply: a language other than SQuAD's normalization, or
    a text holding NUL."""
    joined = _JOIN.join(texts)
    if normalizer_for(language) is not normalize_squad or joined.count(_JOIN) != len(texts) - 1:
        return None
    if joined.isascii() and not _ASCII_CONTROLS.search(joined):
        return _ascii_tokens_in_bulk(joined)
    squad = EN_ARTICLES.sub(" ", joined.lower().translate(ASCII_PUNCT_TABLE)).replace(_JOIN, f" {_JOIN} ").split()
    rouge = _ROUGE_OR_JOIN.findall(unicodedata.normalize("NFC", joined).lower())
    return squad, rouge


# ASCII text is tokenized by byte tables instead of regular expressions (about 4x faster), the
# same tokens: the SQuAD tokens are the whitespace-separated runs left once the punctuation is
# deleted, less the articles, which ``_unjoined`` drops (with no other non-word character left, a
# run is a word: the articles' \b match whole runs); the ROUGE tokens are the runs of [a-z0-9] after lowercasing (NFC
# changes no ASCII). Control characters other than whitespace would be word boundaries inside a
# run: text holding one takes the regular expressions.
_ASCII_CONTROLS = re.compile("[\x01-\x08\x0e-\x1b\x7f]")
_SQUAD_BYTES = bytes.maketrans(b"\x1c\x1d\x1e\x1f", b"    ")  # (whitespace to str.split, not to bytes)
_PUNCTUATION_BYTES = string.punctuation.encode()
_NOT_WORD_BYTES = bytes.maketrans(
    bytes(c for c in range(1, 128) if not chr(c).isalnum()), b" " * sum(not chr(c).isalnum() for c in range(1, 128))
)
_ARTICLE_TOKENS = frozenset(language_registry.get("en").articles)


def _ascii_tokens_in_bulk(joined: str):
    """``_tokens_in_bulk`` of ASCII texts joined by NUL, holding no control character but whitespace."""
    lowered = joined.encode("ascii").lower()

    def tokens(data: bytes) -> list:
        return data.decode("ascii").replace(_JOIN, f" {_JOIN} ").split()

    return tokens(lowered.translate(_SQUAD_BYTES, delete=_PUNCTUATION_BYTES)), tokens(
        lowered.translate(_NOT_WORD_BYTES)
    )


def _coded_tokens(texts: list, language: str):
    """((token codes, vocabulary, tokens per text) of the normalized tokens, the same of the ROUGE
    tokens) of the distinct texts of one language: the tokens of all texts in one integer array."""
    bulk = _tokens_in_bulk(texts, language)
    if bulk is not None:
        return _unjoined(bulk[0], len(texts), dropped=_ARTICLE_TOKENS), _unjoined(bulk[1], len(texts))
    norm = normalizer_for(language)
    per_text = ([norm(t).split() for t in texts], [_TOKENIZER._tokenize(t) for t in texts])
    return tuple(
        (*pd.factorize(np.array(list(chain.from_iterable(lists)), dtype=object)), _lengths(lists)) for lists in per_text
    )


def _unjoined(tokens: list, n_texts: int, *, dropped=frozenset()):
    """(codes, vocabulary, tokens per text) of the tokens, without the NUL ones between the texts
    and without the ``dropped`` ones."""
    codes, vocabulary = pd.factorize(np.array(tokens, dtype=object))
    # (numpy's own == would read the NUL string as "": compared in Python, once per distinct token)
    joint = codes == next((i for i, token in enumerate(vocabulary) if token == _JOIN), -1)
    keep = ~joint
    drop = [i for i, token in enumerate(vocabulary) if token in dropped]
    if drop:
        keep &= ~np.isin(codes, drop)
    text_of = np.cumsum(joint)[keep]
    return codes[keep], vocabulary, np.bincount(text_of, minlength=n_texts)


def _one_vocabulary(parts):
    """(codes, tokens per text) of several (codes, vocabulary, tokens per text), recoded to one
    vocabulary, and its size."""
    if len(parts) == 1:
        codes, vocabulary, lengths = parts[0]
        return codes, lengths, len(vocabulary)
    recode, vocabulary = pd.factorize(np.concatenate([part[1] for part in parts]))
    offsets = np.cumsum([0] + [len(part[1]) for part in parts[:-1]])
    codes = np.concatenate([recode[offset + part[0]] for offset, part in zip(offsets, parts)])
    return codes, np.concatenate([part[2] for part in parts]), len(vocabulary)


def _token_strings(codes: np.ndarray, lengths: np.ndarray, n_vocabulary: int):
    """Each text as a string with one character per token (equal tokens, equal characters; the
    same characters for every text), the same characters sorted, and an integer per distinct
    sequence. Tuples of integers instead of strings beyond ``_MAX_CHARS`` distinct tokens."""
    text_of = np.repeat(np.arange(len(lengths)), lengths)
    in_order = codes[np.lexsort((codes, text_of))]
    if n_vocabulary <= _MAX_CHARS:
        seqs, sorted_seqs = (_as_strings(c, text_of, len(lengths)) for c in (codes, in_order))
    else:
        ends = np.cumsum(lengths).tolist()
        starts = [0, *ends[:-1]]
        whole, whole_sorted = codes.tolist(), in_order.tolist()
        seqs = _objects([tuple(whole[a:b]) for a, b in zip(starts, ends)])
        sorted_seqs = _objects([tuple(whole_sorted[a:b]) for a, b in zip(starts, ends)])
    return seqs, sorted_seqs, pd.factorize(seqs)[0]


def _as_strings(codes: np.ndarray, text_of: np.ndarray, n_texts: int) -> np.ndarray:
    """The strings of the texts from their token codes (code c as the character c + 1, skipping
    the surrogates): one decoding of all texts, each followed by NUL, then one split."""
    chars = np.zeros(len(codes) + n_texts, dtype="<u4")
    chars[np.arange(len(codes)) + text_of] = codes + 1
    chars[chars >= _SURROGATES[0]] += _SURROGATES[1] - _SURROGATES[0]
    return np.array(chars.tobytes().decode("utf-32-le").split("\x00")[:-1], dtype=object)


def _objects(values) -> np.ndarray:
    """A 1-D object array of ``values`` (strings or tuples, never split into dimensions)."""
    return np.fromiter(values, dtype=object, count=len(values))


def score_pairs(answers, references, languages):
    """EM, F1 and ROUGE-L for aligned sequences (answer, reference list, language).

    Every distinct text is normalized and tokenized once, in bulk; every distinct token becomes
    one character (``pandas.factorize`` of all tokens at once), so each text becomes a short
    string, and its sorted characters a second one. The comparisons then run in bulk on integer
    codes and those strings: EM as equal normalized sequences, and ``rapidfuzz`` computing every
    longest common subsequence in one ``cpdist`` call: ROUGE-L's on the sequences, and F1's
    overlap (the size of the multiset intersection) as the LCS of the sorted sequences.

    Parameters
    ----------
    answers : sequence of str or None
        The answers to score.
    references : sequence of lists of str
        The reference answers of each answer's question. Pass the same list object for all the
        answers of one question: its references are then gathered once.
    languages : sequence of str
        The language of each answer's question.

    Returns
    -------
    em, f1, rouge_l : ndarray of float
        Equal to ``exact_match``, ``f1`` and ``rouge_l`` of each triple.

    Examples
    --------
    >>> from evaluation.science.metrics import score_pairs
    >>> em, f1, rl = score_pairs(["the Broncos", "cat sat", ""],
    ...                          [["Denver Broncos"], ["the cat sat down"], [""]], ["en", "en", "en"])
    >>> em.tolist(), f1.round(3).tolist(), rl.round(3).tolist()
    ([0.0, 0.0, 1.0], [0.667, 0.8, 1.0], [0.5, 0.667, 1.0])
    """
    if len(answers) == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    texts = _PairTexts(answers, references, languages)
    norm = _token_strings(*texts.norm)
    rouge = _token_strings(*texts.rouge)
    em, f1s = _em_f1_scores(texts.entries(norm[2]), norm, texts.norm[1])
    return em, f1s, _rouge_l_scores(texts.entries(rouge[2]), rouge, texts.rouge[1])


class _PairTexts:
    """The distinct texts of ``score_pairs``' pairs (per language) with their flat tokens, the
    text of each answer, and the texts of each reference group (a reference list in a language)."""

    def __init__(self, answers, references, languages):
        n = len(answers)
        lang_code, langs = pd.factorize(_objects(list(languages)))
        list_code = pd.factorize(np.fromiter(map(id, references), dtype=np.int64, count=n))[0]
        _, first, self.group = np.unique(
            list_code.astype(np.int64) * len(langs) + lang_code, return_index=True, return_inverse=True
        )
        group_refs = [references[i] for i in first.tolist()]
        group_lang = lang_code[first]
        answers = _objects([a or "" for a in answers])
        self.answer_text = np.zeros(n, dtype=np.int64)
        flat_refs, per_group = _reference_texts(group_refs)
        self.ref_group = np.repeat(np.arange(len(first)), per_group)
        self.ref_text = np.zeros(len(self.ref_group), dtype=np.int64)
        ref_lang = group_lang[self.ref_group]
        norm, rouge, offset = [], [], 0
        for code, language in enumerate(langs):
            mine, mine_refs = lang_code == code, ref_lang == code
            text_code, distinct = pd.factorize(np.concatenate([answers[mine], flat_refs[mine_refs]]))
            # the ASCII texts first, apart: their tokens have a faster path (``_tokens_in_bulk``)
            plain = np.fromiter(map(str.isascii, distinct), dtype=bool, count=len(distinct))
            order = np.argsort(~plain, kind="stable")
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            self.answer_text[mine] = offset + rank[text_code[: mine.sum()]]
            self.ref_text[mine_refs] = offset + rank[text_code[mine.sum() :]]
            distinct = np.asarray(distinct, dtype=object)[order]
            for part in np.split(distinct, [int(plain.sum())]):
                if len(part):
                    tokens = _coded_tokens(list(part), language)
                    norm.append(tokens[0]), rouge.append(tokens[1])
            offset += len(distinct)
        self.norm, self.rouge = _one_vocabulary(norm), _one_vocabulary(rouge)  # (codes, tokens per text, size)

    def entries(self, seq_id):
        """(answer of each entry, text of its reference, start of each answer's entries): one entry
        per (answer, distinct reference sequence of its group), each answer's entries together."""
        keep = ~pd.Series(self.ref_group * (int(seq_id.max()) + 1) + seq_id[self.ref_text]).duplicated().to_numpy()
        ref_group, ref_text = self.ref_group[keep], self.ref_text[keep]
        per_group = np.bincount(ref_group, minlength=int(self.group.max()) + 1)
        group_start = np.cumsum(per_group) - per_group
        count = per_group[self.group]
        start = np.cumsum(count) - count
        answer = np.repeat(np.arange(len(count)), count)
        entry = group_start[self.group][answer] + np.arange(len(answer)) - start[answer]
        return self.answer_text[answer], ref_text[entry], start


def _reference_texts(lists):
    """All the references of the lists in one object array (None as ""; a list without any as one
    ""), and the references per list."""
    sizes = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    flat = _objects(list(chain.from_iterable(lists)))
    flat[pd.isna(flat)] = ""
    if (sizes == 0).any():  # none counts as one empty reference
        flat = np.insert(flat, (np.cumsum(sizes) - sizes)[sizes == 0], "")
    return flat, np.maximum(sizes, 1)


def _em_f1_scores(entries, strings, lengths):
    """Token F1 (SQuAD) and EM of each answer, the maximum over its references: overlap / lengths;
    both empty 1, one empty or no overlap 0; EM: equal normalized sequences."""
    answer, ref, start = entries
    _, sorted_seqs, seq_id = strings
    same = _lcs(sorted_seqs[answer], sorted_seqs[ref])
    lp, lr = lengths[answer], lengths[ref]
    f = np.where((lp == 0) & (lr == 0), 1.0, _f_measures(same, lp, lr))
    em = np.maximum.reduceat((seq_id[answer] == seq_id[ref]).astype(float), start)
    return em, np.maximum.reduceat(f, start)


def _rouge_l_scores(entries, strings, lengths):
    """ROUGE-L F-measure of each answer (rouge-score's _score_lcs), the maximum over its
    references: identical sequences 1, one side empty 0."""
    answer, ref, start = entries
    seqs, _, seq_id = strings
    lp, lr = lengths[answer], lengths[ref]
    f = _f_measures(_lcs(seqs[answer], seqs[ref]), lp, lr)
    f = np.where(seq_id[answer] == seq_id[ref], 1.0, np.where((lp > 0) & (lr > 0), f, 0.0))
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
