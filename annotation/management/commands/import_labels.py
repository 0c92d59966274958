from django.core.management.base import BaseCommand

from annotation.importers import import_labels

from ._common import get_corpus, run_import


class Command(BaseCommand):
    help = "Import labels JSONL ({question_id, answer, annotator, label})."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--corpus", required=True)

    def handle(self, path, corpus, **options):
        result = run_import(self, import_labels, path, get_corpus(corpus))
        self.stdout.write(f"{result['labels']} labels ({result['created']} new, {result['changed']} changed) "
                          f"from {len(result['annotators'])} annotators")
