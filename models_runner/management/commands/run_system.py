"""Run a system (a backend, with its model) over a corpus: ``manage.py run_system --corpus C --system S
--backend baseline [--model PATH] [--batch-size N] [--device cpu] [--option key=value ...] [--sync]``.

Without ``--sync`` the run is sent to Celery and the job id is printed; with ``--sync`` it runs here.
``--resume JOB`` continues a run (with ``--force`` when its worker is known to be dead).
"""

import json

from django.core.management.base import BaseCommand, CommandError

from core.models import Job
from core.runner import run_job
from models_runner import inference, jobs
from models_runner.backends import REGISTRY


def parse_option(text):
    """``key=value``; the value is read as JSON when it parses (numbers, true, lists), else a string."""
    if "=" not in text:
        raise CommandError(f"--option takes key=value, got {text!r}")
    key, value = text.split("=", 1)
    try:
        return key.strip(), json.loads(value)
    except ValueError:
        return key.strip(), value


class Command(BaseCommand):
    help = "Answer every question of a corpus with a backend, as a system's predictions (resumable job)."

    def add_arguments(self, parser):
        parser.add_argument("--corpus")
        parser.add_argument("--system", help="name of the system the predictions belong to")
        parser.add_argument("--backend", choices=sorted(REGISTRY))
        parser.add_argument("--model", help="local model directory (or a hub id already in the local cache)")
        parser.add_argument("--adapter", help="causal: local PEFT LoRA adapter directory")
        parser.add_argument("--batch-size", type=int, default=8)
        parser.add_argument("--device", default="auto", help="auto (cuda if present, else cpu), cpu, cuda, cuda:N")
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="backend option, repeatable (e.g. --option shots=2 --option base_url=http://...)",
        )
        parser.add_argument("--queue", help="Celery queue (default: gpu for model weights unless --device cpu)")
        parser.add_argument("--sync", action="store_true", help="run here and now instead of sending to Celery")
        parser.add_argument("--resume", type=int, metavar="JOB", help="continue this inference job")
        parser.add_argument(
            "--force", action="store_true", help="with --resume: the job's worker is dead, take over now"
        )

    def handle(self, *args, **o):
        if o["resume"]:
            return self.resume(o)
        missing = [f"--{k}" for k in ("corpus", "system", "backend") if not o[k]]
        if missing:
            raise CommandError(f"missing {', '.join(missing)}")
        options = dict(parse_option(t) for t in o["option"])
        for key in ("model", "adapter"):
            if o[key]:
                options[key] = o[key]
        kwargs = {"options": options, "batch_size": o["batch_size"], "device": o["device"], "queue": o["queue"]}
        try:
            if o["sync"]:
                run = inference.prepare_run(o["corpus"], o["system"], o["backend"], **kwargs)
            else:
                run = jobs.start_run(o["corpus"], o["system"], o["backend"], **kwargs)
        except inference.RunError as exc:
            raise CommandError(str(exc)) from None
        if not o["sync"]:
            self.stdout.write(f"job {run.job_id} queued on {run.queue} (inference run {run.pk})")
            return
        self.stdout.write(f"job {run.job_id}: running {o['backend']} as {run.system.name} on {run.corpus.name}")
        self.stdout.flush()
        self.finish(run.job_id)

    def resume(self, o):
        job = Job.objects.filter(pk=o["resume"], kind=inference.JOB_KIND).first()
        if job is None:
            raise CommandError(f"no inference job {o['resume']}")
        if job.status in Job.FINISHED:
            raise CommandError(f"job {job.pk} is {job.status}; start a new run to fill missing answers")
        if o["force"]:
            jobs.mark_worker_dead(job)
        if not o["sync"]:
            from models_runner import tasks

            tasks.resume(job)
            self.stdout.write(f"job {job.pk} re-queued")
            return
        self.finish(job.pk)

    def finish(self, job_id):
        job = run_job(job_id, jobs.run_body)
        if job is None:
            raise CommandError(
                f"job {job_id} is running elsewhere (its heartbeat is fresh); use --force if that worker is dead"
            )
        if job.status != Job.SUCCEEDED:
            raise CommandError(f"job {job.pk} {job.status}: {job.error}")
        self.stdout.write(json.dumps(job.result, sort_keys=True))
