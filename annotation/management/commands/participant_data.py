"""Subject access (SPEC 18): everything held about one participant, as one JSON document."""

import json

from django.core.management.base import BaseCommand, CommandError

from annotation import privacy
from annotation.models import Study


class Command(BaseCommand):
    help = "Print one JSON with everything held about a participant (by panel id or pseudonym)."

    def add_arguments(self, parser):
        parser.add_argument("study", help="the study's slug")
        parser.add_argument("participant", help="the panel id (e.g. PROLIFIC_PID) or the pseudonym (P-...)")

    def handle(self, *, study, participant, **options):
        found = Study.objects.filter(slug=study).first()
        if found is None:
            raise CommandError(f"no study {study!r}")
        who = privacy.find_participant(found, participant)
        if who is None:
            raise CommandError(f"no such participant in the study {study}")
        self.stdout.write(json.dumps(privacy.subject_data(who), indent=2, ensure_ascii=False, default=str))
