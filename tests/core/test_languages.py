"""One home for languages (issue 31 point 4): ``core.languages`` holds a record per language (code and
the subtag rule, normalization, spaCy pipeline, frame prompts, lexicon, demo), and every place that
depends on a corpus language reads it. A toy language added by one record is used everywhere; a
region subtag (``fr-CA``) is its language everywhere.
"""

import numpy as np
import pytest

from core import languages
from evaluation.science import metrics
from frames import lexicon_store, parsing, proxy

TOY = languages.Language(
    "xx",
    "Toy",
    articles=("ze", "zo"),
    spacy_pipeline="xx_toy_sm",
    prompts=languages.FramePrompts(
        frame="ZZ pick one of {list} for {question}", fe="ZZ elements of {pair} in {question}", fe_hint=" ZZ {elements}"
    ),
    lexicon="framenet-toy",
)


@pytest.fixture
def toy():
    languages.register(TOY)
    yield TOY
    languages.unregister("xx")


def test_a_toy_language_is_one_record_and_every_reader_uses_it(toy):
    # normalization: the record's articles are dropped, for any region of the language
    assert metrics.normalize("Ze Hund, zo Katze!", "xx-YY") == "hund katze"
    assert metrics.exact_match("ze Hund", ["Hund"], "xx") == 1.0
    em, f1, _rouge = metrics.score_pairs(["ze Hund", "ze Hund"], [["Hund"], ["Hund"]], ["xx", "de"])
    assert em.tolist() == [1.0, 0.0] and np.isclose(f1[1], 2 / 3)  # German has no record: no article dropped
    # the spaCy pipeline chosen for the corpus language
    assert parsing.pipeline_name("xx-YY") == "xx_toy_sm"
    # the frame proxy asks in the language's words
    prompts = proxy.prompts_for("XX-yy")
    assert (prompts.language, prompts.frame) == ("xx", TOY.prompts.frame)
    assert proxy.frame_prompt("Q?", [], template=prompts.frame).startswith("ZZ pick one of")
    # its shipped lexicon
    assert lexicon_store.default_lexicon("xx") == "framenet-toy"


def test_without_the_record_the_toy_language_falls_back_as_any_unknown_language():
    assert metrics.normalize("Ze Hund", "xx") == "ze hund"
    assert proxy.prompts_for("xx").language == "en"
    assert lexicon_store.default_lexicon("xx") == lexicon_store.SHIPPED_NAME
    with pytest.raises(parsing.ParserError, match="no default spaCy pipeline for language 'xx'"):
        parsing.pipeline_name("xx")


def test_a_region_subtag_is_its_language_everywhere():
    assert languages.primary("fr-CA") == "fr"
    assert metrics.normalizer_for("fr-CA") is metrics.normalize_french
    assert parsing.pipeline_name("fr-CA") == "fr_core_news_sm"  # refused before the registry
    assert proxy.prompts_for("fr-CA").language == "fr"
    assert lexicon_store.default_lexicon("fr-CA") == "framenet-fr-mini"


def test_the_interface_languages_are_the_records_that_say_so(settings):
    assert settings.LANGUAGES == languages.interface_languages() == [("en", "English"), ("fr", "Français")]


def test_a_code_must_be_a_primary_subtag():
    with pytest.raises(ValueError, match="primary subtag"):
        languages.register(languages.Language("xx-YY", "Toy"))
    assert languages.get("xx") is None
