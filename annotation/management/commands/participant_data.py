"""Subject access (SPEC 18): everything held about one participant, as one JSON document."""

import json

from annotation import privacy
from annotation.management.participant_command import ParticipantCommand


class Command(ParticipantCommand):
    help = "Print one JSON with everything held about a participant (by panel id or pseudonym)."

    def handle_participant(self, participant, **options):
        self.stdout.write(json.dumps(privacy.subject_data(participant), indent=2, ensure_ascii=False, default=str))
