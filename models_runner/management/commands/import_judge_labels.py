"""Import a judge-labels file (SPEC 10: the labels format, ``annotator`` names the judge):
``manage.py import_judge_labels FILE --corpus C [--judge NAME]``. Atomic: a bad line changes nothing."""

from django.core.management.base import BaseCommand, CommandError

from annotation.interchange import InterchangeError
from annotation.models import Corpus
from models_runner import judging


class Command(BaseCommand):
    help = "Import the labels of an automatic judge (never counted as human labels)."

    def add_arguments(self, parser):
        parser.add_argument("path")
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--judge", help="judge name (default: the file's single annotator name)")

    def handle(self, *args, **o):
        corpus = Corpus.objects.filter(name=o["corpus"]).first()
        if corpus is None:
            raise CommandError(f"no corpus named {o['corpus']!r}")
        try:
            result = judging.import_judge_labels(o["path"], corpus, o["judge"])
        except (InterchangeError, judging.JudgeError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"{result['labels']} labels of judge {result['judge']} imported into {corpus.name}")
