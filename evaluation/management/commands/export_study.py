"""Write the archive of one study (a corpus and everything of it) to a zip file (SPEC 14)."""

from django.core.management.base import BaseCommand, CommandError

from annotation.models import Corpus
from evaluation.archive.collect import export_study
from evaluation.archive.format import ArchiveError


class Command(BaseCommand):
    help = "Export a corpus with everything of its study into one zip archive (SPEC 14)."

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--out", required=True, help="the zip file to write (mode 0600)")
        parser.add_argument(
            "--full", action="store_true", help="keep the participants' panel ids (personal data; SPEC 18)"
        )

    def handle(self, *, corpus, out, full=False, **options):
        found = Corpus.objects.filter(name=corpus).first()
        if found is None:
            raise CommandError(f"no corpus named {corpus!r}")
        try:
            manifest = export_study(found, out, full=full)
        except (ArchiveError, OSError) as exc:
            raise CommandError(str(exc)) from None
        rows = sum(entry["rows"] or 0 for entry in manifest["members"].values())
        members = len(manifest["members"])
        self.stdout.write(f"wrote {out}: {members} members, {rows} rows; panel ids {manifest['panel_ids']}")
