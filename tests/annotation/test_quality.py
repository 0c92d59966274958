"""Quality control (issue 12, point 4): gold accuracy, agreement, speed and last activity per annotator
(Folds page and API), adjudication of disagreements, and reports on adjudicated labels."""

from datetime import UTC, datetime

import pandas as pd
import pytest
from django.test import Client
from django.urls import reverse

from annotation import quality
from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import Adjudication, FoldItem, GoldItem
from evaluation.report_inputs import read_inputs
from tests.annotation.test_annotating import judge

T0 = datetime(2026, 1, 1, tzinfo=UTC)
T1 = datetime(2026, 1, 2, tzinfo=UTC)


def test_figures_are_ratios_of_integers():
    rows = [
        ("a", 1, "correct", 2.0, T0),
        ("a", 2, "partial", 4.0, T1),
        ("a", 3, "incorrect", 9.0, T0),
        ("b", 1, "correct", 1.0, T0),
        ("b", 2, "correct", 3.0, T0),
        ("c", 2, "partial", 5.0, T1),
    ]
    a, b, c = quality.annotator_quality(rows, gold={1: "correct", 2: "partial"})
    assert (a.annotator, a.n_labels, a.gold_n, a.gold_agree, a.gold_accuracy) == ("a", 3, 2, 2, 1.0)
    assert (a.overlap_pairs, a.overlap_agree) == (3, 2) and a.agreement == 2 / 3
    assert (b.gold_accuracy, b.overlap_pairs, b.overlap_agree) == (0.5, 3, 1)
    assert (a.median_seconds, a.last_activity) == (4.0, T1)
    assert c.agreement == 0.5 and c.as_dict()["last_activity"] == T1.isoformat()
    assert quality.annotator_quality([("z", 9, "correct", 1.0, T0)], {})[0].gold_accuracy is None
    assert quality.disagreements(rows) == {2: {"a": "partial", "b": "correct", "c": "partial"}}
    assert quality.disagreements(rows, decided={2: "partial"}) == {}


def test_apply_adjudications_replaces_only_decided_items():
    labels = pd.DataFrame(
        {"triplet": [1, 1, 2], "annotator": ["a", "b", "a"], "label": ["correct", "incorrect", "partial"]}
    )
    out = quality.apply_adjudications(labels, {1: "partial"})
    assert list(out["label"]) == ["partial", "partial", "partial"]
    assert list(labels["label"]) == ["correct", "incorrect", "partial"]  # input untouched
    assert quality.apply_adjudications(labels, {}) is labels


