"""One annotator's judgement of one item, for every kind (answer labels, frame checks, attribute checks):
what its rows keep and the one path that saves it.

A judgement row (``Label``, ``FrameCheck``, ``AttributeCheck``: an ``annotation.models.judgement.Judgement``)
is unique per (item, annotator) and holds the latest values; an event row (``LabelEvent``, ``FrameCheckEvent``,
...: a ``JudgementEvent``) keeps every submission. The two abstract models, in the models package beside this
module (the models import no service, and this module reads the rows through ``annotation.sql``), hold the fields
:func:`save` reads and writes, so every kind has them under the same names; a concrete model adds the
item's foreign key, ``annotator`` (with its own related names) and its verdict fields. The upsert runs
under the unique constraint, so two tabs or a double click never create a second row, and a repeated
``submission_id`` (unique on the event table) turns a resubmission into a no-op.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import IntegrityError, transaction

from annotation.sql import locked_row as _locked_row

MAX_SECONDS_PER_VISIT = 3600.0


@dataclass(frozen=True)
class Submission:
    """What one request sends for one item: the judgement ``values`` (field -> new value) or a
    ``skip``, the ``seconds`` spent and the client's ``submission_id``."""

    values: dict
    skip: bool = False
    seconds: float = 0.0
    submission_id: str | None = None


class SubmissionConflict(Exception):
    """The submission id was already used for this item with other values: nothing was saved."""


def conflict_response():
    """The pages' 409 for a ``SubmissionConflict`` (a change is never dropped silently), in the page's
    language; ``X-Submission-Conflict`` tells the annotator page to send the key again with a fresh id
    (a page restored by Back carried an id an earlier save used: ``static/js/annotate.js``)."""
    from django.http import HttpResponse
    from django.utils.translation import gettext

    response = HttpResponse(
        gettext(
            "This submission id was already used for another judgement of this item; nothing was saved: "
            "send the change with a new submission id (reload the page)."
        ),
        status=409,
        content_type="text/plain; charset=utf-8",
    )
    response["X-Submission-Conflict"] = "1"
    return response


def clean_seconds(seconds):
    """Time spent on one visit, as sent by the page: a float clamped to [0, 1 hour]."""
    try:
        seconds = float(seconds or 0.0)
    except (TypeError, ValueError):
        return 0.0
    if seconds != seconds:  # NaN
        return 0.0
    return min(max(seconds, 0.0), MAX_SECONDS_PER_VISIT)


def state(row, values):
    """``(judged, skipped)`` of a judgement row: judged when any of the fields ``values`` names is set."""
    judged = any(getattr(row, name) is not None for name in values)
    return judged, (not judged) and row.skipped


def save(
    model,
    event_model,
    event_field,
    *,
    keys,
    sent,
    fold,
    defaults=None,
    on_saved=None,
):
    """Upsert ``model`` at ``keys`` with what was ``sent`` and log the event; returns ``(row, changed)``.

    ``sent.values`` maps the judgement fields to their new values; with ``sent.skip`` they are left
    as they are (a skip over an existing judgement only adds time and an event).

    ``on_saved(before, row)`` runs inside the same transaction once the row is written (or found
    unchanged for a repeated ``submission_id``): ``before`` is ``state(row, values)`` as it was, or
    None when the row was created. Callers keep derived counters exact with it.
    """
    values, skip = sent.values, sent.skip
    seconds = clean_seconds(sent.seconds)
    submission_id = (sent.submission_id or "")[:64] or None
    given = dict.fromkeys(values) if skip else dict(values)
    for _attempt in range(3):
        try:
            with transaction.atomic():
                # Lock the row if it exists, else insert it; a concurrent insert raises
                # IntegrityError here and the retry finds the row (no savepoint needed).
                row = _locked_row(model, keys)  # fixed SQL (annotation.sql): measured cheaper than the ORM
                if row is not None and submission_id:
                    earlier = event_model.objects.filter(**{event_field: row}, submission_id=submission_id).first()
                    if earlier is not None:
                        if earlier.skipped == skip and all(getattr(earlier, n) == v for n, v in given.items()):
                            if on_saved is not None:
                                on_saved(state(row, values), row)
                            return row, False  # a retry of a submission already saved
                        raise SubmissionConflict(
                            f"submission id {submission_id!r} was already used for another judgement of this item; "
                            "nothing was saved: send the change with a new submission id"
                        )
                before = None if row is None else state(row, values)
                if row is None:
                    row = model.objects.create(
                        **keys,
                        **{"fold": fold, **given, "skipped": skip, "seconds_spent": seconds, **(defaults or {})},
                    )
                else:
                    if not skip:
                        for name, value in given.items():
                            setattr(row, name, value)
                        row.skipped = False
                    elif all(getattr(row, name) is None for name in values):
                        row.skipped = True
                    row.seconds_spent += seconds
                    row.fold = row.fold or fold
                    row.save(update_fields=[*values, "skipped", "seconds_spent", "fold", "updated_at"])
                event_model.objects.create(
                    **{event_field: row},
                    **given,
                    skipped=skip,
                    seconds=seconds,
                    submission_id=submission_id,
                )
                if on_saved is not None:
                    on_saved(before, row)
                return row, True
        except IntegrityError:
            # A concurrent request created the row or used the submission id on it first: retrying
            # finds it and turns this request into an update, a no-op or a conflict.
            continue
    raise RuntimeError(f"could not save the {model._meta.verbose_name} after 3 attempts")
