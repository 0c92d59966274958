"""How domain errors reach the web: one rule for the pages (``core.middleware.DomainErrorMiddleware``)
and the API (``api_exception_handler``, DRF's ``EXCEPTION_HANDLER``).

- A lookup error raised by a service (``annotating.NotFound``, ``frames.checking.FrameCheckNotFound``:
  subclasses of ``LookupError``) is 404 with its message. ``KeyError`` and ``IndexError`` are
  ``LookupError``s too, but they are bugs, not answers: they stay 500.
- A ``UserFacingError`` is its ``status_code`` (400 unless the error says otherwise; 503 for
  ``BrokerUnavailable``) with its message.
- Anything else is not turned into a 4xx: a database error or a bug stays a 500 with its log line.
"""

from __future__ import annotations

from rest_framework.exceptions import APIException, NotFound
from rest_framework.response import Response
from rest_framework.views import exception_handler

from core.errors import UserFacingError


def domain_status(exc: BaseException) -> int | None:
    """The HTTP status a domain error answers with, or None for any other exception."""
    if isinstance(exc, LookupError) and not isinstance(exc, (KeyError, IndexError)):
        return 404
    if isinstance(exc, UserFacingError):
        return getattr(exc, "status_code", 400)
    return None


def api_exception_handler(exc, context):
    """DRF's handler, with the domain errors of ``domain_status`` answered as ``{"detail": message}``."""
    status = None if isinstance(exc, APIException) else domain_status(exc)
    if status == 404:
        exc = NotFound(str(exc))
    elif status is not None:
        return Response({"detail": str(exc)}, status=status)
    return exception_handler(exc, context)
