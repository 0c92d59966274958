"""Crowd studies on the database (SPEC 13), thin: rows in, ``annotation.crowd``'s rules, rows out.

This is the one study service: every path that changes a participant or a study (the pages, the htmx
fragments, the REST API, the admin) calls it, never ``crowd`` or the rows directly. Around each
judgement, whatever sent it: ``judging_participant`` (before saving: is it a participant's, may they
still label) and ``after_judgement`` (screening on gold, completion, consented -> active); when a
participant opens their fold, ``on_open``. A new study rule goes into these, so every path gets it
(``tests/annotation/test_study_service.py`` sends the same answers through each path).

A study may close by itself (SPEC 16, ``Study.close_when``, off by default) once the live conclusions
say the ranking is settled or every system is done. No participant's request computes that: after a
judgement ``after_judgement`` only tells the evaluation app that labels arrived (``labels_arrived``,
the hook it registers at start-up in ``LABELS_ARRIVED``, by its dotted path: annotation never imports
evaluation), which sends a background job; the job carries the sequences forward and asks the close
rule at most once a minute per study (``close``), recording when and why. Each participant still
working finishes the item in hand and gets the completion page (``closed_by_itself`` reads the row).

Every slot is granted inside one transaction that first locks the study's row
(``SELECT ... FOR UPDATE`` on PostgreSQL; on SQLite the settings open every transaction with
``BEGIN IMMEDIATE``, one writer at a time): arrivals to one study are served one after the other,
each seeing the slots the previous ones took, so no fold ever gets more than ``slots_per_fold``
participants (tested with real parallel requests, ``tests/integrity/test_crowd_arrivals.py``).
Idle participants are released at the start of that same transaction, so a released slot goes to
the next arrival. Releasing a slot deletes the participant's Assignment (the fold disappears from
their pages) and keeps every label they gave.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Count, Max, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation import crowd, privacy, screening, sql
from annotation.assignments import fold_item_sets
from annotation.fold_store import fold_design
from annotation.models import Assignment, Fold, GoldItem, Label, Participant, Study
from core import job_kinds, roles
from core.errors import UserFacingError
from core.registry import Registry

SESSION_KEY = "study_participant"  # the session of a participant's browser holds their Participant id
# "refresh": corpus id -> None, registered by evaluation (sends the background job that carries the live
# sequences forward and asks the close rules; core.registry's shape, by its dotted path)
LABELS_ARRIVED = Registry("labels arrived")
# what the evaluation app answers about a study's live conclusions (core.registry's shape, by dotted path):
# "close_reason": study -> why it would close now on the stored sequences (or None), asked when an admin
# reopens it; "page": study -> the URL of its live conclusions, which the study page links to
LIVE = Registry("live conclusions of a study")


def labels_arrived(corpus_id):
    """Tell the registered hook that labels of ``corpus_id`` arrived (nothing is computed here)."""
    hook = LABELS_ARRIVED.get("refresh")
    if hook is not None:
        hook(corpus_id)


def live_page(study):
    """The URL of the study's live conclusions, or None when no app registered the page."""
    page = LIVE.get("page")
    return page(study) if page is not None else None


def closed_by_itself(study):
    """Whether ``study`` has closed by itself (SPEC 16): read from its row, never computed here.

    Parameters
    ----------
    study : annotation.models.Study
        The study (refreshed in place from the database).

    Returns
    -------
    bool
    """
    if study.close_when and study.open:
        closed = Study.objects.filter(pk=study.pk).values_list("open", "closed_at", "closed_reason").first()
        if closed is not None:
            study.open, study.closed_at, study.closed_reason = closed
    return study.closed_at is not None and not study.open


def close(study, reason):
    """Close ``study`` by itself for ``reason`` (its close rule met; the background job calls this),
    recording when and why; False when it was closed already. The time recorded is read under the
    study's row lock, the lock admissions take (``_locked``), in the transaction that closes it: no
    participant admitted after ``closed_at`` consented before it (issue 44)."""
    with transaction.atomic():
        still_open = Study.objects.select_for_update().filter(pk=study.pk, open=True).exists()
        if still_open:
            Study.objects.filter(pk=study.pk).update(open=False, closed_at=timezone.now(), closed_reason=reason[:300])
    study.refresh_from_db()
    return still_open


class CannotReopen(UserFacingError, ValueError):
    """A study that closed by itself and would close again at once, or nothing was changed."""


