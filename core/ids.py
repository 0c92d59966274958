"""Ids, positions and counts from the outside world, checked against their column's range at the edge.

One home for the rule "every id or number a URL, a form, a query string or a JSON body carries
fits its column, or the request is refused before any query runs" (raw SQL fast paths included:
``annotation/sql.py`` binds the value as is, and SQLite raises ``OverflowError`` beyond 64 bits).

- ``IdConverter``, registered as the path converter ``id`` (``CoreConfig.ready``): every integer in
  a URL pattern is ``<id:name>`` (1 .. 2**63-1, ASCII digits); anything else does not match, so the
  request answers 404 without reaching the view. ``tests/hostile/test_number_edges.py`` walks the
  URL resolver and fails on a pattern that still uses Django's unbounded ``<int:...>``.
- ``parse_id`` / ``parse_int``: the same rule for a value read from a form or a query string
  (None when it does not fit; the view answers 400 or 404).
- ``ID_FIELD`` / ``POSITION_FIELD``: the bounds of DRF serializer fields taking an id or a position.
"""

from __future__ import annotations

ID_MIN = 1
ID_MAX = 2**63 - 1  # BigAutoField (DEFAULT_AUTO_FIELD) and BigIntegerField
POSITION_MAX = 2**31 - 1  # PositiveIntegerField: positions, counters, cursors
ID_FIELD = {"min_value": ID_MIN, "max_value": ID_MAX}
POSITION_FIELD = {"min_value": 0, "max_value": POSITION_MAX}


def parse_int(raw, *, lo=0, hi=POSITION_MAX):
    """``raw`` as an int when it is plain ASCII digits (an optional leading ``-`` when ``lo`` < 0)
    within ``[lo, hi]``; None otherwise (``'1e3'``, ``'١٢'``, ``' 7'``, ``2**63``, ``None``).

    >>> parse_int("42"), parse_int("1e3"), parse_int(str(2**31)), parse_int("-1"), parse_int("-1", lo=-5)
    (42, None, None, None, -1)
    """
    if not isinstance(raw, str) or not raw.isascii() or len(raw) > 20:
        return None
    digits = raw[1:] if raw.startswith("-") and lo < 0 else raw
    if not digits.isdigit():
        return None
    value = int(raw)
    return value if lo <= value <= hi else None


def parse_id(raw):
    """A database id from a form or a query string: ``parse_int`` within 1 .. 2**63-1.

    >>> parse_id("7"), parse_id("0"), parse_id(str(2**63)), parse_id("")
    (7, None, None, None)
    """
    return parse_int(raw, lo=ID_MIN, hi=ID_MAX)


class IdConverter:
    """Path converter ``<id:name>``: an id within the range of a 64-bit id column, else no match (404)."""

    regex = "[0-9]{1,19}"

    def to_python(self, value):
        number = int(value)
        if not ID_MIN <= number <= ID_MAX:
            raise ValueError(f"{value} is outside 1 .. 2**63-1")  # the pattern does not match: 404
        return number

    def to_url(self, value):
        return str(value)
