"""The jobs of the models_runner app: inference runs and LLM judge runs, both resumable.

``start_run`` and ``start_judge_run`` check everything (``inference.prepare_run``,
``judging.prepare_judge_run``), create the Job with its run row, and send the Celery shell
(``models_runner.tasks``); ``run_body`` and ``judge_body`` are the job bodies run by
``core.runner.run_job``. Each body asks only for what has no saved answer (label) yet and writes each
batch with one bulk insert that ignores conflicts, so a resumed job continues where the saved work stops.
"""

from __future__ import annotations

import time
from datetime import timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_noop

from annotation.models import Prediction, Question, Triplet
from annotation.triplet_store import assign_triplets
from core.models import Job
from core.runner import STALE_SECONDS, enqueue
from models_runner.backends import QAItem, create_backend
from models_runner.chat import ChatError
from models_runner.inference import prepare_run
from models_runner.judging import (
    ExchangeRecorder,
    LabelAsker,
    judge_messages,
    judge_parameters,
    make_client,
    parse_reply,
    prepare_judge_run,
)
from models_runner.models import InferenceRun, JudgeLabel, JudgeRun

# Progress messages of its jobs, in English (pages translate them: core.job_kinds.message_text).
LOADING = gettext_noop("loading %(backend)s")
LOADING_RESUMING = gettext_noop("loading %(backend)s, resuming after %(done)s")
ANSWERED = gettext_noop("answered %(done)s of %(total)s (%(rate)s q/s)")
LINKING = gettext_noop("linking predictions to triplets")
JUDGING = gettext_noop("judging with %(model)s")
JUDGING_RESUMING = gettext_noop("judging with %(model)s, resuming after %(done)s")
JUDGED = gettext_noop("judged %(done)s of %(total)s (%(rate)s triplets/s)")
MESSAGES = (LOADING, LOADING_RESUMING, ANSWERED, LINKING, JUDGING, JUDGING_RESUMING, JUDGED)


def start_run(corpus, system_name, backend, *, options=None, batch_size=8, device="auto", user=None, queue=None):
    """``inference.prepare_run`` then send the Celery task (``gpu`` queue for weights unless device=cpu)."""
    run = prepare_run(
        corpus, system_name, backend, options=options, batch_size=batch_size, device=device, user=user, queue=queue
    )
    task = "models_runner.tasks.run_inference_gpu" if run.queue == "gpu" else "models_runner.tasks.run_inference"
    enqueue(run.job, task, queue=run.queue)
    return run


def pending_questions(run):
    return (
        Question.objects.filter(corpus_id=run.corpus_id)
        .exclude(predictions__system_id=run.system_id)
        .order_by("position", "id")
    )


def run_body(job, progress, backend_factory=create_backend):
    """The job body of an inference run (``core.runner.run_job(job_id, run_body)``)."""
    run = InferenceRun.objects.select_related("corpus", "system").get(job=job)
    requested = job.params.get("device", "auto")
    backend = backend_factory(run.backend, {**run.parameters, "batch_size": run.batch_size, "device": requested})
    backend.run = run  # a backend recording chat exchanges ties them to their run (and question)
    total = Question.objects.filter(corpus_id=run.corpus_id).count()
    pending = list(pending_questions(run).values_list("id", "question", "context", "language"))
    already = total - len(pending)
    if job.attempts <= 1:
        InferenceRun.objects.filter(pk=run.pk).update(skipped_existing=already, questions_total=total)
    loading = (LOADING_RESUMING if already else LOADING) % {"backend": run.backend, "done": already}
    progress(done=already, total=total, message=loading, force=True)
    backend.load()
    info = backend.describe()
    InferenceRun.objects.filter(pk=run.pk).update(
        model_path=info["model_path"][:1000],
        revision=info["revision"][:200],
        prompt_template=info["prompt_template"],
        device=info["device"],
    )
    done, spent = 0, 0.0
    check_cancel = getattr(progress, "check_cancel", None)
    size = run.batch_size
    for start in range(0, len(pending), size):
        rows = pending[start : start + size]
        t0 = time.perf_counter()
        answers = backend.answer([QAItem(qid, q, c, lang) for qid, q, c, lang in rows])
        dt = time.perf_counter() - t0
        if len(answers) != len(rows):
            raise RuntimeError(f"backend {run.backend} gave {len(answers)} answers for {len(rows)} questions")
        # The batch's predictions and the run's counters commit together: a worker killed between
        # the two (autocommit on PostgreSQL) left predictions that no counter ever saw.
        with transaction.atomic():
            Prediction.objects.bulk_create(
                [
                    Prediction(system_id=run.system_id, question_id=qid, answer=answer or "", meta={"run": run.pk})
                    for (qid, *_), answer in zip(rows, answers)
                ],
                ignore_conflicts=True,
            )
            InferenceRun.objects.filter(pk=run.pk).update(
                duration_s=F("duration_s") + dt, questions_done=F("questions_done") + len(rows)
            )
        done += len(rows)
        spent += dt
        rate = done / spent if spent else 0
        progress(
            done=already + done, message=ANSWERED % {"done": already + done, "total": total, "rate": f"{rate:.1f}"}
        )
        if check_cancel:  # every batch, not only when progress is written
            check_cancel()
    run.refresh_from_db()
    # What this run wrote, over all its attempts, counted from the predictions themselves (a killed
    # attempt's saved batch included); throughput over the time its batches took.
    run.questions_done = Prediction.objects.filter(system_id=run.system_id, meta__run=run.pk).count()
    run.throughput_qps = run.questions_done / run.duration_s if run.duration_s else None
    run.save(update_fields=["questions_done", "throughput_qps"])
    progress(done=total, message=LINKING, force=True)
    triplets = assign_triplets(run.corpus)
    return {
        "system": run.system.name,
        "questions": total,
        "answered_now": done,
        "skipped_existing": already,
        "device": info["device"],
        "batch_size": size,
        "duration_s": round(run.duration_s, 3),
        "throughput_qps": round(run.throughput_qps, 3) if run.throughput_qps else None,
        "revision": info["revision"],
        **triplets,
    }


