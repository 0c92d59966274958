import re

import pytest

from annotation.models import Corpus, Question
from frames import lexicon_store, proxy_store

# question -> (frame reply, FE reply) of a scripted LLM
REPLIES = {
    "What year was Beyoncé born?": ("('Being_born', 'born')", '{"Child": "Beyoncé", "Time": "What year"}'),
    "Which team will win the game?": (
        "('Win_prize', 'win')",
        '{"Competitor": "Which team", "Competition": "the game"}',
    ),
    "Who will lead the army?": ("('Leadership', 'lead')", '{"Leader": "Who", "Governed": "the army"}'),
    "Where is the stadium located?": ("('Being_located', 'located')", '{"Theme": "the stadium", "Location": "Where"}'),
}


def scripted_chat(messages, *, purpose, question=None):
    prompt = messages[-1]["content"]
    frame_reply, fe_reply = REPLIES[re.search(r"Question : (.*)", prompt).group(1)]
    return frame_reply if prompt.startswith("From a list") else fe_reply


@pytest.fixture
def framed_corpus(db):
    """A corpus whose 4 questions went through the frame proxy (all outcome done)."""
    return build_framed_corpus()


def build_framed_corpus():
    """The ``framed_corpus`` fixture's corpus, for a fixture of a wider scope."""
    corpus = Corpus.objects.create(name="framed")
    for i, text in enumerate(REPLIES):
        Question.objects.create(
            corpus=corpus,
            external_id=f"f{i}",
            position=i,
            question=text,
            answers=["x"],
            context=f"Paragraph {i} about {text.lower()}",
        )
    result = proxy_store.predict_frames(corpus, lexicon_store.ensure_shipped_lexicon(), scripted_chat, model="scripted")
    assert result["outcomes"]["done"] == 4
    return corpus


def add_derivations(corpus, *, skip_positions=()):
    """Give the corpus's questions a derivation as ``derive_attributes`` writes it (SPEC 15,
    ``meta.derivation``): the context trigger on the word ``about``, the answer on ``Paragraph``; dist 1
    for even positions, 3 for odd ones. Questions at ``skip_positions`` get a derivation without a trigger."""
    for q in corpus.questions.order_by("position"):
        t, a = q.context.index("about"), q.context.index("Paragraph")
        trace = {"answer": {"start": a, "end": a + len("Paragraph"), "found_by": "offset"}}
        if q.position not in skip_positions:
            trace["trigger"] = {"start": t, "end": t + len("about"), "lemma": "about", "via": "own_lu"}
            q.dist = 1 if q.position % 2 == 0 else 3
        q.meta = {**q.meta, "derivation": trace}
        q.save(update_fields=["meta", "dist"])
    return corpus
