"""Study archives (SPEC 14): the values of archived rows, checked before anything is written.

Every refusal names the member, the row (its line) and the field, and says what is wrong: a number
JSON does not have (NaN, Infinity), an integer the column cannot hold, a value of the wrong type, a
string too long or holding a character no database stores, nesting too deep. Plain functions on
plain data: ``evaluation/archive/collect.py`` builds the column specs from the models.
"""

from __future__ import annotations

import json
import math

from evaluation.archive.format import ArchiveError

MAX_DEPTH = 64  # nesting of a JSON value inside a row (a job's params, a judge's parameters)
INT_RANGE = (-(2**63), 2**63 - 1)


def _no_constant(name):
    raise ValueError(f"{name} is not a number an archive may hold")


def loads_row(line: bytes | str, member: str, number: int) -> dict:
    """One JSON Lines row, strictly: a JSON object, without NaN or +-Infinity, not nested too deeply.

    Parameters
    ----------
    line : bytes or str
        The line.
    member, number :
        The member and the line number, for errors.

    Returns
    -------
    dict
        The row; anything else raises ``ArchiveError`` naming member and line.

    Examples
    --------
    >>> loads_row(b'{"id": 1, "seconds_spent": 2.5}', "rows/annotation.Label.jsonl", 3)
    {'id': 1, 'seconds_spent': 2.5}
    >>> loads_row(b'{"id": 1, "seconds_spent": NaN}', "rows/a.B.jsonl", 3)
    Traceback (most recent call last):
    ...
    evaluation.archive.format.ArchiveError: archive member rows/a.B.jsonl, line 3: NaN is not a number an archive ...
    >>> loads_row("[" * 100000, "users.jsonl", 1)
    Traceback (most recent call last):
    ...
    evaluation.archive.format.ArchiveError: archive member users.jsonl, line 1: nested too deeply
    """
    where = f"archive member {member}, line {number}"
    try:
        row = json.loads(line, parse_constant=_no_constant)
    except RecursionError:
        raise ArchiveError(f"{where}: nested too deeply") from None
    except UnicodeDecodeError:
        raise ArchiveError(f"{where}: not UTF-8 text") from None
    except ValueError as exc:
        reason = str(exc) if "archive may hold" in str(exc) or "digits" in str(exc) else "not a JSON object"
        raise ArchiveError(f"{where}: {reason}") from None
    if not isinstance(row, dict):
        raise ArchiveError(f"{where}: not a JSON object")
    return row


def _depth(value) -> int:
    depth, level = 0, [value]
    while level:
        nested = []
        for v in level:
            if isinstance(v, dict):
                nested.extend(v.values())
            elif isinstance(v, list):
                nested.extend(v)
        if nested:
            depth += 1
        level = nested
    return depth


def _text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "holds a NUL character, which no database stores"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "holds a lone surrogate (\\ud800-\\udfff), not text"
    return None


def _json_problem(value) -> str | None:
    if _depth(value) > MAX_DEPTH:
        return f"nested more than {MAX_DEPTH} levels deep"
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
            stack.extend(v.keys())
        elif isinstance(v, list):
            stack.extend(v)
        elif isinstance(v, str) and (problem := _text_problem(v)):
            return problem
        elif isinstance(v, int) and not isinstance(v, bool) and not INT_RANGE[0] <= v <= INT_RANGE[1]:
            return "holds an integer too large for a JSON column"
        elif isinstance(v, float) and not math.isfinite(v):
            return "holds a number that is not finite"
    return None


