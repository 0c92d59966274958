"""Inference runs as resumable jobs: start a run, and the job body that answers a corpus batch by batch.

Resuming: the body answers only the questions of the corpus that have no prediction for the run's
system yet, and writes each batch with one bulk insert that ignores conflicts on the unique
(system, question). A worker killed mid-run leaves its saved batches; once its heartbeat is silent
the reaper of any worker sends the task again (``annotation.jobs.reap_stale_jobs``) and it continues;
no question ever gets two predictions. At the end the new predictions are linked to triplets
(``annotation.triplet_store.assign_triplets``) exactly like imported ones.
"""
from __future__ import annotations

import logging
import re
import time
from datetime import timedelta

from django.db.models import F
from django.utils import timezone

from annotation.interchange import REFERENCE
from annotation.jobs import STALE_SECONDS, create_job, enqueue
from annotation.models import Corpus, Job, Prediction, Question, System
from annotation.triplet_store import assign_triplets
from models_runner.backends import NEEDS_WEIGHTS, BackendError, QAItem, create_backend
from models_runner.models import InferenceRun

log = logging.getLogger(__name__)
JOB_KIND = "inference"
RESERVED = (REFERENCE,)


class RunError(ValueError):
    user_facing = True


def queue_for(backend: str, device: str) -> str:
    """Weights on anything but an explicit cpu go to the ``gpu`` queue; the rest to ``default``."""
    return "gpu" if backend in NEEDS_WEIGHTS and (device or "auto") != "cpu" else "default"


def prepare_run(corpus, system_name, backend, options=None, batch_size=8, device="auto", user=None, queue=None):
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
        system = System.objects.create(name=system_name, kind=System.KIND_MODEL, meta=identity,
                                       description=f"{backend} {identity['model']}".strip())
    elif system.kind != System.KIND_MODEL:
        raise RunError(f"system {system_name!r} holds {system.kind} answers; choose another name for a model run")
    elif {k: system.meta.get(k, "") for k in identity} != identity:
        raise RunError(
            f"system {system_name!r} was produced by {system.meta.get('backend')} {system.meta.get('model', '')}".rstrip()
            + "; a system is one model: choose another name"
        )
    queue = queue or queue_for(backend, device)
    total = corpus.questions.count()
    job = create_job(JOB_KIND, {"corpus": corpus.name, "system": system.name, "backend": backend, "device": device,
                                "batch_size": batch_size, "queue": queue}, user=user, total=total, resumable=True)
    return InferenceRun.objects.create(job=job, system=system, corpus=corpus, backend=backend, parameters=options,
                                       model_path=options.get("model", ""), device=device or "auto",
                                       batch_size=batch_size, queue=queue, questions_total=total)


def _missing_corpus(name):
    raise RunError(f"no corpus named {name!r}")


def start_run(*args, **kwargs):
    """``prepare_run`` then send the Celery task (``gpu`` queue for weights unless device=cpu)."""
    from models_runner import tasks

    run = prepare_run(*args, **kwargs)
    task = tasks.run_inference_gpu if run.queue == "gpu" else tasks.run_inference
    enqueue(run.job, task, queue=run.queue)
    return run


def pending_questions(run):
    return (Question.objects.filter(corpus_id=run.corpus_id).exclude(predictions__system_id=run.system_id)
            .order_by("position", "id"))


def run_body(job, progress, backend_factory=create_backend):
    """The job body (``annotation.jobs.run_job(job_id, run_body)``)."""
    run = InferenceRun.objects.select_related("corpus", "system").get(job=job)
    requested = job.params.get("device", "auto")
    backend = backend_factory(run.backend, {**run.parameters, "batch_size": run.batch_size, "device": requested})
    if hasattr(backend, "run"):
        backend.run = run  # chat exchanges point at their run (and question)
    total = Question.objects.filter(corpus_id=run.corpus_id).count()
    pending = list(pending_questions(run).values_list("id", "question", "context", "language"))
    already = total - len(pending)
    if job.attempts <= 1:
        InferenceRun.objects.filter(pk=run.pk).update(skipped_existing=already, questions_total=total)
    progress(done=already, total=total, message=f"loading {run.backend}" + (f", resuming after {already}" if already else ""),
             force=True)
    backend.load()
    info = backend.describe()
    InferenceRun.objects.filter(pk=run.pk).update(
        model_path=info["model_path"][:1000], revision=info["revision"][:200], prompt_template=info["prompt_template"],
        device=info["device"],
    )
    done, spent = 0, 0.0
    check_cancel = getattr(progress, "check_cancel", None)
    size = run.batch_size
    for start in range(0, len(pending), size):
        rows = pending[start:start + size]
        t0 = time.perf_counter()
        answers = backend.answer([QAItem(qid, q, c, lang) for qid, q, c, lang in rows])
        dt = time.perf_counter() - t0
        if len(answers) != len(rows):
            raise RuntimeError(f"backend {run.backend} gave {len(answers)} answers for {len(rows)} questions")
        Prediction.objects.bulk_create(
            [Prediction(system_id=run.system_id, question_id=qid, answer=answer or "", meta={"run": run.pk})
             for (qid, *_), answer in zip(rows, answers)],
            ignore_conflicts=True,
        )
        done += len(rows)
        spent += dt
        InferenceRun.objects.filter(pk=run.pk).update(duration_s=F("duration_s") + dt,
                                                      questions_done=F("questions_done") + len(rows))
        progress(done=already + done, message=f"answered {already + done} of {total} ({done / spent if spent else 0:.1f} q/s)")
        if check_cancel:  # every batch, not only when progress is written
            check_cancel()
    run.refresh_from_db()
    run.throughput_qps = run.questions_done / run.duration_s if run.duration_s else None
    run.save(update_fields=["throughput_qps"])
    progress(done=total, message="linking predictions to triplets", force=True)
    triplets = assign_triplets(run.corpus)
    return {
        "system": run.system.name, "questions": total, "answered_now": done, "skipped_existing": already,
        "device": info["device"], "batch_size": size, "duration_s": round(run.duration_s, 3),
        "throughput_qps": round(run.throughput_qps, 3) if run.throughput_qps else None,
        "revision": info["revision"], **triplets,
    }


def mark_worker_dead(job):
    """For a job whose worker is known dead (killed by hand): age its heartbeat so it can be re-claimed."""
    Job.objects.filter(pk=job.pk, status=Job.RUNNING, resumable=True).update(
        heartbeat_at=timezone.now() - timedelta(seconds=STALE_SECONDS + 1)
    )
