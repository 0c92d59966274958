"""SPEC 15 in the app: the derivation job (progress, cancel, resume, imported values kept), its API,
and the whole chain on PIAF small: frames from the proxy (local fake LLM), attributes derived, labels,
a report whose factor table has bias, trigger, lu_in_q, dist, nb_fes and entropy and says what was derived."""

import ast
import json
import re

import pytest
from django.urls import reverse

from annotation.importers import import_corpus, import_labels, import_predictions
from annotation.models import Corpus, Question
from core.models import Job
from core.reaper import resumers
from core.runner import create_job, run_job
from frames import attribute_jobs
from frames import lexicon_store as frame_lexicon_store
from frames import llm as frame_llm
from frames import proxy_store as frame_proxy_store
from frames.attributes import SOURCES_KEY, TRACE_KEY
from tests.conftest import write_jsonl
from tests.frames.french import FRENCH_FRAMES, PIAF, french_lexicon
from tests.openai_stub import OpenAIStub

pytestmark = pytest.mark.django_db


def fake_llm(body):
    """The proxy's LLM: the first candidate pair, then 1 to 3 FEs of that frame on words of the question.
    PIAF is French, so the proxy asks in French (``frames.proxy.prompts_for``); English is read too."""
    prompt = body["messages"][-1]["content"]
    question = re.search(r"Question : (.*)", prompt).group(1)
    if prompt.startswith(("From a list", "À partir d'une liste")):
        pairs = ast.literal_eval(re.search(r"(?:List|Liste) : (\[.*\])", prompt).group(1))
        return repr(pairs[0])
    frame, word = ast.literal_eval(re.search(r"(?:Pair|Paire) : (\(.*\))", prompt).group(1))
    words = [w for w in re.findall(r"\w{3,}", question) if w.lower() != word.lower()]
    fes = FRENCH_FRAMES[frame][1][: 1 + len(question) % 3]
    return json.dumps({fe: words[i % len(words)] for i, fe in enumerate(fes)} if words else {})


