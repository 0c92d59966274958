"""Retention (SPEC 18): what is deleted when, applied by ``manage.py purge`` and the daily Celery job.

- panel ids of a closed study: ``Study.identifiers_days_after_close`` days after it closed (the
  participants are erased in mode ``identity``: labels stay under the pseudonym);
- every participant's data after ``Study.data_until`` (erased in mode ``withdraw``);
- login logs (django-axes) and expired sessions after ``QAEVAL_LOG_DAYS`` (default 180).

A study's closing time is when it closed by itself (``closed_at``), else the first purge that sees it
closed (``privacy_closed_at``); reopening clears it. Every erasure goes through ``privacy.erase`` (tombstones
included), and each run first re-applies the tombstones (a restored backup brings nobody back).
The plan is a pure function of plain rows (``plan``); ``purge`` applies it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.conf import settings
from django.contrib.sessions.models import Session
from django.db import transaction
from django.utils import timezone

from annotation import privacy, pseudonyms
from annotation.models import ErasureTombstone, Participant, Study


@dataclass(frozen=True)
class StudyRow:
    slug: str
    open: bool
    closed_since: datetime | None
    identifiers_days: int
    data_until: date | None


def due(row, now):
    """What retention asks of one study at ``now``: ``"withdraw"`` (past ``data_until``), ``"identity"``
    (closed long enough), or None.

    >>> from datetime import timezone as tz
    >>> now = datetime(2027, 1, 31, tzinfo=tz.utc)
    >>> due(StudyRow("s", False, datetime(2027, 1, 1, tzinfo=tz.utc), 30, None), now)
    'identity'
    >>> due(StudyRow("s", False, datetime(2027, 1, 2, tzinfo=tz.utc), 30, None), now) is None
    True
    >>> due(StudyRow("s", True, None, 30, date(2027, 1, 30)), now)
    'withdraw'
    """
    if row.data_until is not None and now.date() > row.data_until:
        return ErasureTombstone.WITHDRAW
    if not row.open and row.closed_since is not None and now - row.closed_since >= timedelta(days=row.identifiers_days):
        return ErasureTombstone.IDENTITY
    return None


def _closed_since(study, now, dry_run):
    """When ``study`` closed, as retention counts it (its own close time, else the first purge that saw it
    closed); None while open. Writes the first-seen time unless ``dry_run``."""
    if study.open:
        if study.privacy_closed_at is not None and not dry_run:
            Study.objects.filter(pk=study.pk).update(privacy_closed_at=None)
        return None
    since = study.privacy_closed_at or study.closed_at
    if since is None:
        since = now
        if not dry_run:
            Study.objects.filter(pk=study.pk).update(privacy_closed_at=now)
    return since


def purge(now=None, *, dry_run=False):
    """Apply retention at ``now`` (default: the present); returns the list of what was (or, with
    ``dry_run``, would be) removed, as short lines naming pseudonyms and counts, never a panel id."""
    now = now or timezone.now()
    done = []
    if not dry_run:
        n = privacy.reapply_tombstones()
        if n:
            done.append(f"re-applied {n} erasure(s) found in the tombstones")
    with privacy.many_erasures():
        done += _studies(now, dry_run)
    done += _logs(now, dry_run)
    return done


def _studies(now, dry_run):
    done = []
    for study in Study.objects.order_by("pk"):
        row = StudyRow(
            study.slug,
            study.open,
            _closed_since(study, now, dry_run),
            study.identifiers_days_after_close,
            study.data_until,
        )
        mode = due(row, now)
        if mode is None:
            continue
        people = Participant.objects.filter(study=study).select_related("study", "user").order_by("pk")
        if mode == ErasureTombstone.IDENTITY:
            people = people.exclude(external_id__startswith=pseudonyms.ERASED_PREFIX)
        for p in list(people):
            done.append(f"{study.slug}: {p.code} erased ({mode}, retention)")
            if not dry_run:
                privacy.erase(p, mode, f"retention: {'data_until' if mode == 'withdraw' else 'panel ids after close'}")
    return done


def _logs(now, dry_run):
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog

    limit = now - timedelta(days=settings.QAEVAL_LOG_DAYS)
    lines = []
    with transaction.atomic():
        for model in (AccessLog, AccessFailureLog, AccessAttempt):
            rows = model.objects.filter(attempt_time__lt=limit)
            n = rows.count() if dry_run else rows.delete()[0]
            if n:
                lines.append(f"{n} {model._meta.verbose_name_plural} older than {settings.QAEVAL_LOG_DAYS} days")
        sessions = Session.objects.filter(expire_date__lt=now)
        n = sessions.count() if dry_run else sessions.delete()[0]
        if n:
            lines.append(f"{n} expired sessions")
    return lines
