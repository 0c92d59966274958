"""The frame proxy in French (issue 25, point 4): the French lexicon in FrameNet's file layout goes
through the importer, a French corpus (PIAF small) gets the French prompts, the local
OpenAI-compatible server answers them, and the frames are stored on the questions."""

import ast
import json
import re

import pytest
from django.core.management import call_command

from annotation.importers import import_corpus
from annotation.models import Corpus, Question
from core.models import Job
from core.runner import create_job, run_job
from frames import jobs as frame_jobs
from frames import proxy
from frames.framenet import SHIPPED_LEXICON_FR, load_lexicon
from frames.models import FrameAnnotation, FrameLexicon, LexicalUnitDef
from tests.openai_stub import OpenAIStub

pytestmark = pytest.mark.django_db
LIMIT = 150  # questions of PIAF small sent through the proxy (its first 150, in file order)


def test_the_french_lexicon_reads_as_framenet_and_imports():
    lexicon = load_lexicon(SHIPPED_LEXICON_FR)
    assert len(lexicon.frames) == 19 and lexicon.n_lexical_units == 90
    kinship = lexicon.frame("Kinship")
    assert {lu.name for lu in kinship.lexical_units} >= {"fils.n", "frère.n", "sœur.n", "épouse.n"}
    assert kinship.element("alter").name == "Alter"
    assert "parenté" in kinship.definition  # definitions are plain text, markup dropped
    event = lexicon.frame("Event")
    assert ("avoir lieu.v", "v") in {(lu.name, lu.pos) for lu in event.lexical_units}
    call_command("import_framenet", str(SHIPPED_LEXICON_FR), name="fr-test")
    row = FrameLexicon.objects.get(name="fr-test")
    assert LexicalUnitDef.objects.filter(frame__lexicon=row).count() == 90


def test_prompts_follow_the_corpus_language():
    assert proxy.prompts_for("fr").frame.startswith("À partir d'une liste")
    assert proxy.prompts_for("fr-CA").language == "fr"
    assert proxy.prompts_for("en").frame == proxy.FRAME_PROMPT and proxy.prompts_for("").language == "en"
    assert proxy.prompts_for("de").language == "en"  # no prompts for it: the paper's English
    index = proxy.TriggerIndex.from_lexicon(load_lexicon(SHIPPED_LEXICON_FR))
    found = index.candidates("Quelle guerre oppose l’armée française aux insurgés ?")
    assert [c.pair() for c in found] == [["Hostile_encounter", "guerre"], ["Military", "armée"]]
    assert proxy.frame_prompt("Q ?", found, template=proxy.FRAME_PROMPT_FR).splitlines()[1:] == [
        "Liste : [('Hostile_encounter', 'guerre'), ('Military', 'armée')]",
        "Question : Q ?",
    ]


def test_french_replies_are_read():
    assert proxy.parse_pair("Frame : Kinship, unité lexicale : fils") == proxy.Pair("Kinship", "fils")
    assert proxy.parse_pair('{"frame": "Death", "unité lexicale": "mort"}') == proxy.Pair("Death", "mort")
    assert proxy.parse_pair("Frame: Event, déclencheur : événement") == proxy.Pair("Event", "événement")
    # a determiner before a word that is both a noun and a verb LU picks the noun, in French too
    assert proxy.choose_lu(["attaquer.v", "attaquer.n"], "Quand a eu lieu l'attaquer ?", "attaquer") == "attaquer.n"


def french_responder(lexicon):
    """Frame prompt: the first listed pair, written the French way; FE prompt: the frame's first FE
    on the question's first two words, as JSON in a fenced block with a French sentence around."""

    def respond(body):
        prompt = body["messages"][-1]["content"]
        question = re.search(r"^Question : (.*)$", prompt, re.MULTILINE).group(1)
        if prompt.startswith(proxy.FRAME_PROMPT_FR.split("{")[0]):
            pairs = ast.literal_eval(re.search(r"^Liste : (.*)$", prompt, re.MULTILINE).group(1))
            frame, word = pairs[0]
            return f"Frame : {frame}, unité lexicale : {word}"
        if prompt.startswith(proxy.FE_PROMPT_FR.split("{")[0]):
            frame, _word = ast.literal_eval(re.search(r"^Paire : (.*)$", prompt, re.MULTILINE).group(1))
            first = lexicon.frame(frame).elements[0].name
            span = " ".join(question.split()[:2])
            return "Voici :\n```json\n" + json.dumps({first: span}, ensure_ascii=False) + "\n```"
        return (400, {"error": {"message": "not a French prompt"}})

    return respond


