"""No judgement is dropped: submission ids are scoped per annotator and per item (issue 10, point 3).

Runs on SQLite and, with DATABASE_URL set, on PostgreSQL (see docs/robustness.md). Each case goes
through the annotator page (htmx POST) and through the REST API.
"""

import pytest
from django.urls import reverse

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import FoldItem, Label, LabelEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def shared(tiny_corpus, make_user, client):
    """Two annotators on two folds holding the same triplets (overlap 1.0)."""
    folds = create_folds(tiny_corpus, k=2, seed=1, overlap=1.0)
    ann, other = make_user("ann", "annotator"), make_user("other", "annotator")
    assign_fold(folds[0], ann)
    assign_fold(folds[1], other)
    return {"folds": folds, "ann": ann, "other": other, "client": client}


def page_judge(client, fold, item, value, sub):
    return client.post(
        reverse("judge", args=[fold.pk]),
        {"item": item.handle, "value": value, "submission_id": sub},
        HTTP_HX_REQUEST="true",
    )


def api_judge(client, fold, item, value, sub):
    return client.post(
        reverse("api-judge", args=[fold.pk]),
        {"item": item.handle, "label": value, "submission_id": sub},
        content_type="application/json",
    )


SENDERS = {"page": page_judge, "api": api_judge}


def items_of(fold):
    return list(FoldItem.objects.filter(fold=fold).select_related("triplet").order_by("position"))


@pytest.mark.parametrize("via", SENDERS)
def test_an_id_used_by_another_annotator_on_the_same_item_is_saved(shared, via):
    send, client = SENDERS[via], shared["client"]
    mine, theirs = items_of(shared["folds"][0]), items_of(shared["folds"][1])
    same = next(t for t in theirs if t.triplet_id == mine[0].triplet_id)
    client.force_login(shared["other"])
    assert send(client, shared["folds"][1], same, "correct", "sub-1").status_code == 200
    client.force_login(shared["ann"])
    resp = send(client, shared["folds"][0], mine[0], "incorrect", "sub-1")
    assert resp.status_code == 200
    assert Label.objects.get(annotator=shared["ann"], triplet=mine[0].triplet).value == "incorrect"
    assert Label.objects.get(annotator=shared["other"], triplet=mine[0].triplet).value == "correct"
    assert LabelEvent.objects.filter(submission_id="sub-1").count() == 2


@pytest.mark.parametrize("via", SENDERS)
def test_an_id_used_on_another_item_is_saved(shared, via):
    send, client = SENDERS[via], shared["client"]
    fold = shared["folds"][0]
    first, second = items_of(fold)[:2]
    client.force_login(shared["ann"])
    assert send(client, fold, first, "correct", "same-id").status_code == 200
    assert send(client, fold, second, "partial", "same-id").status_code == 200
    assert {l.triplet_id: l.value for l in Label.objects.filter(annotator=shared["ann"])} == {
        first.triplet_id: "correct",
        second.triplet_id: "partial",
    }


@pytest.mark.parametrize("via", SENDERS)
def test_a_retry_with_the_same_id_and_label_is_a_no_op(shared, via):
    send, client = SENDERS[via], shared["client"]
    fold, item = shared["folds"][0], items_of(shared["folds"][0])[0]
    client.force_login(shared["ann"])
    assert send(client, fold, item, "partial", "retry-1").status_code == 200
    again = send(client, fold, item, "partial", "retry-1")
    assert again.status_code == 200
    if via == "api":
        assert again.json()["saved"] == {"item": item.handle, "label": "partial", "skipped": False, "changed": False}
    assert LabelEvent.objects.filter(label__annotator=shared["ann"]).count() == 1


@pytest.mark.parametrize("via", SENDERS)
def test_a_changed_label_with_a_used_id_is_refused_loudly_and_then_saved_with_a_new_id(shared, via):
    send, client = SENDERS[via], shared["client"]
    fold, item = shared["folds"][0], items_of(shared["folds"][0])[0]
    client.force_login(shared["ann"])
    assert send(client, fold, item, "correct", "used").status_code == 200
    conflict = send(client, fold, item, "incorrect", "used")
    assert conflict.status_code == 409
    body = conflict.json()["detail"] if via == "api" else conflict.content.decode()
    assert "already used" in body and "new submission id" in body
    label = Label.objects.get(annotator=shared["ann"], triplet=item.triplet)
    assert label.value == "correct" and label.events.count() == 1  # nothing half-saved
    assert send(client, fold, item, "incorrect", "fresh").status_code == 200
    label.refresh_from_db()
    assert label.value == "incorrect"
    assert list(label.events.values_list("value", "submission_id")) == [("correct", "used"), ("incorrect", "fresh")]


def test_a_skip_then_a_label_with_the_same_id_is_a_conflict_not_a_silent_drop(shared):
    client, fold = shared["client"], shared["folds"][0]
    item = items_of(fold)[0]
    client.force_login(shared["ann"])
    skip = client.post(
        reverse("judge", args=[fold.pk]),
        {"item": item.handle, "action": "skip", "submission_id": "k"},
        HTTP_HX_REQUEST="true",
    )
    assert skip.status_code == 200
    assert page_judge(client, fold, item, "correct", "k").status_code == 409
    assert Label.objects.get(annotator=shared["ann"], triplet=item.triplet).skipped


def test_a_label_inserted_by_a_concurrent_request_turns_the_insert_into_an_update(shared, monkeypatch):
    """The first look finds no row (another request inserted it and committed just after): the INSERT
    hits the unique constraint, nothing of this attempt stays, and the retry updates that row."""
    from annotation import annotating, judgements

    fold, ann = shared["folds"][0], shared["ann"]
    item = items_of(fold)[0]
    theirs, _ = annotating.save_judgement(ann, fold, item, value="correct", submission_id="theirs", source="api")
    looks = []
    real = judgements._locked_row

    def racing(model, keys):
        looks.append(model)
        return None if len(looks) == 1 else real(model, keys)  # the first look ran before their commit

    monkeypatch.setattr(judgements, "_locked_row", racing)
    label, changed = annotating.save_judgement(ann, fold, item, value="partial", seconds=4, submission_id="mine")
    assert changed and len(looks) == 2
    row = Label.objects.get(annotator=ann, triplet=item.triplet)
    assert (row.pk, row.value, row.skipped, row.source, row.fold_id) == (theirs.pk, "partial", False, "api", fold.pk)
    assert label.pk == theirs.pk and row.seconds_spent == 4.0 and row.updated_at >= row.created_at
    events = LabelEvent.objects.filter(label=row).order_by("pk")
    assert [(e.value, e.submission_id, e.seconds) for e in events] == [
        ("correct", "theirs", 0.0),
        ("partial", "mine", 4.0),
    ]


def test_the_first_judgement_of_an_item_writes_every_field_of_its_label_and_event(shared):
    from annotation import annotating

    fold, ann = shared["folds"][0], shared["ann"]
    item = items_of(fold)[1]
    label, changed = annotating.save_judgement(ann, fold, item, value="incorrect", seconds="7.5", submission_id="s")
    row = Label.objects.get(pk=label.pk)
    assert changed and (row.triplet_id, row.annotator_id, row.fold_id) == (item.triplet_id, ann.pk, fold.pk)
    assert (row.value, row.skipped, row.seconds_spent, row.source) == ("incorrect", False, 7.5, "ui")
    assert row.created_at == label.created_at and row.updated_at == label.updated_at
    event = LabelEvent.objects.get(label=row)
    assert (event.value, event.skipped, event.seconds, event.submission_id) == ("incorrect", False, 7.5, "s")
    assert event.created_at >= row.created_at
