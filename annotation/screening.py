"""Screening that respects a panel's rules (SPEC 17, amending SPEC 13), over ``annotation.crowd``'s
pure rules: gold items are clear cases only, the qualification block screens out at the start (paid,
``screenout_code``), the fold stops a participant only after two gold misses, and three decisions
stay separate, each recorded with its reason, rule and evidence (``ParticipantDecision``):

- excluded from the analysis (the report leaves their labels out unless asked);
- stopped in the fold;
- the panel decision: approve, screen-out, or reject (reject only for failed attention checks).

The per-participant figures (gold accuracy with its Wilson interval, median seconds, label mix,
agreement, Dawid-Skene accuracy and spammer score) are computed by the evaluation app, which
registers them here (``FIGURES``, by its dotted path: annotation never imports evaluation).
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from annotation import crowd
from annotation.models import ParticipantDecision
from core.registry import Registry
from stats.labels import PARTIAL

GOLD_PARTIAL_REFUSED = gettext_lazy(
    "a gold item must be a clear case: expected Correct or Incorrect, never Partially correct "
    "(careful annotators disagree on partial answers, so such a gold item stops honest participants)"
)
REJECT_REFUSED = gettext_lazy(
    "reject is only for failed attention checks (the panel's rule); this participant failed none: "
    "approve, or screen out"
)
QUALIFICATION_RULE = "SPEC 17: qualification block, at least min(2, n) misses among its first n gold items"
STOP_RULE = "SPEC 17: at least 2 gold misses and gold accuracy below min_gold_accuracy"
# the per-participant figures, ``fn(study) -> {participant pk: dict}``, under the key "study"
FIGURES = Registry("per-participant figures")


def check_gold_expected(expected) -> None:
    """``ValueError`` with the reason when ``expected`` is not a clear case (SPEC 17)."""
    if expected == PARTIAL:
        raise ValueError(str(GOLD_PARTIAL_REFUSED))


def record(participant, kind, value, *, reason, rule="", evidence=None, user=None):
    """Record one decision about ``participant`` (the latest of a kind is in force)."""
    return ParticipantDecision.objects.create(
        participant=participant,
        kind=kind,
        value=value,
        reason=str(reason)[:300],
        rule=rule,
        evidence=evidence or {},
        decided_by=user,
    )


def _evidence(results):
    misses = len(results) - sum(results)
    return {"gold_items": len(results), "gold_misses": misses}


def record_screen_out(participant, results, n_items):
    """The decisions of a participant who failed the qualification block: excluded, not stopped in
    the fold, screened out on the panel (paid as a screen-out)."""
    evidence = {**_evidence(list(results)[:n_items]), "qualification_items": n_items}
    reason = _("failed the qualification block")
    record(participant, ParticipantDecision.EXCLUDED, ParticipantDecision.YES, reason=reason, rule=QUALIFICATION_RULE,
           evidence=evidence)  # fmt: skip
    record(participant, ParticipantDecision.PANEL, ParticipantDecision.SCREEN_OUT, reason=reason,
           rule=QUALIFICATION_RULE, evidence=evidence)  # fmt: skip


def record_stop(participant, results, min_accuracy):
    """The decisions of a participant stopped in the fold: stopped, excluded; the panel decision is
    approve (a performance check is no attention check: the work done is paid)."""
    evidence = {**_evidence(results), "min_gold_accuracy": min_accuracy}
    reason = _("gold accuracy below the study's minimum after two misses")
    for kind, value in (
        (ParticipantDecision.STOPPED, ParticipantDecision.YES),
        (ParticipantDecision.EXCLUDED, ParticipantDecision.YES),
        (ParticipantDecision.PANEL, ParticipantDecision.APPROVE),
    ):
        record(participant, kind, value, reason=reason, rule=STOP_RULE, evidence=evidence)


def decide_panel(participant, value, *, reason, user, attention_failed=False):
    """An admin's panel decision; ``ValueError`` for an unknown value, for reject without a failed
    attention check, or without a reason."""
    allowed = (ParticipantDecision.APPROVE, ParticipantDecision.SCREEN_OUT, ParticipantDecision.REJECT)
    if value not in allowed:
        raise ValueError(_("the panel decision is one of approve, screen-out, reject"))
    if value == ParticipantDecision.REJECT and not attention_failed:
        raise ValueError(str(REJECT_REFUSED))
    if not (reason or "").strip():
        raise ValueError(_("give the reason of the panel decision"))
    return record(participant, ParticipantDecision.PANEL, value, reason=reason, rule="admin", user=user)


def current_decisions(participant_ids) -> dict:
    """``{participant pk: {kind: ParticipantDecision}}``: the latest decision of each kind."""
    out = {}
    rows = ParticipantDecision.objects.filter(participant_id__in=list(participant_ids)).order_by("created_at", "id")
    for d in rows:
        out.setdefault(d.participant_id, {})[d.kind] = d
    return out


DECISION_COLUMNS = [
    "excluded",
    "excluded_reason",
    "stopped",
    "stopped_reason",
    "panel_decision",
    "panel_reason",
    "decision_rules",
    "decision_evidence",
]


def decision_columns(status, decisions) -> dict:
    """The payment CSV's decision columns of one participant (defaults from its status when no
    decision was recorded: a completed participant is approved, nobody else is decided yet)."""
    excluded, stopped, panel = (decisions.get(k) for k in ("excluded", "stopped", "panel"))
    rules = sorted({d.rule for d in (excluded, stopped, panel) if d is not None and d.rule})
    evidence = next((d.evidence for d in (stopped, excluded, panel) if d is not None and d.evidence), {})
    return {
        "excluded": excluded.value if excluded else ("yes" if status == "excluded" else "no"),
        "excluded_reason": excluded.reason if excluded else "",
        "stopped": stopped.value if stopped else "no",
        "stopped_reason": stopped.reason if stopped else "",
        "panel_decision": panel.value if panel else ("approve" if status == "completed" else ""),
        "panel_reason": panel.reason if panel else "",
        "decision_rules": "; ".join(rules),
        "decision_evidence": ", ".join(f"{k}={v}" for k, v in sorted(evidence.items())),
    }


def figures(study) -> dict:
    """The registered per-participant figures of ``study`` ({} before the evaluation app is ready)."""
    fn = FIGURES.get("study")
    return fn(study) if fn is not None else {}


def qualification_failed(results, n_items) -> bool:
    """Whether these gold results (in labelling order) fail a block of ``n_items``."""
    return crowd.qualification(results, n_items) == "fail"


FIGURE_COLUMNS = [
    "gold_accuracy_low",
    "gold_accuracy_high",
    "median_seconds",
    "share_correct",
    "share_partial",
    "share_incorrect",
    "crowd_share_correct",
    "crowd_share_partial",
    "crowd_share_incorrect",
    "agreement",
    "agreement_items",
    "ds_accuracy",
    "spammer_score",
    "flag",
]


def with_crowd_columns(study, rows):
    """``participant_rows`` with the decision columns and the figures (None where not computed)."""
    decisions = current_decisions([r["pk"] for r in rows])
    shown = figures(study)
    for row in rows:
        row.update(decision_columns(row["status"], decisions.get(row["pk"], {})))
        row.update(dict.fromkeys(FIGURE_COLUMNS) | (shown.get(row["pk"]) or {}))
    return rows


def check_qualification(corpus, n_items) -> None:
    """``ValueError`` when ``corpus`` has fewer gold items than the qualification block needs."""
    from annotation.models import GoldItem

    if not n_items:
        return
    have = GoldItem.objects.filter(triplet__question__corpus=corpus).count()
    if have < n_items:
        raise ValueError(
            _("the qualification block needs %(n)d gold items; the corpus has %(have)d") % {"n": n_items, "have": have}
        )


def place_qualification(study) -> int:
    """Put ``study.qualification_items`` gold items first in each of its folds (positions 0..n-1),
    the other items keeping their order; the block alternates expected incorrect and correct so that
    a participant who clicks one label for everything misses two. Returns the folds changed."""
    from django.db import transaction
    from django.db.models import F

    from annotation import sql
    from annotation.models import FoldItem, GoldItem

    n = study.qualification_items
    if not n:
        return 0
    gold = dict(GoldItem.objects.filter(triplet__question__corpus=study.corpus).values_list("triplet_id", "expected"))
    changed = 0
    with transaction.atomic():
        for fold_id in sql.study_folds_and_counts(study)[0]:  # the study's folds (``studies.fold_ids``)
            items = list(FoldItem.objects.select_for_update().filter(fold_id=fold_id).order_by("position"))
            golds = sorted((i for i in items if i.triplet_id in gold), key=lambda i: (gold[i.triplet_id], i.triplet_id))
            incorrect = [i for i in golds if gold[i.triplet_id] != "correct"]
            correct = [i for i in golds if gold[i.triplet_id] == "correct"]
            block = (
                [x for pair in zip(incorrect, correct) for x in pair]
                + incorrect[len(correct) :]
                + correct[len(incorrect) :]
            )
            block = block[:n]
            order = block + [i for i in items if i not in block]
            if order == items:
                continue
            FoldItem.objects.filter(fold_id=fold_id).update(position=F("position") + 1_000_000)
            for position, item in enumerate(order):
                item.position = position
            FoldItem.objects.bulk_update(order, ["position"])
            changed += 1
    return changed