@pytest.fixture
def llm(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    with OpenAIStub(fake_llm) as server:
        yield server


def predict(corpus, lexicon, llm):
    chat = frame_llm.make_chat(model="stub-model", base_url=llm.base_url, requests_per_minute=None)
    return frame_proxy_store.predict_frames(corpus, lexicon, chat, model="stub-model")


def derive(corpus, **params):
    job = create_job(attribute_jobs.JOB_KIND, params={"corpus": corpus.name, **params}, resumable=True)
    run_job(job.pk, attribute_jobs.attribute_job_body)
    job.refresh_from_db()
    return job


@pytest.fixture
def lexicon():
    return frame_lexicon_store.store_lexicon(french_lexicon())[0]


@pytest.fixture
def piaf(tmp_path, lexicon, llm):
    """PIAF small imported as is, frames from the proxy; an adaptation corpus of 300 other PIAF questions."""
    small = PIAF / "small" / "corpus.jsonl"
    if not small.exists():
        pytest.skip(f"shared data not found at {small}")
    import_corpus(small, "piaf-small")
    seen = {json.loads(line)["id"] for line in small.read_text(encoding="utf-8").splitlines()}
    other = []
    with open(PIAF / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            if len(other) < 300 and json.loads(line)["id"] not in seen:
                other.append(json.loads(line))
    import_corpus(write_jsonl(tmp_path / "adapt.jsonl", other), "piaf-adapt")
    corpus, adapt = Corpus.objects.get(name="piaf-small"), Corpus.objects.get(name="piaf-adapt")
    assert predict(corpus, lexicon, llm)["outcomes"]["done"] > 150
    assert predict(adapt, lexicon, llm)["outcomes"]["done"] > 30
    assert all(r["messages"][-1]["content"].startswith("À partir d") for r in llm.requests)  # French corpus
    return corpus


def test_job_derives_records_sources_and_keeps_imported_values(piaf):
    framed = Question.objects.filter(corpus=piaf, frame__isnull=False).order_by("position")
    # the proxy wrote trigger_in_question = true on all; one imported dist on the first framed question
    first = framed.first()
    first.dist = 9
    first.save(update_fields=["dist"])
    job = derive(piaf, lexicon="framenet-fr-test", adaptation="piaf-adapt", sample=200, seed=3)
    assert job.status == Job.SUCCEEDED, job.error
    result = job.result
    assert result["derived"]["frame_freq"] == framed.count()
    assert result["source"] == {
        "parser": "fr_core_news_sm",
        "parser_version": "3.8.0",
        "adaptation": "piaf-adapt (random sample of 200 questions, seed 3)",
    }
    first.refresh_from_db()
    assert first.dist == 9 and SOURCES_KEY in first.meta and "dist" not in first.meta[SOURCES_KEY]
    derived = framed.filter(dist__isnull=False).exclude(pk=first.pk)
    assert derived.count() == result["derived"]["dist"] > 20
    values = set(framed.values_list("trigger_in_question", flat=True))
    assert values == {True, False, None}, "the proxy's constant true replaced by what the parse finds"
    q = derived.first()
    assert q.meta[SOURCES_KEY]["dist"]["source"] == "derived"
    assert q.context[q.meta[TRACE_KEY]["trigger"]["start"] : q.meta[TRACE_KEY]["trigger"]["end"]]
    # again with overwrite: the imported dist is replaced by the derived one (when derivable)
    job = derive(piaf, lexicon="framenet-fr-test", overwrite=True)
    first.refresh_from_db()
    assert job.status == Job.SUCCEEDED
    assert first.dist != 9 or first.meta[TRACE_KEY]["missing"].get("dist")
    assert job.result["derived"]["frame_freq"] == 0  # no adaptation corpus this time: frame_freq not derived


@pytest.mark.django_db(transaction=True)  # progress rows are written outside the test's transaction
def test_progress_cancel_and_resume(lexicon):
    corpus = Corpus.objects.create(name="fr-one")
    Question.objects.create(
        corpus=corpus,
        external_id="a",
        context="Le roi attaqua Paris.",
        question="Qui a attaqué Paris ?",
        answers=["Le roi"],
        language="fr",
        frame="Attack",
        lu="attaquer.v",
    )
    job = create_job(attribute_jobs.JOB_KIND, params={"corpus": "fr-one", "lexicon": lexicon.name}, resumable=True)
    Job.objects.filter(pk=job.pk).update(cancel_requested=True)
    job = run_job(job.pk, attribute_jobs.attribute_job_body)
    assert job.status == Job.CANCELLED
    assert Question.objects.get(corpus=corpus).meta == {}
    assert attribute_jobs.JOB_KIND in resumers()
    job = derive(corpus, lexicon=lexicon.name, parser="fr_nothing_sm")
    assert job.status == Job.FAILED and "pip install fr-nothing-sm" in job.error
    Corpus.objects.create(name="fr-empty")
    job = derive(corpus, lexicon=lexicon.name, adaptation="fr-empty")
    assert job.status == Job.FAILED and job.error == (
        "adaptation corpus 'fr-empty' has no question with a frame: predict its frames (or import them) first"
    )
    job = derive(corpus, lexicon=lexicon.name)
    q = Question.objects.get(corpus=corpus)
    assert (job.status, q.dist, q.trigger_in_question, q.lu_pos) == (Job.SUCCEEDED, 1, True, "verb")
    assert (job.progress_done, job.progress_total, job.message) == (1, 1, "done")
    seen = []
    attribute_jobs.derive_corpus(
        corpus, attribute_jobs.DeriveOptions(lexicon=lexicon.name), progress=lambda **p: seen.append(p)
    )
    assert [(p["done"], p["total"]) for p in seen] == [(0, 1), (1, 1), (1, 1)]
    assert seen[1]["message"] == "parsing: 1/1 distinct contexts" and seen[-1]["message"] == "attributes derived"


def test_api_starts_a_derivation_and_checks_its_input(client, make_user, lexicon, django_capture_on_commit_callbacks):
    Corpus.objects.create(name="fr-two")
    client.force_login(make_user("boss", "admin"))
    url = reverse("api-attributes")
    for body, field in (
        ({"corpus": "nope"}, "corpus"),
        ({"corpus": "fr-two", "adaptation": "nope"}, "adaptation"),
        ({"corpus": "fr-two", "lexicon": "nope"}, "lexicon"),
        ({"corpus": "fr-two", "sample": 0, "adaptation": "fr-two"}, "sample"),
        ({"corpus": "fr-two", "sample": 10}, "sample"),
        ({"corpus": "fr-two", "seed": 2**40}, "seed"),
        ({"corpus": "fr-two", "parser": "../etc"}, "parser"),
    ):
        resp = client.post(url, body, content_type="application/json")
        assert resp.status_code == 400 and field in resp.json(), (body, resp.content)
    assert not Job.objects.filter(kind=attribute_jobs.JOB_KIND).exists()
    with django_capture_on_commit_callbacks(execute=False):
        resp = client.post(url, {"corpus": "fr-two", "lexicon": lexicon.name}, content_type="application/json")
    assert resp.status_code == 202, resp.content
    job = Job.objects.get(pk=resp.json()["id"])
    assert job.resumable and job.params == {
        "corpus": "fr-two",
        "parser": None,
        "lexicon": lexicon.name,
        "adaptation": None,
        "sample": None,
        "seed": 0,
        "overwrite": False,
    }
    assert [j["id"] for j in client.get(url).json()["results"]] == [job.pk]


def _systems_and_labels(corpus, tmp_path):
    """Two systems and one annotator's labels on every triplet (correct / partial / incorrect by the
    first reference answer), imported through the real importers."""
    predictions, labels = [], []
    questions = list(Question.objects.filter(corpus=corpus).order_by("position"))
    for i, q in enumerate(questions):
        reference = q.answers[0]
        words = reference.split()
        good = reference if i % 3 else q.context[:20]
        short = " ".join(words[: max(1, len(words) // 2)]) if i % 4 else reference
        predictions += [
            {"question_id": q.external_id, "system": "sys-good", "answer": good},
            {"question_id": q.external_id, "system": "sys-short", "answer": short},
        ]
        for answer in {reference, good, short}:
            label = "correct" if answer == reference else "partial" if reference.startswith(answer) else "incorrect"
            labels.append({"question_id": q.external_id, "answer": answer, "annotator": "ann1", "label": label})
    import_predictions(write_jsonl(tmp_path / "predictions.jsonl", predictions), corpus)
    import_labels(write_jsonl(tmp_path / "labels.jsonl", labels), corpus)


def test_end_to_end_on_piaf_small_six_factors_and_the_page_says_what_was_derived(
    piaf, tmp_path, settings, client, make_user
):
    from evaluation import jobs as report_jobs

    settings.MEDIA_ROOT = str(tmp_path / "media")
    assert derive(piaf, lexicon="framenet-fr-test", adaptation="piaf-adapt").status == Job.SUCCEEDED
    _systems_and_labels(piaf, tmp_path)
    params = {"corpus_id": piaf.pk, "corpus": piaf.name, **report_jobs.REPORT_OPTIONS, "n_boot": 0, "figures": False}
    job = create_job(report_jobs.JOB_KIND, params)
    run_job(job.pk, report_jobs.report_body)
    job.refresh_from_db()
    assert job.status == Job.SUCCEEDED, job.error
    data = json.loads((report_jobs.report_dir(job.pk) / "report.json").read_text(encoding="utf-8"))
    rows = {e["factor"]: e for e in data["factors"] if e["metric"] == "hscore"}
    assert set(rows) == {"bias", "trigger", "lu_in_q", "dist", "nb_fes", "entropy"}
    assert all(e["n_hard"] and e["n_easy"] for e in rows.values())
    assert {name for name, e in rows.items() if e["derived"]} == {"bias", "trigger", "lu_in_q", "dist"}
    assert set(data["derived_attributes"]) == {"dist", "frame_freq", "lu_pos", "trigger_in_question"}
    assert data["derived_attributes"]["dist"]["sources"] == ["fr_core_news_sm 3.8.0, adaptation corpus piaf-adapt"]
    assert data["factors_skipped"] == ["coref"]
    assert "needs an imported coref attribute or a coreference component" in data["factors_skipped_reasons"]["coref"]
    caption = (report_jobs.report_dir(job.pk) / "table2_factors_hscore.tex").read_text(encoding="utf-8")
    assert "Computed from derived attributes: bias, trigger, lu\\_in\\_q, dist (" in caption
    client.force_login(make_user("res", "researcher"))
    page = client.get(reverse("report-detail", args=[job.pk])).content.decode()
    assert "Computed from derived attributes (parsed from the text, SPEC 15): bias, trigger, lu_in_q, dist" in page
    n = {name: d["n_derived"] for name, d in data["derived_attributes"].items()}
    assert (
        f"Derived from raw text (SPEC 15), not imported: dist on {n['dist']} questions, frame_freq on "
        f"{n['frame_freq']} questions, lu_pos on {n['lu_pos']} questions, trigger_in_question on "
        f"{n['trigger_in_question']} questions (fr_core_news_sm 3.8.0, adaptation corpus piaf-adapt)."
    ) in page
    assert "needs an imported coref attribute or a coreference component" in page


@pytest.mark.django_db(transaction=True)
def test_the_default_lexicon_is_the_one_the_corpus_frames_were_predicted_with(
    client, make_user, lexicon, django_capture_on_commit_callbacks
):
    """Issue 32, friction 4: a French corpus whose frames came from a French lexicon is derived with that
    lexicon, not the English ``framenet-mini``; without predictions, the shipped lexicon of its language."""
    from annotation.models import Question
    from frames.models import FrameAnnotation

    predicted = Corpus.objects.create(name="fr-framed", language="fr")
    plain_fr = Corpus.objects.create(name="fr-plain", language="fr")
    plain_en = Corpus.objects.create(name="en-plain", language="en")
    q = Question.objects.create(corpus=predicted, external_id="q1", position=0, question="Qui ?", context="Lui.")
    FrameAnnotation.objects.create(question=q, lexicon=lexicon, outcome="done")
    assert frame_lexicon_store.corpus_lexicon(predicted) == lexicon.name == "framenet-fr-test"
    assert frame_lexicon_store.corpus_lexicon(plain_fr) == "framenet-fr-mini"
    assert frame_lexicon_store.corpus_lexicon(plain_en) == "framenet-mini"
    boss = make_user("boss", "admin")
    client.force_login(boss)
    url = reverse("api-attributes")
    with django_capture_on_commit_callbacks(execute=False):
        for corpus, expected in ((predicted, "framenet-fr-test"), (plain_fr, "framenet-fr-mini")):
            resp = client.post(url, {"corpus": corpus.name}, content_type="application/json")
            assert resp.status_code == 202, resp.content
            assert Job.objects.get(pk=resp.json()["id"]).params["lexicon"] == expected
        page = client.get(reverse("admin:annotation_derive_attributes", args=[predicted.pk]))
        assert page.status_code == 200
        assert re.search(r'<option value="framenet-fr-test" selected>', page.content.decode())
        resp = client.post(reverse("admin:annotation_derive_attributes", args=[predicted.pk]), {"seed": 0})
        assert resp.status_code == 302, resp.content
    assert Job.objects.filter(kind=attribute_jobs.JOB_KIND).latest("id").params["lexicon"] == "framenet-fr-test"
    # a job whose params name no lexicon (as older jobs may) resolves it when it runs
    summary = attribute_jobs.derive_corpus(plain_fr, attribute_jobs.DeriveOptions(), progress=None)
    assert summary["lexicon"] == "framenet-fr-mini"


def test_a_context_too_long_for_the_parser_is_reported_and_the_rest_derived(lexicon):
    """Issue 33 point 9: a 1.2M-character context (spaCy's E088, past ``nlp.max_length``) no longer
    fails the whole derivation: the other questions are derived, that one is named by its id."""
    corpus = Corpus.objects.create(name="fr-long")
    common = {"corpus": corpus, "question": "Qui a attaqué Paris ?", "answers": ["Le roi"], "language": "fr"}
    Question.objects.create(
        external_id="ok", context="Le roi attaqua Paris.", frame="Attack", lu="attaquer.v", position=0, **common
    )
    Question.objects.create(
        external_id="huge",
        context="Le roi attaqua Paris. " * 55_000,
        frame="Attack",
        lu="attaquer.v",
        position=1,
        **common,
    )
    job = derive(corpus, lexicon=lexicon.name)
    assert job.status == Job.SUCCEEDED, job.error
    assert job.result["not_parsed"] == [
        {"question": "huge", "reason": "context of 1210000 characters, more than the parser takes"}
    ]
    ok, huge = Question.objects.get(external_id="ok"), Question.objects.get(external_id="huge")
    assert (ok.dist, ok.trigger_in_question) == (1, True)
    assert huge.dist is None and huge.meta == {}
