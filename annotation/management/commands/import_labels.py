from django.core.management.base import BaseCommand

from annotation.importers import import_labels
from annotation.label_files import MATCH_MODES

from ._common import get_corpus, run_import


class Command(BaseCommand):
    help = (
        "Import labels JSONL ({question_id, answer, annotator, label}). All or nothing unless --rejects; "
        "every bad line is listed."
    )

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--corpus", required=True)
        parser.add_argument(
            "--match",
            choices=MATCH_MODES,
            default="dedup",
            help="squad: an answer matching no triplet matches the one triplet of its question that "
            "is equal under SQuAD normalization (ambiguous is an error)",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="check every line and list every problem; change nothing"
        )
        parser.add_argument(
            "--rejects",
            metavar="FILE",
            help="import the valid lines; write each rejected line with its reason to FILE (JSONL)",
        )
        parser.add_argument(
            "--attach-existing",
            action="store_true",
            help="labels of a name that is an account with browser labels go to that account",
        )
        parser.add_argument("--annotator-prefix", default="", help="put before every annotator name of the file")

    def handle(self, *, path, corpus, match, dry_run, rejects, attach_existing, annotator_prefix, **options):
        result = run_import(
            self,
            import_labels,
            path,
            get_corpus(corpus),
            match=match,
            dry_run=dry_run,
            rejects=rejects,
            attach_existing=attach_existing,
            annotator_prefix=annotator_prefix,
        )
        if dry_run:
            for problem in result["problems"]:
                self.stdout.write(problem)
            self.stdout.write(
                f"dry run, nothing changed: {result['labels']} valid lines, {result['rejected']} rejected, "
                f"{len(result['new_annotators'])} new annotators"
            )
            return
        self.stdout.write(
            f"{result['labels']} labels ({result['created']} new, {result['changed']} changed) "
            f"from {len(result['annotators'])} annotators ({len(result['new_annotators'])} new, inactive); "
            f"{result['rejected']} lines rejected" + (f", written to {rejects}" if rejects else "")
        )
