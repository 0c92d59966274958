from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModelsRunnerConfig(AppConfig):
    name = "models_runner"
    verbose_name = _("Models")

    def ready(self):
        from models_runner import jobs
        from models_runner.design_registry import register_design

        register_design()
        jobs.register_job_kinds()
