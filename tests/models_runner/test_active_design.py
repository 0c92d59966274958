"""The active design of a corpus (SPEC 12 as amended): the seeded pilot stored per triplet and served
first, the main sample opened when the pilot is labelled (residual model, pi2, the fallback that
says why), late triplets drawn by the same rule."""

import numpy as np
import pytest
from django.core.management import CommandError, call_command

from annotation import fold_store
from annotation.fold_store import fold_design
from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus, FoldItem, Label, Triplet
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


def label_pilot(corpus, user, *, only=None):
    """A human label on every pilot triplet (the system's answers wrong, the references right)."""
    pilot = Triplet.objects.filter(question__corpus=corpus, design_phase="pilot", design_sampled=True)
    for t in pilot[:only] if only is not None else pilot:
        Label.objects.create(triplet=t, annotator=user, value="correct" if t.answer.startswith("a") else "incorrect")


def test_build_folds_active_serves_the_pilot_first(corpus, tmp_path, capsys):
    import_judge_labels(judge_file(tmp_path), corpus)
    call_command("build_folds", corpus="act", k=2, seed=3, overlap=0, design="active", budget="60", judge="j")
    rows = list(
        Triplet.objects.filter(question__corpus=corpus).values(
            "id", "design_pi", "design_sampled", "design_phase", "design_p1"
        )
    )
    p1 = 0.2 * 60 / (2 * N)  # rho B / T
    assert [r["design_pi"] for r in rows] == pytest.approx([p1] * 2 * N)
    assert [r["design_p1"] for r in rows] == pytest.approx([p1] * 2 * N)
    pilot = {r["id"] for r in rows if r["design_sampled"]}
    assert pilot == {r["id"] for r in rows if r["design_phase"] == "pilot"} and pilot
    in_folds = set(FoldItem.objects.filter(fold__corpus=corpus).values_list("triplet_id", flat=True))
    assert in_folds == pilot  # only the pilot is served at first
    meta = fold_design(corpus)
    assert meta["kind"] == "active" and meta["main_open"] is False and meta["rho"] == 0.2 and meta["alpha"] == 0.1
    assert "the main sample opens when the pilot is labelled" in capsys.readouterr().out
    assert fold_store.pilot_progress(corpus) == {"labeled": 0, "size": len(pilot), "main_open": False}
    # the same seed draws the same pilot
    call_command(
        "build_folds", corpus="act", k=2, seed=3, overlap=0, design="active", budget="60", judge="j", replace=True
    )
    assert (
        set(Triplet.objects.filter(question__corpus=corpus, design_sampled=True).values_list("id", flat=True)) == pilot
    )


def test_uniform_folds_rebuilt_over_an_active_design_clear_it(corpus, tmp_path):
    """Folds rebuilt uniformly leave no design on any triplet: the rows an earlier design wrote are
    cleared (and only those are rewritten, issue 46), every triplet in the folds again."""
    import_judge_labels(judge_file(tmp_path), corpus)
    call_command("build_folds", corpus="act", k=2, seed=3, overlap=0, design="active", budget="60", judge="j")
    assert Triplet.objects.filter(question__corpus=corpus, design_pi__isnull=False).count() == 2 * N
    call_command("build_folds", corpus="act", k=2, seed=3, overlap=0, replace=True)
    designed = Triplet.objects.filter(question__corpus=corpus).exclude(
        design_pi=None, design_sampled=None, design_phase=None, design_p1=None
    )
    assert not designed.exists() and fold_design(corpus) is None
    assert FoldItem.objects.filter(fold__corpus=corpus).count() == 2 * N


