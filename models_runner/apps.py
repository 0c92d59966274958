from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModelsRunnerConfig(AppConfig):
    name = "models_runner"
    verbose_name = _("Models")

    def ready(self):
        from annotation import fold_designs
        from models_runner import jobs

        fold_designs.DESIGNS.register_path("active", "models_runner.active_design:DESIGN")
        jobs.register_job_kinds()
