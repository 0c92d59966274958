"""Predictions that come after the folds (issue 11 point 5) are interleaved over each fold's
unjudged part, on the SQuAD small data through the real importers."""

import itertools
import json

import pytest

from annotation import annotating
from annotation.assignments import assign_all
from annotation.fold_store import create_folds
from annotation.importers import import_corpus, import_predictions
from annotation.models import Corpus, Fold, FoldItem, Label, Prediction
from tests.conftest import write_jsonl

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def _fold_rows(fold):
    return list(
        FoldItem.objects.filter(fold=fold)
        .order_by("position")
        .values_list("position", "triplet_id", "triplet__question_id")
    )


def test_a_late_system_is_spread_over_the_unjudged_part(squad_small, tmp_path, make_user, client):
    lines = (squad_small / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    early = [l for l in lines if json.loads(l)["system"] in ("bert-ens", "slqa-plus-ens", "rnet-plus-ens")]
    late = [l for l in lines if json.loads(l)["system"] == "logreg-baseline"]
    import_corpus(squad_small / "corpus.jsonl", "small")
    corpus = Corpus.objects.get(name="small")
    import_predictions(write_jsonl(tmp_path / "early.jsonl", early), corpus)
    create_folds(corpus, k=4, seed=0, overlap=0)
    users = [make_user(f"ann{i}", "annotator") for i in range(4)]
    assign_all(corpus, users)
    fold = Fold.objects.get(corpus=corpus, index=0)
    annotator = fold.assignments.get().annotator
    before = _fold_rows(fold)
    for _ in range(25):  # the annotator judges the first 25 items
        item = annotating.next_item(fold, annotator)
        Label.objects.create(triplet=item.triplet, annotator=annotator, fold=fold, value="correct")

    result = import_predictions(write_jsonl(tmp_path / "late.jsonl", late), corpus)
    assert result["added_to_folds"] > 100

    late_triplets = set(Prediction.objects.filter(system__name="logreg-baseline").values_list("triplet_id", flat=True))
    new_total = 0
    for f in Fold.objects.filter(corpus=corpus):
        rows = _fold_rows(f)
        assert [r[0] for r in rows] == list(range(len(rows)))
        added = f.params["added"]
        assert len(added) == 1 and added[0]["source"] == "import" and added[0]["at"]
        new_total += added[0]["n"]
        brand_new = {r[1] for r in rows} & late_triplets - set(
            FoldItem.objects.filter(
                fold=f,
                triplet__predictions__system__name__in=["bert-ens", "slqa-plus-ens", "rnet-plus-ens", "reference"],
            ).values_list("triplet_id", flat=True)
        )
        assert len(brand_new) == added[0]["n"]
        # no two consecutive items of one question, none of the new system's block back to back
        assert not any(a[2] == b[2] for a, b in itertools.pairwise(rows))
        assert not any(a[1] in brand_new and b[1] in brand_new for a, b in itertools.pairwise(rows))
        # spread over the fold, not a tail: new items sit in both halves of the unjudged part
        places = [i for i, r in enumerate(rows) if r[1] in brand_new]
        assert min(places) < len(rows) / 2 < max(places)
        if f.pk == fold.pk:
            assert rows[:25] == before[:25]  # what was judged keeps its place
            assert not brand_new & {r[1] for r in rows[:25]}
    assert new_total == result["added_to_folds"]

    admin = make_user("boss", "admin")
    client.force_login(admin)
    page = client.get("/folds/?corpus=small").content.decode()
    n = Fold.objects.get(pk=fold.pk).params["added"][0]["n"]
    assert f"+{n} added later" in page and "by import" in page
