"""Annotators name items by handles that carry no order (issue 27 point 1): item ids grow with time,
so the items of a system added after the folds had the highest ids, and the ids were on the
annotator's page (``data-item``, the hidden ``item`` input, item URLs) and in the API (``item_id``)."""

import re

import pytest
from django.urls import reverse
from scipy.stats import spearmanr

from annotation import annotating
from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.importers import import_predictions
from annotation.models import FoldItem
from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def late_system(tiny_corpus, make_user, client, tmp_path):
    """The tiny corpus in one fold, then a system added after the folds (its items: the newest ids)."""
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    before = set(fold.items.values_list("pk", flat=True))
    late = [
        {"question_id": q, "system": "late-sys", "answer": f"late answer {i}"} for i, q in enumerate(["q1", "q2", "q3"])
    ]
    import_predictions(write_jsonl(tmp_path / "late.jsonl", late), tiny_corpus)
    late_items = fold.items.exclude(pk__in=before)
    assert late_items.count() == 3 and min(late_items.values_list("pk", flat=True)) > max(before)
    client.force_login(ann)
    return {"fold": fold, "client": client, "ann": ann, "late": list(late_items), "before": before}


def test_the_annotator_page_and_api_carry_handles_not_ids(late_system):
    client, fold = late_system["client"], late_system["fold"]
    for _ in range(fold.items.count()):
        html = client.get(reverse("annotate", args=[fold.pk])).content.decode()
        handle = int(re.search(r'name="item" value="(\d+)"', html).group(1))
        item = FoldItem.objects.get(fold=fold, handle=handle)
        assert f'data-item="{item.handle}"' in html and f"/item/{item.handle}/" in html
        assert f'value="{item.pk}"' not in html and f"/item/{item.pk}/" not in html
        api = client.get(reverse("api-next-item", args=[fold.pk])).json()["item"]
        assert api["item_id"] == item.handle
        assert client.get(reverse("api-item", args=[fold.pk, item.handle])).json()["item_id"] == item.handle
        client.post(reverse("judge", args=[fold.pk]), {"item": handle, "value": "correct"}, HTTP_HX_REQUEST="true")
    assert annotating.next_item(fold, late_system["ann"]) is None  # every item judged through its handle
    listed = client.get(reverse("item-list", args=[fold.pk])).content.decode()
    assert sorted(int(h) for h in re.findall(r"/item/(\d+)/", listed)) == sorted(
        h for h in fold.items.values_list("handle", flat=True) for _ in (0, 1)
    )


def test_an_item_id_is_no_handle(late_system):
    """The old handle (the id) finds nothing: no way to walk the ids."""
    client, fold = late_system["client"], late_system["fold"]
    item = late_system["late"][0]
    assert client.get(reverse("annotate-item", args=[fold.pk, item.pk])).status_code == 404
    resp = client.post(reverse("judge", args=[fold.pk]), {"item": item.pk, "value": "correct"})
    assert resp.status_code == 404 and not item.triplet.labels.exists()


def test_handles_carry_no_order(tiny_corpus, tmp_path):
    """Over many folds, a handle says nothing of when its item was created (ids) or where it sits.

    Handles are truly random (``secrets``), so the correlations are too: over 200 folds (about 1,200
    rows) a |rho| of 0.2 is about 7 standard deviations from independence, so the test fails only
    for an order the handles really carry (over 40 folds it failed once in about 500 runs by chance)."""
    create_folds(tiny_corpus, k=1, seed=0, overlap=0)
    rows = []
    for seed in range(200):
        fold = create_folds(tiny_corpus, k=1, seed=seed, overlap=0, replace=True)[0]
        rows += list(fold.items.values_list("pk", "position", "handle"))
    ids, positions, handles = zip(*rows)
    assert len(set(handles)) == len(handles)
    assert abs(spearmanr(ids, handles).statistic) < 0.2 and abs(spearmanr(positions, handles).statistic) < 0.2
