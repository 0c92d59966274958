import re

import pytest
from django.urls import reverse

from annotation.assignments import assign_fold
from annotation.fold_store import FoldError, create_folds
from annotation.models import Assignment, FoldItem, Label, LabelEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(tiny_corpus, make_user, client):
    folds = create_folds(tiny_corpus, k=2, seed=1, overlap=0)
    ann = make_user("ann", "annotator")
    other = make_user("other", "annotator")
    assign_fold(folds[0], ann)
    assign_fold(folds[1], other)
    client.force_login(ann)
    return {"folds": folds, "ann": ann, "other": other, "client": client}


def fragment_fields(html):
    item = re.search(r'name="item" value="(\d+)"', html)
    sub = re.search(r'name="submission_id" value="(\w+)"', html)
    return (int(item.group(1)) if item else None), (sub.group(1) if sub else None)


def judge(client, fold, item, value=None, sub="", skip=False, **extra):
    data = {"item": item, "submission_id": sub, "seconds": "2.5", **extra}
    data.update({"action": "skip"} if skip else {"value": value})
    return client.post(reverse("judge", args=[fold.pk]), data, HTTP_HX_REQUEST="true")


def test_label_then_next_item_in_one_request_until_done(setup):
    client, fold = setup["client"], setup["folds"][0]
    html = client.get(reverse("annotate", args=[fold.pk])).content.decode()
    total = fold.items.count()
    seen = []
    for i in range(total):
        item, sub = fragment_fields(html)
        assert item is not None and f"{i} / {total}" in html
        seen.append(item)
        html = judge(client, fold, item, "correct", sub).content.decode()
    assert "Fold finished" in html and f"{total} / {total}" in html
    assert sorted(seen) == sorted(fold.items.values_list("handle", flat=True))
    assert Label.objects.filter(annotator=setup["ann"], value="correct").count() == total
    assert all(l.seconds_spent == 2.5 for l in Label.objects.all())


def test_double_submit_and_two_tabs_never_create_two_labels(setup):
    client, fold = setup["client"], setup["folds"][0]
    item, sub = fragment_fields(client.get(reverse("annotate", args=[fold.pk])).content.decode())
    judge(client, fold, item, "correct", sub)
    judge(client, fold, item, "correct", sub)  # double click: same submission id
    assert Label.objects.count() == 1 and LabelEvent.objects.count() == 1
    judge(client, fold, item, "incorrect", "othertab")  # second tab, stale page
    label = Label.objects.get()
    assert label.value == "incorrect" and LabelEvent.objects.count() == 2


def test_skip_comes_back_at_the_end_and_back_changes_with_history(setup):
    client, fold = setup["client"], setup["folds"][0]
    items = list(FoldItem.objects.filter(fold=fold).order_by("position"))
    judge(client, fold, items[0].handle, skip=True)
    label = Label.objects.get(triplet=items[0].triplet)
    assert label.value is None and label.skipped
    html = client.get(reverse("annotate", args=[fold.pk])).content.decode()
    assert fragment_fields(html)[0] == items[1].handle
    for it in items[1:]:
        judge(client, fold, it.handle, "partial")
    html = client.get(reverse("annotate", args=[fold.pk])).content.decode()
    assert fragment_fields(html)[0] == items[0].handle  # the skipped one, last
    # go back to the last judged one and change it
    html = client.get(reverse("previous", args=[fold.pk]), HTTP_HX_REQUEST="true").content.decode()
    assert fragment_fields(html)[0] == items[-1].handle and 'name="revisit"' in html
    judge(client, fold, items[-1].handle, "incorrect", revisit="1")
    values = list(LabelEvent.objects.filter(label__triplet=items[-1].triplet).values_list("value", flat=True))
    assert values == ["partial", "incorrect"]


def test_work_resumes_where_the_annotator_stopped(setup):
    client, fold = setup["client"], setup["folds"][0]
    first = FoldItem.objects.filter(fold=fold).order_by("position").first()
    judge(client, fold, first.handle, "correct")
    client.logout()
    client.force_login(setup["ann"])
    item, _ = fragment_fields(client.get(reverse("annotate", args=[fold.pk])).content.decode())
    assert item != first.handle and item is not None


def test_annotator_cannot_reach_another_fold_or_its_items(setup):
    client = setup["client"]
    theirs = setup["folds"][1]
    their_item = theirs.items.first()
    assert client.get(reverse("annotate", args=[theirs.pk])).status_code == 404
    assert client.get(reverse("annotate-item", args=[theirs.pk, their_item.handle])).status_code == 404
    mine = setup["folds"][0]
    assert client.get(reverse("annotate-item", args=[mine.pk, their_item.handle])).status_code == 404
    assert judge(client, mine, their_item.handle, "correct").status_code == 404
    assert client.get(f"/api/my/folds/{theirs.pk}/items/{their_item.handle}/").status_code == 404
    assert client.get(f"/api/my/folds/{mine.pk}/items/{their_item.handle}/").status_code == 404
    assert Label.objects.count() == 0


def test_annotator_never_sees_system_names_or_counts(setup):
    client, fold = setup["client"], setup["folds"][0]
    for _ in range(fold.items.count()):
        resp = client.get(reverse("annotate", args=[fold.pk]))
        html = resp.content.decode()
        for name in ("reference", "sys-alpha", "sys-beta", "sys-gamma", "system"):
            assert name not in html.lower()
        item, sub = fragment_fields(html)
        data = client.get(f"/api/my/folds/{fold.pk}/items/{item}/").json()
        assert set(data) == {"item_id", "position", "question", "context", "answer", "language", "label"}
        judge(client, fold, item, "correct", sub)


def test_overlap_never_assigns_a_triplet_twice_to_one_annotator(tiny_corpus, make_user):
    folds = create_folds(tiny_corpus, k=2, seed=0, overlap=1.0)  # every question copied
    ann = make_user("ann", "annotator")
    assign_fold(folds[0], ann)
    with pytest.raises(FoldError, match="never judges the same item twice"):
        assign_fold(folds[1], ann)
    assert Assignment.objects.count() == 1


def test_api_judge_loop(setup):
    client, fold = setup["client"], setup["folds"][0]
    data = client.get(f"/api/my/folds/{fold.pk}/next/").json()
    item = data["item"]["item_id"]
    resp = client.post(
        f"/api/my/folds/{fold.pk}/judge/",
        {"item": item, "label": "partial", "submission_id": "s1"},
        content_type="application/json",
    )
    assert resp.status_code == 200 and resp.json()["saved"]["label"] == "partial"
    assert resp.json()["next"]["item_id"] != item and resp.json()["progress"]["done"] == 1
    bad = client.post(
        f"/api/my/folds/{fold.pk}/judge/", {"item": item, "label": "great"}, content_type="application/json"
    )
    assert bad.status_code == 400 and "label" in bad.json()
