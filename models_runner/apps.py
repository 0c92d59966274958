from django.apps import AppConfig


class ModelsRunnerConfig(AppConfig):
    name = "models_runner"

    def ready(self):
        from models_runner.design_registry import register_design

        register_design()
