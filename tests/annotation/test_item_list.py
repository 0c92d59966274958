"""Moving freely (issue 12, point 2): item list with filters and jump-to, review mode, label in words."""

import pytest
from django.urls import reverse

from annotation import reviewing
from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import FoldItem, System
from tests.annotation.test_annotating import judge

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled(tiny_corpus, make_user, client):
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    client.force_login(ann)
    items = list(FoldItem.objects.filter(fold=fold).order_by("position"))
    judge(client, fold, items[0].handle, "correct", "a")
    judge(client, fold, items[1].handle, skip=True, sub="b")
    judge(client, fold, items[2].handle, "incorrect", "c")
    return {"fold": fold, "ann": ann, "items": items, "client": client}


def test_rows_and_filters_are_pure_functions_of_the_labels(labelled):
    rows = reviewing.item_rows(labelled["fold"], labelled["ann"])
    assert [r.state for r in rows[:4]] == ["judged", "skipped", "judged", "todo"]
    assert [r.label_words for r in rows[:4]] == ["Correct", "Skipped", "Incorrect", "Not judged yet"]
    assert [r.number for r in reviewing.filter_rows(rows, "judged")] == [1, 3]
    assert [r.number for r in reviewing.filter_rows(rows, "all", "incorrect")] == [3]
    assert len(reviewing.filter_rows(rows, "unjudged")) == len(rows) - 3
    assert reviewing.find_number(rows, 2).handle == labelled["items"][1].handle
    assert reviewing.find_number(rows, len(rows) + 1) is None
    with pytest.raises(ValueError, match="show must be one of"):
        reviewing.filter_rows(rows, "nonsense")


def test_item_list_page_filters_jumps_and_never_names_systems(labelled):
    client, fold, items = labelled["client"], labelled["fold"], labelled["items"]
    url = reverse("item-list", args=[fold.pk])
    html = client.get(url).content.decode()
    assert f"{len(items)} of {len(items)} items shown" in html
    for name in System.objects.values_list("name", flat=True):
        assert name not in html
    skipped = client.get(url, {"show": "skipped"}).content.decode()
    assert "1 of" in skipped and reverse("annotate-item", args=[fold.pk, items[1].handle]) in skipped
    by_label = client.get(url, {"show": "judged", "label": "correct"}).content.decode()
    assert "1 of" in by_label and reverse("annotate-item", args=[fold.pk, items[0].handle]) in by_label
    jump = client.get(url, {"jump": "3"})
    assert jump.status_code == 302 and jump["Location"] == reverse("annotate-item", args=[fold.pk, items[2].handle])
    nowhere = client.get(url, {"jump": "999"})
    assert nowhere.status_code == 400 and "There is no item 999" in nowhere.content.decode()
    assert client.get(url, {"show": "x"}).status_code == 400


def test_item_list_is_only_for_the_assigned_annotator(labelled, make_user, client):
    client.force_login(make_user("other", "annotator"))
    assert client.get(reverse("item-list", args=[labelled["fold"].pk])).status_code == 404


def test_review_mode_walks_labelled_items_and_can_change_them(labelled):
    client, fold, items = labelled["client"], labelled["fold"], labelled["items"]
    start = client.get(reverse("review", args=[fold.pk]))
    assert start["Location"] == reverse("annotate-item", args=[fold.pk, items[0].handle]) + "?review=1"
    page = client.get(start["Location"]).content.decode()
    assert "Review mode" in page and 'name="review" value="1"' in page
    assert 'id="current-label">Correct<' in page
    assert reverse("annotate-item", args=[fold.pk, items[2].handle]) + "?review=1" in page  # N: skips the skipped item
    # changing a label in review mode shows the next labelled item, still in review mode
    after = client.post(
        reverse("judge", args=[fold.pk]),
        {"item": items[0].handle, "value": "partial", "submission_id": "r1", "review": "1"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert f'name="item" value="{items[2].handle}"' in after and 'id="current-label">Incorrect<' in after
    done = client.post(
        reverse("judge", args=[fold.pk]),
        {"item": items[2].handle, "value": "incorrect", "submission_id": "r2", "review": "1"},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "Review finished" in done
    assert reviewing.item_rows(fold, labelled["ann"])[0].label == "partial"


def test_an_unjudged_item_says_so_in_words(labelled):
    client, fold, items = labelled["client"], labelled["fold"], labelled["items"]
    html = client.get(reverse("annotate-item", args=[fold.pk, items[3].handle])).content.decode()
    assert 'id="current-label">Not judged yet<' in html and "Item 4" in html
    skipped = client.get(reverse("annotate-item", args=[fold.pk, items[1].handle])).content.decode()
    assert 'id="current-label">Skipped<' in skipped
