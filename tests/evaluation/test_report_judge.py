"""The seams between the judge (SPEC 10), gold items, adjudication and majority aggregation (SPEC 3)
in the app's report: choosing the judge on the form and in the API, gold triplets kept out of the
prediction-powered rows, adjudicated + majority + judge composing as SPEC 3 and 10 say."""

import json

import numpy as np
import pytest

from annotation.models import Adjudication, Corpus, GoldItem, Label, Triplet
from core.models import Job
from evaluation.jobs import report_dir, start_report
from evaluation.judge_inputs import sample_facts
from evaluation.tasks import build_report
from models_runner.models import Judge, JudgeLabel
from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db

# sys's answers a1..a6 (triplets of their own); the human labels (annotators x, y, z) and the judge's
ANSWERS = [f"answer {i}" for i in range(1, 7)]
HUMAN = {
    1: {"x": "correct", "y": "incorrect", "z": "incorrect"},  # adjudicated: correct
    2: {"x": "correct", "y": "correct", "z": "partial"},  # majority correct (mean 5/6)
    3: {"x": "partial", "y": "partial", "z": "incorrect"},
}  # majority partial (mean 1/3)
JUDGE = {1: "correct", 2: "correct", 3: "partial", 4: "correct", 5: "incorrect", 6: "partial"}
VALUE = {"correct": 1.0, "partial": 0.5, "incorrect": 0.0}


@pytest.fixture
def study(tmp_path, db, make_user, settings):
    from annotation.importers import import_corpus, import_predictions

    settings.MEDIA_ROOT = tmp_path / "media"
    import_corpus(
        write_jsonl(
            tmp_path / "c.jsonl",
            [
                {
                    "id": f"q{i}",
                    "context": f"Passage {i} says gold {i}.",
                    "question": f"Question {i}?",
                    "answers": [f"gold {i}"],
                }
                for i in range(1, 7)
            ],
        ),
        "study",
    )
    corpus = Corpus.objects.get(name="study")
    import_predictions(
        write_jsonl(
            tmp_path / "p.jsonl",
            [{"question_id": f"q{i}", "system": "sys", "answer": ANSWERS[i - 1]} for i in range(1, 7)],
        ),
        corpus,
    )
    t = {
        i: Triplet.objects.get(question__corpus=corpus, question__external_id=f"q{i}", answer=ANSWERS[i - 1])
        for i in range(1, 7)
    }
    users = {name: make_user(name, "annotator") for name in "xyz"}
    for i, labels in HUMAN.items():
        for name, value in labels.items():
            Label.objects.create(triplet=t[i], annotator=users[name], value=value)
    j1, j2 = Judge.objects.create(name="j1", kind="file"), Judge.objects.create(name="j2", kind="file")
    JudgeLabel.objects.bulk_create(
        [JudgeLabel(judge=j1, triplet=t[i], value=v, source="import") for i, v in JUDGE.items()]
    )
    JudgeLabel.objects.bulk_create(
        [JudgeLabel(judge=j2, triplet=t[i], value="partial", source="import") for i in (1, 2)]
    )
    Judge.objects.create(name="silent", kind="file")  # no labels anywhere
    researcher = make_user("res", "researcher")
    return {"corpus": corpus, "t": t, "researcher": researcher, "admin": make_user("adm", "admin")}


def run(job):
    build_report(job.pk)
    job.refresh_from_db()
    assert job.status == Job.SUCCEEDED, job.error
    return json.loads((report_dir(job.pk) / "report.json").read_text())


def ppi_row(data, metric="hscore", system="sys"):
    return next(r for r in data["ppi"] if r["system"] == system and r["metric"] == metric)


def by_hand(h, f, fu):
    """SPEC 10, written out again (independent of evaluation.science.ppi), with SPEC 16's floor: each
    sample variance at least n / (n + 1)^2 while predictions remain unlabelled, the estimate in [0, 1]."""
    h, f, fu = (np.array(a, dtype=float) for a in (h, f, fu))
    n, nu = len(h), len(fu)
    lam = min(1.0, max(0.0, np.cov(h, f, ddof=1)[0, 1] / ((1 + n / nu) * np.concatenate([f, fu]).var(ddof=1))))
    theta = (h - lam * f).mean() + lam * fu.mean()
    floor = n / (n + 1) ** 2
    var = max((h - lam * f).var(ddof=1), floor) / n + lam**2 * fu.var(ddof=1) / nu
    gain = (max(h.var(ddof=1), floor) / n) / var
    return lam, min(max(theta, 0.0), 1.0), theta - 1.96 * np.sqrt(var), theta + 1.96 * np.sqrt(var), gain


# --- 1. the judge chosen on the form and in the API --------------------------------------------


