"""Apply the retention periods (SPEC 18) now, or at another time with --now; --dry-run changes nothing."""

from datetime import UTC, datetime

from django.core.management.base import BaseCommand, CommandError

from annotation import retention


class Command(BaseCommand):
    help = "Delete what the retention periods say (panel ids, data after data_until, old login logs, sessions)."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="list what would go; change nothing")
        parser.add_argument("--now", help="act as if it were this ISO date or date-time (UTC)")

    def handle(self, *, dry_run, now, **options):
        when = None
        if now:
            try:
                when = datetime.fromisoformat(now)
            except ValueError:
                raise CommandError(f"--now {now!r} is not an ISO date (e.g. 2027-03-01)") from None
            if when.tzinfo is None:
                when = when.replace(tzinfo=UTC)
        lines = retention.purge(when, dry_run=dry_run)
        head = "would remove" if dry_run else "removed"
        self.stdout.write(f"{head} {len(lines)} item(s)" + "".join(f"\n  {line}" for line in lines))
