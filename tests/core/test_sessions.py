"""core.sessions: the session read by one SQL statement answers as Django's database store does.

A live session is read back, an expired or unknown one starts a new empty session, and a logout
deletes the row so that the old cookie no longer logs anyone in (server-side invalidation kept)."""

from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.sessions.backends.db import SessionStore as DjangoStore
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from core.sessions import SessionStore

pytestmark = pytest.mark.django_db


def test_the_site_uses_it():
    assert settings.SESSION_ENGINE == "core.sessions"


def test_reads_what_django_wrote_and_back():
    django_side = DjangoStore()
    django_side["k"] = {"a": [1, 2]}
    django_side.create()
    ours = SessionStore(django_side.session_key)
    assert ours.load() == {"k": {"a": [1, 2]}} and ours.session_key == django_side.session_key
    ours["more"] = "x"
    ours.save()
    assert DjangoStore(django_side.session_key).load() == {"k": {"a": [1, 2]}, "more": "x"}


@pytest.mark.parametrize("key", ["expired", "unknown-key-0123456789", None])
def test_expired_unknown_or_no_key_is_a_new_empty_session(key):
    if key == "expired":
        old = SessionStore()
        old["k"] = 1
        old.create()
        Session.objects.filter(session_key=old.session_key).update(expire_date=timezone.now() - timedelta(seconds=1))
        key = old.session_key
    store = SessionStore(key)
    assert store.load() == {}
    assert store.session_key is None  # forgotten: the next save makes a new key, never reuses this one


def test_logout_invalidates_the_old_cookie(make_user):
    user = make_user("ann", "annotator")
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert client.get("/").status_code == 200
    client.post("/logout/")
    replay = Client()
    replay.cookies[settings.SESSION_COOKIE_NAME] = cookie
    response = replay.get("/")
    assert response.status_code == 302 and "/login/" in response["Location"]
