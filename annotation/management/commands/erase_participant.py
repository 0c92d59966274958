"""Erase one participant of a crowd study (SPEC 18) through the one erasure service."""

from annotation import privacy
from annotation.management.participant_command import ParticipantCommand


class Command(ParticipantCommand):
    help = "Erase a participant (by panel id or pseudonym): --mode withdraw deletes everything, identity the ids."

    def add_arguments(self, parser):
        super().add_arguments(parser)
        parser.add_argument("--mode", required=True, choices=list(privacy.MODES))
        parser.add_argument("--reason", required=True, help="why (kept in the tombstone; write no panel id)")

    def handle_participant(self, participant, *, mode, reason, **options):
        stone = privacy.erase(participant, mode, reason)
        counts = ", ".join(f"{k} {v}" for k, v in sorted(stone.counts.items()))
        self.stdout.write(f"{participant.study.slug}: {stone.code} erased ({mode}): {counts}")
