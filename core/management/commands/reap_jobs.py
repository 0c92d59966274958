from django.conf import settings
from django.core.management.base import BaseCommand

from core.reaper import reap_stale_jobs, resend_lost_jobs


class Command(BaseCommand):
    help = (
        "Recover running jobs whose worker died (heartbeat silent): resumable ones are sent again, "
        "the others marked failed; jobs no worker took within JOB_RESEND_SECONDS are sent again. Every "
        "worker already does this on its own every JOB_REAP_SECONDS."
    )

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=float, default=settings.JOB_STALE_SECONDS)

    def handle(self, seconds, **options):
        out = reap_stale_jobs(seconds)
        resent = resend_lost_jobs()
        self.stdout.write(
            f"{len(out['resumed'])} resumed, {len(out['failed'])} marked failed, {len(out['cancelled'])} cancelled, "
            f"{len(resent)} sent again"
        )
