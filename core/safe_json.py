"""JSON that every database can store: the one parser of request bodies and import lines.

``loads_checked`` is ``json.loads`` refusing NaN/Infinity, numbers beyond 64 bits and nesting
deeper than ``MAX_DEPTH``; ``unstorable`` finds the first string no database can store (NUL, an
unpaired surrogate). Pure standard library.
"""

from __future__ import annotations

import json

MAX_DEPTH = 20
MAX_JSON_INT = 2**63 - 1


def _unstorable(value, key=None):
    """``(key, reason)`` of the first string no database can store (NUL, unpaired surrogate), else None."""
    if isinstance(value, str):
        if "\x00" in value:
            return key, "contains a NUL character (\\u0000)"
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return key, "contains an unpaired surrogate (not valid Unicode)"
        return None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        found = (_unstorable(k, key or k) if isinstance(k, str) else None) or _unstorable(
            v, key if key is not None else k
        )
        if found:
            return found
    return None


def unstorable(value):
    """``(key, reason)`` of the first string no database can store in ``value``, else None."""
    return _unstorable(value)


class HostileValue(ValueError):
    """A JSON value that parses but cannot be stored as it is."""


def _finite(text):
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise HostileValue(f"number {text[:40]} is out of range (finite numbers only)")
    return value


def _bounded_int(text):
    if len(text) > 20 or abs(int(text)) > MAX_JSON_INT:
        raise HostileValue(f"integer {text[:40]} is out of range (64-bit integers only)")
    return int(text)


def _no_constant(text):
    raise HostileValue(f"{text} is not a number JSON allows (no NaN or Infinity)")


def _too_deep(value, limit):
    """Whether lists/objects nest deeper than ``limit`` levels (iterative: no recursion limit)."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if level > limit:
            return True
        stack.extend((child, level + 1) for child in children)
    return False


# One decoder for every line (``json.loads`` with hooks builds a new one per call).
_DECODER = json.JSONDecoder(parse_float=_finite, parse_int=_bounded_int, parse_constant=_no_constant)


def loads_checked(text):
    """``json.loads`` refusing NaN/Infinity, out-of-range numbers and nesting deeper than ``MAX_DEPTH``."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode(json.detect_encoding(text), "surrogatepass")  # as json.loads does
    elif text.startswith("\ufeff"):  # as json.loads does
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    try:
        obj = _DECODER.decode(text)
    except RecursionError:
        raise HostileValue(f"nested deeper than {MAX_DEPTH} levels") from None
    # Nesting never exceeds the number of opening brackets (C-speed counts): most lines need no walk.
    if text.count("{") + text.count("[") <= MAX_DEPTH + 1:
        return obj
    if _too_deep(obj, MAX_DEPTH + 1):  # the line's own object is level 1
        raise HostileValue(f"nested deeper than {MAX_DEPTH} levels")
    return obj
