"""The report's rows of estimates as frozen dataclasses, and their one serialization to ``report.json``.

The science modules build these rows (``ppi.ppi_rows``, ``active.active_rows``, ``anytime.sequence_rows``)
and read them by attribute; ``as_json`` alone turns one into the plain dict that ``report.json``, its
data tables and the live state store, with the keys in field order. A field named after a Python
keyword ends in ``_`` (``lambda_``); its key drops it (``lambda``).

- ``PpiRow``: a ``ppi`` row (SPEC 10 and 16), the confidence sequence fields filled by the report;
- ``ActiveRow``: an ``active`` row (SPEC 12 and 16);
- ``SequenceRow``: both confidence sequences of one system and metric (SPEC 16);
- ``keys`` / ``as_json`` / ``records``: a kind's keys, one row's dict, a list of rows' dicts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class PpiRow:
    """A ``report.json`` ``ppi`` row: one system and human metric (Hscore in [0, 1], Hcorrect in %)."""

    system: str
    metric: str
    n_total: int
    n_human: int
    lambda_: float | None
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    classical: float | None
    classical_ci_low: float | None
    classical_ci_high: float | None
    gain: float | None
    clipped: bool  # SPEC 16: the estimate lay outside [0, 1] and was clipped
    too_few: bool  # SPEC 16: fewer than two human labels, no interval
    # SPEC 16: the confidence sequences (``SequenceRow``), merged in by the report; None until then
    cs_estimate: float | None = None
    cs_low: float | None = None
    cs_high: float | None = None
    classical_cs_low: float | None = None
    classical_cs_high: float | None = None
    alpha_split: float | None = None


@dataclass(frozen=True)
class ActiveRow:
    """A ``report.json`` ``active`` row: one system and human metric (None where undefined)."""

    system: str
    metric: str
    n_total: int
    n_sampled: int
    n_labeled: int
    lambda_: float | None
    beta: float | None
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    gain: float | None
    clipped: bool  # SPEC 16: the estimate lay outside [0, 1] and was clipped
    too_few: bool  # SPEC 16: fewer than two labelled items, no interval


@dataclass(frozen=True)
class SequenceRow:
    """Both confidence sequences of one system and metric (SPEC 16); ``ppi`` False: the classical repeated."""

    system: str
    metric: str
    n: int
    n_total: int
    alpha_split: float
    lambda_: float | None
    ppi: bool
    cs_estimate: float | None
    cs_low: float | None
    cs_high: float | None
    classical_cs_estimate: float | None
    classical_cs_low: float | None
    classical_cs_high: float | None


def _key(name: str) -> str:
    return name.removesuffix("_")


def keys(kind) -> tuple[str, ...]:
    """The ``report.json`` keys of a kind of row (or of a row), in order.

    Examples
    --------
    >>> from evaluation.science import rows
    >>> rows.keys(rows.ActiveRow)[:6]
    ('system', 'metric', 'n_total', 'n_sampled', 'n_labeled', 'lambda')
    """
    return tuple(_key(f.name) for f in dataclasses.fields(kind))


def as_json(row) -> dict:
    """One row as the plain dict of ``report.json`` and the live state: its keys (``keys``) in order.

    Values are left as they are (numpy scalars included); ``evaluation.report.context.clean`` makes
    them plain JSON.

    Examples
    --------
    >>> from evaluation.science import rows
    >>> row = rows.ActiveRow("a", "hscore", 3, 2, 1, 0.5, 0.1, 0.7, 0.6, 0.8, 1.2, False, False)
    >>> rows.as_json(row)
    {'system': 'a', 'metric': 'hscore', 'n_total': 3, 'n_sampled': 2, 'n_labeled': 1, 'lambda': 0.5, 'beta': 0.1,
     'estimate': 0.7, 'ci_low': 0.6, 'ci_high': 0.8, 'gain': 1.2, 'clipped': False, 'too_few': False}
    """
    return {_key(f.name): getattr(row, f.name) for f in dataclasses.fields(row)}


def records(rows) -> list[dict]:
    """``as_json`` of each row, in order."""
    return [as_json(row) for row in rows]


# The fields of a ``ppi`` row that come from its ``SequenceRow`` (SPEC 16), in ``report.json`` order.
SEQUENCE_KEYS = keys(PpiRow)[keys(PpiRow).index("too_few") + 1 :]
