"""CSRF is enforced on the annotator page and the API; login is rate-limited by django-axes."""

import re

import pytest
from django.test import Client

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds

pytestmark = pytest.mark.django_db


@pytest.fixture
def annotator(tiny_corpus, make_user):
    ann = make_user("ann", "annotator")
    fold = create_folds(tiny_corpus, k=1, seed=1, overlap=0)[0]
    assign_fold(fold, ann)
    client = Client(enforce_csrf_checks=True)
    client.force_login(ann)
    return client, fold


def test_judge_page_post_without_csrf_token_is_refused(annotator):
    client, fold = annotator
    page = client.get(f"/annotate/{fold.pk}/").content.decode()
    item = re.search(r'name="item" value="(\d+)"', page).group(1)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    data = {"item": item, "value": "correct", "submission_id": "s1"}
    assert client.post(f"/annotate/{fold.pk}/judge/", data, HTTP_HX_REQUEST="true").status_code == 403
    assert fold.items.get(handle=item).triplet.labels.count() == 0
    # The same request with the page's token goes through: the token was the only thing missing.
    ok = client.post(f"/annotate/{fold.pk}/judge/", {**data, "csrfmiddlewaretoken": token}, HTTP_HX_REQUEST="true")
    assert ok.status_code == 200 and fold.items.get(handle=item).triplet.labels.count() == 1


def test_api_post_with_session_but_without_csrf_token_is_refused(annotator):
    client, fold = annotator
    item = client.get(f"/api/my/folds/{fold.pk}/next/").json()["item"]["item_id"]
    body = {"item": item, "label": "correct", "submission_id": "api-1"}
    refused = client.post(f"/api/my/folds/{fold.pk}/judge/", body, content_type="application/json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["detail"]
    token = client.cookies["csrftoken"].value if "csrftoken" in client.cookies else None
    if token is None:
        client.get(f"/annotate/{fold.pk}/")
        token = client.cookies["csrftoken"].value
    ok = client.post(f"/api/my/folds/{fold.pk}/judge/", body, content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert ok.status_code == 200 and ok.json()["saved"]["label"] == "correct"


def test_login_is_locked_after_the_failure_limit_even_with_the_right_password(make_user, settings):
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 3
    make_user("victim", "annotator", password="the-right-password-1")
    client = Client()

    def attempt(password):
        return client.post("/login/", {"username": "victim", "password": password}, REMOTE_ADDR="10.1.2.3")

    for i in range(settings.AXES_FAILURE_LIMIT):
        r = attempt(f"wrong-{i}")
        assert "_auth_user_id" not in client.session
        # the form again, until the failure that reaches the limit locks the account
        assert r.status_code == (200 if i < settings.AXES_FAILURE_LIMIT - 1 else 429)
    locked = attempt("the-right-password-1")
    assert locked.status_code in (403, 429)
    assert "_auth_user_id" not in client.session
    # Another address is not locked out by these failures (lockout is per username and IP).
    other = Client().post("/login/", {"username": "victim", "password": "the-right-password-1"}, REMOTE_ADDR="10.9.9.9")
    assert other.status_code == 302
