"""Pseudonyms of participants and annotators (SPEC 18), pure: no Django, no database.

A participant's code (``P-7F3K2Q``) is random and per study: it says nothing of the panel id. The
panel id itself is kept only as a keyed hash in an erasure tombstone (``panel_hmac``). Reports name
annotators ``A01..An`` (``annotator_labels``), whatever their accounts are called.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

# Crockford's base-32 without I, L, O, U: no letter read as a digit, no word by chance
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
CODE_LENGTH = 6
ERASED_PREFIX = "~"  # external_id of a participant whose panel ids were deleted: "~" + code


def new_code(taken=frozenset(), *, rng=None):
    """A random code ``P-XXXXXX`` not in ``taken``.

    >>> code = new_code({"P-000000"})
    >>> code.startswith("P-") and len(code) == 8 and set(code[2:]) <= set(ALPHABET)
    True
    """
    choice = (rng or secrets.SystemRandom()).choice
    while True:
        code = "P-" + "".join(choice(ALPHABET) for _ in range(CODE_LENGTH))
        if code not in taken:
            return code


def panel_hmac(key, panel_id):
    """The keyed hash (HMAC-SHA-256, hex) of ``panel_id``: equal for equal ids, useless without ``key``.

    >>> a = panel_hmac("k", "5f3e"); a == panel_hmac("k", "5f3e"), a != panel_hmac("other", "5f3e"), len(a)
    (True, True, 64)
    """
    return hmac.new(str(key).encode(), str(panel_id).encode(), hashlib.sha256).hexdigest()


def sha256_text(text):
    """The SHA-256 (hex) of a text as UTF-8: the fingerprint of a consent version.

    >>> sha256_text("")[:12]
    'e3b0c44298fc'
    """
    return hashlib.sha256(str(text).encode("utf-8")).hexdigest()


def annotator_labels(names):
    """``{name: "A01"...}``: every distinct name, in sorted order, numbered from 1 (two digits at least,
    more when there are 100 or more).

    >>> annotator_labels(["s3.P-ZZ", "ann", "s3.P-AB", "ann"])
    {'ann': 'A01', 's3.P-AB': 'A02', 's3.P-ZZ': 'A03'}
    >>> annotator_labels([])
    {}
    """
    distinct = sorted({str(n) for n in names})
    width = max(2, len(str(len(distinct))))
    return {name: f"A{i:0{width}d}" for i, name in enumerate(distinct, 1)}


def erased_id(code):
    """The ``external_id`` a participant keeps once their panel ids are deleted.

    >>> erased_id("P-7F3K2Q")
    '~P-7F3K2Q'
    """
    return ERASED_PREFIX + code
