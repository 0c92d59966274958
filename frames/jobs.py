"""The frame job (SPEC 8): :func:`start_frame_job` queues the proxy's run over a corpus as a
background Job, :func:`frame_job_body` runs it (``frames.proxy_store.predict_frames`` with the
lexicon of ``frames.lexicon_store`` and the LLM of ``frames.llm``); ``frames.tasks`` holds only its
Celery shell.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from annotation.models import Corpus
from core.runner import create_job, enqueue
from frames.errors import FrameJobError
from frames.lexicon_store import SHIPPED_NAME, get_lexicon
from frames.llm import DEFAULT_MODEL, make_chat
from frames.proxy_store import predict_frames
from models_runner.endpoints import client_settings

JOB_KIND = "frames"


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
    params = job_params(corpus, **options)
    client_settings({k: params.get(k) for k in ("endpoint", "model", "base_url", "api_key_env")})  # refused early
    job = create_job(JOB_KIND, params=params, user=user, resumable=True)
    return enqueue(job, "annotation.frame_tasks.predict_frames")  # its name of old (queued messages)


def register_job_kinds():
    """The frames app's jobs in words (core.job_kinds): frame prediction, lexicon import, attributes."""
    from django.utils.translation import gettext_lazy as _

    from core import job_kinds, next_steps
    from frames import attribute_jobs, derivation, lexicon_jobs, proxy_store

    job_kinds.register(
        JOB_KIND,
        _("frame prediction"),
        results={
            "corpus": _("corpus"),
            "lexicon": _("lexicon"),
            "model": _("model"),
            "prompts": _("language of the prompts"),
            "processed": _("questions processed"),
            "skipped_done": _("questions already done"),
            "skipped_manual": _("questions with frames set by hand"),
        },
        messages=proxy_store.MESSAGES,
        next_step=next_steps.corpus_page("fold-assignments", _("Build frame-check folds for this corpus")),
        resume="frames.tasks:resume",
    )
    job_kinds.register(
        lexicon_jobs.JOB_KIND,
        _("FrameNet lexicon import"),
        results={
            "lexicon": _("lexicon"),
            "frames": _("frames"),
            "new_frames": _("new frames"),
            "updated_frames": _("updated frames"),
            "removed_frames": _("removed frames"),
            "frame_elements": _("frame elements"),
            "lexical_units": _("lexical units"),
            "created": _("created"),
        },
        next_step=next_steps.page("admin:annotation_corpus_changelist", _("Predict frames for a corpus (Corpora)")),
    )
    job_kinds.register(
        attribute_jobs.JOB_KIND,
        _("attribute derivation"),
        results={
            "corpus": _("corpus"),
            "questions": _("questions"),
            "with_frame": _("questions with a frame"),
            "without_frame": _("questions without a frame"),
            "contexts_parsed": _("contexts parsed"),
        },
        messages=derivation.MESSAGES,
        resume="frames.tasks:resume_attributes",
    )