def reopen(study, *, close_when, close_width, slots_per_fold):
    """Reopen ``study``, closed by itself, with what the admin changed (its close rule, its target,
    its slots); refused (``CannotReopen``, nothing changed) when nothing changed or when the rule, asked
    now on the current labels, would close it again at once (issue 45: a participant labelled one item,
    got the code, and the study closed again)."""
    changed = (close_when, close_width, slots_per_fold) != (study.close_when, study.close_width, study.slots_per_fold)
    if study.closed_at is not None and not changed:
        raise CannotReopen(_("it closed by itself: change its close rule, its target or its slots to reopen it"))
    candidate = Study(
        pk=study.pk,
        corpus_id=study.corpus_id,
        close_when=close_when,
        close_width=close_width,
        slots_per_fold=slots_per_fold,
        tie_margin=study.tie_margin,
    )
    rule = LIVE.get("close_reason")
    reason = rule(candidate) if close_when and rule is not None else None
    if reason:
        raise CannotReopen(
            _("it would close again at once (%(reason)s): choose another rule or target")
            % {"reason": job_kinds.message_text(reason)}
        )
    Study.objects.filter(pk=study.pk).update(
        open=True,
        closed_at=None,
        closed_reason="",
        close_when=close_when,
        close_width=close_width,
        slots_per_fold=slots_per_fold,
        close_checked_at=None,  # the background job asks the new rule at the next labels
    )
    study.refresh_from_db()
    return study


def ended_early(study, participant, *, items_done=None, fold_size=None):
    """Whether ``participant`` (completed) was cut short by the study closing by itself: they ended at
    or after the close, with their fold not finished."""
    if participant.status != Participant.COMPLETED or study.closed_at is None or participant.ended_at is None:
        return False
    if participant.ended_at < study.closed_at:
        return False
    if items_done is None:
        items_done = Label.objects.filter(annotator_id=participant.user_id, fold_id=participant.fold_id).count()
    if fold_size is None:
        fold_size = Fold.objects.get(pk=participant.fold_id).items.count() if participant.fold_id else 0
    return items_done < fold_size


class StudyClosed(LookupError):
    """The study takes no new participants."""


class StudyFull(LookupError):
    """Every fold this participant may take has its slots filled, or the study has its participants."""


class StrayFolds(UserFacingError, ValueError):
    """A study was given folds that are not answer folds of its corpus."""


def check_folds(corpus, folds):
    """Refuse (``StrayFolds``, naming them) the ``folds`` of a study of ``corpus`` that are not answer
    folds of that corpus; the study form and the API both ask it before saving."""
    stray = [f for f in folds if f.corpus_id != corpus.pk or f.kind != Fold.KIND_TRIPLET]
    if stray:
        raise StrayFolds(
            _("A study only takes answer folds of its own corpus (%(corpus)s); not these: %(folds)s.")
            % {"corpus": corpus.name, "folds": ", ".join(str(f) for f in stray)}
        )


class CloseRuleRefused(UserFacingError, ValueError):
    """A study may not close by itself on a corpus with an active design (SPEC 16)."""


def check_close_rule(corpus, close_when):
    """Refuse (``CloseRuleRefused``) a close rule on a corpus with an active design (SPEC 12): its labels
    are drawn with unequal chances, so the confidence sequences the rule reads do not apply (SPEC 16).
    The study form and the API both ask it before saving."""

    if close_when and corpus is not None and fold_design(corpus):
        raise CloseRuleRefused(
            _(
                "The corpus %(corpus)s has an active design: its labels are drawn with unequal chances, so no "
                "confidence sequence applies and the study cannot close by itself. Choose 'never'."
            )
            % {"corpus": corpus.name}
        )


def cookie_name(study):
    """The signed cookie binding a participant id to one browser."""
    return f"qaeval-study-{study.pk}"


def fold_ids(study):
    """The study's folds in order, in one query: its chosen folds, or every answer fold of its corpus."""
    return sql.study_folds_and_counts(study)[0]


def find(study, external_id):
    pk = sql.study_participant_id(study, external_id)
    return pk and Participant.objects.filter(pk=pk).select_related("user", "study").first()


def _release(participants, status, now):
    """Take the slot back from ``participants`` (their labels stay) and give them ``status``."""
    for p in participants:
        Assignment.objects.filter(annotator_id=p.user_id, fold_id=p.fold_id).delete()
    Participant.objects.filter(pk__in=[p.pk for p in participants]).update(status=status, ended_at=now)


