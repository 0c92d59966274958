"""The rules of a crowd study (SPEC 13), as plain functions on plain data (no database).

``annotation/studies.py`` reads the rows, asks these functions and writes the answer; the views and
the API call ``studies``. Every rule lives here once:

- who arrives: ``panel_ids`` reads the panel's query (``PROLIFIC_PID``, ``STUDY_ID``,
  ``SESSION_ID``, or ``participant``) and says what is wrong with it;
- which fold: ``choose_fold`` (the fewest participants first, never a fold sharing a triplet with a
  fold the person held before, never more than ``slots_per_fold``);
- who loses the slot: ``idle_ids`` (no activity for ``idle_minutes``);
- who is stopped: ``screening`` (SPEC 17: at least ``MIN_MISSES`` gold misses and below the minimum);
- who is screened out at the start: ``qualification`` (the first gold items of the fold);
- what the admin page shows: ``shown_status``, ``active_minutes``, ``completion_link``.
"""

from __future__ import annotations

import re
from datetime import timedelta

from django.utils.translation import gettext as _

# A participant with one of these statuses holds (or has used up) a slot of their fold.
HOLDING = ("consented", "active", "completed")
# Statuses that still hold a slot and may lose it when idle.
WORKING = ("consented", "active")
MIN_GOLD_ITEMS = 3
MIN_MISSES = 2  # SPEC 17: nobody is stopped in the fold before two gold misses
ID_MAX = 100
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@:-]*")


class PanelIdError(ValueError):
    """The link lacks a participant id, or the id is not one a panel sends."""


def _checked(name, value):
    if len(value) > ID_MAX or not _ID.fullmatch(value):
        raise PanelIdError(
            _("%(name)s must be 1 to %(max)s letters, digits or . _ @ : - (starting with a letter or digit)")
            % {"name": name, "max": ID_MAX}
        )
    return value


def panel_ids(query):
    """``(participant id, panel study, panel session)`` from a link's query (a mapping of str).

    >>> panel_ids({"PROLIFIC_PID": "5f1a", "STUDY_ID": "s1", "SESSION_ID": "x9"})
    ('5f1a', 's1', 'x9')
    >>> panel_ids({"participant": "p-7"})
    ('p-7', '', '')
    >>> panel_ids({"PROLIFIC_PID": "{{%PROLIFIC_PID%}}"})  # doctest: +ELLIPSIS, +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    annotation.crowd.PanelIdError: PROLIFIC_PID must be ...
    """
    name = "PROLIFIC_PID" if query.get("PROLIFIC_PID") else "participant"
    pid = (query.get(name) or "").strip()
    if not pid:
        raise PanelIdError(_("the link has no participant id (PROLIFIC_PID or participant)"))
    extra = [(query.get(key) or "").strip() for key in ("STUDY_ID", "SESSION_ID")]
    return (
        _checked(name, pid),
        *(_checked(key, value) if value else "" for key, value in zip(("STUDY_ID", "SESSION_ID"), extra)),
    )


def choose_fold(folds, counts, *, slots_per_fold, held=(), items=None):
    """The fold a participant gets, or None when every fold they may take is full.

    ``folds``: fold ids in the study's order; ``counts``: participants holding a slot per fold;
    ``held``: folds this person held before (idle, then back); ``items``: ``{fold: set of triplets}``,
    needed only with ``held``. A fold sharing a triplet with one they held before is never given
    (nobody judges a triplet twice); their own former fold is allowed (their labels are there).
    Among the rest: the fewest participants first, then a fold held before, then the study's order.

    >>> choose_fold([1, 2, 3], {1: 1, 2: 0, 3: 0}, slots_per_fold=1)
    2
    >>> choose_fold([1, 2], {1: 2, 2: 2}, slots_per_fold=2) is None
    True
    >>> choose_fold([1, 2], {}, slots_per_fold=1, held=[1], items={1: {10, 11}, 2: {11, 12}})
    1
    >>> choose_fold([1, 2], {1: 1}, slots_per_fold=1, held=[1], items={1: {10, 11}, 2: {11, 12}}) is None
    True
    """
    held = list(held)
    seen = set().union(*(items[f] for f in held)) if held else set()
    order = {fold: i for i, fold in enumerate(folds)}
    open_folds = [
        fold
        for fold in folds
        if counts.get(fold, 0) < slots_per_fold and (fold in held or not (items[fold] & seen if held else False))
    ]
    if not open_folds:
        return None
    return min(open_folds, key=lambda f: (counts.get(f, 0), f not in held, order[f]))


