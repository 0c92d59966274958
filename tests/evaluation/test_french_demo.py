"""The French demo (issue 25, point 2): ``load_demo --lang fr`` on PIAF small, its counts, the
demo users' French pages, a rerun that changes nothing, and a report on it."""

import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.dedup import normalize_answer
from annotation.models import Corpus, Fold, FoldItem, Prediction, Question, System, Triplet
from core.models import UserPreference
from core.runner import run_job
from evaluation.jobs import report_body, report_dir, start_report
from frames.models import FrameDef, FrameLexicon
from models_runner import lexical

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_load_demo_fr_on_piaf_small(piaf_small_dir, tmp_path, settings, client):
    settings.VAR_DIR = tmp_path / "var"
    rows = [json.loads(line) for line in (piaf_small_dir / "corpus.jsonl").open(encoding="utf-8")]
    call_command("load_demo", lang="fr", annotators=3, password="demo-pass-12345")

    corpus = Corpus.objects.get(name="piaf-small")
    assert corpus.language == "fr"
    assert Question.objects.filter(corpus=corpus).count() == len(rows) == 857
    systems = dict(System.objects.filter(predictions__question__corpus=corpus).values_list("name", "kind").distinct())
    assert systems == {"reference": "reference", "baseline": "model", "tiny-bert-fr": "model"}
    for name in systems:
        assert Prediction.objects.filter(system__name=name, question__corpus=corpus).count() == 857
    # the reference is the first answer of each line; the baseline answers are the lexical heuristic's
    by_id = {r["id"]: r for r in rows}
    for external_id, answer in Prediction.objects.filter(system__name="baseline", question__corpus=corpus).values_list(
        "question__external_id", "answer"
    )[:50]:
        r = by_id[external_id]
        assert answer == lexical.extract_answer(r["question"], r["context"])
    # triplets: one per (question, whitespace-normalized answer), an empty answer none (issue 27),
    # counted here from the predictions
    keys = {
        (q, normalize_answer(a))
        for q, a in Prediction.objects.filter(question__corpus=corpus).values_list("question_id", "answer")
        if normalize_answer(a)
    }
    assert Triplet.objects.filter(question__corpus=corpus).count() == len(keys)
    folds = Fold.objects.filter(corpus=corpus, kind=Fold.KIND_TRIPLET)
    assert folds.count() == 3
    in_folds = set(FoldItem.objects.filter(fold__in=folds).values_list("triplet_id", flat=True))
    assert in_folds == set(Triplet.objects.filter(question__corpus=corpus).values_list("id", flat=True))
    assert FrameDef.objects.filter(lexicon=FrameLexicon.objects.get(name="framenet-fr-mini")).count() == 19
    assert set(UserPreference.objects.values_list("user__username", "language")) == {
        ("admin", "fr"),
        ("researcher", "fr"),
        ("annotator1", "fr"),
        ("annotator2", "fr"),
        ("annotator3", "fr"),
    }

    # an annotator's pages are French, whatever the browser asks for
    assert client.login(username="annotator1", password="demo-pass-12345")
    page = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200 and 'lang="fr"' in page.content.decode()

    # a rerun loads nothing again
    triplets = Triplet.objects.count()
    call_command("load_demo", lang="fr", annotators=3)
    assert Triplet.objects.count() == triplets and Prediction.objects.count() == 3 * 857

    # `bin/run-demo --lang fr` (README) hands its options to this command
    script = (Path(settings.BASE_DIR) / "bin" / "run-demo").read_text()
    assert 'manage.py load_demo --no-print-users "$@"' in script

    # a report on it: automatic metrics under the French normalization (no labels yet)
    job = run_job(start_report(corpus, n_boot=0, figures=False).pk, report_body)
    assert job.status == "succeeded", job.error
    report = json.loads((report_dir(job.pk) / "report.json").read_text())
    scores = {row["system"]: row for row in report["systems"]}
    assert scores["reference"]["em"] == scores["reference"]["f1"] == 1.0
    assert 0 < scores["tiny-bert-fr"]["f1"] < scores["baseline"]["f1"] < 0.5
