"""Participants' data on the database (SPEC 18): pseudonyms, consent versions, the one erasure service,
subject access. Thin: the rules (codes, hashes, A01..An) are pure functions of ``annotation.pseudonyms``.

``erase(participant, mode, reason)`` is the only code that deletes a participant: the admin's study
page, the API (``POST /api/studies/<slug>/participants/<code>/erase/``), the Django admin (a
participant's or a study's delete; a participant's account refuses deletion there), the participant's
own withdraw link, the "returned" action when the study says so, ``manage.py erase_participant`` and
the retention purge all call it. Each erasure leaves a tombstone (the study, an HMAC of the panel id
with the server's key, the pseudonym, mode, reason, time, counts) in the database and in
``var/erasures.jsonl``; ``reapply_tombstones`` erases again whoever an imported archive or a restored
backup brings back.
"""

from __future__ import annotations

import contextvars
import json
import os
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.contrib.admin.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.contrib.sessions.models import Session
from django.db import transaction
from django.db.models import Count

from annotation import pseudonyms
from annotation.models import (
    ConsentVersion,
    ErasureTombstone,
    Flag,
    Label,
    LabelEvent,
    Participant,
    Study,
)

MODES = (ErasureTombstone.WITHDRAW, ErasureTombstone.IDENTITY)
TOMBSTONE_FILE = "erasures.jsonl"


class EraseError(ValueError):
    """An erasure that cannot be done (unknown mode): nothing changed."""


# --- pseudonyms ----------------------------------------------------------------------------------


def new_code(study):
    """A code no participant of ``study`` has (``pseudonyms.new_code``)."""
    taken = set(Participant.objects.filter(study=study).values_list("code", flat=True))
    return pseudonyms.new_code(taken)


def account_name(study, code):
    """The username of a participant's account: the study and the pseudonym, never the panel id."""
    return f"s{study.pk}.{code}"


def server_key():
    """The key of the tombstones' HMAC: ``QAEVAL_ERASURE_KEY``, else derived from ``SECRET_KEY``."""
    return getattr(settings, "ERASURE_KEY", "") or f"qaeval.erasure:{settings.SECRET_KEY}"


def panel_hash(panel_id):
    return pseudonyms.panel_hmac(server_key(), panel_id)


# --- consent versions ----------------------------------------------------------------------------


def current_consent(study):
    """The frozen version of ``study``'s consent text as it is now: the latest version when its text
    and language are the same, else a new version (numbered one more)."""
    text, language = study.consent or "", study.page_language
    digest = pseudonyms.sha256_text(text)
    latest = ConsentVersion.objects.filter(study=study).order_by("-number").first()
    if latest is not None and latest.sha256 == digest and latest.language == language:
        return latest
    number = (latest.number if latest else 0) + 1
    return ConsentVersion.objects.create(study=study, number=number, language=language, text=text, sha256=digest)


def consent_counts(study):
    """[(version, language, sha256, participants)] of ``study``, oldest first."""
    rows = ConsentVersion.objects.filter(study=study).annotate(n=Count("participants")).order_by("number")
    return [(v.number, v.language, v.sha256, v.n) for v in rows]


# --- erasure -------------------------------------------------------------------------------------


_SESSION_INDEX = contextvars.ContextVar("qaeval_session_index", default=None)


def _session_index():
    """{account id (str): [session keys]} of every session row, decoded once."""
    index = {}
    for s in Session.objects.iterator():
        index.setdefault(str(s.get_decoded().get("_auth_user_id")), []).append(s.pk)
    return index


@contextmanager
def many_erasures():
    """Around several erasures in a row (the purge, a study's deletion, re-applied tombstones): the
    session rows are decoded once, not once per person (``bench/erasure_cost.py``)."""
    token = _SESSION_INDEX.set([None])  # built at the first erasure that needs it
    try:
        yield
    finally:
        _SESSION_INDEX.reset(token)


def _sessions_of(user_ids):
    """Session rows of these accounts (decoded: the table keys them by a random key only)."""
    holder = _SESSION_INDEX.get()
    if holder is None:
        index = _session_index()
    else:
        if holder[0] is None:
            holder[0] = _session_index()
        index = holder[0]
    return [key for pk in user_ids for key in index.get(str(pk), [])]


def _logs(user, participant_pk):
    """The login-log rows (django-axes) and the admin-log rows about ``user`` and its participant."""
    from axes.models import AccessAttempt, AccessFailureLog, AccessLog

    name = user.get_username()
    rows = [m.objects.filter(username=name) for m in (AccessLog, AccessAttempt, AccessFailureLog)]
    kinds = ContentType.objects.get_for_models(get_user_model(), Participant)
    ids = {get_user_model(): str(user.pk), Participant: str(participant_pk)}
    for model, ct in kinds.items():
        rows.append(LogEntry.objects.filter(content_type=ct, object_id=ids[model]))
    return rows


def _forget_traces(participant):
    """Delete the account's sessions and log rows; returns their counts."""
    user = participant.user
    sessions = _sessions_of([user.pk])
    counts = {"sessions": Session.objects.filter(pk__in=sessions).delete()[0]}
    counts["log_rows"] = sum(rows.delete()[0] for rows in _logs(user, participant.pk))
    return counts


