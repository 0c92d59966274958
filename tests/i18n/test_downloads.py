"""Downloads stay in the paper's format whatever the reader's language: the same bytes under French
as under English (numbers with a point, ISO dates, English column names and label words)."""

import pytest
from django.urls import reverse

from annotation.annotating import judge, refresh_progress
from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import Assignment

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled(tiny_corpus, make_user):
    annotator = make_user("ann", "annotator")
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    assign_fold(fold, annotator)
    assignment = Assignment.objects.get(fold=fold, annotator=annotator)
    refresh_progress(assignment)
    for item, value in zip(fold.items.order_by("position"), ("correct", "partial", "incorrect")):
        judge(assignment, item, value=value, seconds=12.5)
    make_user("res", "admin")  # admins read the quality API too
    return tiny_corpus


@pytest.mark.parametrize(
    ("name", "query"),
    [
        ("download-labels", "?format=csv"),
        ("download-labels", ""),
        ("download-triplet-map", ""),
        ("download-flags", "?format=csv"),
        ("api-labels", ""),
        ("api-quality", "?corpus=tiny"),
    ],
)
def test_download_is_the_same_in_french(client, labelled, name, query):
    client.login(username="res", password="pw-for-tests-1")
    url = reverse(name) + query

    def body(**headers):
        resp = client.get(url, **headers)
        assert resp.status_code == 200, resp.content[:300]
        return b"".join(resp.streaming_content) if resp.streaming else resp.content

    english = body()
    assert english  # something to compare
    assert body(HTTP_ACCEPT_LANGUAGE="fr") == english
    client.post(reverse("set-language"), {"language": "fr", "next": "/"})
    assert body() == english


def test_labels_csv_keeps_points_and_iso_dates_in_french(client, labelled):
    client.login(username="res", password="pw-for-tests-1")
    client.post(reverse("set-language"), {"language": "fr", "next": "/"})
    resp = client.get(reverse("download-labels") + "?format=csv")
    text = b"".join(resp.streaming_content).decode()
    assert "12.5" in text and "12,5" not in text
    assert "correct" in text and "partial" in text  # label words are data, not interface