def _idle(study, now):
    """The study's working participants (with ``last``: their last label) and the ids of the idle ones."""
    working = list(
        Participant.objects.filter(study=study, status__in=crowd.WORKING).annotate(last=Max("user__labels__updated_at"))
    )
    rows = [(p.pk, p.status, max(p.slot_at or p.consented_at, p.last or p.consented_at)) for p in working]
    return working, set(crowd.idle_ids(rows, now=now, idle_minutes=study.idle_minutes))


def looks_full(study, folds=None):
    """True when a newcomer would be told the study is full, read without any lock: no fold with room,
    no idle participant to release, or ``max_participants`` reached. The entry page says so before
    the consent, and most arrivals at a full study never wait for the lock (``admit`` decides again
    under it: a slot freed meanwhile is given, never one too many)."""
    if study.max_participants is not None and study.participants.count() >= study.max_participants:
        return True
    ids, counts = sql.study_folds_and_counts(study)
    room = crowd.choose_fold(ids if folds is None else folds, counts, slots_per_fold=study.slots_per_fold)
    return room is None and not _any_idle(study, timezone.now())


def _any_idle(study, now):
    """Whether ``release_idle`` would release anyone (one cheap query; ``_idle`` reads them all)."""
    return sql.study_any_idle(study, crowd.idle_limit(now, study.idle_minutes))


def release_idle(study, now=None):
    """Release the slots of the study's participants idle for ``idle_minutes``; returns how many."""
    now = now or timezone.now()
    if not _any_idle(study, now):
        return 0
    working, idle = _idle(study, now)
    if not idle:
        return 0
    with transaction.atomic():
        _release([p for p in working if p.pk in idle], Participant.IDLE, now)
    return len(idle)


def _held(participant):
    """Folds the participant held before: the last one and every fold they labelled in."""
    labelled = Label.objects.filter(annotator_id=participant.user_id, fold__isnull=False).values_list("fold_id")
    return {participant.fold_id, *(f for (f,) in labelled.distinct())} - {None}


def _free_fold(study, participant=None):
    folds, counts = sql.study_folds_and_counts(study)
    held = _held(participant) if participant is not None else set()
    items = None
    if held:
        items = fold_item_sets(list(Fold.objects.filter(pk__in={*folds, *held})))
    return crowd.choose_fold(
        folds, counts, slots_per_fold=study.slots_per_fold, held=sorted(held & set(folds)), items=items
    )


def _locked(study):
    locked = Study.objects.select_for_update().get(pk=study.pk)
    if not locked.open:
        raise StudyClosed(f"the study {study.slug} is closed")
    release_idle(locked)
    return locked


def admit(study, ids, *, token):
    """The participant of ``ids`` (panel id, panel study, panel session) with a slot, and whether they
    are new: an account without a password in the groups annotator and participant, the fold with the
    fewest participants, its Assignment. ``StudyClosed`` or ``StudyFull`` store nothing.

    The account is written before the study's lock is taken (same transaction: rolled back when the
    study is full), so the lock is held only to count slots and write the participant and its
    Assignment. The same id arriving twice at once: the second account waits on the first's unique
    username and fails when it commits; the caller then gets the first participant."""
    groups = roles.ensure_groups_named(roles.ANNOTATOR, roles.PARTICIPANT)
    try:
        with transaction.atomic():
            code = privacy.new_code(study)  # SPEC 18: the account is named from the pseudonym
            user = get_user_model().objects.create_user(privacy.account_name(study, code), password=None)
            user.groups.add(*groups)
            participant = _admit_locked(study, ids, user=user, token=token, code=code)
    except IntegrityError:
        existing = find(study, ids[0])
        if existing is None:
            raise
        return existing, False
    if participant.user_id != user.pk:  # found under the lock: this transaction's account was rolled back
        return participant, False
    return participant, True


