"""One rule for domain errors on pages and in the API (core.web_errors): a service's lookup error is
404, a UserFacingError its 4xx/503 with its message, and anything else stays a 500 (never a 404)."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.http import Http404
from django.test import RequestFactory
from rest_framework.exceptions import NotFound

from annotation.annotating import NotFound as FoldNotFound
from annotation.interchange import InterchangeError
from core.middleware import DomainErrorMiddleware
from core.runner import BrokerUnavailable
from core.web_errors import api_exception_handler, domain_status
from frames.checking import FrameCheckNotFound


@pytest.mark.parametrize(
    ("exc", "status"),
    [
        (FoldNotFound("no such fold among your assignments"), 404),
        (FrameCheckNotFound("no such frame check"), 404),
        (InterchangeError("bad line", "f.jsonl", 3), 400),
        (BrokerUnavailable("the task queue is down"), 503),
        (KeyError("hscore"), None),  # a LookupError, but a bug: 500
        (IndexError("list index out of range"), None),
        (ValueError("boom"), None),
        (RuntimeError("database is locked"), None),
    ],
)
def test_domain_status(exc, status):
    assert domain_status(exc) == status


def test_the_api_answers_domain_errors_with_their_message():
    response = api_exception_handler(FoldNotFound("no such item in this fold"), {})
    assert (response.status_code, response.data) == (404, {"detail": "no such item in this fold"})
    response = api_exception_handler(InterchangeError("malformed JSON", "f.jsonl", 2), {})
    assert response.status_code == 400 and "malformed JSON" in response.data["detail"]
    response = api_exception_handler(NotFound("no corpus"), {})  # DRF's own errors as before
    assert response.status_code == 404
    assert api_exception_handler(RuntimeError("database is locked"), {}) is None  # DRF leaves it a 500
    assert api_exception_handler(KeyError("x"), {}) is None


@pytest.mark.django_db
def test_the_pages_answer_domain_errors():
    middleware = DomainErrorMiddleware(lambda request: None)
    request = RequestFactory().get("/x/")
    request.user = AnonymousUser()
    with pytest.raises(Http404, match="no such fold"):
        middleware.process_exception(request, FoldNotFound("no such fold among your assignments"))
    response = middleware.process_exception(request, InterchangeError("malformed JSON", "f.jsonl", 2))
    assert response.status_code == 400 and b"malformed JSON" in response.content
    response = middleware.process_exception(request, BrokerUnavailable("the task queue is down"))
    assert response.status_code == 503 and b"the task queue is down" in response.content
    assert middleware.process_exception(request, KeyError("x")) is None
    assert middleware.process_exception(request, RuntimeError("database is locked")) is None
