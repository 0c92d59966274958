from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class FramesConfig(AppConfig):
    """The frame proxy (SPEC 8): FrameNet lexicons, frame predictions, frame-check folds and checks."""

    name = "frames"
    verbose_name = _("Frames")

    def ready(self):
        from frames import human_checks, jobs
        from frames.attribute_checks import ATTRIBUTE_CHECK
        from frames.checking import FRAME_CHECK

        human_checks.register(FRAME_CHECK)
        human_checks.register(ATTRIBUTE_CHECK)
        jobs.register_job_kinds()  # with their next steps and resume functions
