from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModelsRunnerConfig(AppConfig):
    name = "models_runner"
    verbose_name = _("Models")

    def ready(self):
        from django.utils.translation import gettext_noop

        from annotation import fold_designs
        from core import job_kinds
        from models_runner import jobs

        fold_designs.DESIGNS.register_path("active", "models_runner.active_design:DESIGN")
        jobs.register_job_kinds()
        # the chat client's "no API key" error, on the job pages in the reader's language (models_runner.chat)
        job_kinds.register_messages(gettext_noop("no API key: set the environment variable %(name)s"))
