"""A consistent copy of the live SQLite database, taken while people work (SQLite's online backup API).

PostgreSQL has its own tool for this: ``pg_dump`` (README, "Move, back up and upgrade a study").
"""

import os
import sqlite3
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connections


def backup_sqlite(source: str, target: str) -> float:
    """Copy the SQLite database file ``source`` to ``target`` (mode 0600, API tokens left out); returns
    the seconds it took.

    ``sqlite3.Connection.backup`` copies every page in one step, inside one read transaction: the
    copy is the database as of that transaction's start (every commit before it, none after). In WAL
    mode (the platform's setting) writers go on meanwhile; a copy in several steps would restart
    at every write and might never end while annotators label.
    """
    started = time.monotonic()
    # SPEC 18: the copy is readable by its owner only, from its first byte
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    src = sqlite3.connect(source, timeout=30)
    dst = sqlite3.connect(target)
    try:
        with dst:
            src.backup(dst, pages=-1)
        with dst:  # and holds no API token in clear: tokens are made again after a restore
            if dst.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'authtoken_token'").fetchone():
                dst.execute("DELETE FROM authtoken_token")
        dst.execute("VACUUM")  # the deleted tokens' pages are wiped, not just unlinked
        dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
    finally:
        dst.close()
        src.close()
    return time.monotonic() - started


class Command(BaseCommand):
    help = "Copy the live SQLite database consistently (online backup); for PostgreSQL use pg_dump."

    def add_arguments(self, parser):
        parser.add_argument("--out", required=True, help="the file to write (must not exist)")

    def handle(self, *, out, **options):
        connection = connections["default"]
        if connection.vendor != "sqlite":
            raise CommandError(
                f"the database is {connection.vendor}: back it up with pg_dump, e.g. "
                'pg_dump --format=custom --file=qaeval.dump "$DATABASE_URL" (README: Move, back up and upgrade)'
            )
        source = str(connection.settings_dict["NAME"])
        if source == ":memory:" or source.startswith("file:memorydb"):
            raise CommandError("the database lives in memory: there is no file to back up")
        if Path(out).exists():
            raise CommandError(f"{out} exists already: choose a new file")
        seconds = backup_sqlite(source, out)
        self.stdout.write(f"backed up {source} to {out} in {seconds:.2f} s")
