"""Reports leave out the labels of crowd participants excluded on gold items (SPEC 13) unless
``include_excluded``; the choice is recorded in report.json ``config``."""

import json

import pytest

from annotation import studies
from annotation.models import Label, Participant, Triplet
from bench.kit.crowd import build_study
from core.models import Job
from evaluation import database
from evaluation.jobs import report_dir, start_report
from evaluation.tasks import build_report

pytestmark = pytest.mark.django_db


def run_report(corpus, user, **params):
    job = start_report(corpus, user, n_boot=0, figures=False, **params)
    build_report(job.pk)
    job.refresh_from_db()
    assert job.status == Job.SUCCEEDED, job.error
    return json.loads((report_dir(job.pk) / "report.json").read_text())


def test_excluded_participants_are_left_out_unless_asked(tmp_path, settings, make_user):
    settings.MEDIA_ROOT = tmp_path / "media"
    study = build_study(tmp_path, n_questions=4, k=1, slots_per_fold=2)
    good, bad = (studies.admit(study, (pid, "", ""), token=pid)[0] for pid in ("good", "bad"))
    triplet = Triplet.objects.get(question__corpus=study.corpus, question__external_id="c0", answer="lake 0")
    Label.objects.create(triplet=triplet, annotator=good.user, value="incorrect")
    Label.objects.create(triplet=triplet, annotator=bad.user, value="correct")
    Participant.objects.filter(pk=bad.pk).update(status="excluded")

    _q, _p, labels = database.report_inputs(study.corpus)
    assert list(labels["annotator"]) == ["A01"]  # SPEC 18: reports name annotators A01..An
    assert list(labels["label"]) == ["incorrect"]  # the good participant's
    _q, _p, labels = database.report_inputs(study.corpus, include_excluded=True)
    assert sorted(labels["annotator"]) == ["A01", "A02"] and sorted(labels["label"]) == ["correct", "incorrect"]

    researcher = make_user("res", "researcher")
    left_out = run_report(study.corpus, researcher)
    kept = run_report(study.corpus, researcher, include_excluded=True)
    hscore = [{r["system"]: r["hscore"] for r in data["systems"]}["sys-a"] for data in (left_out, kept)]
    assert hscore == [pytest.approx(0.0), pytest.approx(0.5)]  # incorrect alone, then (incorrect + correct) / 2
    assert left_out["config"]["include_excluded"] is False
    assert kept["config"]["include_excluded"] is True
