"""API for tools (issue 12, point 7): DRF tokens created in the admin; Swagger UI and Redoc served with
local assets (drf-spectacular-sidecar), no CDN."""

import re

import pytest
from django.contrib.staticfiles import finders
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db


def test_an_admin_creates_a_token_in_the_admin_and_a_tool_uses_it(admin_client, make_user, client):
    ann = make_user("ann", "annotator")
    resp = admin_client.post("/admin/authtoken/tokenproxy/add/", {"user": ann.pk})
    assert resp.status_code == 302
    key = Token.objects.get(user=ann).key
    anonymous = client.get("/api/my/folds/")  # no credentials: 401 naming the scheme to use
    assert anonymous.status_code == 401 and anonymous["WWW-Authenticate"] == "Token"
    ok = client.get("/api/my/folds/", HTTP_AUTHORIZATION=f"Token {key}")
    assert ok.status_code == 200 and ok.json() == []
    bad = client.get("/api/my/folds/", HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert bad.status_code == 401 and bad.json()["detail"] == "Invalid token."
    # the token carries the user's role, nothing more
    assert client.get("/api/labels/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 403


@pytest.mark.parametrize("url", ["/api/docs/", "/api/redoc/"])
def test_schema_browsers_use_local_assets_only(client, make_user, url):
    client.force_login(make_user("res", "researcher"))
    resp = client.get(url)
    assert resp.status_code == 200
    html = resp.content.decode()
    assert "cdn." not in html and "unpkg" not in html and "jsdelivr" not in html
    assets = re.findall(r'(?:src|href)="/static/(drf_spectacular_sidecar/[^"]+)"', html)
    assert assets and all(finders.find(a) for a in assets)
    assert re.findall(r"<script(?![^>]*\bsrc=)", html) == []  # no inline script (CSP): Swagger's init is a file


@pytest.mark.parametrize("url", ["/api/docs/", "/api/redoc/"])
def test_api_docs_logged_out_offer_a_login_link(client, url):
    """Logged out, the schema answers 401: the docs page says to log in instead of failing to load it."""
    resp = client.get(url)
    html = resp.content.decode()
    assert resp.status_code == 200 and f'href="/login/?next={url}"' in html
    assert "drf_spectacular_sidecar" not in html and "Log in</a> to read it" in html
    assert client.get("/api/schema/").status_code == 401


def test_favicon_is_served(client):
    """Every browser asks for /favicon.ico; pages also name an SVG icon."""
    resp = client.get("/favicon.ico")
    assert resp.status_code == 200 and b"".join(resp.streaming_content)[:4] == b"\x00\x00\x01\x00"
    assert client.get("/static/favicon.svg").status_code == 200