def idle_ids(rows, *, now, idle_minutes):
    """Ids of the participants who lose their slot: ``rows`` are ``(id, status, last activity)``
    (the later of consent and last label); a working participant idle ``idle_minutes`` or more.

    >>> from datetime import datetime
    >>> t = datetime(2026, 1, 1, 12, 0)
    >>> rows = [(1, "active", datetime(2026, 1, 1, 11, 0)), (2, "active", datetime(2026, 1, 1, 11, 45)),
    ...         (3, "completed", datetime(2026, 1, 1, 9, 0))]
    >>> idle_ids(rows, now=t, idle_minutes=30)
    [1]
    """
    limit = idle_limit(now, idle_minutes)
    return [pid for pid, status, last in rows if status in WORKING and last <= limit]


def idle_limit(now, idle_minutes):
    """The moment a working participant's last activity must be after to keep the slot (the database
    shells ask "anyone idle?" with it, ``idle_ids`` says who).

    >>> from datetime import datetime
    >>> idle_limit(datetime(2026, 1, 1, 12, 0), 30)
    datetime.datetime(2026, 1, 1, 11, 30)
    """
    return now - timedelta(minutes=idle_minutes)


def screening(gold_results, min_accuracy):
    """``(accuracy or None, stop)`` from a participant's gold results (True: the expected label).

    SPEC 17 (amending SPEC 13): stopped only after at least ``MIN_MISSES`` gold misses and below
    ``min_accuracy``; nobody without a minimum. One miss among the first three no longer stops an
    honest participant (the old rule stopped 7-15% of them in ``bench/crowd_bench.py``).

    >>> screening([True, False], 0.8)
    (0.5, False)
    >>> screening([True, False, False], 0.5)
    (0.3333333333333333, True)
    >>> screening([False, True, True], 0.8)  # one miss: goes on
    (0.6666666666666666, False)
    >>> screening([False, False], 0.9)  # two misses, below the minimum
    (0.0, True)
    >>> screening([], None)
    (None, False)
    """
    results = list(gold_results)
    accuracy = sum(results) / len(results) if results else None
    misses = len(results) - sum(results)
    stop = min_accuracy is not None and misses >= MIN_MISSES and accuracy < min_accuracy
    return accuracy, stop


def qualification(gold_results, n_items):
    """The outcome of the qualification block (its ``n_items`` first gold items, SPEC 17) from the
    participant's gold results in the order given: ``"fail"`` once ``min(2, n_items)`` of them are
    missed, ``"pass"`` once all were answered without that, None while undecided (or no block).

    >>> qualification([True, False], 3), qualification([True, False, True], 3), qualification([False, False], 3)
    (None, 'pass', 'fail')
    >>> qualification([False], 1), qualification([True, False, False], 0)
    ('fail', None)
    """
    if not n_items:
        return None
    block = list(gold_results)[:n_items]
    if len(block) - sum(block) >= min(MIN_MISSES, n_items):
        return "fail"
    return "pass" if len(block) == n_items else None


def shown_status(status, items_done):
    """The status the admin reads: a consented participant with a label is active.

    >>> shown_status("consented", 0), shown_status("consented", 2), shown_status("idle", 2)
    ('consented', 'active', 'idle')
    """
    return "active" if status == "consented" and items_done else status


def active_minutes(seconds):
    """Minutes actually spent on items: the sum of the per-item seconds (every visit), in minutes.

    >>> active_minutes([30.0, 90.0, 60.0])
    3.0
    """
    return round(sum(seconds) / 60, 2)


def completion_link(url, code):
    """``url`` with ``{code}`` replaced by the completion code ('' without a URL).

    >>> completion_link("https://app.prolific.com/submissions/complete?cc={code}", "C1X")
    'https://app.prolific.com/submissions/complete?cc=C1X'
    """
    return url.replace("{code}", code) if url else ""
