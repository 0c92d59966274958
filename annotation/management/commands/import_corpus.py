from django.core.management.base import BaseCommand

from annotation import formats
from annotation.dedup import POLICIES
from annotation.importers import import_corpus

from ._common import run_import


class Command(BaseCommand):
    help = "Import a corpus (JSONL per SPEC 9, or SQuAD JSON). Atomic: a bad line imports nothing."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--corpus", required=True, help="corpus name (created if new)")
        parser.add_argument("--format", choices=formats.names(), help="default: from the file extension")
        parser.add_argument(
            "--no-reference-system",
            action="store_true",
            help="do not add the reference answers as the system 'reference'",
        )
        parser.add_argument("--dedup", choices=POLICIES, help="dedup policy of a new corpus (default whitespace)")

    def handle(self, *, path, corpus, format, no_reference_system, dedup, **options):
        result = run_import(
            self, import_corpus, path, corpus, fmt=format, reference_system=not no_reference_system, dedup_policy=dedup
        )
        self.stdout.write(
            f"corpus {result['corpus']}: {result['questions']} questions, {result['new_triplets']} reference triplets, "
            f"{result['without_reference']} questions without a reference answer (no reference triplet)"
        )