def _admit_locked(study, ids, *, user, token, code):
    locked = _locked(study)
    existing = find(locked, ids[0])
    if existing is not None:  # the same id arrived meanwhile (a second tab): the caller checks the browser
        transaction.set_rollback(True)
        return existing
    if locked.max_participants is not None and locked.participants.count() >= locked.max_participants:
        raise StudyFull(f"the study {study.slug} has its {locked.max_participants} participants")
    fold = crowd.choose_fold(*sql.study_folds_and_counts(locked), slots_per_fold=locked.slots_per_fold)
    if fold is None:
        raise StudyFull(f"every fold of the study {study.slug} has its participants")
    participant = Participant.objects.create(
        study=locked,
        external_id=ids[0],
        panel_study=ids[1],
        panel_session=ids[2],
        user=user,
        fold_id=fold,
        browser_token=token,
        slot_at=timezone.now(),
        code=code,
        consent_version=privacy.current_consent(locked),
        consent_language=locked.page_language,
    )
    Assignment.objects.create(fold_id=fold, annotator=user)
    return participant


def readmit(participant):
    """A participant released for idleness asks to go on: a slot again (their former fold when it has
    room, else one sharing no triplet with it), or ``StudyFull`` / ``StudyClosed``."""
    with transaction.atomic():
        locked = _locked(participant.study)
        participant.refresh_from_db()
        if participant.status != Participant.IDLE:
            return participant
        fold = _free_fold(locked, participant)
        if fold is None:
            raise StudyFull(f"every fold of the study {locked.slug} you may take has its participants")
        Participant.objects.filter(pk=participant.pk).update(
            fold_id=fold, status=Participant.CONSENTED, ended_at=None, slot_at=timezone.now()
        )
        Assignment.objects.get_or_create(fold_id=fold, annotator_id=participant.user_id)
    participant.refresh_from_db()
    return participant


def bind_browser(participant, token):
    """Give a participant whose browser binding an admin reset to the browser of ``token``."""
    Participant.objects.filter(pk=participant.pk, browser_token="").update(browser_token=token)
    participant.refresh_from_db(fields=["browser_token"])
    return participant.browser_token == token


def reset_browser(participant):
    """Admin: the participant's id may be used again from one other browser (the next to arrive)."""
    Participant.objects.filter(pk=participant.pk).update(browser_token="")


def mark_returned(participant):
    """Admin: the participant returned the study on the panel; their slot goes back, and their data
    is kept or erased as the study's ``returned_mode`` says (SPEC 18). Returns the tombstone or None."""
    with transaction.atomic():
        Study.objects.select_for_update().filter(pk=participant.study_id).values_list("pk").first()
        _release([participant], Participant.RETURNED, timezone.now())
    return privacy.after_returned(participant)


def gold_results(user_id):
    """True / False per gold item the user labelled (the label is the expected one)."""
    rows = Label.objects.filter(annotator_id=user_id, value__isnull=False, triplet__gold__isnull=False)
    rows = rows.order_by("created_at", "id")  # labelling order: the qualification block comes first
    return [value == expected for value, expected in rows.values_list("value", "triplet__gold__expected")]


class WorkEnded(PermissionError):
    """The participant's work in the study has ended (completed, excluded, idle, returned): no more labels."""

    def __init__(self, participant):
        super().__init__(
            _("Your work in this study has ended (%(status)s): open your study link.") % {"status": participant.status}
        )
        self.participant = participant


def judging_participant(user, session_pk=None):
    """The Participant a judgement of ``user`` belongs to, or None for an ordinary annotator.

    Every path that labels (the page, htmx, the REST API) asks this before saving and hands the
    answer to ``after_judgement``; ``WorkEnded`` when the participant may no longer label.
    ``session_pk``: the participant id the browser's session holds (``SESSION_KEY``); without it the
    account's marker group decides (``roles.is_participant``: free once the API checked the roles),
    so a participant using a token or the API is found all the same."""
    if session_pk is None and not roles.is_participant(user):
        return None
    rows = Participant.objects.select_related("study").filter(user_id=user.pk)
    participant = (rows.filter(pk=session_pk) if isinstance(session_pk, int) else rows).first()
    if participant is not None and participant.status not in crowd.WORKING:
        raise WorkEnded(participant)
    return participant


def after_judgement(participant, item, *, done, total):
    """The study's rules after ``participant`` judged ``item`` (through any path), the fold's progress
    being ``done`` of ``total``: their new status when it ends their work, else None.

    ``excluded``: below the study's gold accuracy once they have ``crowd.MIN_GOLD_ITEMS`` gold items
    (checked only when ``item`` is gold), the slot reopened; ``completed``: the fold is done, or the
    study closed by itself (``closed_by_itself``, read from its row; the judgement only tells the
    evaluation app that labels arrived, ``labels_arrived``); a ``consented``
    participant becomes ``active``."""
    gold = item is not None and GoldItem.objects.filter(triplet_id=item.triplet_id).exists()
    return _settle(participant, done=done, total=total, gold_judged=gold, judged=True)


