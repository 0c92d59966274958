import shutil

import pytest

from frames.framenet import (
    SHIPPED_LEXICON,
    LexiconError,
    load_lexicon,
    lu_pos_code,
    lu_word,
    parse_frame_file,
    plain_text,
    pos_name,
)


@pytest.fixture
def lexicon_copy(tmp_path):
    target = tmp_path / "framenet_v17"
    shutil.copytree(SHIPPED_LEXICON, target)
    return target


def test_shipped_lexicon_reads_frames_fes_and_lus():
    lexicon = load_lexicon(SHIPPED_LEXICON)
    assert len(lexicon.frames) >= 30
    attack = lexicon.frames["Attack"]
    assert [fe.name for fe in attack.elements][:2] == ["Assailant", "Victim"]
    assert attack.element("assailant").core_type == "Core"
    assert attack.element("Weapon").core_type == "Peripheral"
    assert {"attack.v", "attack.n"} <= {lu.name for lu in attack.lexical_units}
    assert attack.definition.startswith("An Assailant uses force")  # markup stripped
    assert "<" not in attack.definition
    for needed in (
        "Leadership",
        "Being_born",
        "Death",
        "Arriving",
        "Commerce_buy",
        "Locale_by_use",
        "Measure_duration",
        "Education_teaching",
        "Competition",
        "Win_prize",
        "Creating",
        "Change_position_on_a_scale",
    ):
        assert needed in lexicon.frames
    words = {lu.word for f in lexicon.frames.values() for lu in f.lexical_units}
    assert {"win", "born", "lead", "team", "game", "buy", "year", "found", "take place"} <= words


def test_lu_names_words_and_pos():
    assert lu_word("attack.v") == "attack"
    assert lu_word("take place.v") == "take place"
    assert lu_word("take (over).v") == "take over"
    assert lu_word("a.m..n") == "a.m."
    assert lu_pos_code("attack.v") == "v" and lu_pos_code("nothing") == ""
    assert pos_name("n") == "noun" and pos_name("V") == "verb" and pos_name("a") == "adjective"
    assert pos_name("adv") == "adverb" and pos_name("prep") == "preposition"
    assert plain_text("&lt;def-root&gt;An &lt;fen&gt;Agent&lt;/fen&gt; acts.&lt;/def-root&gt;") == "An Agent acts."


def test_parent_directory_is_accepted(lexicon_copy):
    assert load_lexicon(lexicon_copy.parent).frames.keys() == load_lexicon(lexicon_copy).frames.keys()
    assert load_lexicon(lexicon_copy).name == "framenet_v17"


def test_malformed_xml_names_the_file(lexicon_copy):
    bad = lexicon_copy / "frame" / "Death.xml"
    bad.write_text(bad.read_text().replace("</frame>", "</fram>"))
    with pytest.raises(LexiconError) as err:
        load_lexicon(lexicon_copy)
    assert "Death.xml" in str(err.value) and "malformed XML" in str(err.value)


def test_missing_frame_file_and_missing_index(lexicon_copy, tmp_path):
    (lexicon_copy / "frame" / "Attack.xml").unlink()
    with pytest.raises(LexiconError, match=r"Attack\.xml: missing"):
        load_lexicon(lexicon_copy)
    with pytest.raises(LexiconError, match=r"no frameIndex\.xml"):
        load_lexicon(tmp_path / "nowhere")


def test_lu_index_adds_units_missing_from_frame_files(lexicon_copy):
    index = lexicon_copy / "luIndex.xml"
    index.write_text(
        index.read_text().replace(
            "</luIndex>",
            '    <lu ID="1" name="ambush.n" frameName="Attack" POS="N"/>\n'
            '    <lu ID="2" name="ghost.n" frameName="No_such_frame" POS="N"/>\n</luIndex>',
        )
    )
    attack = load_lexicon(lexicon_copy).frames["Attack"]
    assert "ambush.n" in [lu.name for lu in attack.lexical_units]
    assert [lu.name for lu in attack.lexical_units].count("attack.v") == 1


def test_frame_file_keeps_the_first_of_each_name_and_rejects_a_nameless_one(tmp_path):
    ns = 'xmlns="http://framenet.icsi.berkeley.edu"'
    path = tmp_path / "Arriving.xml"
    path.write_text(
        f'<frame {ns} name="Arriving" ID="1"><FE name="Theme" coreType="Core" ID="2"/><FE name="Theme" ID="9"/>'
        '<lexUnit name="arrive.v" POS="V" ID="3"/><lexUnit name="arrive.v" POS="N" ID="8"/></frame>'
    )
    frame = parse_frame_file(path)
    assert [(fe.name, fe.fn_id) for fe in frame.elements] == [("Theme", 2)]
    assert [(lu.name, lu.pos, lu.fn_id) for lu in frame.lexical_units] == [("arrive.v", "v", 3)]
    for child in ('<FE coreType="Core"/>', '<lexUnit POS="V"/>'):
        path.write_text(f'<frame {ns} name="Arriving">{child}</frame>')
        with pytest.raises(LexiconError, match="of frame Arriving has no name attribute"):
            parse_frame_file(path)
