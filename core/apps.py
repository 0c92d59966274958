from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The ground floor every app builds on: jobs and their runner, roles and role checks."""

    name = "core"
    verbose_name = "Core"
