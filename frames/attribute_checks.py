"""Attribute checks, one kind of human check (``frames.human_checks``; issue 26 point 4): humans confirm
or correct the derived context trigger and the distance class (1 arc / 2 or more) of a question
(SPEC 15, ``meta.derivation``). This module is the kind's record (:data:`ATTRIBUTE_CHECK`) and what
only it needs: which questions can be checked (a derived trigger), their folds (after an optional
seeded sample), the passage cut into clickable words, the verdict's check, the rows of the report.
Keys of the page: Y trigger right, N click another word, A not in the passage; 1 one arc, 2 two or
more. The statistics are ``evaluation.science.attribute_check_stats``.
"""

from __future__ import annotations

import re

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext_lazy

from annotation import fold_kinds, pseudonyms
from annotation.fold_store import clear_folds, store_fold_plans
from annotation.models import Fold, Question
from core import ids
from frames import human_checks
from frames.attributes import TRACE_KEY, dist_class
from frames.forms import BuildAttributeFoldsForm
from frames.models import (
    DIST_CLASSES,
    TRIGGER_ABSENT,
    TRIGGER_OTHER,
    TRIGGER_VERDICTS,
    AttributeCheck,
    AttributeCheckEvent,
)


class AttributeFoldError(ValueError):
    pass


class AttributeCheckNotFound(human_checks.CheckNotFound):
    """No such attribute fold among the user's assignments, or no such item in the fold."""


def marks(meta):
    """``(trigger, answer)`` character spans ``(start, end)`` of ``meta.derivation``, or None when the
    derivation found no context trigger (nothing to check). Pure.

    >>> marks({"derivation": {"trigger": {"start": 3, "end": 7}, "answer": {"start": 10, "end": 14}}})
    ((3, 7), (10, 14))
    >>> marks({"derivation": {"answer": {"start": 10, "end": 14}}}) is None
    True
    """
    trace = (meta or {}).get(TRACE_KEY) or {}
    trigger, answer = trace.get("trigger"), trace.get("answer")
    if not trigger or not answer:
        return None
    return (trigger["start"], trigger["end"]), (answer["start"], answer["end"])


def checkable(questions):
    """Ids of the ``(id, meta)`` pairs whose derivation has a trigger and an answer, in order. Pure."""
    return [qid for qid, meta in questions if marks(meta) is not None]


def passage_segments(context, trigger, answer):
    """The context cut into ``(start, text, kind)`` pieces, kind ``trigger``, ``answer`` or ``""``. Pure;
    spans outside the text or overlapping an earlier one are ignored.

    >>> passage_segments("Il a gagné le match.", (5, 10), (11, 19))
    [(0, 'Il a ', ''), (5, 'gagné', 'trigger'), (10, ' ', ''), (11, 'le match', 'answer'), (19, '.', '')]
    """
    spans = sorted(
        (s, e, kind) for (s, e), kind in ((trigger, "trigger"), (answer, "answer")) if 0 <= s < e <= len(context)
    )
    pieces, pos = [], 0
    for start, end, kind in spans:
        if start < pos:
            continue
        if start > pos:
            pieces.append((pos, context[pos:start], ""))
        pieces.append((start, context[start:end], kind))
        pos = end
    if pos < len(context):
        pieces.append((pos, context[pos:], ""))
    return pieces


def passage_words(segments):
    """Segments split into ``(start, end, text, kind, is_word)`` pieces, so that each word of the passage
    can be clicked to name the right trigger. Pure.

    >>> passage_words([(0, "Il a", ""), (4, " gagné", "trigger")])[:3]
    [(0, 2, 'Il', '', True), (2, 3, ' ', '', False), (3, 4, 'a', '', True)]
    """
    out = []
    for start, text, kind in segments:
        for m in _WORD.finditer(text):
            out.append((start + m.start(), start + m.end(), m.group(), kind, m.group()[0].isalnum()))
    return out


_WORD = re.compile(r"\w+|\W+")


def plan_attribute_folds(question_ids, *, k=1, seed=0, overlap=0.0, sample=None):
    """FoldPlans over question ids; ``sample``: check only that many, drawn with the seed. Pure."""
    return human_checks.plan_folds(
        question_ids,
        what="attribute",
        empty=_("no derived attribute to check"),
        error=AttributeFoldError,
        k=k,
        seed=seed,
        overlap=overlap,
        sample=sample,
    )


def _candidates(corpus):
    rows = Question.objects.filter(corpus=corpus).order_by("position", "id").values_list("id", "meta")
    return checkable(rows)


@transaction.atomic
def create_attribute_folds(corpus, *, k=1, seed=0, overlap=0.0, sample=None, replace=False):
    """Folds over the corpus's questions whose derivation found a context trigger."""
    clear_folds(
        corpus,
        Fold.KIND_ATTRIBUTE,
        replace=replace,
        judgements=AttributeCheck.objects.all(),
        error=AttributeFoldError,
        what="attribute folds",
    )
    ids = _candidates(corpus)
    if not ids:
        raise AttributeFoldError(
            _(
                "corpus %(name)s has no derived attributes yet: derive them first "
                "(Corpora -> derive attributes... in the admin)"
            )
            % {"name": corpus.name}
        )
    plans = plan_attribute_folds(ids, k=k, seed=seed, overlap=overlap, sample=sample)
    params = {"k": k, "seed": seed, "overlap": overlap, "sample": sample}
    return store_fold_plans(
        corpus, Fold.KIND_ATTRIBUTE, plans, name="attributes", seed=seed, params=params, target="question"
    )


