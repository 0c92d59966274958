"""HELM runs in (issue 11 point 4): a real suite directory written by crfm-helm 0.5.16's helm-run
(tests/fixtures/helm/make.sh), imported, labelled and reported; bad or partial runs refused."""

import json
import shutil
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.helm import read_helm, split_input
from annotation.interchange import InterchangeError
from annotation.models import Corpus, Label, Prediction, Question, System, Triplet
from evaluation.report.config import ReportConfig
from evaluation.report.pipeline import compute_report
from evaluation.report_inputs import read_inputs

SUITE = Path(__file__).resolve().parents[1] / "fixtures" / "helm" / "suite-qa"
RUN1 = SUITE / "simple_short_answer_qa_em:model=simple_model1"


def test_passage_question_inputs_split_like_helm_writes_them():
    # natural_qa_openbook_longans: PassageQuestionInput(passage_prefix="Passage: ", separator="\n\n")
    assert split_input("Passage: The Eiffel Tower is in Paris.\n\nQuestion: Where is the Eiffel Tower?") == (
        "The Eiffel Tower is in Paris.",
        "Where is the Eiffel Tower?",
    )
    assert split_input("Is 70 even or odd?") == ("", "Is 70 even or odd?")  # closed book: open-domain
    assert split_input("Question: who?") == ("", "Question: who?")


def test_reads_the_real_suite():
    data = read_helm(SUITE)
    assert len(data["questions"]) == 8 and [r["system"] for r in data["runs"]] == ["simple/model1", "simple/model2"]
    q = next(q for q in data["questions"] if q["id"] == "id60")
    assert q == {
        "id": "id60",
        "context": "",
        "question": "Is 70 even or odd?",
        "answers": ["Even"],
        "meta": {"helm_split": "test"},
    }
    assert data["runs"][0]["answers"]["id60"] == "Answer:"  # HELM's SimpleClient echoes the prompt's last token
    assert data["runs"][0]["meta"]["helm"]["adapter_spec"]["model_deployment"] == "simple/model1"


@pytest.mark.django_db
def test_suite_imports_and_reports(make_user, capsys):
    call_command("import_helm", str(SUITE), "--corpus", "helm-qa")
    assert (
        "8 questions, 16 predictions of 2 systems (simple/model1, simple/model2) from 2 runs" in capsys.readouterr().out
    )
    corpus = Corpus.objects.get(name="helm-qa")
    assert Question.objects.filter(corpus=corpus, context="").count() == 8
    system = System.objects.get(name="simple/model2")
    assert system.meta["helm"]["run_spec"] == "simple_short_answer_qa_em:model=simple_model2"
    assert system.meta["helm"]["scenario_spec"]["class_name"].endswith("SimpleShortAnswerQAScenario")
    assert Prediction.objects.filter(system=system, answer="Answer:").count() == 8
    assert Triplet.objects.filter(question__corpus=corpus).count() == 16  # the reference and "Answer:" per question
    people = [make_user("a1", "annotator"), make_user("a2", "annotator")]
    for t in Triplet.objects.filter(question__corpus=corpus):
        for p in people:
            Label.objects.create(triplet=t, annotator=p, value="incorrect" if t.answer == "Answer:" else "correct")
    q, p, l = read_inputs(corpus).tables
    rows = {r["system"]: r for r in compute_report(q, p, l, config=ReportConfig(n_boot=0)).data["systems"]}
    assert rows["simple/model1"]["hscore"] == 0.0 and rows["reference"]["hscore"] == 1.0
    assert rows["simple/model1"]["em"] == 0.0 and rows["reference"]["em"] == 1.0
    # a single run directory of the same scenario adds nothing new: same questions, model already there
    with pytest.raises(CommandError, match="already has a prediction"):
        call_command("import_helm", str(RUN1), "--corpus", "helm-qa")
    assert Prediction.objects.count() == 24


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (
            lambda d: (d / RUN1.name / "scenario_state.json").unlink(),
            "partial HELM run directory: scenario_state.json missing",
        ),
        (lambda d: (d / RUN1.name / "run_spec.json").write_text('{"name": '), "malformed JSON"),
        (
            lambda d: _edit(d / RUN1.name / "run_spec.json", lambda s: s["scenario_spec"].update(class_name="other")),
            "has another scenario",
        ),
        (
            lambda d: _edit(
                d / RUN1.name / "scenario_state.json", lambda s: s["request_states"][0]["instance"].pop("input")
            ),
            r"scenario_state.json:request_states\[0\]: field 'input.text': missing required field",
        ),
        (lambda d: shutil.copytree(d / RUN1.name, d / "copy"), "appears in two runs"),
        (lambda d: [shutil.rmtree(x) for x in d.iterdir()], "no HELM run directory here"),
    ],
)
def test_bad_or_partial_runs_import_nothing(tmp_path, damage, message):
    suite = tmp_path / "suite"
    shutil.copytree(SUITE, suite)
    damage(suite)
    from annotation.importers import import_helm

    with pytest.raises(InterchangeError, match=message):
        import_helm(suite, "helm-bad")
    assert not Corpus.objects.exists() and not Prediction.objects.exists() and not System.objects.exists()


def _edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
