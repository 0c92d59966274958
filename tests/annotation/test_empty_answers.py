"""No empty answer is ever a triplet, whatever its source (issue 27): the reference, imported system
answers, a model run. The import says how many were left out; the report scores them by rule
(incorrect against a reference answer, as EM does) and says so, the same offline and in the app."""

import json

import numpy as np
import pytest
from django.core.management import call_command

from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus, Label, Prediction, System, Triplet
from annotation.triplet_store import assign_triplets
from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db

BLANKS = ["", " ", "\u00a0\t", "\n"]


@pytest.fixture
def blanked(squad_small, tmp_path):
    """SQuAD small's real predictions with one system abstaining on its first 40 questions (empty or
    whitespace-only answers, as a tool writes an abstention)."""
    text = (squad_small / "predictions.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines()]
    system = rows[0]["system"]
    mine = [r for r in rows if r["system"] == system]
    for i, row in enumerate(mine[:40]):
        row["answer"] = BLANKS[i % len(BLANKS)]
    path = write_jsonl(tmp_path / "predictions.jsonl", rows)
    return {"corpus": squad_small / "corpus.jsonl", "predictions": path, "system": system, "n_rows": len(rows)}


def test_imported_empty_answers_are_kept_as_predictions_but_never_triplets(blanked):
    import_corpus(blanked["corpus"], "small")
    corpus = Corpus.objects.get(name="small")
    result = import_predictions(blanked["predictions"], corpus)
    assert result["predictions"] == blanked["n_rows"]
    assert result["empty_answers"] == 40
    assert result["linked_predictions"] == blanked["n_rows"] - 40
    empty = Prediction.objects.filter(question__corpus=corpus, triplet__isnull=True)
    assert empty.count() == 40 and set(empty.values_list("system__name", flat=True)) == {blanked["system"]}
    assert all(not a.strip() for a in empty.values_list("answer", flat=True))  # the answer is kept as given
    assert not [a for a in Triplet.objects.values_list("answer", flat=True) if not a.strip()]
    # a later pass (a model run of another system) does not relink them, and says how many stay out
    again = assign_triplets(corpus)
    assert again == {"new_triplets": 0, "linked_predictions": 0, "empty_answers": 40, "added_to_folds": 0}


def test_a_model_runs_empty_answers_make_no_triplet(tiny_corpus):
    system = System.objects.create(name="abstainer", kind=System.KIND_MODEL)
    questions = list(tiny_corpus.questions.order_by("position"))
    Prediction.objects.create(system=system, question=questions[0], answer="")
    Prediction.objects.create(system=system, question=questions[1], answer="   ")
    Prediction.objects.create(system=system, question=questions[2], answer="Something new")
    before = Triplet.objects.count()
    result = assign_triplets(tiny_corpus)
    # the tiny corpus already holds one empty answer (sys-gamma on q2), left out at its import
    assert result["empty_answers"] == 3 and result["linked_predictions"] == 1 and result["new_triplets"] == 1
    assert Triplet.objects.count() == before + 1


def test_the_command_says_how_many_empty_answers_were_left_out(blanked, capsys):
    import_corpus(blanked["corpus"], "small")
    call_command("import_predictions", str(blanked["predictions"]), corpus="small")
    assert "40 empty answers (no triplet)" in capsys.readouterr().out


def test_report_scores_empty_answers_as_incorrect_offline_and_in_app_alike(blanked, tmp_path, make_user, settings):
    """Every triplet of the first 60 questions labelled (correct when the answer is the reference's):
    the abstaining system's 40 empty answers count as 40 incorrect labelled answers, in both
    reports, which agree; the note and ``empty_answers`` say it."""
    from evaluation.jobs import report_dir, start_report
    from evaluation.tasks import build_report

    settings.MEDIA_ROOT = tmp_path / "media"
    import_corpus(blanked["corpus"], "small")
    corpus = Corpus.objects.get(name="small")
    import_predictions(blanked["predictions"], corpus)
    annotator, researcher = make_user("ann", "annotator"), make_user("res", "researcher")
    triplets = Triplet.objects.filter(question__corpus=corpus, question__position__lt=60).select_related("question")
    for t in triplets:
        value = "correct" if t.answer in t.question.answers else "incorrect"
        Label.objects.create(triplet=t, annotator=annotator, value=value)
    job = start_report(corpus, researcher, n_boot=0, figures=False)
    build_report(job.pk)
    app = json.loads((report_dir(job.pk) / "report.json").read_text())
    labels = write_jsonl(
        tmp_path / "labels.jsonl",
        [
            {"question_id": t.question.external_id, "answer": t.answer, "annotator": "ann", "label": lab}
            for t, lab in ((lab.triplet, lab.value) for lab in Label.objects.select_related("triplet__question"))
        ],
    )
    call_command(
        "report",
        corpus=str(blanked["corpus"]),
        predictions=str(blanked["predictions"]),
        labels=str(labels),
        out=str(tmp_path / "offline"),
        bootstrap=0,
        no_figures=True,
    )
    offline = json.loads((tmp_path / "offline" / "report.json").read_text())
    assert app["empty_answers"] == offline["empty_answers"] == {blanked["system"]: 40}
    # rows in the order each read the systems (file order offline, import order in the app); ROVER
    # breaks its ties by that order, so only the systems' own rows are compared
    by_system = {r["system"]: r for r in app["systems"] if r["system"] != "ROVER"}
    assert by_system == {r["system"]: r for r in offline["systems"] if r["system"] != "ROVER"}
    row = by_system[blanked["system"]]
    # its labelled answers: the 40 empty ones (rule: incorrect) and its answers to questions 40..59
    mine = Prediction.objects.filter(system__name=blanked["system"], question__position__lt=60)
    human = [
        1.0 if p.answer in p.question.answers else 0.0 for p in mine.select_related("question") if p.triplet_id
    ] + [0.0] * 40
    assert row["hscore"] == pytest.approx(float(np.mean(human)))
    assert any("40 empty answer(s)" in note for note in app["notes"])
