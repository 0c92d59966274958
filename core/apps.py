from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop


class CoreConfig(AppConfig):
    """The ground floor every app builds on: jobs and their runner, roles and role checks."""

    name = "core"
    verbose_name = _("Core")

    def ready(self):
        from django.urls import register_converter

        from core.ids import IdConverter

        register_converter(IdConverter, "id")  # every integer of a URL pattern (core/ids.py)
        _name_axes()

        from core import job_kinds, reaper

        job_kinds.register_messages(reaper.QUEUED_AGAIN)


def _name_axes():
    """django-axes (the login lockouts) has no name of its own: the admin titled its section « AXES »."""
    from django.apps import apps

    # Words of django-axes' admin that its French catalogue lacks: translated in ours (core/locale).
    gettext_noop("Clean up expired attempts")
    gettext_noop("Session key hash (sha256)")
    if apps.is_installed("axes"):
        apps.get_app_config("axes").verbose_name = _("Login lockouts")
