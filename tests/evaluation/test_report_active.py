"""Active estimates (SPEC 12) in every report path: the offline command with ``--judge-labels`` and
``--design``, the app's report job over a corpus whose folds were drawn by the active design, the
report page's card, the paper table (compiled), and the uniform fallback said in the report."""

import json
import shutil
import subprocess

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from annotation import fold_store
from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus, FoldItem, Label, Triplet
from evaluation.jobs import report_dir, start_report
from evaluation.report.inputs import questions_frame, read_design
from evaluation.tasks import build_report
from models_runner.judging import import_judge_labels
from stats import active as stats_active
from tests.conftest import require, write_jsonl

N = 40


def files(tmp_path, *, probs=True):
    """In ``tmp_path`` (created): a corpus of N questions, system ``sys`` right on even questions; every
    triplet judged; a design file that sampled every third triplet with known chances; human labels on
    the sampled ones."""
    corpus = [{"id": f"q{i}", "context": f"c{i}", "question": f"Q{i}?", "answers": [f"a{i}"]} for i in range(N)]
    preds = [{"question_id": f"q{i}", "system": "sys", "answer": f"a{i}" if i % 2 == 0 else f"b{i}"} for i in range(N)]
    judge, design, labels = [], [], []
    for i in range(N):
        right = i % 2 == 0
        row = {"question_id": f"q{i}", "answer": preds[i]["answer"], "annotator": "j", "label": "correct"}
        if probs:
            row["probs"] = (
                {"correct": 0.9, "partial": 0.05, "incorrect": 0.05} if right else {"correct": 0.5, "incorrect": 0.5}
            )
        judge.append(row)
        sampled = i % 3 == 0
        design.append(
            {"question_id": f"q{i}", "answer": preds[i]["answer"], "pi": 0.3 if right else 0.6, "sampled": sampled}
        )
        if sampled:
            labels.append({**row, "annotator": "ann", "label": "correct" if right else "incorrect"})
            labels[-1].pop("probs", None)
    tmp_path.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, rows in (
        ("corpus", corpus),
        ("predictions", preds),
        ("judge", judge),
        ("design", design),
        ("labels", labels),
    ):
        paths[name] = write_jsonl(tmp_path / f"{name}.jsonl", rows)
    return paths


def offline(paths, out, **extra):
    call_command(
        "report",
        corpus=str(paths["corpus"]),
        predictions=str(paths["predictions"]),
        labels=str(paths["labels"]),
        judge_labels=str(paths["judge"]),
        design=str(paths["design"]),
        out=str(out),
        bootstrap=0,
        no_figures=True,
        no_reference_system=True,
        **extra,
    )
    return json.loads((out / "report.json").read_text())


def test_offline_report_gives_the_active_rows_by_hand(tmp_path):
    paths = files(tmp_path)
    data = offline(paths, tmp_path / "out")
    (row,) = [r for r in data["active"] if r["metric"] == "hscore"]
    # the same numbers from the pure function, on the arrays written above
    i = np.arange(N)
    right = i % 2 == 0
    h = np.where(right, 1.0, 0.0)
    f = np.where(right, 0.9 + 0.025, 0.5)
    e = stats_active.estimate(h, f, xi=i % 3 == 0, pi=np.where(right, 0.3, 0.6))
    assert row["estimate"] == pytest.approx(e["estimate"]) and row["lambda"] == pytest.approx(e["lambda"])
    assert row["beta"] == pytest.approx(e["beta"])
    assert (row["n_total"], row["n_sampled"], row["n_labeled"]) == (N, 14, 14)
    assert data["active_design"]["kind"] == "active" and data["config"]["design"] == "active"
    assert data["active_design"]["progress"] == "14 of 14 sampled triplets labelled"
    assert any(n.startswith("active estimates (active design)") for n in data["notes"])
    assert (tmp_path / "out" / "table_active.tex").exists() and (tmp_path / "out" / "active.csv").exists()
    # SPEC 16: labels drawn with unequal chances are not a uniform sample: no confidence sequence
    assert data["live"] is None or (data["live"]["active_design"] and data["live"]["rows"] == [])
    assert all(r["cs_low"] is None and r["classical_cs_high"] is None for r in data["ppi"])
    assert any(n.startswith("confidence sequences: none with an active design") for n in data["notes"])