def mark_worker_dead(job):
    """For a job whose worker is known dead (killed by hand): age its heartbeat so it can be re-claimed."""
    Job.objects.filter(pk=job.pk, status=Job.RUNNING, resumable=True).update(
        heartbeat_at=timezone.now() - timedelta(seconds=STALE_SECONDS + 1)
    )


def start_judge_run(corpus, judge, batch_size=8, *, user=None) -> JudgeRun:
    """``judging.prepare_judge_run`` then send the Celery task ``models_runner.tasks.run_judge``."""
    run = prepare_judge_run(corpus, judge, batch_size=batch_size, user=user)
    enqueue(run.job, "models_runner.tasks.run_judge", queue="default")
    return run


def pending_triplets(run):
    return (
        Triplet.objects.filter(question__corpus_id=run.corpus_id)
        .exclude(judge_labels__judge_id=run.judge_id)
        .order_by("question__position", "id")
    )


def judge_body(job, progress, sleep=None):
    """The job body of a judge run (``core.runner.run_job(job_id, judge_body)``); resumes from the saved labels."""
    run = JudgeRun.objects.select_related("judge", "corpus").get(job=job)
    recorder = ExchangeRecorder()
    client = make_client(run.judge.parameters, store=recorder, sleep=sleep)
    parameters = judge_parameters(run.judge.parameters)
    on_error, asker = parameters["on_error"], LabelAsker(client, parameters)
    total = Triplet.objects.filter(question__corpus_id=run.corpus_id).count()
    pending = list(
        pending_triplets(run).values_list("id", "question_id", "question__context", "question__question", "answer")
    )
    already = total - len(pending)
    progress(
        done=already,
        total=total,
        message=(JUDGING_RESUMING if already else JUDGING) % {"model": client.model, "done": already},
        force=True,
    )
    done = unparsed = failed = 0
    spent = 0.0
    check_cancel = getattr(progress, "check_cancel", None)
    # core.runner.run_job keeps the heartbeat fresh while this runs.
    for start in range(0, len(pending), run.batch_size):
        batch = pending[start : start + run.batch_size]
        t0 = time.perf_counter()
        rows = []
        for tid, qid, context, question, answer in batch:
            recorder.last = None
            try:
                reply, probs = asker.ask(judge_messages(run.prompt, context, question, answer=answer), question=qid)
            except ChatError:
                if on_error == "fail":
                    raise
                failed += 1
                continue
            value = parse_reply(reply)
            unparsed += value is None
            rows.append(
                JudgeLabel(
                    judge_id=run.judge_id,
                    triplet_id=tid,
                    value=value,
                    run_id=run.pk,
                    exchange=recorder.last,
                    source="llm",
                    probs=probs if value is not None else None,
                )
            )
        dt = time.perf_counter() - t0
        with transaction.atomic():
            JudgeLabel.objects.bulk_create(rows, ignore_conflicts=True)
            JudgeRun.objects.filter(pk=run.pk).update(
                triplets_done=F("triplets_done") + len(rows),
                duration_s=F("duration_s") + dt,
                unparsed=F("unparsed") + sum(r.value is None for r in rows),
            )
        done += len(batch)
        spent += dt
        progress(
            done=already + done,
            message=JUDGED % {"done": already + done, "total": total, "rate": f"{done / spent if spent else 0:.1f}"},
        )
        if check_cancel:
            check_cancel()
    return {
        "judge": run.judge.name,
        "corpus": run.corpus.name,
        "triplets": total,
        "judged_now": done - failed,
        "skipped_existing": already,
        "unparsed": unparsed,
        "failed": failed,
        "logprobs": "refused by the server: labels one-hot" if asker.refused else parameters["logprobs"],
    }


def register_job_kinds():
    """The models app's jobs in words (core.job_kinds): inference runs and judge runs."""
    from django.utils.translation import gettext_lazy as _

    from core import job_kinds, next_steps
    from models_runner import inference, judging

    common = {
        "corpus": _("corpus"),
        "skipped_existing": _("already done"),
        "batch_size": _("batch size"),
        "duration_s": _("duration (s)"),
    }
    job_kinds.register(
        inference.JOB_KIND,
        _("inference run"),
        results={
            **common,
            "system": _("system"),
            "questions": _("questions"),
            "answered_now": _("answered now"),
            "device": _("device"),
            "throughput_qps": _("throughput (questions/s)"),
            "revision": _("revision"),
        },
        messages=MESSAGES,
        resume="models_runner.tasks:resume",
        # its answers become triplets: build the folds, or add them to the folds built (issue 45)
        next_step=next_steps.corpus_page("fold-assignments", _("Build or extend the folds")),
    )
    job_kinds.register(
        judging.JOB_KIND,
        _("judge run"),
        results={
            **common,
            "judge": _("judge"),
            "triplets": _("triplets"),
            "judged_now": _("judged now"),
            "unparsed": _("unparsed"),
            "failed": _("failed"),
            "logprobs": _("log-probabilities"),
        },
        messages=MESSAGES,
        resume="models_runner.tasks:resume_judge",
        # its labels: the live conclusions of its corpus use them (the evaluation app's page; issue 45)
        next_step=next_steps.registered_corpus_page("conclusions", _("See the live conclusions with this judge")),
    )
