"""One rule for whose labels count (issue 44 point 3): ``annotation.counted.counted_labels``.

The labels of a crowd participant excluded by gold screening are out of every consumer unless asked:
the report, the live page (HTML and API) and the close rule, the prediction-powered and active
estimates, the exports (download and REST). Each consumer is walked here with one excluded
participant whose labels would change what it shows.
"""

import json
from unittest import mock

import numpy as np
import pytest

from annotation import exports, studies
from annotation.counted import counted_labels
from annotation.models import Label, Participant, Prediction, Triplet
from bench.kit.crowd import build_study
from evaluation import judge_inputs
from evaluation.report_inputs import read_inputs

pytestmark = pytest.mark.django_db


@pytest.fixture
def screened(tmp_path, settings):
    """A crowd study where ``good`` labelled one triplet and ``bad``, excluded on gold, labelled four."""
    settings.MEDIA_ROOT = tmp_path / "media"
    study = build_study(tmp_path, n_questions=4, k=1, slots_per_fold=2)
    good, bad = (studies.admit(study, (pid, "", ""), token=pid)[0] for pid in ("good", "bad"))
    triplets = list(Triplet.objects.filter(question__corpus=study.corpus, gold__isnull=True).order_by("id"))
    Label.objects.create(triplet=triplets[0], annotator=good.user, value="incorrect")
    for triplet in triplets[:4]:
        Label.objects.create(triplet=triplet, annotator=bad.user, value="correct")
    Participant.objects.filter(pk=bad.pk).update(status=Participant.EXCLUDED)
    return {"study": study, "corpus": study.corpus, "good": good.user, "bad": bad.user, "triplets": triplets}


def annotators(rows):
    return sorted(set(rows))


def test_the_rule(screened):
    corpus, good, bad = screened["corpus"], screened["good"], screened["bad"]
    assert list(counted_labels(corpus).values_list("annotator_id", flat=True)) == [good.pk]
    assert annotators(counted_labels(corpus, include_excluded=True).values_list("annotator_id", flat=True)) == sorted(
        [good.pk, bad.pk]
    )
    # every corpus at once: excluded in a study of this corpus, so out of this corpus's labels only
    assert list(counted_labels().values_list("annotator_id", flat=True)) == [good.pk]
    Participant.objects.filter(user=bad).update(status=Participant.ACTIVE)
    assert counted_labels(corpus).count() == 5


def test_the_report_and_its_ppi_rows(screened):
    labels = read_inputs(screened["corpus"]).labels
    assert list(labels["label"]) == ["incorrect"]  # the good participant's one label (named A01: SPEC 18)
    labels = read_inputs(screened["corpus"], include_excluded=True).labels
    assert len(labels) == 5


def test_the_live_page_its_api_and_the_close_rule(screened, client, make_user):
    corpus = screened["corpus"]
    _preds, labels = judge_inputs.snapshot(corpus)
    assert list(labels["annotator"]) == [screened["good"].pk]
    client.force_login(make_user("res", "researcher"))
    data = client.get("/research/api/conclusions/", {"corpus": corpus.name}).json()
    labelled = {row["system"]: row["n_human"] for row in data["rows"]}
    # one label counts (the good participant's, on one triplet), not the excluded one's four
    first = Prediction.objects.filter(triplet=screened["triplets"][0], system__name__in=list(labelled))
    assert 0 < sum(labelled.values()) == first.count(), labelled
    page = client.get("/research/conclusions/", {"corpus": corpus.name})
    assert page.status_code == 200
    # the background job of the sequences and the close rule reads the same labels
    from evaluation import live_state

    with mock.patch.object(live_state, "close_reason", return_value=None) as rule:
        stored = live_state.refresh(corpus.pk)
    assert {r["n_labels"] for r in stored.values()} == {1}
    assert rule.call_args is None or rule.call_args.args[1]["n_labels"] == 1


def test_the_active_estimates(screened):
    from models_runner import active_design

    tids = [t.pk for t in screened["triplets"][:4]]
    scores = active_design._pilot_scores(tids, [True] * 4, "hscore", corpus=screened["corpus"])
    assert scores[0] == 0.0 and np.isnan(scores[1:]).all()  # the excluded "correct" labels are not the pilot's


def test_the_exports_download_and_rest(screened, client, make_user):
    corpus, good, bad = screened["corpus"], screened["good"], screened["bad"]
    assert [r["annotator"] for r in exports.label_rows(corpus)] == [good.username]
    assert len(list(exports.label_rows(corpus, include_excluded=True))) == 5
    client.force_login(make_user("res", "researcher"))
    lines = b"".join(client.get("/downloads/labels/", {"corpus": corpus.name}).streaming_content).splitlines()
    assert [json.loads(line)["annotator"] for line in lines] == [good.username]
    asked = client.get("/downloads/labels/", {"corpus": corpus.name, "excluded": "1"})
    assert len(b"".join(asked.streaming_content).splitlines()) == 5
    rest = client.get("/api/labels/", {"corpus": corpus.name}).json()
    rows = rest["results"] if isinstance(rest, dict) else rest
    assert {r["annotator"] for r in rows} == {good.username} and bad.username not in json.dumps(rest)
    rest = client.get("/api/labels/", {"corpus": corpus.name, "excluded": "1"}).json()
    rows = rest["results"] if isinstance(rest, dict) else rest
    assert len(rows) == 5
