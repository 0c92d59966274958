from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = _("Annotation")

    def ready(self):
        from annotation import i18n, jobs, privacy
        from core import next_steps

        i18n.register()
        privacy.register()
        jobs.register_job_kinds()
        next_steps.register("import_", next_steps.corpus_page("fold-assignments", _("Build folds for this corpus")))
