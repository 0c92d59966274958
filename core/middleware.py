"""Edge guards for every request and response (one place, no view needs to repeat them).

- ``HostileInputMiddleware``: a NUL character anywhere in the query string or in a form field, or a
  number written with non-ASCII digits (``١٢``, ``²``) in one, is refused with 400 before any view
  or database sees it (PostgreSQL cannot store NUL; ``int('²')`` raises).
- ``DomainErrorMiddleware``: a domain error raised by a page becomes its answer
  (``core.web_errors``): a lookup error (``annotating.NotFound``, ``FrameCheckNotFound``, ...) the
  404 page, as ``Http404`` would; ``BrokerUnavailable`` a 503 page saying so; any other
  ``UserFacingError`` its message with its 4xx status. The API answers the same through DRF's
  exception handler ``core.web_errors.api_exception_handler``.
- ``SecurityHeadersMiddleware``: a Content-Security-Policy (scripts only from this site, no inline
  script), and ``Cache-Control: no-store`` on the API and the downloads.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import render

from core.runner import BrokerUnavailable
from core.web_errors import domain_status

_NUMBERISH = re.compile(r"[\s+\-.,eE]*")


def problem_in(value: str):
    """Why a query or form value is refused, or None."""
    if "\x00" in value:
        return "contains a NUL character"
    if any(ch.isdigit() and not ch.isascii() for ch in value):
        rest = "".join(ch for ch in value if not ch.isdigit())
        if _NUMBERISH.fullmatch(rest):
            return "a number must be written with ASCII digits 0-9"
    return None


class HostileInputMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        sources = [("query string", request.GET)]
        if request.method == "POST" and request.content_type in (
            "application/x-www-form-urlencoded",
            "multipart/form-data",
        ):
            sources.append(("form", request.POST))
        for where, data in sources:
            for key in data:
                for value in [key, *data.getlist(key)]:
                    problem = problem_in(value)
                    if problem:
                        return HttpResponseBadRequest(
                            f"bad {where} parameter {key[:40]!r}: {problem}", content_type="text/plain; charset=utf-8"
                        )
        return self.get_response(request)


class DomainErrorMiddleware:
    """A page's domain error as its answer: 404 for a lookup error, 503 for the broker, 4xx otherwise."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        status = domain_status(exception)
        if status is None:
            return None
        if status == 404:
            raise Http404(str(exception)) from exception
        if isinstance(exception, BrokerUnavailable):
            return render(request, "core/broker_down.html", {"message": str(exception.detail)}, status=503)
        return HttpResponse(str(exception), status=status, content_type="text/plain; charset=utf-8")


NO_STORE_PREFIXES = ("/api/", "/research/api/", "/runs/api/", "/downloads/")


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        response.setdefault("Content-Security-Policy", settings.CONTENT_SECURITY_POLICY)
        if request.path.startswith(NO_STORE_PREFIXES):
            response["Cache-Control"] = "no-store"
        return response
