"""Participants' personal data in archives (SPEC 18): the default archive holds no panel id; a full
archive (admins only) keeps them and its manifest says so; archive files are readable by their owner only."""

from __future__ import annotations

import os

from annotation import pseudonyms

PARTICIPANT = "annotation.Participant"
PANEL_IDS_FULL = "included: a full archive holds the participants' panel ids (personal data; admins only)"
PANEL_IDS_REMOVED = "removed: participants are named by their pseudonyms only"


def pseudonymize(rows_by):
    """Replace, in place, each archived participant's panel ids by its pseudonym's erased form
    (``external_id``), and empty its panel study, panel session and browser binding.

    >>> rows = {PARTICIPANT: [{"id": 1, "code": "P-7F3K2Q", "external_id": "5f3e", "panel_study": "s",
    ...                        "panel_session": "x", "browser_token": "t"}]}
    >>> pseudonymize(rows); rows[PARTICIPANT][0]["external_id"], rows[PARTICIPANT][0]["panel_session"]
    ('~P-7F3K2Q', '')
    """
    for row in rows_by.get(PARTICIPANT, []):
        pseudonymize_row(row)


def pseudonymize_row(row):
    """One participant's row with its panel ids replaced (in place, and returned: the archive streams rows)."""
    row.update(
        external_id=pseudonyms.erased_id(row.get("code") or str(row["id"])),
        panel_study="",
        panel_session="",
        browser_token="",
    )
    return row


def owner_only(out):
    """Create the file ``out`` (a path; a file object is left alone) with mode 0600 before it is written."""
    if isinstance(out, (str, os.PathLike)):
        os.close(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        os.chmod(out, 0o600)
