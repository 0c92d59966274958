"""Erase one participant of a crowd study (SPEC 18) through the one erasure service."""

from django.core.management.base import BaseCommand, CommandError

from annotation import privacy
from annotation.models import Study


class Command(BaseCommand):
    help = "Erase a participant (by panel id or pseudonym): --mode withdraw deletes everything, identity the ids."

    def add_arguments(self, parser):
        parser.add_argument("study", help="the study's slug")
        parser.add_argument("participant", help="the panel id (e.g. PROLIFIC_PID) or the pseudonym (P-...)")
        parser.add_argument("--mode", required=True, choices=list(privacy.MODES))
        parser.add_argument("--reason", required=True, help="why (kept in the tombstone; write no panel id)")

    def handle(self, *, study, participant, mode, reason, **options):
        found = Study.objects.filter(slug=study).first()
        if found is None:
            raise CommandError(f"no study {study!r}")
        who = privacy.find_participant(found, participant)
        if who is None:
            raise CommandError(f"no such participant in the study {study}")
        stone = privacy.erase(who, mode, reason)
        counts = ", ".join(f"{k} {v}" for k, v in sorted(stone.counts.items()))
        self.stdout.write(f"{study}: {stone.code} erased ({mode}): {counts}")
