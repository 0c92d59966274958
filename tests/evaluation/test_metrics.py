import numpy as np
import pytest
from rouge_score import rouge_scorer

from evaluation import metrics


@pytest.mark.parametrize("text,expected", [
    ("The Denver Broncos!", "denver broncos"),
    ("  an   apple, a day ", "apple day"),
    ("Theatre", "theatre"),  # articles only as whole words
    ("24–10", "24–10"),  # the official script drops ASCII punctuation only
])
def test_squad_normalization(text, expected):
    assert metrics.normalize_squad(text) == expected


@pytest.mark.parametrize("text,expected", [
    ("L'homme", "homme"),
    ("l'homme est là", "homme est là"),
    ("aujourd'hui", "aujourdhui"),  # not an elision: the apostrophe goes, the word stays
    ("Le château de l’Élysée.", "château élysée"),
    ("qu'il", "qu il"),
])
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
    words = ["the", "a", "cat", "Cat", "sat", "l'homme", "la", "réponse", "élégante", "2", "3€", "d'accord",
             "...", "-", "x", "y", "an", "de", "Éte", "chat"]

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