@pytest.mark.django_db
def test_gold_agreement_and_adjudication_end_to_end(tiny_corpus, make_user, client, admin_client, admin_user):
    folds = create_folds(tiny_corpus, k=2, seed=0, overlap=1.0)  # every item judged by both
    ann, other = make_user("ann", "annotator"), make_user("other", "annotator")
    assign_fold(folds[0], ann)
    assign_fold(folds[1], other)
    mine = list(FoldItem.objects.filter(fold=folds[0]).order_by("position"))
    theirs = {i.triplet_id: i for i in FoldItem.objects.filter(fold=folds[1])}
    first, second = mine[0].triplet, mine[1].triplet
    # an admin marks a gold item in the admin
    assert (
        admin_client.post(
            reverse("admin:annotation_golditem_add"), {"triplet": first.pk, "expected": "correct", "note": "obvious"}
        ).status_code
        == 302
    )
    assert GoldItem.objects.get().created_by == admin_user
    client.force_login(ann)
    judge(client, folds[0], mine[0].handle, "correct", "1")
    judge(client, folds[0], mine[1].handle, "correct", "2")
    client.force_login(other)
    judge(client, folds[1], theirs[first.pk].handle, "incorrect", "1")
    judge(client, folds[1], theirs[second.pk].handle, "correct", "2")

    page = admin_client.get(reverse("fold-assignments") + f"?corpus={tiny_corpus.name}").content.decode()
    assert "100% (1/1)" in page and "0% (0/1)" in page  # accuracy on gold: ann right, other wrong
    assert "50% (1/2)" in page and "Adjudicate disagreements (1 open)" in page
    french = admin_client.get(
        reverse("fold-assignments") + f"?corpus={tiny_corpus.name}", HTTP_ACCEPT_LANGUAGE="fr"
    ).content.decode()
    assert "100\u202f% (1/1)" in french and "0\u202f% (0/1)" in french and "0% (0/1)" not in french
    api = admin_client.get("/api/quality/", {"corpus": tiny_corpus.name}).json()
    by_name = {q["annotator"]: q for q in api["annotators"]}
    assert by_name["ann"]["gold_accuracy"] == 1.0 and by_name["other"]["gold_accuracy"] == 0.0
    assert by_name["ann"]["agreement"] == 0.5 and by_name["ann"]["last_activity"]
    assert by_name["ann"]["median_seconds"] == 2.5 and api["open_disagreements"] == 1
    client.force_login(ann)
    assert client.get("/api/quality/", {"corpus": tiny_corpus.name}).status_code == 403
    assert admin_client.get("/api/quality/", {"corpus": "nope"}).status_code == 404

    adjudication = admin_client.get(reverse("adjudicate", args=[tiny_corpus.pk])).content.decode()
    assert first.question.question in adjudication and "ann: <strong>Correct</strong>" in adjudication
    assert "other: <strong>Incorrect</strong>" in adjudication and " checked" not in adjudication  # nothing preselected
    assert '<mark class="answer-in-passage">' in adjudication  # the passage, open, with the answer lit
    assert "gold item, expected: Correct" in adjudication
    saved = admin_client.post(
        reverse("adjudicate", args=[tiny_corpus.pk]), {"triplet": first.pk, "value": "partial"}, follow=True
    )
    assert Adjudication.objects.get().value == "partial"
    said = saved.content.decode()
    assert f"Saved: the answer &quot;{first.answer}&quot; to &quot;{first.question.question}&quot; is Partially" in said
    assert f"triplet {first.pk}" not in said
    assert "No open disagreement" in admin_client.get(reverse("adjudicate", args=[tiny_corpus.pk])).content.decode()
    bad = admin_client.post(
        reverse("adjudicate", args=[tiny_corpus.pk]), {"triplet": first.pk, "value": "great"}, follow=True
    )
    assert "Not saved: choose a final label: one of Correct" in bad.content.decode()
    assert Adjudication.objects.get().value == "partial"
    assert GoldItem.objects.get().expected == "correct"  # no "also make it gold": gold unchanged

    raw = read_inputs(tiny_corpus).labels
    final = read_inputs(tiny_corpus, adjudicated=True).labels
    key = f"t{first.pk}"
    assert sorted(raw.loc[raw.tkey == key, "label"]) == ["correct", "incorrect"]
    assert sorted(final.loc[final.tkey == key, "label"]) == ["partial", "partial"]
    assert list(final.loc[final.tkey != key, "label"]) == list(raw.loc[raw.tkey != key, "label"])


def test_gold_slots_and_interleave_are_pure_and_seeded():
    from annotation.gold import gold_slots, interleave

    slots = gold_slots(10, 3, "s")
    assert slots == sorted(slots) and len(set(slots)) == 3 and all(0 <= s < 13 for s in slots)
    assert gold_slots(10, 3, "s") == slots
    merged = interleave(list("abcdefghij"), ["G1", "G2", "G3"], slots)
    assert [merged[s] for s in slots] == ["G1", "G2", "G3"]
    assert [x for x in merged if not x.startswith("G")] == list("abcdefghij")


@pytest.mark.django_db
def test_gold_items_are_put_into_every_fold_from_the_folds_page(tiny_corpus, make_user, client, admin_client):
    folds = create_folds(tiny_corpus, k=2, seed=0, overlap=0)
    gold_items = list(FoldItem.objects.filter(fold=folds[0]).order_by("position")[:2])
    for item, expected in zip(gold_items, ["correct", "incorrect"]):
        GoldItem.objects.create(triplet=item.triplet, expected=expected)
    ann = make_user("ann", "annotator")
    assign_fold(folds[1], ann)
    client.force_login(ann)
    first = FoldItem.objects.filter(fold=folds[1]).order_by("position").first()
    judge(client, folds[1], first.handle, "partial", "x")
    before = list(FoldItem.objects.filter(fold=folds[1]).order_by("position").values_list("triplet_id", flat=True))

    admin_client.post(reverse("fold-action", args=[tiny_corpus.pk]), {"action": "interleave_gold"})
    gold_ids = {g.triplet_id for g in gold_items}
    for fold in folds:
        positions = list(FoldItem.objects.filter(fold=fold).order_by("position").values_list("position", "triplet_id"))
        assert [p for p, _ in positions] == list(range(len(positions)))  # contiguous
        assert gold_ids <= {t for _, t in positions}
    after = [
        t for _, t in FoldItem.objects.filter(fold=folds[1]).order_by("position").values_list("position", "triplet_id")
    ]
    assert [t for t in after if t not in gold_ids] == before  # existing order kept
    assert folds[1].items.count() == len(before) + 2
    assert (
        admin_client.post(reverse("fold-action", args=[tiny_corpus.pk]), {"action": "interleave_gold"}, follow=True)
        .content.decode()
        .count("every fold already has every gold item")
        == 1
    )
    # an annotator may still take a second fold: gold items are shared on purpose
    assign_fold(folds[0], ann)
    # the gold items show up like any other item; answering them feeds accuracy on gold
    page = client.get(reverse("annotate", args=[folds[1].pk])).content.decode()
    assert "gold" not in page.lower()
    for item in FoldItem.objects.filter(fold=folds[1], triplet_id__in=gold_ids):
        judge(client, folds[1], item.handle, "correct", f"g{item.pk}")
    api = admin_client.get("/api/quality/", {"corpus": tiny_corpus.name}).json()["annotators"][0]
    assert (api["gold_n"], api["gold_agree"], api["gold_accuracy"]) == (2, 1, 0.5)


