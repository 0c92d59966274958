from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModelsRunnerConfig(AppConfig):
    name = "models_runner"
    verbose_name = _("Models")

    def ready(self):
        from django.utils.translation import gettext_lazy as _
        from django.utils.translation import gettext_noop

        from core import job_kinds, next_steps
        from models_runner import jobs
        from models_runner.design_registry import register_design

        register_design()
        jobs.register_job_kinds()
        # an inference run's answers become triplets: build the folds, or add them to the folds built
        next_steps.register("inference", next_steps.corpus_page("fold-assignments", _("Build or extend the folds")))
        # the chat client's "no API key" error, on the job pages in the reader's language (models_runner.chat)
        job_kinds.register_messages(gettext_noop("no API key: set the environment variable %(name)s"))