def test_a_small_pilot_opens_a_uniform_main_sample_and_says_why(corpus, tmp_path, make_user):
    import_judge_labels(judge_file(tmp_path), corpus)
    call_command("build_folds", corpus="act", k=2, seed=3, overlap=0, design="active", budget="60", judge="j")
    user = make_user("ann")
    label_pilot(corpus, user, only=1)
    assert not fold_store.open_main_if_ready(corpus)  # not every pilot triplet is labelled yet
    label_pilot_rest = Triplet.objects.filter(question__corpus=corpus, design_phase="pilot").exclude(
        labels__isnull=False
    )
    for t in label_pilot_rest:
        Label.objects.create(triplet=t, annotator=user, value="correct")
    assert fold_store.open_main_if_ready(corpus)
    meta = fold_design(corpus)
    assert meta["main_open"] and "fewer than 50" in meta["reason"]
    pis = np.array(Triplet.objects.filter(question__corpus=corpus).values_list("design_pi", flat=True))
    assert pis == pytest.approx(np.full(2 * N, 60 / (2 * N)))  # uniform: pi = B / T
    sampled = set(Triplet.objects.filter(question__corpus=corpus, design_sampled=True).values_list("id", flat=True))
    assert set(FoldItem.objects.filter(fold__corpus=corpus).values_list("triplet_id", flat=True)) == sampled


@pytest.fixture
def big_corpus(tmp_path):
    n = 500
    questions = [{"id": f"q{i}", "context": f"c{i}", "question": f"Q{i}?", "answers": [f"a{i}"]} for i in range(n)]
    import_corpus(write_jsonl(tmp_path / "corpus.jsonl", questions), "big")
    c = Corpus.objects.get(name="big")
    preds = [{"question_id": f"q{i}", "system": "sys", "answer": f"b{i}"} for i in range(n)]
    import_predictions(write_jsonl(tmp_path / "preds.jsonl", preds), c)
    rows = []
    for i in range(n):
        rows.append(
            {
                "question_id": f"q{i}",
                "answer": f"a{i}",
                "annotator": "j",
                "label": "correct",
                "probs": {"correct": 0.97, "partial": 0.02, "incorrect": 0.01},
            }
        )
        unsure = (
            {"correct": 0.4, "partial": 0.3, "incorrect": 0.3}
            if i % 2 == 0
            else {"correct": 0.02, "partial": 0.03, "incorrect": 0.95}
        )
        rows.append(
            {"question_id": f"q{i}", "answer": f"b{i}", "annotator": "j", "label": "incorrect", "probs": unsure}
        )
    import_judge_labels(write_jsonl(tmp_path / "j.jsonl", rows), c)
    return c


def test_the_labelled_pilot_opens_the_main_sample_where_the_residuals_are(big_corpus, make_user):
    call_command("build_folds", corpus="big", k=2, seed=5, overlap=0, design="active", budget="400", judge="j")
    user = make_user("ann")
    pilot = Triplet.objects.filter(question__corpus=big_corpus, design_phase="pilot")
    rng = np.random.default_rng(0)
    for t in pilot:  # the unsure answers are right half of the time
        unsure = t.answer.startswith("b") and int(t.answer[1:]) % 2 == 0
        value = (
            ("correct" if rng.random() < 0.5 else "incorrect")
            if unsure
            else ("correct" if t.answer.startswith("a") else "incorrect")
        )
        Label.objects.create(triplet=t, annotator=user, value=value)
    assert fold_store.open_main_if_ready(big_corpus)
    meta = fold_design(big_corpus)
    assert meta["main_open"] and meta["reason"] is None and meta["pilot_labels"] == pilot.count() >= 50
    assert len(meta["model"]["gamma"]) == 3
    rows = list(
        Triplet.objects.filter(question__corpus=big_corpus).values_list(
            "answer", "design_pi", "design_phase", "design_sampled"
        )
    )
    assert sum(r[1] for r in rows) == pytest.approx(400)
    unsure = [r[1] for r in rows if r[0].startswith("b") and int(r[0][1:]) % 2 == 0]
    sure = [r[1] for r in rows if r[0].startswith("a")]
    assert min(unsure) > 2 * max(sure)
    main = {r[0] for r in rows if r[2] == "main"}
    assert main and all(r[3] for r in rows if r[2] == "main")
    served = set(FoldItem.objects.filter(fold__corpus=big_corpus).values_list("triplet__answer", flat=True))
    assert main <= served
    assert not fold_store.open_main_if_ready(big_corpus)  # once


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
    call_command("build_folds", corpus="act", k=2, seed=1, overlap=0, design="active", budget="60", judge="j")
    meta = fold_design(corpus)
    late = [{"question_id": f"q{i}", "system": "late", "answer": f"z{i}"} for i in range(N)]
    import_predictions(write_jsonl(tmp_path / "late.jsonl", late), corpus)
    new = Triplet.objects.filter(question__corpus=corpus, answer__startswith="z")
    # before the main sample opens a late triplet gets the pilot draw: pi = p1
    assert {round(p, 9) for p in new.values_list("design_pi", flat=True)} == {round(meta["p1"], 9)}
    drawn = set(new.filter(design_sampled=True).values_list("id", flat=True))
    assert drawn == set(new.filter(design_phase="pilot").values_list("id", flat=True))
    in_folds = set(FoldItem.objects.filter(fold__corpus=corpus, triplet__in=new).values_list("triplet_id", flat=True))
    assert in_folds == drawn


