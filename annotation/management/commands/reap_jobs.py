from django.core.management.base import BaseCommand

from annotation.jobs import STALE_SECONDS, reap_stale_jobs


class Command(BaseCommand):
    help = "Mark running jobs whose worker died (no heartbeat) as failed."

    def add_arguments(self, parser):
        parser.add_argument("--seconds", type=int, default=STALE_SECONDS)

    def handle(self, seconds, **options):
        self.stdout.write(f"{reap_stale_jobs(seconds)} stale jobs marked failed")
