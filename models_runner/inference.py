"""Inference runs as resumable jobs: what a run is and the checks before one starts (``prepare_run``);
starting it and the job body that answers a corpus batch by batch are in ``models_runner.jobs``.

Resuming: the body answers only the questions of the corpus that have no prediction for the run's
system yet, and writes each batch with one bulk insert that ignores conflicts on the unique
(system, question). A worker killed mid-run leaves its saved batches; once its heartbeat is silent
the reaper of any worker sends the task again (``core.reaper.reap_stale_jobs``) and it continues;
no question ever gets two predictions. At the end the new predictions are linked to triplets
(``annotation.triplet_store.assign_triplets``) exactly like imported ones.
"""

from __future__ import annotations

import logging
import re

from annotation.interchange import REFERENCE
from annotation.models import Corpus, System
from core.errors import UserFacingError
from core.runner import create_job
from models_runner.backends import NEEDS_WEIGHTS, BackendError, create_backend
from models_runner.models import InferenceRun

log = logging.getLogger(__name__)
JOB_KIND = "inference"
RESERVED = (REFERENCE,)


class RunError(UserFacingError, ValueError):
    """A run that cannot start: the message says what to fix."""


def queue_for(backend: str, device: str) -> str:
    """Weights on anything but an explicit cpu go to the ``gpu`` queue; the rest to ``default``."""
    return "gpu" if backend in NEEDS_WEIGHTS and (device or "auto") != "cpu" else "default"


def prepare_run(corpus, system_name, backend, *, options=None, batch_size=8, device="auto", user=None, queue=None):
    """Check everything, then create the System (kind ``model``), the Job and the InferenceRun."""
    if isinstance(corpus, str):
        corpus = Corpus.objects.filter(name=corpus).first() or _missing_corpus(corpus)
    system_name = (system_name or "").strip()
    if not system_name:
        raise RunError("give the system a name")
    if system_name in RESERVED:
        raise RunError(f"the system name {system_name!r} is reserved")
    device = (device or "auto").strip().lower()
    if not re.fullmatch(r"auto|cpu|mps|cuda(:\d+)?", device):
        raise RunError(f"unknown device {device!r}; use auto, cpu, cuda or cuda:N")
    options = dict(options or {})
    for key in ("batch_size", "device"):
        options.pop(key, None)
    try:
        create_backend(backend, options, batch_size=batch_size, device=device)  # validates the options
    except BackendError as exc:
        raise RunError(str(exc)) from None
    if not corpus.questions.exists():
        raise RunError(f"corpus {corpus.name} has no questions")
    identity = {"backend": backend, "model": options.get("model", ""), "adapter": options.get("adapter", "")}
    system = System.objects.filter(name=system_name).first()
    if system is None:
        system = System.objects.create(
            name=system_name,
            kind=System.KIND_MODEL,
            meta=identity,
            description=f"{backend} {identity['model']}".strip(),
        )
    elif system.kind != System.KIND_MODEL:
        raise RunError(f"system {system_name!r} holds {system.kind} answers; choose another name for a model run")
    elif {k: system.meta.get(k, "") for k in identity} != identity:
        producer = f"{system.meta.get('backend')} {system.meta.get('model', '')}".rstrip()
        raise RunError(f"system {system_name!r} was produced by {producer}; a system is one model: choose another name")
    queue = queue or queue_for(backend, device)
    total = corpus.questions.count()
    job = create_job(
        JOB_KIND,
        {
            "corpus": corpus.name,
            "system": system.name,
            "backend": backend,
            "device": device,
            "batch_size": batch_size,
            "queue": queue,
        },
        user=user,
        total=total,
        resumable=True,
    )
    return InferenceRun.objects.create(
        job=job,
        system=system,
        corpus=corpus,
        backend=backend,
        parameters=options,
        model_path=options.get("model", ""),
        device=device or "auto",
        batch_size=batch_size,
        queue=queue,
        questions_total=total,
    )


def _missing_corpus(name):
    raise RunError(f"no corpus named {name!r}")