def test_the_folds_page_builds_active_folds_and_says_so(corpus, tmp_path, client, make_user):
    from django.urls import reverse

    import_judge_labels(judge_file(tmp_path), corpus)
    admin = make_user("boss", "admin")
    client.force_login(admin)
    url = reverse("fold-action", args=[corpus.pk])
    base = {"action": "build", "k": 2, "seed": 3, "policy": "by_question", "overlap": 0}
    page = client.post(url, {**base, "design": "active", "budget": "30"})
    assert page.status_code == 400 and not FoldItem.objects.exists()  # issue 45: the page keeps what was typed
    assert "needs a judge with labels in this corpus" in page.content.decode()
    assert 'name="budget" value="30"' in page.content.decode()
    assert '<option value="j">j</option>' in page.content.decode()  # the judge is chosen from a list
    page = client.post(url, {**base, "design": "active", "budget": "30", "judge": "ghost"})
    assert "Select a valid choice" in page.content.decode() and not FoldItem.objects.exists()
    page = client.post(url, {**base, "design": "active", "budget": "2,5", "judge": "j"}, HTTP_ACCEPT_LANGUAGE="fr")
    assert page.status_code == 400 and not FoldItem.objects.exists()
    assert "un nombre entier" in page.content.decode() and 'value="2,5"' in page.content.decode()
    assert "le plan actif demande un budget</li>" not in page.content.decode()  # one error: the one saying why
    page = client.post(url, {**base, "design": "active", "budget": "60", "judge": "j"}, follow=True).content.decode()
    drawn = Triplet.objects.filter(question__corpus=corpus, design_sampled=True).count()
    assert f"from a pilot of {drawn} drawn triplets (active design)" in page
    assert 'id="fold-design"' in page and "triplets are in no fold yet" not in page
    assert f"pilot 0 of {drawn} labelled" in page
    page = client.get(reverse("fold-assignments") + "?corpus=act", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert f"pilote : 0 sur {drawn} étiquetés" in page and "fichier du plan" in page
    assert FoldItem.objects.filter(fold__corpus=corpus).count() == drawn


def test_finishing_the_last_pilot_fold_on_the_annotator_page_opens_the_main_sample(big_corpus, make_user):
    from annotation import annotating
    from annotation.models import Assignment, Fold

    call_command("build_folds", corpus="big", k=2, seed=5, overlap=0, design="active", budget="400", judge="j")
    ann = make_user("ann", "annotator")
    folds = list(Fold.objects.filter(corpus=big_corpus, kind=Fold.KIND_TRIPLET).order_by("index"))
    for fold in folds:
        Assignment.objects.create(fold=fold, annotator=ann)
    for n, fold in enumerate(folds):
        assignment = annotating.open_fold(ann, fold.pk)
        item = annotating.next_item(fold, ann.pk)
        while item is not None:
            value = "correct" if item.triplet.answer.startswith("a") else "incorrect"
            _, _, item = annotating.judge(assignment, item, value=value)
        # the first fold done leaves pilot triplets unlabelled; the last one completes the pilot
        assert fold_design(big_corpus)["main_open"] is (n == len(folds) - 1)
    main = Triplet.objects.filter(question__corpus=big_corpus, design_phase="main")
    assert main.exists()
    assert set(main.values_list("id", flat=True)) <= set(
        FoldItem.objects.filter(fold__corpus=big_corpus).values_list("triplet_id", flat=True)
    )


def test_late_triplets_after_the_main_sample_follow_the_fitted_model(big_corpus, make_user, tmp_path):
    from stats import design

    call_command("build_folds", corpus="big", k=2, seed=5, overlap=0, design="active", budget="400", judge="j")
    label_pilot(big_corpus, make_user("ann"))
    assert fold_store.open_main_if_ready(big_corpus)
    meta = fold_design(big_corpus)
    late = [{"question_id": f"q{i}", "system": "late", "answer": f"z{i}"} for i in range(200)]
    import_predictions(write_jsonl(tmp_path / "late.jsonl", late), big_corpus)
    new = Triplet.objects.filter(question__corpus=big_corpus, answer__startswith="z")
    # the judge has not seen them: q uniform, so f = 0.5 and u^2 = 1/6; pi = p1 + (1 - p1) pi2(model, c)
    pi2 = design.late_chance(meta, [0.5], [np.sqrt(1 / 6)])[0]
    expected = meta["p1"] + (1 - meta["p1"]) * pi2
    assert {round(p, 9) for p in new.values_list("design_pi", flat=True)} == {round(expected, 9)}
    drawn = set(new.filter(design_sampled=True).values_list("id", flat=True))
    assert drawn and drawn == set(new.exclude(design_phase=None).values_list("id", flat=True))
    in_folds = set(
        FoldItem.objects.filter(fold__corpus=big_corpus, triplet__in=new).values_list("triplet_id", flat=True)
    )
    assert in_folds == drawn


def test_the_end_of_a_pilot_fold_tells_the_annotator_more_items_follow(big_corpus, make_user, client):
    """Issue 45, point 4: "Fold finished ... Thank you!" after the pilot, then 189 more items landed in
    the same fold; the page now says that more items follow until the main sample is drawn."""
    from annotation import annotating
    from annotation.models import Assignment, Fold

    call_command("build_folds", corpus="big", k=2, seed=5, overlap=0, design="active", budget="400", judge="j")
    ann = make_user("ann", "annotator")
    folds = list(Fold.objects.filter(corpus=big_corpus, kind=Fold.KIND_TRIPLET).order_by("index"))
    for fold in folds:
        Assignment.objects.create(fold=fold, annotator=ann)
    client.force_login(ann)
    for n, fold in enumerate(folds):
        assignment = annotating.open_fold(ann, fold.pk)
        item = annotating.next_item(fold, ann.pk)
        while item is not None:
            _, _, item = annotating.judge(assignment, item, value="correct")
        page = client.get(f"/annotate/{fold.pk}/?start=1").content.decode()
        if n < len(folds) - 1:  # the pilot is not labelled everywhere yet: more items will come here
            assert 'id="more-coming"' in page and "Pilot finished: more items will follow" in page
            assert "Thank you!" not in page
            french = client.get(f"/annotate/{fold.pk}/?start=1", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
            assert "Pilote terminé : d’autres éléments vont suivre" in french
    assert fold_design(big_corpus)["main_open"]
    page = client.get(f"/annotate/{folds[0].pk}/?start=1").content.decode()
    assert 'id="more-coming"' not in page  # the main sample is drawn: its items, or the fold is finished