def test_french_frame_proxy_on_piaf_against_the_local_llm(piaf_small_dir, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    import_corpus(piaf_small_dir / "corpus.jsonl", "piaf-small")
    corpus = Corpus.objects.get(name="piaf-small")
    assert corpus.language == "fr"
    call_command("import_framenet", str(SHIPPED_LEXICON_FR), name="framenet-fr-mini")
    lexicon = load_lexicon(SHIPPED_LEXICON_FR)
    index = proxy.TriggerIndex.from_lexicon(lexicon)
    questions = list(Question.objects.filter(corpus=corpus).order_by("position")[:LIMIT])
    with_trigger = [q for q in questions if index.candidates(q.question)]
    assert 30 < len(with_trigger) < LIMIT  # real questions: some have a French trigger, some none

    with OpenAIStub(french_responder(lexicon)) as stub:
        params = frame_jobs.job_params(
            corpus.name, lexicon="framenet-fr-mini", model="stub-model", base_url=stub.base_url, limit=LIMIT
        )
        job = run_job(create_job(frame_jobs.JOB_KIND, params=params, resumable=True).pk, frame_jobs.frame_job_body)
    assert job.status == Job.SUCCEEDED, job.error
    assert job.result["prompts"] == "fr"
    assert job.result["run"] == {
        "done": len(with_trigger),
        "no_trigger": LIMIT - len(with_trigger),
        "unknown_frame": 0,
        "bad_output": 0,
        "error": 0,
    }
    prompts = [r["messages"][-1]["content"] for r in stub.requests]
    assert len(prompts) == 2 * len(with_trigger)  # a frame prompt and an FE prompt for each
    assert all(p.startswith(("À partir d'une liste", "À partir d'une paire FrameNet")) for p in prompts)
    assert not any("From a list" in p or "Only answer" in p for p in prompts)

    for q in with_trigger:
        q.refresh_from_db()
        first = index.candidates(q.question)[0]
        frame = lexicon.frame(first.frame)
        assert (q.frame, q.lu) == (first.frame, first.lus[0])
        assert q.frame_elements == [frame.elements[0].name]
        assert q.trigger_in_question is True and q.meta["frame_source"]["lexicon"] == "framenet-fr-mini"
        stored = FrameAnnotation.objects.get(question=q)
        assert (
            stored.frame_prompt.startswith("À partir d'une liste") and f"Question : {q.question}" in stored.frame_prompt
        )
        assert stored.fe_prompt.startswith("À partir d'une paire") and "Paire : " in stored.fe_prompt
        assert stored.frame_reply.startswith("Frame : ") and stored.frame_elements
    kinship = [q for q in with_trigger if q.frame == "Kinship"]
    assert kinship and all(q.lu_pos == "noun" for q in kinship)


def test_the_french_lexicon_is_the_default_for_a_french_corpus(monkeypatch, client, make_user):
    """predict_frames without --lexicon, and the admin's form, start from the corpus language's lexicon."""
    from django.urls import reverse

    from frames.lexicon_store import default_lexicon, ensure_shipped_lexicon

    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    corpus = Corpus.objects.create(name="fr-mini", language="fr")
    for i, text in enumerate(["Quelle guerre a lieu en 1808 ?", "Qui est le fils de Carlo ?", "Combien ?"]):
        Question.objects.create(
            corpus=corpus, external_id=f"q{i}", position=i, context="c", question=text, answers=["x"]
        )
    lexicon = load_lexicon(SHIPPED_LEXICON_FR)
    with OpenAIStub(french_responder(lexicon)) as stub:
        call_command("predict_frames", "--corpus", "fr-mini", "--base-url", stub.base_url, "--model", "stub-model")
    assert len(stub.requests) == 4  # two questions with a French trigger, two prompts each
    assert {q.frame for q in Question.objects.filter(corpus=corpus)} == {"Hostile_encounter", "Kinship", None}
    assert FrameAnnotation.objects.filter(lexicon__name="framenet-fr-mini").count() == 3
    assert default_lexicon("en") == "framenet-mini" and default_lexicon("fr") == "framenet-fr-mini"

    ensure_shipped_lexicon("framenet-mini")
    client.force_login(make_user("boss", "admin"))
    page = client.get(reverse("admin:annotation_predict_frames", args=[corpus.pk])).content.decode()
    assert re.search(r'<option value="framenet-fr-mini" selected>', page)