_ERASING = set()  # participants being deleted by erase() (the delete signals leave them alone)
_CASCADE = set()  # participants deleted by something else: the signals erase them


def _withdraw(participant):
    user = participant.user
    _ERASING.add(participant.pk)
    labels = Label.objects.filter(annotator=user)
    counts = {
        "labels": labels.count(),
        "label_events": LabelEvent.objects.filter(label__annotator=user).count(),
        "flags": Flag.objects.filter(annotator=user).count(),
        "assignments": user.assignments.count(),
    }
    counts.update(_forget_traces(participant))
    try:
        user.delete()  # cascades: participant, labels and their history, flags, assignments, checks
    finally:
        _ERASING.discard(participant.pk)
    return counts


def _identity(participant):
    user = participant.user
    counts = _forget_traces(participant)
    Participant.objects.filter(pk=participant.pk).update(
        external_id=pseudonyms.erased_id(participant.code or str(participant.pk)),
        panel_study="",
        panel_session="",
        browser_token="",
    )
    get_user_model().objects.filter(pk=user.pk).update(is_active=False, last_login=None)
    counts["labels_kept"] = Label.objects.filter(annotator=user).count()
    return counts


def _hash_of(participant):
    """The panel id's HMAC, or (identity erased before) the one its earlier tombstone keeps."""
    if not participant.external_id.startswith(pseudonyms.ERASED_PREFIX):
        return panel_hash(participant.external_id)
    earlier = ErasureTombstone.objects.filter(study_slug=participant.study.slug, code=participant.code).first()
    return earlier.panel_hmac if earlier else panel_hash(participant.external_id)


def erase(participant, mode, reason, *, tombstone=True):
    """Erase ``participant`` (SPEC 18), in one transaction; returns the tombstone (None without one).

    Parameters
    ----------
    participant : Participant
    mode : str
        ``withdraw``: labels, events, flags, assignments, sessions, login-log rows, account and the
        participant row are deleted. ``identity``: panel ids, login-log rows, sessions and the browser
        binding are deleted; labels stay under the pseudonym.
    reason : str
        Why (kept in the tombstone; write no panel id in it).
    tombstone : bool
        False only when re-applying an existing tombstone.
    """
    if mode not in MODES:
        raise EraseError(f"unknown erasure mode {mode!r}: withdraw or identity")
    study = participant.study
    with transaction.atomic():
        digest, code = _hash_of(participant), participant.code
        counts = _withdraw(participant) if mode == ErasureTombstone.WITHDRAW else _identity(participant)
        if not tombstone:
            return None
        stone = ErasureTombstone.objects.create(
            study=study,
            study_slug=study.slug,
            panel_hmac=digest,
            code=code,
            mode=mode,
            reason=str(reason)[:300],
            counts=counts,
        )
    _append_to_file(stone)
    return stone


def _tombstone_path():
    return Path(settings.VAR_DIR) / TOMBSTONE_FILE


def _append_to_file(stone):
    """Keep the tombstone outside the database too (mode 0600): a restored backup cannot hide it."""
    path = _tombstone_path()
    row = {k: getattr(stone, k) for k in ("study_slug", "panel_hmac", "code", "mode", "reason")}
    row["created_at"] = stone.created_at.isoformat()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as f:
        f.write(json.dumps(row, sort_keys=True) + "\n")
    os.chmod(path, 0o600)


def file_tombstones():
    """The tombstones of ``var/erasures.jsonl`` (dicts), [] when there is none."""
    path = _tombstone_path()
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            continue
    return rows


def erased(study, panel_id):
    """The tombstone of ``panel_id`` in ``study`` (the person withdrew or was erased), or None."""
    digest = panel_hash(panel_id)
    stone = ErasureTombstone.objects.filter(study_slug=study.slug, panel_hmac=digest).order_by("-pk").first()
    if stone is not None:
        return stone
    found = [r for r in file_tombstones() if r.get("study_slug") == study.slug and r.get("panel_hmac") == digest]
    return found[-1] if found else None


def reapply_tombstones(studies=None):
    """Erase again every participant a tombstone names (by panel-id HMAC or pseudonym), in ``studies``
    (default: all): after an archive import or a backup restore. Returns how many were erased."""
    stones = [*ErasureTombstone.objects.values("study_slug", "panel_hmac", "code", "mode"), *file_tombstones()]
    by_slug = {}
    for s in stones:
        by_slug.setdefault(s["study_slug"], []).append(s)
    rows = Participant.objects.select_related("study", "user").filter(study__slug__in=list(by_slug))
    if studies is not None:
        rows = rows.filter(study__in=list(studies))
    done = 0
    with many_erasures():
        done = _reapply(list(rows), by_slug)
    return done


