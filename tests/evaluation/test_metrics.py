import numpy as np
import pytest
from rouge_score import rouge_scorer

from evaluation.science import metrics


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Denver Broncos!", "denver broncos"),
        ("  an   apple, a day ", "apple day"),
        ("Theatre", "theatre"),  # articles only as whole words
        ("24–10", "24–10"),  # the official script drops ASCII punctuation only
    ],
)
def test_squad_normalization(text, expected):
    assert metrics.normalize_squad(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("L'homme", "homme"),
        ("l'homme est là", "homme est là"),
        ("aujourd'hui", "aujourdhui"),  # not an elision: the apostrophe goes, the word stays
        ("Le château de l’Élysée.", "château élysée"),
        ("qu'il", "qu il"),
    ],
)
def test_french_normalization_keeps_accents_and_splits_elisions(text, expected):
    assert metrics.normalize_french(text) == expected
    assert metrics.normalize(text, "fr") == expected


def test_elision_split_before_article_removal():
    assert metrics.normalize_french("l'homme").split() == ["homme"]
    assert metrics._ELISION.sub(r"\1 ", "l'homme") == "l homme"


def test_exact_match_max_over_references():
    assert metrics.exact_match("the Broncos", ["Carolina", "Broncos"]) == 1.0
    assert metrics.exact_match("Broncos", ["Denver Broncos"]) == 0.0


def test_f1_hand_computed():
    # tokens [cat, sat] vs [cat, sat, down]: P = 1, R = 2/3, F1 = 0.8
    assert metrics.f1("the cat sat", ["cat sat down"]) == pytest.approx(0.8)
    # max over references: second reference matches exactly
    assert metrics.f1("cat", ["dog", "a cat"]) == 1.0
    # repeated tokens count with multiplicity: [a1 a1 b] vs [a1 b b] -> common 2, P=R=2/3
    assert metrics.f1("x x y", ["x y y"]) == pytest.approx(2 / 3)


def test_empty_answers():
    assert metrics.exact_match("", [""]) == 1.0
    assert metrics.f1("", [""]) == 1.0  # SPEC 4: empty vs empty = 1
    assert metrics.f1("the", ["a"]) == 1.0  # both normalize to empty
    assert metrics.f1("", ["Warsaw"]) == 0.0
    assert metrics.f1("Warsaw", [""]) == 0.0
    assert metrics.rouge_l("", [""]) == 1.0
    assert metrics.rouge_l("", ["Warsaw"]) == 0.0
    assert metrics.exact_match("Warsaw", []) == 0.0


def test_french_f1_uses_french_articles():
    assert metrics.f1("la réponse", ["réponse"], "fr") == 1.0
    assert metrics.f1("la réponse", ["réponse"], "en") == pytest.approx(2 / 3)


def test_rouge_l_unicode_tokenizer():
    # [la, réponse, élégante] vs [réponse, élégante]: LCS 2, P = 2/3, R = 1, F = 0.8
    assert metrics.rouge_l("La réponse élégante", ["réponse élégante"]) == pytest.approx(0.8)
    # rouge-score's own tokenizer drops the accented letters and scores differently
    default = rouge_scorer.RougeScorer(["rougeL"]).score("réponse élégante", "La réponse élégante")["rougeL"].fmeasure
    assert default != pytest.approx(0.8)
    assert metrics.UnicodeTokenizer().tokenize("Ça coûte 3€, d'accord?") == ["ça", "coûte", "3", "d", "accord"]


def test_rouge_l_max_over_references():
    # LCS of [a, b, c, d] and [a, c]: 2 -> P = 1/2, R = 1, F = 2/3
    assert metrics.rouge_l("a b c d", ["z", "a c"]) == pytest.approx(2 / 3)


def test_score_pairs_matches_single_functions():
    answers = ["the cat sat", "", "Le chat", "Le chat"]
    refs = [["cat sat down"], [""], ["chat"], ["le chat noir"]]
    langs = ["en", "en", "fr", "fr"]
    em, f1, rl = metrics.score_pairs(answers, refs, langs)
    for i in range(4):
        assert em[i] == metrics.exact_match(answers[i], refs[i], langs[i])
        assert f1[i] == pytest.approx(metrics.f1(answers[i], refs[i], langs[i]))
        assert rl[i] == pytest.approx(metrics.rouge_l(answers[i], refs[i]))


