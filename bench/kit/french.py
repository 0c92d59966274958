"""French material for the SPEC 15 tests and ``bench/derive_bench.py``: a small hand-written French
frame lexicon, and records framed by the proxy's first candidate (the LLM step replaced)."""

from frames.framenet import Frame, FrameElement, LexicalUnit, Lexicon
from frames.proxy import TriggerIndex

# frame -> (LU names, FE names); French words, FrameNet frame names
FRENCH_FRAMES = {
    "Attack": (["attaquer.v", "assaut.n", "attaque.n"], ["Assailant", "Victim", "Time"]),
    "Intentionally_create": (
        ["fonder.v", "créer.v", "fondation.n", "création.n"],
        ["Creator", "Created_entity", "Time"],
    ),
    "Becoming_aware": (["découvrir.v", "découverte.n"], ["Cognizer", "Phenomenon", "Time"]),
    "Being_born": (["naître.v", "naissance.n"], ["Child", "Place", "Time"]),
    "Calendric_unit": (["année.n", "siècle.n", "an.n", "date.n"], ["Unit", "Whole"]),
    "Leadership": (["roi.n", "président.n", "diriger.v", "chef.n"], ["Leader", "Governed"]),
    "People_by_origin": (["habitant.n", "population.n"], ["Person", "Origin"]),
    "Locale_by_use": (["ville.n", "pays.n", "région.n"], ["Locale", "Name"]),
    "Text_creation": (["écrire.v", "publier.v", "œuvre.n", "livre.n"], ["Author", "Text"]),
    "Measure_duration": (["durer.v", "durée.n"], ["Duration", "Process"]),
    "Hostile_encounter": (["guerre.n", "bataille.n", "combattre.v"], ["Side_1", "Side_2", "Time"]),
    "Kinship": (["fils.n", "frère.n", "père.n", "mère.n", "fille.n"], ["Ego", "Alter"]),
    "Death": (["mort.n", "mourir.v", "décès.n"], ["Protagonist", "Time", "Place"]),
    "Locative_relation": (["lieu.n", "situer.v", "trouver.v"], ["Figure", "Ground"]),
    "Event": (["événement.n", "avoir lieu.v"], ["Event", "Time", "Place"]),
    "Origin": (["origine.n"], ["Entity", "Origin"]),
    "Military": (["armée.n", "forces.n"], ["Possessor", "Force"]),
    "Being_named": (["appeler.v", "nom.n", "nommer.v"], ["Entity", "Name"]),
}


def french_lexicon(name="framenet-fr-test"):
    """The frames above as a :class:`Lexicon` (storable with ``frames.lexicon_store.store_lexicon``)."""
    lexicon = Lexicon(name=name)
    for frame, (lus, fes) in FRENCH_FRAMES.items():
        lexicon.frames[frame] = Frame(
            name=frame,
            definition=f"{frame} (test lexicon)",
            elements=[FrameElement(name=fe) for fe in fes],
            lexical_units=[LexicalUnit(name=lu, pos=lu.rpartition(".")[2]) for lu in lus],
        )
    return lexicon


def french_words():
    """``{frame: [LU names]}`` as ``frames.derivation.read_lexicon`` returns it."""
    return {frame: lus for frame, (lus, _) in FRENCH_FRAMES.items()}


def framed_by_first_candidate(records):
    """Records with ``frame``/``lu``/``lu_pos``/``frame_elements`` from the proxy's first candidate (the
    LLM step replaced by "take the first pair", for the offline tests); questions without one unchanged."""
    index = TriggerIndex.from_lexicon(french_lexicon())
    out = []
    for record in records:
        found = index.candidates(record["question"])
        if found:
            first = found[0]
            lu = first.lus[0]
            record = {**record, "frame": first.frame, "lu": lu, "frame_elements": FRENCH_FRAMES[first.frame][1][:2]}
        out.append(record)
    return out