def test_offline_report_without_probabilities_says_uniform(tmp_path):
    paths = files(tmp_path, probs=False)
    design = [json.loads(x) for x in paths["design"].read_text().splitlines()]
    paths["design"] = write_jsonl(tmp_path / "uniform.jsonl", [{**d, "pi": 0.35} for d in design])
    data = offline(paths, tmp_path / "out")
    assert data["active_design"]["kind"] == "uniform"
    assert "same chance" in data["active_design"]["reason"]
    assert any("uniform design" in n for n in data["notes"])
    assert "uniform design" in (tmp_path / "out" / "table_active.tex").read_text()


def test_offline_design_with_phases_applies_the_completion_rates_per_phase(tmp_path):
    paths = files(tmp_path)
    lines = [json.loads(x) for x in paths["design"].read_text().splitlines()]
    # the even questions (pi 0.3) are the pilot, the odd ones (pi 0.6) the main sample; p1 = 0.3
    phased = [
        {**d, "phase": ("pilot" if d["pi"] == 0.3 else "main") if d["sampled"] else None, "p1": 0.3} for d in lines
    ]
    paths["design"] = write_jsonl(tmp_path / "phased.jsonl", phased)
    labels = [json.loads(x) for x in paths["labels"].read_text().splitlines()]
    main_labelled = [x for x in labels if int(x["question_id"][1:]) % 2 == 1]
    dropped = main_labelled[0]
    paths["labels"] = write_jsonl(tmp_path / "fewer.jsonl", [x for x in labels if x is not dropped])
    data = offline(paths, tmp_path / "out")
    (row,) = [r for r in data["active"] if r["metric"] == "hscore"]
    # by hand: r1 = 1, r2 = (m - 1) / m; pi = p1 + (1 - p1) pi2 r2 with pi2 = (pi - p1) / (1 - p1)
    i = np.arange(N)
    right = i % 2 == 0
    sampled = i % 3 == 0
    m = int((sampled & ~right).sum())
    r2 = (m - 1) / m
    pi = np.where(right, 0.3, 0.3 + 0.7 * ((0.6 - 0.3) / 0.7) * r2)
    xi = sampled & (i != int(dropped["question_id"][1:]))
    h, f = np.where(right, 1.0, 0.0), np.where(right, 0.9 + 0.025, 0.5)
    e = stats_active.estimate(h, f, xi=xi, pi=pi)
    assert row["estimate"] == pytest.approx(e["estimate"]) and row["beta"] == pytest.approx(e["beta"])
    assert data["active_design"]["rates"] == pytest.approx({"pilot": 1.0, "main": r2})
    bad = write_jsonl(tmp_path / "bad.jsonl", [{**phased[0], "phase": "middle"}])
    with pytest.raises(CommandError, match="phase must be pilot, main or null"):
        offline({**paths, "design": bad}, tmp_path / "out")


def test_offline_design_errors(tmp_path):
    paths = files(tmp_path)
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"question_id": "q1", "answer": "b1", "pi": 0, "sampled": True}])
    with pytest.raises(CommandError, match=r"bad.jsonl:1.*pi must be a number in \(0, 1\]"):
        offline({**paths, "design": bad}, tmp_path / "out")
    bad = write_jsonl(tmp_path / "bad2.jsonl", [{"question_id": "q1", "answer": "b1", "pi": 0.5, "sampled": "yes"}])
    with pytest.raises(CommandError, match="sampled must be true or false"):
        offline({**paths, "design": bad}, tmp_path / "out")
    judge = write_jsonl(
        tmp_path / "j.jsonl",
        [{"question_id": "q1", "answer": "b1", "annotator": "j", "label": "correct", "probs": [1]}],
    )
    with pytest.raises(CommandError, match=r"j.jsonl:1.*probs must be an object"):
        offline({**paths, "judge": judge}, tmp_path / "out")


