"""The lockout page says how long, once, from the real setting (issue 32, friction 8): not "a few
minutes" beside "about 15 minutes"; in English and French."""

import re
from datetime import timedelta

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def locked_page(settings, make_user, cooloff, language="en"):
    settings.AXES_ENABLED = True
    settings.AXES_FAILURE_LIMIT = 2
    settings.AXES_COOLOFF_TIME = cooloff
    make_user("victim", "annotator")
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    for i in range(2):
        page = client.post("/login/", {"username": "victim", "password": f"wrong-{i}"}, REMOTE_ADDR="10.1.2.3")
    assert page.status_code == 429
    return page.content.decode()


@pytest.mark.parametrize(
    ("cooloff", "language", "said"),
    [
        (0.25, "en", "Wait 15 minutes, then try again"),  # the platform's setting, in hours
        (timedelta(minutes=1), "en", "Wait 1 minute, then try again"),
        (2, "en", "Wait 120 minutes, then try again"),
        (0.25, "fr", "Attendez 15 minutes, puis réessayez"),
    ],
)
def test_the_lockout_page_says_the_real_wait_once(settings, make_user, cooloff, language, said):
    body = locked_page(settings, make_user, cooloff, language)
    text = re.sub(r"\s+", " ", re.search(r'<p id="lockout-wait">(.*?)</p>', body, re.S).group(1))
    assert said in text, text
    assert "few minutes" not in body and "about" not in text and "quelques minutes" not in body


def test_without_a_cooloff_the_page_says_an_admin_unlocks_it(settings, make_user):
    body = locked_page(settings, make_user, None)
    assert "an administrator can unlock it." in body and "Wait" not in body
