"""Database shell of the frame proxy (SPEC 8): store a lexicon, run the proxy over a corpus, write
the chosen frame, LU and FEs to the questions' semantic attributes (SPEC 6).

The work itself is pure (``frames.framenet``, ``frames.proxy``); here it is only read from and
written to the database. The LLM is a ``chat(messages) -> str`` callable: :func:`make_chat` builds
it on the project's OpenAI backend (``models_runner.chat``). :func:`start_frame_job` queues the
whole run as a background Job; ``frames.tasks`` holds only its Celery shell.
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from dataclasses import asdict, dataclass
from functools import partial

from django.db import transaction

from annotation.bulk import ORM_BATCH as BATCH
from annotation.models import Corpus, Question
from core.runner import create_job, enqueue
from frames import proxy
from frames.framenet import SHIPPED_LEXICON, Frame, FrameElement, LexicalUnit, Lexicon, load_lexicon
from frames.models import FrameAnnotation, FrameDef, FrameElementDef, FrameLexicon, LexicalUnitDef
from frames.outcomes import ALL_OUTCOMES, DONE, ERROR
from models_runner.chat import ChatClient
from models_runner.endpoints import client_settings

log = logging.getLogger(__name__)

SHIPPED_NAME = "framenet-mini"
DEFAULT_MODEL = os.environ.get("QAEVAL_FRAME_MODEL", "gpt-3.5-turbo")
JOB_KIND = "frames"
SEMANTIC_FIELDS = ["frame", "lu", "lu_pos", "frame_elements", "trigger_in_question", "meta"]


class FrameJobError(ValueError):
    pass


def _noop(*args, **kwargs):
    pass


# --- lexicons ------------------------------------------------------------------------------------


@transaction.atomic
def store_lexicon(lexicon: Lexicon, name=None):
    """Save a parsed lexicon under ``name``; importing the same name again updates it in place.

    Frames are matched by name (so frame annotations keep pointing at them), frames no longer in
    the lexicon are removed, FEs and LUs are replaced. Returns ``(FrameLexicon, stats)``.
    """
    name = name or lexicon.name
    row, created = FrameLexicon.objects.get_or_create(name=name, defaults={"source_path": lexicon.source_path})
    existing = {f.name: f for f in FrameDef.objects.filter(lexicon=row)}
    new, changed = [], []
    for frame in lexicon.frames.values():
        current = existing.get(frame.name)
        if current is None:
            new.append(FrameDef(lexicon=row, name=frame.name, fn_id=frame.fn_id, definition=frame.definition))
        elif (current.fn_id, current.definition) != (frame.fn_id, frame.definition):
            current.fn_id, current.definition = frame.fn_id, frame.definition
            changed.append(current)
    removed = [f.pk for n, f in existing.items() if n not in lexicon.frames]
    FrameDef.objects.filter(pk__in=removed).delete()
    FrameDef.objects.bulk_create(new, batch_size=BATCH)
    FrameDef.objects.bulk_update(changed, ["fn_id", "definition"], batch_size=BATCH)
    ids = dict(FrameDef.objects.filter(lexicon=row).values_list("name", "id"))
    FrameElementDef.objects.filter(frame__lexicon=row).delete()
    LexicalUnitDef.objects.filter(frame__lexicon=row).delete()
    FrameElementDef.objects.bulk_create(
        [
            FrameElementDef(frame_id=ids[f.name], name=fe.name, core_type=fe.core_type, definition=fe.definition)
            for f in lexicon.frames.values()
            for fe in f.elements
        ],
        batch_size=BATCH,
    )
    LexicalUnitDef.objects.bulk_create(
        [
            LexicalUnitDef(frame_id=ids[f.name], name=lu.name, pos=lu.pos, fn_id=lu.fn_id)
            for f in lexicon.frames.values()
            for lu in f.lexical_units
        ],
        batch_size=BATCH,
    )
    stats = {
        "frames": len(lexicon.frames),
        "new_frames": len(new),
        "updated_frames": len(changed),
        "removed_frames": len(removed),
        "frame_elements": sum(len(f.elements) for f in lexicon.frames.values()),
        "lexical_units": lexicon.n_lexical_units,
        "created": created,
    }
    row.source_path = lexicon.source_path
    row.meta = {k: v for k, v in stats.items() if k != "created"}
    row.save(update_fields=["source_path", "meta"])
    return row, stats


def import_lexicon(path, name=None):
    """Parse a FrameNet directory and store it (``LexiconError`` names the bad file)."""
    return store_lexicon(load_lexicon(path, name=name), name=name)


def ensure_shipped_lexicon():
    row = FrameLexicon.objects.filter(name=SHIPPED_NAME).first()
    return row or import_lexicon(SHIPPED_LEXICON, name=SHIPPED_NAME)[0]


def get_lexicon(name):
    row = FrameLexicon.objects.filter(name=name).first()
    if row is None:
        if name == SHIPPED_NAME:
            return ensure_shipped_lexicon()
        known = ", ".join(FrameLexicon.objects.values_list("name", flat=True)) or "none"
        raise FrameJobError(f"no frame lexicon named {name!r} (imported: {known}); run manage.py import_framenet first")
    return row


def lexicon_from_db(row):
    """The stored lexicon as the pure dataclasses (three queries)."""
    lexicon = Lexicon(name=row.name, source_path=row.source_path)
    by_id = {}
    for pk, name, fn_id, definition in (
        FrameDef.objects.filter(lexicon=row).order_by("name").values_list("id", "name", "fn_id", "definition")
    ):
        by_id[pk] = lexicon.frames[name] = Frame(name=name, fn_id=fn_id, definition=definition)
    for frame_id, name, core, definition in (
        FrameElementDef.objects.filter(frame__lexicon=row)
        .order_by("id")
        .values_list("frame_id", "name", "core_type", "definition")
    ):
        by_id[frame_id].elements.append(FrameElement(name=name, core_type=core, definition=definition))
    for frame_id, name, pos, fn_id in (
        LexicalUnitDef.objects.filter(frame__lexicon=row).order_by("id").values_list("frame_id", "name", "pos", "fn_id")
    ):
        by_id[frame_id].lexical_units.append(LexicalUnit(name=name, pos=pos, fn_id=fn_id))
    return lexicon


# --- the LLM -------------------------------------------------------------------------------------


class FrameChat:
    """``chat(messages, question=None) -> str`` on ``models_runner.chat.ChatClient``: retries, rate
    limit, and one stored ``LLMExchange`` row per request (purpose ``frame_selection`` or
    ``frame_elements``, linked to the question)."""

    def __init__(self, client):
        self.client = client
        self.model = client.model

    def __call__(self, messages, question=None):
        prompt = messages[-1]["content"] if messages else ""
        purpose = "frame_selection" if prompt.startswith(proxy.FRAME_PROMPT[:20]) else "frame_elements"
        return self.client.send(messages, purpose=purpose, question=question)


def make_chat(model=DEFAULT_MODEL, *, base_url=None, max_tokens=300, **options):
    """The frame proxy's LLM on an OpenAI-compatible server (``base_url``, else ``OPENAI_BASE_URL``).

    Other ``options`` go to :class:`ChatClient` with its defaults (api_key, api_key_env
    ``OPENAI_API_KEY``, max_retries 5, requests_per_minute, temperature 0.0, timeout 60 s, ...).
    """
    client = ChatClient(
        model=model,
        base_url=base_url or os.environ.get("OPENAI_BASE_URL") or None,
        max_tokens=max_tokens,
        **options,
    )
    return FrameChat(client)


# --- running the proxy over a corpus -------------------------------------------------------------


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
    progress(done=0, total=len(todo), message=f"{len(todo)} questions to annotate with {lexicon_row.name}", force=True)
    for i, question in enumerate(todo, 1):
        ask = partial(chat, question=question.pk) if isinstance(chat, FrameChat) else chat
        try:
            result = proxy.annotate_question(question.question, index, lexicon, chat=ask, fe_hint=fe_hint)
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
        progress(done=i, total=len(todo), message=f"{i}/{len(todo)}: {question.external_id} -> {result.outcome}")
    return {
        "corpus": corpus.name,
        "lexicon": lexicon_row.name,
        "model": model,
        "processed": len(todo),
        "skipped_done": skipped_done,
        "skipped_manual": skipped_manual,
        "run": {o: run.get(o, 0) for o in ALL_OUTCOMES},
        "outcomes": outcome_counts(corpus, lexicon_row),
    }


@dataclass(frozen=True)
class FrameJobOptions:
    """The options of a frame job as its params hold them, in this order (never the API key itself:
    only the name of the variable that holds it)."""

    lexicon: str = SHIPPED_NAME
    model: str | None = None
    base_url: str | None = None
    force: bool = False
    limit: int | None = None
    fe_hint: bool = False
    api_key_env: str | None = None
    requests_per_minute: float | None = None
    endpoint: str | None = None  # an LLM endpoint's name (models_runner.endpoints)


def job_params(corpus, **options):
    """Job parameters: ``corpus`` and the :class:`FrameJobOptions` given as ``options``."""
    o = FrameJobOptions(**options)
    return {
        "corpus": corpus,
        **asdict(o),
        "model": o.model or ("" if o.endpoint else DEFAULT_MODEL),  # an endpoint names its own model
        "force": bool(o.force),
        "fe_hint": bool(o.fe_hint),
    }


def frame_job_body(job, progress, chat=None):
    """``run_job`` body (``frames.tasks.predict_frames``): params as :func:`job_params` makes them."""
    params = job.params or {}
    corpus = Corpus.objects.filter(name=params.get("corpus")).first()
    if corpus is None:
        raise FrameJobError(f"no corpus named {params.get('corpus')!r}")
    lexicon_row = get_lexicon(params.get("lexicon") or SHIPPED_NAME)
    llm = client_settings({k: params.get(k) for k in ("endpoint", "model", "base_url", "api_key_env")})
    model = llm["model"] or DEFAULT_MODEL
    chat = chat or make_chat(
        model=model,
        base_url=llm["base_url"],
        api_key_env=llm["api_key_env"] or "OPENAI_API_KEY",
        requests_per_minute=params.get("requests_per_minute"),
    )
    return predict_frames(
        corpus,
        lexicon_row,
        chat,
        force=params.get("force", False),
        limit=params.get("limit"),
        model=model,
        fe_hint=params.get("fe_hint", False),
        progress=progress,
        job=job,
    )


def start_frame_job(corpus, *, user=None, **options):
    """Create the Job row and queue ``frames.tasks.predict_frames`` once the current transaction commits.

    ``options`` are :func:`job_params`'s (lexicon, model, base_url, force, limit, fe_hint, api_key_env,
    requests_per_minute). Resumable: each question is committed on its own, so a redelivered task
    continues the work.
    """
    from frames.tasks import predict_frames as predict_frames_task

    params = job_params(corpus, **options)
    job = create_job(JOB_KIND, params=params, user=user, resumable=True)
    return enqueue(job, predict_frames_task)
