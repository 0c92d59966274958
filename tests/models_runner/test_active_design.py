"""The active design of a corpus (SPEC 12): chances from the judge's uncertainty, the seeded draw
stored per triplet, folds built from the drawn sample, late triplets drawn by the same rule, and the
uniform fallback of a judge without probabilities."""

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from annotation.fold_store import fold_design
from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus, FoldItem, Triplet
from models_runner.judging import import_judge_labels
from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db
N = 60


@pytest.fixture
def corpus(tmp_path):
    questions = [{"id": f"q{i}", "context": f"c{i}", "question": f"Q{i}?", "answers": [f"a{i}"]} for i in range(N)]
    import_corpus(write_jsonl(tmp_path / "corpus.jsonl", questions), "act")
    c = Corpus.objects.get(name="act")
    preds = [{"question_id": f"q{i}", "system": "sys", "answer": f"b{i}"} for i in range(N)]
    import_predictions(write_jsonl(tmp_path / "preds.jsonl", preds), c)
    return c


def judge_file(tmp_path, *, probs=True, name="j"):
    """The reference answers sure (q = 0.98 correct), the system's answers unsure for even questions."""
    rows = []
    for i in range(N):
        rows.append({"question_id": f"q{i}", "answer": f"a{i}", "annotator": name, "label": "correct"})
        unsure = {"correct": 0.4, "partial": 0.2, "incorrect": 0.4} if i % 2 == 0 else None
        rows.append({"question_id": f"q{i}", "answer": f"b{i}", "annotator": name, "label": "incorrect"})
        if probs:
            rows[-2]["probs"] = {"correct": 0.98, "partial": 0.01, "incorrect": 0.01}
            rows[-1]["probs"] = unsure or {"correct": 0.05, "partial": 0.05, "incorrect": 0.9}
    return write_jsonl(tmp_path / f"{name}.jsonl", rows)


def test_build_folds_active_draws_where_the_judge_is_unsure(corpus, tmp_path, capsys):
    import_judge_labels(judge_file(tmp_path), corpus)
    call_command("build_folds", corpus="act", k=2, seed=3, overlap=0, design="active", budget="30", judge="j")
    fields = ("id", "answer", "design_pi", "design_sampled")
    triplets = list(Triplet.objects.filter(question__corpus=corpus).values(*fields))
    pi = np.array([t["design_pi"] for t in triplets])
    assert len(triplets) == 2 * N and pi.sum() == pytest.approx(30)
    unsure = [t["design_pi"] for t in triplets if t["answer"].startswith("b") and int(t["answer"][1:]) % 2 == 0]
    sure = [t["design_pi"] for t in triplets if t["answer"].startswith("a")]
    assert min(unsure) > 3 * max(sure) and min(sure) >= 0.1 * 30 / (2 * N) - 1e-12
    in_folds = set(FoldItem.objects.filter(fold__corpus=corpus).values_list("triplet_id", flat=True))
    assert in_folds == {t["id"] for t in triplets if t["design_sampled"]}
    meta = fold_design(corpus)
    assert meta["kind"] == "active" and meta["judge"] == "j" and meta["budget"] == 30 and meta["reason"] is None
    assert "active design, judge j" in capsys.readouterr().out
    # the same seed draws the same sample
    first = {t["id"]: t["design_sampled"] for t in triplets}
    call_command(
        "build_folds", corpus="act", k=2, seed=3, overlap=0, design="active", budget="25%", judge="j", replace=True
    )
    again = dict(Triplet.objects.filter(question__corpus=corpus).values_list("id", "design_sampled"))
    assert again == first


def test_a_judge_without_probabilities_gives_the_uniform_design(corpus, tmp_path, capsys):
    import_judge_labels(judge_file(tmp_path, probs=False), corpus)
    call_command("build_folds", corpus="act", k=2, seed=0, overlap=0, design="active", budget="0.25", judge="j")
    pis = set(Triplet.objects.filter(question__corpus=corpus).values_list("design_pi", flat=True))
    assert pis == {0.25}
    meta = fold_design(corpus)
    assert meta["kind"] == "uniform" and "no probabilities" in meta["reason"]
    assert "uniform design" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"design": "active", "judge": "j"}, "needs --budget and --judge"),
        ({"budget": "10"}, "go with --design active"),
        ({"design": "active", "budget": "10", "judge": "nobody"}, "no judge named 'nobody'"),
        ({"design": "active", "budget": "500", "judge": "j"}, "more than the 120 triplets"),
        ({"design": "active", "budget": "lots", "judge": "j"}, "budget must be a count"),
        ({"design": "clever", "budget": "10", "judge": "j"}, "unknown fold design 'clever'"),
    ],
)
def test_design_errors_change_nothing(corpus, tmp_path, options, message):
    import_judge_labels(judge_file(tmp_path), corpus)
    with pytest.raises(CommandError, match=message):
        call_command("build_folds", corpus="act", k=2, **options)
    assert not FoldItem.objects.exists()
    assert not Triplet.objects.filter(design_pi__isnull=False).exists()


def test_late_triplets_are_drawn_by_the_same_rule(corpus, tmp_path):
    import_judge_labels(judge_file(tmp_path), corpus)
    call_command("build_folds", corpus="act", k=2, seed=1, overlap=0, design="active", budget="30", judge="j")
    meta = fold_design(corpus)
    late = [{"question_id": f"q{i}", "system": "late", "answer": f"z{i}"} for i in range(N)]
    import_predictions(write_jsonl(tmp_path / "late.jsonl", late), corpus)
    new = Triplet.objects.filter(question__corpus=corpus, answer__startswith="z")
    # the judge has not seen them: q uniform, u = sqrt(2/3 * 0.25), pi = min(1, max(pi_min, c u))
    u = np.sqrt(2 / 3 * 0.25)
    expected = min(1.0, max(meta["pi_min"], meta["c"] * u))
    assert {round(p, 9) for p in new.values_list("design_pi", flat=True)} == {round(expected, 9)}
    drawn = set(new.filter(design_sampled=True).values_list("id", flat=True))
    assert 0 < len(drawn) < N
    in_folds = set(FoldItem.objects.filter(fold__corpus=corpus, triplet__in=new).values_list("triplet_id", flat=True))
    assert in_folds == drawn


def test_the_folds_page_builds_active_folds_and_says_so(corpus, tmp_path, client, make_user):
    from django.urls import reverse

    import_judge_labels(judge_file(tmp_path), corpus)
    admin = make_user("boss", "admin")
    client.force_login(admin)
    url = reverse("fold-action", args=[corpus.pk])
    base = {"action": "build", "k": 2, "seed": 3, "policy": "by_question", "overlap": 0}
    page = client.post(url, {**base, "design": "active", "budget": "30"}, follow=True).content.decode()
    assert "needs a budget and a judge" in page and not FoldItem.objects.exists()
    page = client.post(url, {**base, "design": "active", "budget": "30", "judge": "ghost"}, follow=True)
    assert "no judge named" in page.content.decode() and not FoldItem.objects.exists()
    page = client.post(url, {**base, "design": "active", "budget": "30", "judge": "j"}, follow=True).content.decode()
    drawn = Triplet.objects.filter(question__corpus=corpus, design_sampled=True).count()
    assert f"from {drawn} drawn triplets (active design)" in page
    assert 'id="fold-design"' in page and "triplets are in no fold yet" not in page
    assert FoldItem.objects.filter(fold__corpus=corpus).count() == drawn
