"""The base of the commands that act on one participant of a crowd study (SPEC 18): the study's slug
and the participant's panel id or pseudonym, looked up once, with a clear error for either missing."""

from django.core.management.base import BaseCommand, CommandError

from annotation import privacy
from annotation.models import Study


class ParticipantCommand(BaseCommand):
    """``handle_participant(participant, **options)`` receives the participant found."""

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
        return self.handle_participant(who, **options)

    def handle_participant(self, participant, **options):
        raise NotImplementedError
