"""A fold or item that is not the annotator's: the service layer raises ``annotating.NotFound`` (no
``Http404`` outside the web layer) and every page and API answer is the same 404 as before."""

import re

import pytest
from django.http import Http404
from django.urls import reverse

from annotation import annotating
from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import Label

pytestmark = pytest.mark.django_db
TOKEN = re.compile(r'("X-CSRFToken": "|name="csrfmiddlewaretoken" value=")\w+')


@pytest.fixture
def world(tiny_corpus, make_user, client):
    folds = create_folds(tiny_corpus, k=2, seed=1, overlap=0)
    ann, other = make_user("ann", "annotator"), make_user("other", "annotator")
    assign_fold(folds[0], ann)
    assign_fold(folds[1], other)
    client.force_login(ann)
    return {"mine": folds[0], "theirs": folds[1], "ann": ann, "client": client}


def page(response):
    """The body with the per-render CSRF tokens blanked out."""
    return TOKEN.sub(r"\1", response.content.decode())


def test_service_raises_a_lookup_error_not_http404(world):
    theirs, ann = world["theirs"], world["ann"]
    for call in (
        lambda: annotating.get_assigned_fold(ann, theirs.pk),
        lambda: annotating.open_fold(ann, theirs.pk),
        lambda: annotating.get_fold_item(world["mine"], theirs.items.first().pk),
    ):
        with pytest.raises(annotating.NotFound) as raised:
            call()
        assert isinstance(raised.value, LookupError) and not isinstance(raised.value, Http404)
    assert str(raised.value) == "no such item in this fold"


def test_pages_answer_the_same_404_page(world):
    client, mine, theirs = world["client"], world["mine"], world["theirs"]
    item = theirs.items.first().handle
    nowhere = client.get("/no/such/page/")
    assert nowhere.status_code == 404
    expected = page(nowhere)
    answers = [
        client.get(reverse("annotate", args=[theirs.pk])),
        client.get(reverse("annotate-item", args=[theirs.pk, item])),
        client.get(reverse("annotate-item", args=[mine.pk, item])),
        client.get(reverse("previous", args=[theirs.pk])),
        client.post(reverse("judge", args=[mine.pk]), {"item": item, "value": "correct"}),
        client.get(reverse("item-list", args=[theirs.pk])),
        client.get(reverse("review", args=[theirs.pk])),
        client.post(reverse("flag-item", args=[theirs.pk]), {"item": item, "reason": "other"}),
        client.post(reverse("flag-item", args=[mine.pk]), {"item": item, "reason": "other"}),
        client.get(reverse("frame-check", args=[mine.pk])),  # a triplet fold is no frame fold
    ]
    for response in answers:
        assert response.status_code == 404, response.request["PATH_INFO"]
        assert page(response) == expected, response.request["PATH_INFO"]
    assert Label.objects.count() == 0


def test_api_answers_404_with_the_same_detail(world):
    client, mine, theirs = world["client"], world["mine"], world["theirs"]
    item = theirs.items.first().handle
    fold_gone = {"detail": "no such fold among your assignments"}
    item_gone = {"detail": "no such item in this fold"}
    for response, body in [
        (client.get(f"/api/my/folds/{theirs.pk}/next/"), fold_gone),
        (client.get(f"/api/my/folds/{theirs.pk}/items/{item}/"), fold_gone),
        (client.get(f"/api/my/folds/{mine.pk}/items/{item}/"), item_gone),
        (
            client.post(
                f"/api/my/folds/{theirs.pk}/judge/", {"item": item, "label": "correct"}, content_type="application/json"
            ),
            fold_gone,
        ),
        (
            client.post(
                f"/api/my/folds/{mine.pk}/judge/", {"item": item, "label": "correct"}, content_type="application/json"
            ),
            item_gone,
        ),
    ]:
        assert response.status_code == 404
        assert response.json() == body
