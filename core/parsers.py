"""The API's JSON parser (DRF): request bodies follow the import rules for numbers, nesting and NUL."""

from django.conf import settings
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from core.safe_json import loads_checked, unstorable


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
