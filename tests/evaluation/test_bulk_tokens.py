"""The bulk tokenization of score_pairs (all distinct texts joined, one pass of each string
operation) gives the tokens of the text-by-text normalization and ROUGE tokenizer."""

import random
import string

import numpy as np
import pytest

from evaluation.science import metrics

PIECES = [
    "ΑΣ",
    "Σ",
    "ς",
    "ΌΣΟΣ",
    "The",
    "a",
    "an",
    "the",
    " ",
    "\t",
    "\n",
    "\u00a0",
    "\u2028",
    "\x1c",
    "\x1f",
    "e\u0301",
    "\u0301",
    "ᄀ",
    "ᅡ",
    "가",
    "İ",
    "ß",
    "ﬁ",
    "A\u030a",
    "ǅ",
    "l'",
    "’",
    "'s",
    "-",
    "_",
    ".",
    "!",
    ":",
    "²",
    "日本",
    "\u200d",
    "\u00ad",
    "1",
]


def test_bulk_tokens_equal_the_text_by_text_ones():
    rng = random.Random(0)
    texts = ["", "the", "Σ", "\u0301", "ΑΣ"] + [
        "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6))) for _ in range(3000)
    ]
    texts = list(dict.fromkeys(texts))
    check_bulk_tokens(texts)


def check_bulk_tokens(texts):
    """_tokens_in_bulk, then _coded_tokens, give each text the tokens of its own normalization and
    ROUGE tokenizer (the articles that the ASCII path leaves are dropped as tokens)."""
    bulk = metrics._tokens_in_bulk(texts, "en")
    squad = per_text([t for t in bulk[0] if t not in metrics._ARTICLE_TOKENS])
    rouge = per_text(bulk[1])
    assert squad == [tuple(metrics.normalize_squad(t).split()) for t in texts]
    assert rouge == [metrics.UnicodeTokenizer._tokenize_uncached(t) for t in texts]
    # and the codes of score_pairs keep them apart: per text, the same tokens as those of one text
    for side, expected in zip(metrics._coded_tokens(texts, "en"), (squad, rouge)):
        codes, vocabulary, lengths = side
        ends = np.cumsum(lengths)
        assert [tuple(vocabulary[codes[e - n : e]]) for e, n in zip(ends, lengths)] == expected


def per_text(tokens):
    """The flat tokens of _tokens_in_bulk, NUL between the texts, as one tuple per text."""
    texts, current = [], []
    for token in tokens:
        if token == "\x00":
            texts.append(tuple(current))
            current = []
        else:
            current.append(token)
    return [*texts, tuple(current)]


ASCII_PIECES = ["The", "a", "an", "the", "A", "AN", "theA", "a_b", "_", "x", "1", "2b", "'s", " ", *string.punctuation]
ASCII_PIECES += [chr(c) for c in range(1, 32) if chr(c).isspace()]  # \t \n \v \f \r and \x1c-\x1f
ASCII_CONTROLS = [chr(c) for c in [*range(1, 32), 127] if not chr(c).isspace()]


@pytest.mark.parametrize("controls", [False, True])
def test_ascii_bulk_tokens_equal_the_text_by_text_ones(controls):
    # ASCII text takes byte tables, not regular expressions; with a control character that is
    # not whitespace (a word boundary inside a run) it takes the regular expressions
    rng = random.Random(2)
    pieces = ASCII_PIECES + ([*ASCII_CONTROLS, "the\x01", "\x08a"] if controls else [])
    texts = ["", "the", "a b"] + ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 7))) for _ in range(5000)]
    texts = list(dict.fromkeys(texts))
    joined = "\x00".join(texts)
    assert joined.isascii() and bool(metrics._ASCII_CONTROLS.search(joined)) == controls
    check_bulk_tokens(texts)
    em, f1, rl = metrics.score_pairs(texts[:300], [[t] for t in texts[300:600]], ["en"] * 300)
    for i in range(300):
        assert (em[i], f1[i], rl[i]) == (
            metrics.exact_match(texts[i], [texts[300 + i]]),
            metrics.f1(texts[i], [texts[300 + i]]),
            metrics.rouge_l(texts[i], [texts[300 + i]]),
        ), i


def test_bulk_tokens_step_aside_where_they_do_not_apply():
    assert metrics._tokens_in_bulk(["a\x00b", "c"], "en") is None  # a text holding the joiner
    assert metrics._tokens_in_bulk(["l'homme"], "fr") is None  # another normalization
    em, f1, rl = metrics.score_pairs(["a\x00b", "The cat"], [["a b"], ["cat"]], ["en", "en"])
    assert list(em) == [0.0, 1.0] and list(f1)[1] == 1.0 and list(rl)[1] == 0.6666666666666666


def test_bulk_dedup_normalization_equals_the_text_by_text_one():
    from annotation.dedup import normalize_answer, normalize_answers

    rng = random.Random(1)
    texts = ["", " ", "\u00a0a\u2028", "Σ", "\x85a\x85 b", "a\u2029\u3000b"] + [
        "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 6))) for _ in range(3000)
    ]
    for policy in ("whitespace", "casefold", "exact"):
        assert normalize_answers(texts, policy) == [normalize_answer(t, policy) for t in texts], policy
    assert normalize_answers(["a\x00  b", " c "]) == ["a\x00 b", "c"]  # a text holding the joiner
