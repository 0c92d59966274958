"""Restore a study archive into this database, in one transaction (SPEC 14)."""

from django.core.management.base import BaseCommand, CommandError

from evaluation.archive.format import ArchiveError
from evaluation.archive.restore import import_study


class Command(BaseCommand):
    help = "Import a study archive (from export_study) in one transaction; on any problem nothing changes."

    def add_arguments(self, parser):
        parser.add_argument("file", help="the zip archive")
        parser.add_argument("--corpus", help="name of the restored corpus (default: the archived one)")

    def handle(self, *, file, corpus, **options):
        try:
            summary = import_study(file, corpus, label=file)
        except ArchiveError as exc:
            raise CommandError(f"nothing imported: {exc}") from None
        rows = sum(summary["rows"].values())
        self.stdout.write(f"imported {summary['corpus']}: {rows} rows, {summary['users']} users")