def test_score_pairs_bulk_equals_single_functions_on_random_text():
    # score_pairs compares in bulk (token characters, rapidfuzz LCS); every value must be the
    # single functions' own, on text with repeats, articles, punctuation, accents and empties
    rng = np.random.default_rng(0)
    words = [
        "the",
        "a",
        "cat",
        "Cat",
        "sat",
        "l'homme",
        "la",
        "réponse",
        "élégante",
        "2",
        "3€",
        "d'accord",
        "...",
        "-",
        "x",
        "y",
        "an",
        "de",
        "Éte",
        "chat",
    ]

    def text():
        return " ".join(rng.choice(words, int(rng.integers(0, 6)))) + rng.choice(["", ".", "?", " !"])

    answers, refs, langs = [], [], []
    for _ in range(600):
        answers.append(text())
        refs.append([text() for _ in range(int(rng.integers(0, 4)))])
        langs.append(str(rng.choice(["en", "fr", "de"])))
    em, f1, rl = metrics.score_pairs(answers, refs, langs)
    for i in range(len(answers)):
        assert em[i] == metrics.exact_match(answers[i], refs[i], langs[i]), i
        assert f1[i] == metrics.f1(answers[i], refs[i], langs[i]), i
        assert rl[i] == metrics.rouge_l(answers[i], refs[i]), i
    assert 0 < em.mean() < 1 and 0 < f1.mean() < 1 and 0 < rl.mean() < 1


def test_equal_ratios_are_equal_floats():
    """SPEC 4: F1 = 2 * overlap / (|pred| + |ref|) is one integer division. 1/11 reached from
    several (overlap, |pred|, |ref|) combinations must be one float (with the float precision and
    recall of 2PR / (P + R), the SQuAD dev F1 values showed 1/11 three ways)."""
    from fractions import Fraction

    combos = [(1, 1, 21), (1, 21, 1), (1, 2, 20), (1, 20, 2), (1, 10, 12), (1, 12, 10), (2, 5, 39), (3, 33, 33)]
    values = {metrics.f_measure(c, p, r) for c, p, r in combos}
    assert len(values) == 1 and values == {float(Fraction(1, 11))}
    # the old formula splits them: this is the bug the test guards against
    old = {2 * (c / p) * (c / r) / ((c / p) + (c / r)) for c, p, r in combos}
    assert len(old) > 1
    # and every path of the module gives that float: single functions and the bulk scorer
    answers, refs = [], []
    for common, n_pred, n_ref in combos:
        shared = [f"s{i}" for i in range(common)]
        answers.append(" ".join(shared + [f"p{i}" for i in range(n_pred - common)]))
        refs.append([" ".join(shared + [f"r{i}" for i in range(n_ref - common)])])
    _em, f1, rl = metrics.score_pairs(answers, refs, ["en"] * len(answers))
    assert set(f1.tolist()) == set(rl.tolist()) == values
    assert {metrics.f1(a, r) for a, r in zip(answers, refs)} == values
    assert {metrics.rouge_l(a, r) for a, r in zip(answers, refs)} == values


def test_f_measures_equal_exact_fractions_on_random_counts():
    from fractions import Fraction

    rng = np.random.default_rng(1)
    for _ in range(2000):
        n_pred, n_ref = int(rng.integers(1, 60)), int(rng.integers(1, 60))
        common = int(rng.integers(0, min(n_pred, n_ref) + 1))
        expected = float(Fraction(2 * common, n_pred + n_ref))
        assert metrics.f_measure(common, n_pred, n_ref) == expected


def test_rouge_l_equals_rouge_score_package():
    # the LCS F-measure of rouge-score (with the Unicode tokenizer), as an exact integer ratio
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False, tokenizer=metrics.UnicodeTokenizer())
    pairs = [
        ("a b c d", "a c"),
        ("La réponse élégante", "réponse élégante"),
        ("x y z w v", "v w x y"),
        ("the cat sat on the mat", "a cat on a mat sat"),
    ]
    for pred, ref in pairs:
        assert metrics.rouge_l(pred, [ref]) == pytest.approx(scorer.score(ref, pred)["rougeL"].fmeasure, abs=1e-15)


def test_score_pairs_beyond_one_character_per_token(monkeypatch):
    # past _MAX_CHARS distinct tokens the texts are compared as tuples of codes: same values
    monkeypatch.setattr(metrics, "_MAX_CHARS", 3)
    answers = ["the cat sat", "", "a dog", "cat cat sat", "l'homme"]
    refs = [["cat sat down", "dog"], [""], ["the dog barks"], ["sat cat"], ["homme"]]
    langs = ["en", "en", "en", "en", "fr"]
    em, f1, rl = metrics.score_pairs(answers, refs, langs)
    for i in range(len(answers)):
        assert em[i] == metrics.exact_match(answers[i], refs[i], langs[i]), i
        assert f1[i] == metrics.f1(answers[i], refs[i], langs[i]), i
        assert rl[i] == metrics.rouge_l(answers[i], refs[i]), i
    assert em.tolist() == [0.0, 1.0, 0.0, 0.0, 1.0]


def test_score_pairs_token_codes_skip_the_surrogates():
    # the 55,296th distinct token would be the first surrogate code point: skipped, not an error
    words = [f"w{i}" for i in range(56_000)]
    answers = [" ".join(words[i : i + 4]) for i in range(0, len(words), 4)]
    refs = [[" ".join(words[i + 1 : i + 4]) + " extra"] for i in range(0, len(words), 4)]
    em, f1, rl = metrics.score_pairs(answers, refs, ["en"] * len(answers))
    assert set(em.tolist()) == {0.0} and set(f1.tolist()) == {metrics.f_measure(3, 4, 4)} == set(rl.tolist())
