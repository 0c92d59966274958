from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    """The ground floor every app builds on: jobs and their runner, roles and role checks."""

    name = "core"
    verbose_name = _("Core")

    def ready(self):
        from django.urls import register_converter

        from core.ids import IdConverter

        register_converter(IdConverter, "id")  # every integer of a URL pattern (core/ids.py)