def test_form_offers_the_judges_most_labels_first_and_starts_the_chosen_one(study, client):
    client.force_login(study["researcher"])
    page = client.get("/research/").content.decode()
    select = page[page.index('name="judge"') : page.index("</select>", page.index('name="judge"'))]
    assert '<option value="">none</option>' in select and "silent" not in select  # only judges with labels
    assert select.index('value="j1"') < select.index('value="j2"')
    assert '<option value="j1" selected>' in select  # the most labels: the default
    base = {"corpus": "study", "alpha": 5, "metric": "hscore", "n_boot": 0, "human_aggregate": "mean"}
    assert client.post("/research/", {**base, "judge": "j2"}).status_code == 302
    job = Job.objects.filter(kind="report").latest("id")
    assert job.params["judge"] == "j2"
    data = run(job)
    assert data["judge"]["name"] == "j2" and data["judge"]["n_labels"] == 2
    assert client.post("/research/", {**base, "judge": ""}).status_code == 302
    job = Job.objects.filter(kind="report").latest("id")
    assert job.params["judge"] == "" and run(job)["ppi"] == [] and run(job)["judge"] is None
    bad = client.post("/research/", {**base, "judge": "silent"})
    assert bad.status_code == 400 and "silent is not one of the available choices" in bad.content.decode()


def test_form_rejects_a_judge_without_labels_in_the_chosen_corpus(study, client, tmp_path):
    from annotation.importers import import_corpus

    import_corpus(
        write_jsonl(tmp_path / "o.jsonl", [{"id": "o1", "context": "c", "question": "q?", "answers": ["a"]}]), "other"
    )
    client.force_login(study["researcher"])
    resp = client.post("/research/", {"corpus": "other", "alpha": 5, "metric": "hscore", "n_boot": 0, "judge": "j1"})
    assert resp.status_code == 400 and "judge j1 has no labels in corpus other; choose none" in resp.content.decode()


def test_api_takes_the_judge_and_adjudicated(study, client):
    client.force_login(study["researcher"])

    def post(**body):
        return client.post(
            "/research/api/reports/", {"corpus": "study", "n_boot": 0, **body}, content_type="application/json"
        )

    default = post()
    assert default.status_code == 202
    assert run(Job.objects.get(pk=default.json()["id"]))["judge"]["name"] == "j1"  # absent: the most labels
    chosen = post(judge="j2", adjudicated=True)
    job = Job.objects.get(pk=chosen.json()["id"])
    assert job.params["judge"] == "j2" and job.params["adjudicated"] is True
    assert run(job)["judge"]["name"] == "j2"
    none = Job.objects.get(pk=post(judge="").json()["id"])
    assert run(none)["ppi"] == []
    bad = post(judge="silent")
    assert bad.status_code == 400 and bad.json()["judge"] == ["judge 'silent' has no labels in corpus study"]


# --- 2. gold items: in the systems table, not in the prediction-powered rows --------------------


def test_gold_triplets_count_in_human_scores_but_not_in_the_ppi_sample(study):
    t = study["t"]
    GoldItem.objects.create(triplet=t[1], expected="incorrect")
    facts = sample_facts(study["corpus"])
    assert facts["gold"] == 1 and facts["gold_keys"] == [f"t{t[1].pk}"]
    data = run(start_report(study["corpus"], study["researcher"], n_boot=0, figures=False, judge="j1"))
    system = next(r for r in data["systems"] if r["system"] == "sys")
    assert system["hscore"] == pytest.approx((1 / 3 + 5 / 6 + 1 / 3) / 3)  # gold labels count (mean, SPEC 3)
    row = ppi_row(data)
    # the gold triplet 1 counts as unlabeled: humans on triplets 2 and 3, the judge alone on 1, 4, 5, 6
    assert row["n_human"] == 2 and row["n_total"] == 6
    assert row["classical"] == pytest.approx((5 / 6 + 1 / 3) / 2)
    lam, theta, low, high, gain = by_hand([5 / 6, 1 / 3], [1, 0.5], [1, 1, 0, 0.5])
    assert 0 < lam < 1
    assert (row["lambda"], row["estimate"], row["ci_low"], row["ci_high"], row["gain"]) == pytest.approx(
        (lam, theta, low, high, gain)
    )
    gold = next(r for r in data["judge"]["validity"] if r["reason"].startswith("gold items"))
    assert gold["count"] == 1 and "left out of the prediction-powered rows" in gold["handling"]
    assert any(n.startswith("prediction-powered estimates: gold items") for n in data["notes"])
    assert "gold_keys" not in json.dumps(data["judge"])


