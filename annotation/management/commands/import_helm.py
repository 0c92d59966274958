from django.core.management.base import BaseCommand

from annotation.importers import import_helm

from ._common import run_import


class Command(BaseCommand):
    help = (
        "Import a HELM run directory, or a suite directory of runs of one scenario: instances as questions, "
        "each model's completions as a system named by its model."
    )

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--corpus", required=True)
        parser.add_argument(
            "--no-reference-system",
            action="store_true",
            help="do not add the first reference answer as the system 'reference'",
        )

    def handle(self, path, corpus, no_reference_system, **options):
        result = run_import(self, import_helm, path, corpus, reference_system=not no_reference_system)
        self.stdout.write(
            f"{result['questions']} questions, {result['predictions']} predictions of "
            f"{len(result['systems'])} systems ({', '.join(result['systems'])}) from "
            f"{len(result['runs'])} runs; {result['failed_requests']} failed requests skipped"
        )