@pytest.mark.django_db
def test_hostile_values_on_the_new_endpoints_are_clean_4xx(tiny_corpus, admin_client, make_user, client):
    assert admin_client.get("/api/quality/", {"corpus": "tiny\x00"}).status_code == 400  # NUL: refused at the edge
    assert admin_client.get("/api/quality/", {"corpus": "x" * 500}).status_code == 404
    bad = admin_client.post(
        reverse("adjudicate", args=[tiny_corpus.pk]), {"triplet": "9" * 30, "value": "correct"}, follow=True
    )
    assert bad.status_code == 200 and "Not saved: no item was given" in bad.content.decode()
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    client.force_login(ann)
    assert client.post(reverse("flag-item", args=[fold.pk]), {"item": "9" * 30, "reason": "other"}).status_code == 400
    item = fold.items.first()
    assert (
        client.post(
            reverse("flag-item", args=[fold.pk]), {"item": item.pk, "reason": "other", "comment": "nul\x00byte"}
        ).status_code
        == 400
    )
    assert client.get(reverse("item-list", args=[fold.pk]), {"jump": "9" * 30}).status_code == 400
    assert client.get(reverse("item-list", args=[fold.pk]), {"label": "x\x00"}).status_code == 400


@pytest.mark.django_db
def test_gold_from_the_adjudication_page_and_the_item_list(tiny_corpus, make_user, admin_client):
    folds = create_folds(tiny_corpus, k=2, seed=0, overlap=1.0)
    ann, other = make_user("ann", "annotator"), make_user("other", "annotator")
    assign_fold(folds[0], ann)
    assign_fold(folds[1], other)
    item = FoldItem.objects.filter(fold=folds[0]).order_by("position").first()
    theirs = FoldItem.objects.get(fold=folds[1], triplet=item.triplet)

    for user, fold, fold_item, value in ((ann, folds[0], item, "correct"), (other, folds[1], theirs, "incorrect")):
        c = Client()
        c.force_login(user)
        judge(c, fold, fold_item.pk, value, "1")
    url = reverse("adjudicate", args=[tiny_corpus.pk])
    admin_client.post(url, {"triplet": item.triplet_id, "value": "incorrect", "gold": "1"})
    assert GoldItem.objects.get(triplet=item.triplet).expected == "incorrect"

    # the item list (admin triplets): found by the question's text, marked gold with a label in words
    question = item.triplet.question.question
    listing = admin_client.get(reverse("admin:annotation_triplet_changelist"), {"q": question[:12]}).content.decode()
    assert question in listing and "Incorrect" in listing
    others = list(item.triplet.question.triplets.exclude(pk=item.triplet_id).values_list("pk", flat=True))
    admin_client.post(
        reverse("admin:annotation_triplet_changelist"),
        {"action": "gold_correct", "_selected_action": [item.triplet_id, *others]},
    )
    assert set(GoldItem.objects.values_list("expected", flat=True)) == {"correct"}
    assert GoldItem.objects.count() == 1 + len(others)
    # SPEC 17: no gold item expects "partial" (issue 42 removed that action; the reason is said where asked)
    refused = admin_client.post(
        reverse("admin:annotation_triplet_changelist"),
        {"action": "gold_partial", "_selected_action": [item.triplet_id]},
    )
    assert refused.status_code in (200, 302)
    assert set(GoldItem.objects.values_list("expected", flat=True)) == {"correct"}

    # the gold admin picks its triplet by searching the question's text, not by a raw id
    add = admin_client.get(reverse("admin:annotation_golditem_add")).content.decode()
    assert "admin-autocomplete" in add and "vForeignKeyRawIdAdminField" not in add
    found = admin_client.get(
        reverse("admin:autocomplete"),
        {"app_label": "annotation", "model_name": "golditem", "field_name": "triplet", "term": question[:12]},
    ).json()
    assert item.triplet_id in {int(r["id"]) for r in found["results"]}
