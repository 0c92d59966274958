from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The ground floor every app builds on: jobs and their runner, roles and role checks."""

    name = "core"
    verbose_name = "Core"

    def ready(self):
        from django.urls import register_converter

        from core.ids import IdConverter

        register_converter(IdConverter, "id")  # every integer of a URL pattern (core/ids.py)
