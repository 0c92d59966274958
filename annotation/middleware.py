"""Edge guards for every request and response (one place, no view needs to repeat them).

- ``HostileInputMiddleware``: a NUL character anywhere in the query string or in a form field, or a
  number written with non-ASCII digits (``١٢``, ``²``) in one, is refused with 400 before any view
  or database sees it (PostgreSQL cannot store NUL; ``int('²')`` raises).
- ``BrokerDownMiddleware``: ``BrokerUnavailable`` raised by a page (starting a report, an import, a
  run) becomes a 503 page saying so; the API answers 503 through DRF.
- ``NotFoundMiddleware``: ``annotating.NotFound`` raised by a page (a fold not assigned to the user,
  an item not in the fold) becomes the 404 page, as ``Http404`` would; the API answers 404 itself.
- ``StrictJSONParser`` (DRF): API bodies follow the import rules for numbers, nesting and NUL.
- ``SecurityHeadersMiddleware``: a Content-Security-Policy (scripts only from this site, no inline
  script), and ``Cache-Control: no-store`` on the API and the downloads.
"""

from __future__ import annotations

import re

from django.conf import settings
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import render
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from annotation.annotating import NotFound
from annotation.interchange import loads_checked, unstorable
from core.runner import BrokerUnavailable

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


class BrokerDownMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, BrokerUnavailable):
            return render(request, "broker_down.html", {"message": str(exception.detail)}, status=503)
        return None


class NotFoundMiddleware:
    """The service layer says ``NotFound``; the web answers 404 (the same page as ``Http404``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, NotFound):
            raise Http404(str(exception)) from exception
        return None


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


class StrictJSONParser(JSONParser):
    """DRF's JSON parser with the import rules: no NaN/Infinity, numbers that fit 64 bits, nesting
    of at most ``MAX_DEPTH``, no NUL or lone surrogate in any string -> 400, never a 500 later."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            data = loads_checked(stream.read().decode(encoding))
        except (ValueError, UnicodeDecodeError) as exc:  # JSONDecodeError and HostileValue are ValueErrors
            raise ParseError(f"JSON parse error - {exc}") from None
        found = unstorable(data)
        if found:
            raise ParseError(f"JSON parse error - {found[0] or 'a string'}: {found[1]}")
        return data
