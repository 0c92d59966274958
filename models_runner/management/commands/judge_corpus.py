"""Label every triplet of a corpus with an LLM judge (SPEC 10), as a resumable job:
``manage.py judge_corpus --corpus C --judge NAME [--model M] [--base-url URL] [--option key=value ...]
[--prompt-file F] [--batch-size N] [--sync]``.

The judge is created on first use (``--model`` required then); ``--model``, ``--base-url``,
``--option`` and ``--prompt-file`` update it. Without ``--sync`` the run is sent to Celery and the
job id is printed. ``--resume JOB`` continues a run (``--force`` when its worker is known dead).
"""

import json

from django.core.management.base import BaseCommand, CommandError

from core.models import Job
from core.runner import run_job
from models_runner import jobs, judging
from models_runner.management.commands.run_system import parse_option
from models_runner.models import Judge


class Command(BaseCommand):
    help = "Label every triplet of a corpus with an LLM judge (resumable job)."

    def add_arguments(self, parser):
        parser.add_argument("--corpus")
        parser.add_argument("--judge", help="judge name (created on first use)")
        parser.add_argument("--model", help="the API's model name")
        parser.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help=f"judge parameter, repeatable: {', '.join(judging.DEFAULTS)}",
        )
        parser.add_argument(
            "--prompt-file", help="prompt with {context}, {question}, {answer} (default: DEFAULT_PROMPT)"
        )
        parser.add_argument("--batch-size", type=int, default=8)
        parser.add_argument("--sync", action="store_true", help="run here and now instead of sending to Celery")
        parser.add_argument("--resume", type=int, metavar="JOB", help="continue this judge job")
        parser.add_argument(
            "--force", action="store_true", help="with --resume: the job's worker is dead, take over now"
        )

    def handle(self, *args, **o):
        if o["resume"]:
            return self.resume(o)
        missing = [f"--{k}" for k in ("corpus", "judge") if not o[k]]
        if missing:
            raise CommandError(f"missing {', '.join(missing)}")
        try:
            judge = self.judge(o)
            prepare = judging.prepare_judge_run if o["sync"] else jobs.start_judge_run
            run = prepare(o["corpus"], judge, batch_size=o["batch_size"])
        except judging.JudgeError as exc:
            raise CommandError(str(exc)) from None
        if not o["sync"]:
            self.stdout.write(f"job {run.job_id} queued (judge run {run.pk})")
            return
        self.stdout.write(f"job {run.job_id}: judging {run.corpus.name} with {judge.name}")
        self.stdout.flush()
        self.finish(run.job_id)

    def judge(self, o):
        params = dict(parse_option(t) for t in o["option"])
        if o["model"]:
            params["model"] = o["model"]
        if o["base_url"]:
            params["base_url"] = o["base_url"]
        prompt = None
        if o["prompt_file"]:
            with open(o["prompt_file"], encoding="utf-8") as f:
                prompt = judging.check_prompt(f.read())
        judge = Judge.objects.filter(name=o["judge"]).first()
        if judge is None:
            judge = Judge(name=o["judge"], kind=Judge.LLM, prompt=judging.DEFAULT_PROMPT)
        judge.parameters = judging.judge_parameters({**judge.parameters, **params})
        if prompt is not None:
            judge.prompt = prompt
        judge.full_clean(validate_unique=False)
        judge.save()
        return judge

    def resume(self, o):
        job = Job.objects.filter(pk=o["resume"], kind=judging.JOB_KIND).first()
        if job is None:
            raise CommandError(f"no judge job {o['resume']}")
        if job.status in Job.FINISHED:
            raise CommandError(f"job {job.pk} is {job.status}; start a new run to judge the remaining triplets")
        if o["force"]:
            jobs.mark_worker_dead(job)
        if not o["sync"]:
            from models_runner import tasks

            tasks.run_judge.apply_async(args=[job.pk], queue="default")
            self.stdout.write(f"job {job.pk} re-queued")
            return
        self.finish(job.pk)

    def finish(self, job_id):
        job = run_job(job_id, jobs.judge_body)
        if job is None:
            raise CommandError(
                f"job {job_id} is running elsewhere (its heartbeat is fresh); use --force if that worker is dead"
            )
        if job.status != Job.SUCCEEDED:
            raise CommandError(f"job {job.pk} {job.status}: {job.error}")
        self.stdout.write(json.dumps(job.result, sort_keys=True))
