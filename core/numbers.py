"""Numbers as people type them, in either of the site's languages (issue 45, point 3): one home.

``parse_number`` is pure (no Django): "0,08", "0.08", " 1 234,5 " (French thousands), "5 %" all read
the same wherever they are typed; a text with both a comma and a point, or anything else, is refused
rather than guessed (a browser's number input once turned a French "0,08" into "008", i.e. 8.0).
``NumberField`` (``core.forms_fields``) is the form field every form that takes a number uses.
"""

from __future__ import annotations

import math
import re

_SPACES = re.compile(r"[\s\u00a0\u202f\u2009']")  # thousands separators people type (en, fr, ch)
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


class NotANumber(ValueError):
    """The text is no number (empty, letters, two decimal separators, not finite)."""


def parse_number(text, *, percent=False):
    """The number a person typed, with a comma or a point as the decimal separator.

    Parameters
    ----------
    text : str or float
        What was typed (a number passes through).
    percent : bool, default False
        Accept a trailing "%" (the value is then divided by 100).

    Returns
    -------
    tuple[float, bool]
        The value and whether it was written as a percentage.

    Raises
    ------
    NotANumber
        When the text is not one finite number.

    Examples
    --------
    >>> parse_number("0,08"), parse_number("0.08"), parse_number(" 1 234,5 ")
    ((0.08, False), (0.08, False), (1234.5, False))
    >>> parse_number("5 %", percent=True)
    (0.05, True)
    """
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value, was_percent = float(text), False
    else:
        s = _SPACES.sub("", str(text or ""))
        was_percent = percent and s.endswith("%")
        s = s[:-1] if was_percent else s
        if ("," in s and "." in s) or s.count(",") > 1:
            raise NotANumber(text)
        s = s.replace(",", ".")
        if not _NUMBER.fullmatch(s):
            raise NotANumber(text)
        value = float(s) / 100 if was_percent else float(s)
    if not math.isfinite(value):
        raise NotANumber(text)
    return value, was_percent
