"""The report page's choices in French (issue 32): counts grouped as French writes them, the dedup
policy in words; the English text (that of the report files) unchanged."""

from django.utils import translation

from evaluation.render.choices import report_choices

DATA = {"metric": "f1", "has_labels": False, "config": {"n_boot": 1000, "seed": 0, "alpha": 5.0}}
DATA["config"]["dedup_policy"] = "whitespace"


def choice(key, language):
    with translation.override(language):
        found = next(c for c in report_choices(DATA) if c["key"] == key)
        return str(found["value"]), str(found["short"])


def test_the_bootstrap_count_is_grouped_in_french_only():
    value, short = choice("n_boot", "fr")
    assert "1\u202f000 rééchantillonnages" in value and "1\u202f000 rééchantillonnages" in short
    value, short = choice("n_boot", "en")
    assert short == "95% CI: 1000 bootstrap replicates, seed 0"


def test_the_dedup_policy_in_words_in_french_and_as_its_key_in_english():
    value, short = choice("dedup_policy", "fr")
    assert "espaces normalisées" in value and "whitespace" not in value + short
    assert choice("dedup_policy", "en") == ("whitespace", "dedup whitespace")
