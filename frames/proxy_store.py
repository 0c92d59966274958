"""Database shell of the frame proxy (SPEC 8): run the proxy (``frames.proxy``, pure) over a corpus
and write the chosen frame, LU and FEs to the questions' semantic attributes (SPEC 6); each question
in its own transaction. The LLM is a ``chat(messages, *, purpose, question=None) -> str`` callable
(``frames.llm.make_chat``); the lexicon comes from ``frames.lexicon_store``.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from functools import partial

from django.db import transaction
from django.utils.translation import gettext_noop

from annotation.models import Question
from frames import proxy
from frames.errors import FrameJobError
from frames.lexicon_store import lexicon_from_db
from frames.models import FrameAnnotation, FrameDef
from frames.outcomes import ALL_OUTCOMES, DONE, ERROR

# Progress messages of its jobs, in English (pages translate them: core.job_kinds.message_text).
TO_ANNOTATE = gettext_noop("%(count)s questions to annotate with %(lexicon)s")
ANNOTATED = gettext_noop("%(done)s/%(total)s: %(question)s -> %(outcome)s")
MESSAGES = (TO_ANNOTATE, ANNOTATED)


log = logging.getLogger(__name__)

SEMANTIC_FIELDS = ["frame", "lu", "lu_pos", "frame_elements", "trigger_in_question", "meta"]


def _noop(*args, **kwargs):
    pass


def _is_manual(question):
    """A frame on the question that this proxy did not write (imported annotation): never touched."""
    return question.frame is not None and "frame_source" not in (question.meta or {})


def _write_question(question, annotation, result, *, lexicon_name):
    meta = dict(question.meta or {})
    if result.outcome == DONE:
        question.frame = result.frame
        question.lu = result.lu or None
        question.lu_pos = result.lu_pos or None
        question.frame_elements = list(result.frame_elements)
        question.trigger_in_question = bool(
            result.trigger and proxy.word_pattern(result.trigger).search(proxy.normalize_text(question.question))
        )
        meta["frame_source"] = {"lexicon": lexicon_name, "frame_annotation": annotation.pk, "model": annotation.model}
    elif "frame_source" in meta:
        # A forced re-run that no longer yields a frame: the earlier proxy attributes go.
        question.frame = question.lu = question.lu_pos = question.frame_elements = question.trigger_in_question = None
        meta.pop("frame_source")
    else:
        return
    question.meta = meta
    question.save(update_fields=SEMANTIC_FIELDS)


def _save(question, lexicon_row, frame_ids, *, result, job, model):
    fields = {
        "job": job,
        "outcome": result.outcome,
        "candidates": result.candidates,
        "frame_id": frame_ids.get(result.frame),
        "frame_name": result.frame_name or result.frame,
        "trigger": result.trigger,
        "lu": result.lu,
        "frame_elements": result.frame_elements,
        "frame_prompt": result.frame_prompt,
        "frame_reply": result.frame_reply,
        "fe_prompt": result.fe_prompt,
        "fe_reply": result.fe_reply,
        "model": model,
        "meta": result.flags,
    }
    with transaction.atomic():
        annotation, _ = FrameAnnotation.objects.update_or_create(
            question=question, lexicon=lexicon_row, defaults=fields
        )
        _write_question(question, annotation, result, lexicon_name=lexicon_row.name)
    return annotation


def outcome_rows(corpus, lexicon_row=None):
    """Rows ``{question_id, outcome, frame}`` for ``evaluation.science.frame_check_stats.outcome_counts``."""
    annotations = FrameAnnotation.objects.filter(question__corpus=corpus)
    if lexicon_row is not None:
        annotations = annotations.filter(lexicon=lexicon_row)
    return [
        {"question_id": q, "outcome": o, "frame": f or None}
        for q, o, f in annotations.order_by("question__position").values_list(
            "question__external_id", "outcome", "frame_name"
        )
    ]


def outcome_counts(corpus, lexicon_row):
    counts = Counter(
        FrameAnnotation.objects.filter(question__corpus=corpus, lexicon=lexicon_row).values_list("outcome", flat=True)
    )
    return {o: counts.get(o, 0) for o in ALL_OUTCOMES}


@dataclass(frozen=True)
class ProxyRunOptions:
    """How :func:`predict_frames` goes over a corpus: ``force`` annotates again the questions already
    annotated, at most ``limit`` questions, ``fe_hint`` as :func:`proxy.annotate_question` takes it;
    it stops after ``max_consecutive_errors`` failed LLM calls in a row."""

    force: bool = False
    limit: int | None = None
    fe_hint: bool = False
    max_consecutive_errors: int = 5


def predict_frames(corpus, lexicon_row, chat, *, model=None, progress=_noop, job=None, **options):
    """Run the proxy on every question of ``corpus`` not yet annotated with this lexicon.

    Questions already annotated (any outcome but ``error``) are skipped unless ``force``; questions
    carrying an imported frame are never touched. Each question is saved in its own transaction, so
    an interrupted run keeps what it did and the next run continues. A run stops (raises) after
    ``max_consecutive_errors`` failed LLM calls in a row. ``options``: :class:`ProxyRunOptions`.
    Returns counts for the run and totals.
    """
    o = ProxyRunOptions(**options)
    force, limit, fe_hint, max_consecutive_errors = o.force, o.limit, o.fe_hint, o.max_consecutive_errors
    model = model or getattr(chat, "model", "") or ""
    lexicon = lexicon_from_db(lexicon_row)
    if not lexicon.frames:
        raise FrameJobError(f"lexicon {lexicon_row.name} has no frames")
    index = proxy.TriggerIndex.from_lexicon(lexicon)
    frame_ids = dict(FrameDef.objects.filter(lexicon=lexicon_row).values_list("name", "id"))
    done_before = dict(
        FrameAnnotation.objects.filter(question__corpus=corpus, lexicon=lexicon_row).values_list(
            "question_id", "outcome"
        )
    )
    questions = list(Question.objects.filter(corpus=corpus).order_by("position", "id"))
    todo, skipped_done, skipped_manual = [], 0, 0
    for q in questions:
        if _is_manual(q):
            skipped_manual += 1
        elif not force and done_before.get(q.pk) not in (None, ERROR):
            skipped_done += 1
        else:
            todo.append(q)
    if limit is not None:
        todo = todo[: max(0, int(limit))]
    run = Counter()
    errors_in_row = 0
    progress(
        done=0, total=len(todo), message=TO_ANNOTATE % {"count": len(todo), "lexicon": lexicon_row.name}, force=True
    )
    for i, question in enumerate(todo, 1):
        ask = partial(chat, question=question.pk)  # every exchange linked to its question
        try:
            result = proxy.annotate_question(
                question.question, index, lexicon, chat=ask, fe_hint=fe_hint, language=corpus.language
            )
            errors_in_row = 0
        except Exception as exc:  # the LLM call failed: record it, continue, give up if it keeps failing
            errors_in_row += 1
            log.warning("frame proxy failed on question %s: %s", question.pk, exc)
            result = proxy.ProxyResult(
                outcome=ERROR,
                candidates=[c.pair() for c in index.candidates(question.question)],
                flags={"error": f"{type(exc).__name__}: {exc}"[:1000]},
            )
        _save(question, lexicon_row, frame_ids, result=result, job=job, model=model)
        run[result.outcome] += 1
        if errors_in_row >= max_consecutive_errors:
            raise FrameJobError(f"{errors_in_row} LLM calls failed in a row; last error: {result.flags['error']}")
        progress(
            done=i,
            total=len(todo),
            message=ANNOTATED
            % {"done": i, "total": len(todo), "question": question.external_id, "outcome": result.outcome},
        )
    return {
        "corpus": corpus.name,
        "lexicon": lexicon_row.name,
        "model": model,
        "prompts": proxy.prompts_for(corpus.language).language,
        "processed": len(todo),
        "skipped_done": skipped_done,
        "skipped_manual": skipped_manual,
        "run": {o: run.get(o, 0) for o in ALL_OUTCOMES},
        "outcomes": outcome_counts(corpus, lexicon_row),
    }