def readiness(corpus):
    n = len(_candidates(corpus))
    if n:
        return n, None
    from django.urls import reverse

    return 0, (
        _("No question of this corpus has derived attributes yet: derive attributes first"),
        reverse("admin:annotation_derive_attributes", args=[corpus.pk]),
    )


def validate(context_length, *, verdict, start, end, dist):
    """The error message of a verdict, or None. Pure: ``other`` needs a span inside the context.

    >>> validate(20, verdict="other", start=3, end=2, dist="1")
    'mark the right trigger word in the passage'
    >>> validate(20, verdict="correct", start=None, end=None, dist="1") is None
    True
    """
    if verdict not in TRIGGER_VERDICTS:
        return _("say whether the marked word is the trigger")
    if dist not in DIST_CLASSES and verdict != TRIGGER_ABSENT:
        return _("choose the distance class: 1 arc or 2 or more")
    if verdict == TRIGGER_OTHER and (start is None or end is None or not 0 <= start < end <= context_length):
        return _("mark the right trigger word in the passage")
    return None


def _position(value):
    """A character position from the form: an int within a PositiveIntegerField's range, else None."""
    number = ids.parse_int(value)
    return number if number is not None and 0 <= number <= 2**31 - 1 else None


def save_attribute_check(user, fold, item, *, answer, skip=False, seconds=0.0, submission_id=None):
    """Record a verdict (or a skip) for ``item``; returns ``(check, changed)``. ``answer`` holds
    ``verdict``, ``start``, ``end`` (the right word's characters, for ``other``) and ``dist``;
    ``ValueError`` (its message for the annotator) when it is incomplete or out of the passage."""
    return ATTRIBUTE_CHECK.save(
        user, fold, item, answer=answer, skip=skip, seconds=seconds, submission_id=submission_id
    )


def attribute_check_rows(corpus):
    """Rows for ``evaluation.science.attribute_check_stats``."""
    checks = AttributeCheck.objects.filter(question__corpus=corpus).order_by("id")
    rows = list(
        checks.values_list(
            "question__external_id", "annotator__username", "question__dist", "trigger_verdict", "dist_class"
        )
    )
    names = pseudonyms.annotator_labels(row[1] for row in rows)  # SPEC 18: reports say A01..An
    return [
        {
            "question_id": qid,
            "annotator": names[who],
            "derived_dist": dist,
            "trigger_verdict": verdict,
            "dist_class": dclass,
        }
        for qid, who, dist, verdict, dclass in rows
    ]


class AttributeChecks(human_checks.CheckKind):
    """Attribute checks: the item is a question with a derived trigger, the verdict the trigger (right,
    another word of the passage, absent) and the distance class (keys Y/N/A and 1/2)."""

    name, item, related, not_found = Fold.KIND_ATTRIBUTE, "question", ("question",), AttributeCheckNotFound
    model, event_model = AttributeCheck, AttributeCheckEvent
    build_form, build, errors = BuildAttributeFoldsForm, staticmethod(create_attribute_folds), (AttributeFoldError,)
    readiness, label = staticmethod(readiness), gettext_lazy("attribute-check folds")
    words = fold_kinds.PageWords(
        title=gettext_lazy("Attribute-check folds"),
        intro=gettext_lazy(
            "Annotators confirm or correct the derived context trigger and distance class of each question "
            "(Corpora → Derive attributes in the admin)."
        ),
        build=gettext_lazy("Build attribute-check folds"),
        ready=ngettext_lazy(
            "%(n)s question with a derived context trigger.", "%(n)s questions with a derived context trigger.", "n"
        ),
        assign=gettext_lazy("Assign every unassigned attribute-check fold, round robin"),
    )

    def read(self, post):
        span = (_position(post.get("trigger_start")), _position(post.get("trigger_end")))
        return {
            "verdict": post.get("trigger_verdict"),
            "start": span[0],
            "end": span[1],
            "dist": post.get("dist_class"),
        }

    def clean(self, item, answer):
        """The verdict's fields; ``ValueError`` (its message for the annotator) when it is incomplete or
        out of the passage. The span only for ``other``, no distance class for ``absent``."""
        verdict, start, end, dist = (answer.get(k) for k in ("verdict", "start", "end", "dist"))
        error = validate(len(item.question.context), verdict=verdict, start=start, end=end, dist=dist)
        if error:
            raise ValueError(error)
        if verdict != TRIGGER_OTHER:
            start = end = None
        if verdict == TRIGGER_ABSENT:
            dist = None
        return {"trigger_verdict": verdict, "trigger_start": start, "trigger_end": end, "dist_class": dist}

    def shown(self, item, check):
        """The passage cut into clickable words with the trigger and the answer marked; the parser's class."""
        question = item.question
        found = marks(question.meta)
        words = passage_words(passage_segments(question.context, *found)) if found else []
        return {"question": question, "segments": words, "derived_class": dist_class(question.dist)}

    def rows(self, corpus):
        return attribute_check_rows(corpus)


ATTRIBUTE_CHECK = AttributeChecks()