def test_without_gold_the_same_labels_are_in_the_ppi_sample(study):
    data = run(start_report(study["corpus"], study["researcher"], n_boot=0, figures=False, judge="j1"))
    row = ppi_row(data)
    assert row["n_human"] == 3 and row["classical"] == pytest.approx(
        next(r["hscore"] for r in data["systems"] if r["system"] == "sys")
    )
    assert not any(r["reason"].startswith("gold items") for r in data["judge"]["validity"])


# --- 4. adjudicated labels + majority aggregation + a judge ------------------------------------


def test_adjudicated_majority_and_judge_compose(study):
    Adjudication.objects.create(triplet=study["t"][1], value="correct", adjudicator=study["admin"])
    job = start_report(
        study["corpus"],
        study["researcher"],
        n_boot=0,
        figures=False,
        judge="j1",
        adjudicated=True,
        human_aggregate="majority",
    )
    data = run(job)
    assert data["human_aggregate"] == "majority"
    # SPEC 3 by hand: triplet 1 adjudicated correct (1), 2 majority correct (1), 3 majority partial (0.5)
    h_score, h_correct = [1.0, 1.0, 0.5], [1.0, 1.0, 0.0]
    system = next(r for r in data["systems"] if r["system"] == "sys")
    assert system["hscore"] == pytest.approx(2.5 / 3) and system["hcorrect"] == pytest.approx(200 / 3)
    assert system["coverage"] == 0.5
    f = [VALUE[JUDGE[i]] for i in range(1, 7)]
    for metric, h, f_m, scale in (("hscore", h_score, f, 1), ("hcorrect", h_correct, [float(v == 1) for v in f], 100)):
        row = ppi_row(data, metric)
        assert row["n_human"] == 3 and row["n_total"] == 6
        assert row["classical"] == pytest.approx(scale * np.mean(h))  # the systems table's value
        lam, theta, low, high, gain = by_hand(h, f_m[:3], f_m[3:])
        assert row["lambda"] == pytest.approx(lam) and row["gain"] == pytest.approx(gain)
        assert (row["estimate"], row["ci_low"], row["ci_high"]) == pytest.approx(
            (scale * theta, scale * low, scale * high)
        )
    assert ppi_row(data)["lambda"] == pytest.approx(0.25)  # 1/12 / (2 * 1/6)
    # the judge's agreement is over the adjudicated labels too: 3 labels of triplet 1, all correct now
    assert data["judge"]["agreement"]["confusion"]["correct"]["correct"] == 3 + 2
    # without the two options the same data give the plain mean (the options really reach the rows)
    plain = run(start_report(study["corpus"], study["researcher"], n_boot=0, figures=False, judge="j1"))
    assert ppi_row(plain)["classical"] == pytest.approx((1 / 3 + 5 / 6 + 1 / 3) / 3)


# --- 3. the report page shows the ppi rows in a card of their own ------------------------------


def test_report_page_shows_the_ppi_card_only_with_a_judge(study, client):
    client.force_login(study["researcher"])
    with_judge = start_report(study["corpus"], study["researcher"], n_boot=0, figures=False, judge="j1")
    row = ppi_row(run(with_judge))
    html = client.get(f"/research/reports/{with_judge.pk}/").content.decode()
    card = html[html.index('id="ppi-estimates"') :]
    card = card[: card.index('id="ppi-hcorrect"')]
    assert "judge j1" in card and 'data-system="sys"' in card
    assert f"<strong>{row['estimate']:.3f}</strong>" in card and f"{row['ci_low']:.3f} – {row['ci_high']:.3f}" in card
    without = start_report(study["corpus"], study["researcher"], n_boot=0, figures=False, judge="")
    run(without)
    assert 'id="ppi-estimates"' not in client.get(f"/research/reports/{without.pk}/").content.decode()


def test_live_conclusions_leave_gold_labels_out_only_with_a_judge():
    import pandas as pd

    from evaluation.science import live_parts

    predictions = pd.DataFrame({"system": "a", "tkey": [f"t{i}" for i in range(6)]})
    labels = pd.DataFrame(
        {"tkey": ["t0", "t1", "t2"], "annotator": "ann", "label": ["correct", "incorrect", "partial"]}
    )
    judge = pd.DataFrame(
        {
            "tkey": [f"t{i}" for i in range(6)],
            "annotator": "j",
            "label": ["correct", "incorrect", "partial", "correct", "incorrect", "correct"],
        }
    )
    facts = {"gold": 1, "gold_keys": ["t0"]}
    with_judge = live_parts.conclusions(predictions, labels, judge, facts=facts)
    assert with_judge["rows"][0]["n_human"] == 2 and with_judge["n_human"] == 2
    assert any(r["reason"].startswith("gold items") for r in with_judge["reasons"])
    without = live_parts.conclusions(predictions, labels, None, facts=facts)
    assert without["rows"][0]["n_human"] == 3 and without["rows"][0]["estimate"] == 0.5  # the systems table's mean
