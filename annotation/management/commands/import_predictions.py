from django.core.management.base import BaseCommand

from annotation.importers import import_predictions

from ._common import get_corpus, run_import


class Command(BaseCommand):
    help = "Import predictions JSONL ({question_id, system, answer}) and deduplicate them into triplets."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--corpus", required=True)

    def handle(self, path, corpus, **options):
        result = run_import(self, import_predictions, path, get_corpus(corpus))
        self.stdout.write(
            f"{result['predictions']} predictions of {len(result['systems'])} systems; "
            f"{result['new_triplets']} new triplets; {result['empty_answers']} empty answers (no triplet)"
        )