def value_problem(value, spec: dict) -> str | None:
    """What is wrong with ``value`` for a column of ``spec``, or None.

    Parameters
    ----------
    value :
        The value as JSON gave it.
    spec : dict
        ``kind`` (int, float, bool, str, json, list of str, other), ``null`` (None allowed), and ``max_length``
        (str) or ``range`` (int: ``(lowest, highest)``) when the column has one.

    Returns
    -------
    str or None
        The problem in words.

    Examples
    --------
    >>> value_problem(10**30, {"kind": "int", "null": False, "range": (-(2**31), 2**31 - 1)})
    'integer 1000000000000000000000000000000 out of range (-2147483648 to 2147483647)'
    >>> value_problem("12", {"kind": "int", "null": False})
    "expected an integer, got a string ('12')"
    >>> value_problem(None, {"kind": "float", "null": False})
    'may not be null'
    >>> value_problem(float("inf"), {"kind": "float", "null": True}), value_problem(3, {"kind": "float", "null": True})
    ('not a finite number', None)
    >>> value_problem("abcd", {"kind": "str", "null": False, "max_length": 3})
    'longer than 3 characters (4)'
    >>> value_problem({"a": [1, {"b": "x\\x00"}]}, {"kind": "json", "null": True})
    'holds a NUL character, which no database stores'
    """
    if value is None:
        return None if spec.get("null") else "may not be null"
    kind = spec["kind"]
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            return _wrong("an integer", value)
        lo, hi = spec.get("range") or INT_RANGE
        if not lo <= value <= hi:
            return f"integer {value} out of range ({lo} to {hi})"
    elif kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return _wrong("a number", value)
        if isinstance(value, float) and not math.isfinite(value):
            return "not a finite number"
        if isinstance(value, int) and not INT_RANGE[0] <= value <= INT_RANGE[1]:
            return f"number {value} out of range"
    elif kind == "bool":
        if not isinstance(value, bool):
            return _wrong("true or false", value)
    elif kind == "str":
        if not isinstance(value, str):
            return _wrong("a string", value)
        if spec.get("max_length") and len(value) > spec["max_length"]:
            return f"longer than {spec['max_length']} characters ({len(value)})"
        return _text_problem(value)
    elif kind == "json":
        return _json_problem(value)
    elif kind == "list" and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        return _wrong("a list of strings", value)
    return None


_TYPE_WORDS = {str: "a string", int: "an integer", float: "a number", bool: "true or false", list: "a list"}


def _wrong(expected: str, value) -> str:
    got = _TYPE_WORDS.get(type(value), "an object")
    shown = repr(value)
    return f"expected {expected}, got {got} ({shown[:40] + '...' if len(shown) > 40 else shown})"


def check_rows(rows: list, specs: dict, member: str, *, convert=None, required=(), start=1) -> None:
    """Refuse the first value of ``rows`` its column cannot take, naming member, row and field.

    Parameters
    ----------
    rows : list of dict
        The member's rows, in line order.
    specs : dict
        ``{column: spec}`` (``value_problem``); a column not in ``specs`` is not checked.
    member : str
        The member, for errors.
    convert : dict, optional
        ``{column: function}`` for the ``other`` kinds (datetimes...): it raises on a bad value.
    required : tuple of str
        Columns every row must have (its id).
    start : int
        The row number of ``rows[0]`` in its member (a batch of a member read streamed).

    Returns
    -------
    None
        Raises ``ArchiveError``.

    Examples
    --------
    >>> specs = {"id": {"kind": "int", "null": False}, "seconds_spent": {"kind": "float", "null": False}}
    >>> check_rows([{"id": 1, "seconds_spent": 1.0}, {"id": 2, "seconds_spent": "x"}], specs, "rows/a.B.jsonl")
    Traceback (most recent call last):
    ...
    evaluation.archive.format.ArchiveError: archive member rows/a.B.jsonl, row 2 (id 2), field seconds_spent: ...
    """
    convert = convert or {}
    for number, row in enumerate(rows, start):
        for column in required:
            if column not in row:
                raise ArchiveError(f"archive member {member}, row {number}, field {column}: missing")
        for column, value in row.items():
            spec = specs.get(column)
            if spec is None:
                continue
            problem = value_problem(value, spec)
            if problem is None and value is not None and column in convert:
                try:
                    convert[column](value)
                except Exception as exc:  # a field's own parser: ValidationError, TypeError, ValueError...
                    problem = _first_message(exc)
            if problem:
                ident = row.get("id")
                shown = f" (id {ident})" if isinstance(ident, int) and not isinstance(ident, bool) else ""
                raise ArchiveError(f"archive member {member}, row {number}{shown}, field {column}: {problem}")


def _first_message(exc) -> str:
    messages = getattr(exc, "messages", None)
    text = messages[0] if messages else str(exc)
    return (text or type(exc).__name__)[:200]
