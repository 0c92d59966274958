from django.apps import AppConfig


class ModelsRunnerConfig(AppConfig):
    name = "models_runner"