def _reapply(rows, by_slug):
    done = 0
    for p in rows:
        digest = panel_hash(p.external_id)
        hits = [s for s in by_slug[p.study.slug] if s["panel_hmac"] == digest or (p.code and s.get("code") == p.code)]
        if not hits:
            continue
        mode = ErasureTombstone.WITHDRAW if any(s["mode"] == "withdraw" for s in hits) else ErasureTombstone.IDENTITY
        if mode == ErasureTombstone.IDENTITY and p.external_id.startswith(pseudonyms.ERASED_PREFIX):
            continue
        erase(p, mode, "re-applied", tombstone=False)
        done += 1
    return done


def erasures_after(corpus, when):
    """How many participants of ``corpus``'s studies were erased after ``when`` (a report's time)."""
    if when is None:
        return 0
    return ErasureTombstone.objects.filter(study__corpus=corpus, created_at__gt=when).count()


# --- subject access ------------------------------------------------------------------------------


def subject_data(participant):
    """Everything held about ``participant`` (SPEC 18), as one JSON-ready dict: the participant row, the
    consent accepted (text included), labels with their history, flags; nobody else's rows."""
    p, user = participant, participant.user
    labels = Label.objects.filter(annotator=user).order_by("pk")
    events = {}
    for e in LabelEvent.objects.filter(label__annotator=user).order_by("pk").values():
        events.setdefault(e["label_id"], []).append(_plain(e))
    consent = p.consent_version
    return {
        "study": p.study.slug,
        "participant": {
            "code": p.code,
            "account": user.get_username(),
            "panel_id": p.external_id,
            "panel_study": p.panel_study,
            "panel_session": p.panel_session,
            "status": p.status,
            "fold": p.fold.name if p.fold_id else "",
            "consented_at": p.consented_at,
            "slot_at": p.slot_at,
            "ended_at": p.ended_at,
            "last_login": user.last_login,
        },
        "consent": consent
        and {"version": consent.number, "language": p.consent_language, "sha256": consent.sha256, "text": consent.text},
        "labels": [{**_plain(row), "history": events.get(row["id"], [])} for row in labels.values()],
        "flags": [_plain(row) for row in Flag.objects.filter(annotator=user).order_by("pk").values()],
        "login_log": _login_rows(user),
    }


def _login_rows(user):
    from axes.models import AccessLog

    rows = AccessLog.objects.filter(username=user.get_username()).order_by("pk")
    return [_plain(r) for r in rows.values("attempt_time", "logout_time", "ip_address", "user_agent")]


def _plain(row):
    return {k: (v.isoformat() if hasattr(v, "isoformat") else v) for k, v in row.items()}


def find_participant(study, who, *, code_only=False):
    """The participant of ``study`` named by pseudonym or (unless ``code_only``: URLs name the pseudonym
    only, a path reaches access logs) by panel id, or None."""
    rows = Participant.objects.select_related("study", "user", "consent_version", "fold").filter(study=study)
    found = rows.filter(code=who).first() if who else None
    return found or (None if code_only or not who else rows.filter(external_id=who).first())


def after_returned(participant):
    """Apply the study's ``returned_mode`` to a participant just marked returned (keep: nothing)."""
    mode = participant.study.returned_mode
    if mode in MODES:
        return erase(participant, mode, "returned on the panel")
    return None


# --- signals -------------------------------------------------------------------------------------


def _freeze_consent(sender, instance, raw=False, **kwargs):
    if not raw:
        current_consent(instance)


def _forget_user_agent(sender, request, user, **kwargs):
    """Login logs keep no user agent for participants (django-axes wrote the row just before)."""
    from axes.models import AccessLog

    if user is not None and Participant.objects.filter(user_id=user.pk).exists():
        AccessLog.objects.filter(username=user.get_username()).exclude(user_agent="").update(user_agent="")


def _participant_deleting(sender, instance, **kwargs):
    """A participant deleted by anything but ``erase`` (its corpus deleted, a script): its sessions and
    log rows go too, and its account after it (``_participant_deleted``). No tombstone: that is a
    deletion of data, not a person's erasure (an admin may restore the corpus from an archive); every
    delete an admin makes of a participant, a study or a participant's account goes through ``erase``."""
    if instance.pk in _ERASING:
        return
    _CASCADE.add(instance.pk)
    _forget_traces(instance)


def _participant_deleted(sender, instance, **kwargs):
    """After such a delete, the account goes too (with its labels, flags and assignments)."""
    if instance.pk in _CASCADE:
        _CASCADE.discard(instance.pk)
        get_user_model().objects.filter(pk=instance.user_id).delete()


def register():
    """Connect the signals (AnnotationConfig.ready): a study's saved consent text is frozen as a version;
    a participant's login leaves no user agent in the login log."""
    from django.contrib.auth.signals import user_logged_in
    from django.db.models.signals import post_delete, post_save, pre_delete

    post_save.connect(_freeze_consent, sender=Study, dispatch_uid="qaeval.privacy.consent")
    pre_delete.connect(_participant_deleting, sender=Participant, dispatch_uid="qaeval.privacy.deleting")
    post_delete.connect(_participant_deleted, sender=Participant, dispatch_uid="qaeval.privacy.deleted")
    user_logged_in.connect(_forget_user_agent, dispatch_uid="qaeval.privacy.user_agent")