def on_open(participant, *, done, total):
    """The study's rules when ``participant`` opens their fold (labels may have come from anywhere):
    the screening on every gold label they have and completion; their new status, or None."""
    return _settle(participant, done=done, total=total, gold_judged=True, judged=False)


def _settle(participant, *, done, total, gold_judged, judged):
    if participant is None or participant.status not in crowd.WORKING:
        return None
    now = timezone.now()
    study = participant.study
    ended = _screen(participant, study, now) if gold_judged else None
    if ended:  # their labels no longer count (issue 44): the live figures are carried forward again
        labels_arrived(study.corpus_id)
        return ended
    if judged:
        labels_arrived(study.corpus_id)
    if (total and (done or 0) >= total) or closed_by_itself(study):
        Participant.objects.filter(pk=participant.pk).update(status=Participant.COMPLETED, ended_at=now)
        participant.status = Participant.COMPLETED
        return Participant.COMPLETED
    if judged and participant.status == Participant.CONSENTED:
        Participant.objects.filter(pk=participant.pk).update(status=Participant.ACTIVE)
        participant.status = Participant.ACTIVE
    return None


def _screen(participant, study, now):
    """SPEC 17: the qualification block (screen-out, paid), then the stop rule in the fold (two
    misses and below the minimum); each recorded with its decisions. The new status, or None."""
    if not study.qualification_items and study.min_gold_accuracy is None:
        return None
    results = gold_results(participant.user_id)
    if screening.qualification_failed(results, study.qualification_items):
        status = Participant.SCREENED_OUT
        with transaction.atomic():
            _release([participant], status, now)
            screening.record_screen_out(participant, results, study.qualification_items)
    elif study.min_gold_accuracy is not None and crowd.screening(results, study.min_gold_accuracy)[1]:
        status = Participant.EXCLUDED
        with transaction.atomic():
            _release([participant], status, now)
            screening.record_stop(participant, results, study.min_gold_accuracy)
    else:
        return None
    participant.status = status
    return status


def participant_rows(study):
    """One plain dict per participant for the admin page, the CSV and the API (SPEC 13)."""
    judged = Q(user__labels__value__isnull=False)
    participants = (
        Participant.objects.filter(study=study)
        .select_related("fold", "consent_version")
        .annotate(
            items_done=Count("user__labels", filter=judged),
            seconds=Sum("user__labels__seconds_spent"),
            last=Max("user__labels__updated_at"),
        )
        .order_by("consented_at", "pk")
    )
    gold = {}
    labels = Label.objects.filter(annotator__participant__study=study, value__isnull=False, triplet__gold__isnull=False)
    for user_id, value, expected in labels.values_list("annotator_id", "value", "triplet__gold__expected"):
        gold.setdefault(user_id, []).append(value == expected)
    rows = []
    for p in participants:
        accuracy, _stop = crowd.screening(gold.get(p.user_id, []), None)
        rows.append(
            {
                "participant": p.external_id,
                "code": p.code,  # SPEC 18: the pseudonym (researchers see only this)
                "consent_version": p.consent_version.number if p.consent_version_id else None,
                "status": crowd.shown_status(p.status, p.items_done),
                "fold": p.fold.name if p.fold else "",
                "started": p.consented_at,
                "ended": p.ended_at,
                "last_activity": p.last,
                "active_minutes": crowd.active_minutes([p.seconds or 0.0]),
                "items_done": p.items_done,
                "gold_items": len(gold.get(p.user_id, [])),
                "gold_accuracy": None if accuracy is None else round(accuracy, 4),
                "panel_study": p.panel_study,
                "panel_session": p.panel_session,
                "pk": p.pk,
            }
        )
    return screening.with_crowd_columns(study, rows)  # SPEC 17: decisions and figures


def excluded_user_ids(corpus):
    """Accounts of participants excluded from any study of ``corpus`` (reports leave their labels out)."""
    return set(
        Participant.objects.filter(
            study__corpus=corpus, status__in=(Participant.EXCLUDED, Participant.SCREENED_OUT)
        ).values_list("user_id", flat=True)
    )
