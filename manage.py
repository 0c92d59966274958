#!/usr/bin/env python
import os
import sys

# Commands that read and write files only: they run without SECRET_KEY and without a database.
OFFLINE_COMMANDS = {"report", "derive_attributes", "makemessages", "compilemessages"}


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    if len(sys.argv) > 1 and sys.argv[1] in OFFLINE_COMMANDS:
        os.environ.setdefault("QAEVAL_OFFLINE_COMMAND", sys.argv[1])
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
