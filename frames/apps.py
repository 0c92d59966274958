from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FramesConfig(AppConfig):
    """The frame proxy (SPEC 8): FrameNet lexicons, frame predictions, frame-check folds and checks."""

    name = "frames"
    verbose_name = _("Frames")

    def ready(self):
        from frames import attribute_checks, checking, jobs

        checking.register_fold_kind()
        attribute_checks.register_fold_kind()
        jobs.register_job_kinds()
