import json

from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._common import get_corpus
from frames import errors, jobs, lexicon_store, llm, proxy_store
from models_runner.chat import ChatError
from models_runner.endpoints import KeyVariableError


class Command(BaseCommand):
    help = (
        "Predict a frame, its trigger and frame elements for every question of a corpus with an LLM "
        "(paper section 5, SPEC 8) and write them to the questions. Questions already done are skipped "
        "unless --force. The OpenAI-compatible server comes from OPENAI_BASE_URL / OPENAI_API_KEY or --base-url."
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument(
            "--lexicon", help="default by the corpus language: framenet-fr-mini for fr, else framenet-mini"
        )
        parser.add_argument("--model", default=llm.DEFAULT_MODEL)
        parser.add_argument("--base-url", default=None)
        parser.add_argument("--force", action="store_true", help="annotate again questions already annotated")
        parser.add_argument("--limit", type=int, default=None, help="at most this many questions")
        parser.add_argument(
            "--fe-hint", action="store_true", help="add the frame's FE names to the second prompt (not in the paper)"
        )
        parser.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
        parser.add_argument("--requests-per-minute", type=float, default=None, help="client-side rate limit")
        parser.add_argument("--queue", action="store_true", help="run as a background job on the Celery worker")

    def handle(self, *, corpus, lexicon, queue, **options):
        model = options["model"]
        chat_options = {key: options[key] for key in ("base_url", "api_key_env", "requests_per_minute")}
        run_options = {key: options[key] for key in ("force", "limit", "fe_hint")}
        corpus = get_corpus(corpus)
        try:
            lexicon_row = lexicon_store.get_lexicon(lexicon or lexicon_store.default_lexicon(corpus.language))
        except errors.FrameJobError as exc:
            raise CommandError(str(exc)) from None
        if queue:
            try:
                job = jobs.start_frame_job(
                    corpus.name, lexicon=lexicon_row.name, model=model, **chat_options, **run_options
                )
            except KeyVariableError as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(f"queued job {job.pk}")
            return
        verbose = options.get("verbosity", 1) > 1

        def progress(done=None, total=None, message=None, *, force=False):
            if verbose and message:
                self.stderr.write(message)

        try:
            chat = llm.make_chat(model=model, **chat_options)
            result = proxy_store.predict_frames(
                corpus, lexicon_row, chat, **run_options, model=model, progress=progress
            )
        except (errors.FrameJobError, ChatError, KeyVariableError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps(result, indent=2))
