"""Reports leave out the labels of crowd participants excluded on gold items (SPEC 13) unless
``include_excluded``; the choice is recorded in report.json ``config``."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from annotation import studies
from annotation.models import Label, Participant, Triplet
from bench.kit.crowd import build_study
from core.models import Job
from evaluation.jobs import report_dir, start_report
from evaluation.report_inputs import read_inputs
from evaluation.tasks import build_report

pytestmark = pytest.mark.django_db


def run_report(corpus, user, **params):
    job = start_report(corpus, user, **{"n_boot": 0, "figures": False, **params})
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

    labels = read_inputs(study.corpus).labels
    assert list(labels["annotator"]) == ["A01"]  # SPEC 18: reports name annotators A01..An
    assert list(labels["label"]) == ["incorrect"]  # the good participant's
    labels = read_inputs(study.corpus, include_excluded=True).labels
    assert sorted(labels["annotator"]) == ["A01", "A02"] and sorted(labels["label"]) == ["correct", "incorrect"]

    researcher = make_user("res", "researcher")
    left_out = run_report(study.corpus, researcher)
    kept = run_report(study.corpus, researcher, include_excluded=True)
    hscore = [{r["system"]: r["hscore"] for r in data["systems"]}["sys-a"] for data in (left_out, kept)]
    assert hscore == [pytest.approx(0.0), pytest.approx(0.5)]  # incorrect alone, then (incorrect + correct) / 2
    assert left_out["config"]["include_excluded"] is False
    assert kept["config"]["include_excluded"] is True


def test_ds_report_job_fixes_gold_and_bootstraps_participants(tmp_path, settings, make_user):
    """SPEC 17 through the job: ``ds`` reads the database's gold (fixed), the sensitivity rows carry
    the excluded participant, labels from a study get the two-way bootstrap; one label per triplet is
    refused with SPEC 17's message."""
    from annotation.models import GoldItem

    settings.MEDIA_ROOT = tmp_path / "media"
    study = build_study(tmp_path, n_questions=6, k=1, slots_per_fold=3, gold=2)
    people = [studies.admit(study, (pid, "", ""), token=pid)[0] for pid in ("a", "b", "c")]
    researcher = make_user("res", "researcher")
    triplets = list(Triplet.objects.filter(question__corpus=study.corpus).order_by("pk"))
    Label.objects.bulk_create([Label(triplet=t, annotator=people[0].user, value="correct") for t in triplets])
    refused = start_report(study.corpus, researcher, n_boot=0, figures=False, human_aggregate="ds")
    build_report(refused.pk)
    refused.refresh_from_db()
    assert refused.status == Job.FAILED and "at least 2 labels on at least half" in json.dumps(refused.error)
    gold = set(GoldItem.objects.values_list("triplet_id", flat=True))
    for p, value in ((people[1], "incorrect"), (people[2], "correct")):
        Label.objects.bulk_create(
            [Label(triplet=t, annotator=p.user, value="correct" if t.pk in gold else value) for t in triplets]
        )
    Participant.objects.filter(pk=people[2].pk).update(status="excluded")
    data = run_report(study.corpus, researcher, human_aggregate="ds", n_boot=20)
    assert data["human_aggregate"] == "ds" and data["bootstrap"] == "two-way"
    assert {r["system"] for r in data["crowd_intervals"]} >= {"sys-a"}
    sens = {r["system"]: r for r in data["crowd_sensitivity"]}["sys-a"]
    assert sens["hscore_mean"] == pytest.approx(0.5)  # a and b disagree on every system answer
    assert sens["hscore_mean_all"] == pytest.approx(2 / 3)  # with the excluded c, who says correct
    job = Job.objects.filter(status=Job.SUCCEEDED).latest("pk")
    client = Client()
    client.force_login(researcher)
    page = client.get(reverse("report-detail", args=[job.pk])).content.decode()
    assert 'id="crowd-sensitivity"' in page and "Crowd sensitivity" in page and "Dawid-Skene" in page
    latex = (report_dir(job.pk) / "table1_systems.tex").read_text()
    assert "Crowd sensitivity" in latex
    extras = read_inputs(study.corpus).extras
    labels, from_study = extras.crowd_labels, extras.from_study
    assert from_study and labels["excluded"].sum() == len(triplets)
    assert set(labels.loc[labels["gold"].notna(), "tkey"]) == {f"t{t}" for t in gold}


def test_live_page_offers_ds_and_refuses_it_clearly(tmp_path, make_user, client):
    study = build_study(tmp_path, n_questions=4, k=1)
    person = studies.admit(study, ("solo", "", ""), token="solo")[0]
    for t in Triplet.objects.filter(question__corpus=study.corpus):
        Label.objects.create(triplet=t, annotator=person.user, value="correct")
    client.force_login(make_user("res", "researcher"))
    page = client.get(f"/research/conclusions/?corpus={study.corpus.name}")
    assert page.status_code == 200 and 'value="ds"' in page.content.decode()
    refused = client.get(f"/research/conclusions/?corpus={study.corpus.name}&human_aggregate=ds")
    assert refused.status_code == 200
    assert "Dawid-Skene needs at least 2 labels" in refused.content.decode()
    french = client.get(
        f"/research/conclusions/?corpus={study.corpus.name}&human_aggregate=ds", HTTP_ACCEPT_LANGUAGE="fr"
    )
    assert "Dawid-Skene demande au moins 2 étiquettes" in french.content.decode()