def test_the_paper_table_compiles(tmp_path):
    require(shutil.which("pdflatex"), "pdflatex not installed (bin/test installs texlive-latex-recommended)")
    paths = files(tmp_path)
    offline(paths, tmp_path / "out")
    for name in ("table_active.tex", "active.tex"):
        run = subprocess.run(
            [
                "pdflatex",
                "-interaction=nonstopmode",
                "-halt-on-error",
                "-output-directory",
                str(tmp_path),
                str(tmp_path / "out" / name),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stdout[-2000:]


@pytest.mark.django_db
def test_app_report_over_an_active_design_while_labelling(tmp_path, settings, make_user, client):
    settings.MEDIA_ROOT = tmp_path / "media"
    paths = files(tmp_path)
    import_corpus(paths["corpus"], "act")
    corpus = Corpus.objects.get(name="act")
    import_predictions(paths["predictions"], corpus)
    import_judge_labels(paths["judge"], corpus)
    call_command("build_folds", corpus="act", k=2, seed=0, overlap=0, design="active", budget="20", judge="j")
    sampled = list(FoldItem.objects.filter(fold__corpus=corpus).values_list("triplet_id", flat=True))
    ann = make_user("ann", "annotator")
    done = sampled[: len(sampled) // 2]  # half of the sample labelled
    for tid in done:
        t = Triplet.objects.get(pk=tid)
        Label.objects.create(triplet=t, annotator=ann, value="correct" if t.answer.startswith("a") else "incorrect")
    researcher = make_user("res", "researcher")
    job = start_report(corpus, researcher, n_boot=0, figures=False, judge="j")
    build_report(job.pk)
    job.refresh_from_db()
    data = json.loads((report_dir(job.pk) / "report.json").read_text())
    design = data["active_design"]
    assert design["kind"] == "active" and design["n_sampled"] == len(sampled) and design["n_labeled"] == len(done)
    assert design["progress"] == f"{len(done)} of {len(sampled)} sampled triplets labelled (completion-rate rule)"
    assert design["completion"] == pytest.approx(len(done) / len(sampled))
    assert {r["system"] for r in data["active"]} >= {"sys"}
    assert design["pilot"] == {
        "size": len(sampled),
        "labeled": len(done),
        "main": 0,
        "progress": f"pilot {len(done)} of {len(sampled)} labelled",
    }
    assert design["rho"] == 0.2 and design["main_open"] is False and design["model"] is None
    client.force_login(researcher)
    html = client.get(f"/research/reports/{job.pk}/").content.decode()
    assert 'id="active-estimates"' in html and "completion-rate rule" in html
    # issue 45: the design's estimates first, the plain means of the systems table said to be biased
    assert html.index('id="active-estimates"') < html.index('id="systems-table"') < html.index('id="ppi-estimates"')
    assert 'id="plain-mean-biased"' in html and "they are biased" in html
    assert f"pilot {len(done)} of {len(sampled)} labelled" in html
    assert "the main sample opens when every pilot triplet is labelled" in html
    assert "What the design buys" in html and "vs uniform PPI++" in html
    # the design exported as the offline report's design file, phase and p1 included
    body = b"".join(client.get("/downloads/design/?corpus=act").streaming_content).decode()
    lines = [json.loads(x) for x in body.splitlines()]
    assert len(lines) == Triplet.objects.filter(question__corpus=corpus).count()
    assert {x["phase"] for x in lines if x["sampled"]} == {"pilot"} and sum(x["sampled"] for x in lines) == len(sampled)
    assert {round(x["p1"], 9) for x in lines} == {round(x["pi"], 9) for x in lines} == {round(0.2 * 20 / len(lines), 9)}
    read = read_design(
        write_jsonl(tmp_path / "exported.jsonl", lines),
        questions_frame([json.loads(x) for x in paths["corpus"].read_text().splitlines()]),
    )
    assert read["phase"].fillna("-").tolist() == [x["phase"] or "-" for x in lines]
    assert client.get("/downloads/design/").status_code == 400
    html = client.get(f"/research/reports/{job.pk}/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert f"pilote : {len(done)} sur {len(sampled)} étiquetés" in html and "Ce que le plan apporte" in html
    assert "(règle du taux d’achèvement)" in html  # the notes of the computation stay English (lang="en")


def test_labels_to_settle_by_hand():
    a = {"estimate": 0.70, "ci_low": 0.62, "ci_high": 0.78}
    b = {"estimate": 0.60, "ci_low": 0.52, "ci_high": 0.68}
    # half-widths 0.08 + 0.08 = 0.16 against a difference of 0.10: k grows by (0.16 / 0.10)^2 = 2.56
    assert stats_active.labels_to_settle(a, b, 100) == 156
    assert stats_active.labels_to_settle(a, {**b, "estimate": 0.4, "ci_low": 0.35, "ci_high": 0.45}, 100) == 0
    assert stats_active.labels_to_settle(a, {**b, "ci_low": None}, 100) is None


@pytest.mark.django_db
def test_live_page_shows_the_active_design_and_labels_to_settle(tmp_path, make_user, client):
    paths = files(tmp_path)
    import_corpus(paths["corpus"], "act")
    corpus = Corpus.objects.get(name="act")
    import_predictions(paths["predictions"], corpus)
    import_judge_labels(paths["judge"], corpus)
    call_command("build_folds", corpus="act", k=2, seed=0, overlap=0, design="active", budget="20", judge="j")
    sampled = list(FoldItem.objects.filter(fold__corpus=corpus).values_list("triplet_id", flat=True))
    ann = make_user("ann", "annotator")
    for tid in sampled[: len(sampled) // 2]:
        t = Triplet.objects.get(pk=tid)
        Label.objects.create(triplet=t, annotator=ann, value="correct" if t.answer.startswith("a") else "incorrect")
    client.force_login(make_user("res", "researcher"))
    html = client.get("/research/conclusions/panel/?corpus=act").content.decode()
    k = len(sampled) // 2
    assert 'id="active-live"' in html and f"{k} of {len(sampled)} sampled triplets labelled" in html
    assert f"pilot {k} of {len(sampled)} labelled" in html and "What the design buys" in html
    assert "Labels that would settle each pair" in html
    body = client.get("/research/api/conclusions/?corpus=act").json()
    act = body["active"]
    assert act["judge"] == "j" and act["design"]["n_labeled"] == k
    assert {r["system"] for r in act["rows"]} == {"sys", "reference"}
    (pair,) = act["pairs"]
    # SPEC 16 (amended): no pair is called settled before the whole drawn sample is labelled
    assert not pair["settled"] and not act["sample_labelled"] and 'data-sample-labelled="no"' in html
    # the rest of the pilot labelled: the main sample opens; a pilot this small falls back to uniform and says why
    for tid in sampled[len(sampled) // 2 :]:
        t = Triplet.objects.get(pk=tid)
        Label.objects.create(triplet=t, annotator=ann, value="correct" if t.answer.startswith("a") else "incorrect")
    assert fold_store.open_main_if_ready(corpus)
    body = client.get("/research/api/conclusions/?corpus=act").json()
    design = body["active"]["design"]
    assert design["kind"] == "uniform" and "fewer than 50" in design["reason"] and design["main_open"]
    html = client.get("/research/conclusions/panel/?corpus=act").content.decode()
    assert "fewer than 50" in html and "main sample:" in html
    assert all("vs_uniform_ppi" in r for r in body["active"]["rows"])
