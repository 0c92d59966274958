"""Load the demo: the small SQuAD dev set with the reference and 10 real systems, folds, users."""

import os
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils.crypto import get_random_string

from annotation.assignments import assign_all
from annotation.fold_store import create_folds
from annotation.importers import import_corpus, import_predictions
from annotation.interchange import InterchangeError
from annotation.models import Corpus, Fold
from core.roles import ADMIN, ANNOTATOR, RESEARCHER, ensure_groups

DEFAULT_DATA = Path(settings.BASE_DIR).parent / "shared" / "data" / "squad-v1.1-dev" / "small"


class Command(BaseCommand):
    help = "Load the demo corpus, its systems' predictions, 10 folds and demo users (passwords printed)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--data",
            default=os.environ.get("QAEVAL_DEMO_DATA", str(DEFAULT_DATA)),
            help="folder with corpus.jsonl and predictions.jsonl",
        )
        parser.add_argument("--corpus", default="squad-small")
        parser.add_argument("--annotators", type=int, default=5)
        parser.add_argument("--k", type=int, default=None, help="folds (default: one per annotator)")
        parser.add_argument(
            "--password",
            default=os.environ.get("DEMO_PASSWORD"),
            help="one password for every demo user (default: a random one each, printed)",
        )

    def handle(self, *, data, corpus, annotators, k, password, **options):
        data = Path(data)
        if not (data / "corpus.jsonl").exists():
            raise CommandError(f"demo data not found: {data / 'corpus.jsonl'} (use --data)")
        groups = ensure_groups()
        try:
            if not Corpus.objects.filter(name=corpus).exists():
                result = import_corpus(data / "corpus.jsonl", corpus)
                self.stdout.write(f"imported {result['questions']} questions into {corpus}")
                c = Corpus.objects.get(name=corpus)
                result = import_predictions(data / "predictions.jsonl", c)
                self.stdout.write(
                    f"imported {result['predictions']} predictions of {len(result['systems'])} systems "
                    f"-> {c.triplets_count()} triplets"
                )
        except InterchangeError as exc:
            raise CommandError(f"nothing imported: {exc}") from None
        c = Corpus.objects.get(name=corpus)
        if not Fold.objects.filter(corpus=c, kind=Fold.KIND_TRIPLET).exists():
            folds = create_folds(c, k=k or annotators, seed=0)
            self.stdout.write(f"built {len(folds)} folds")
        User = get_user_model()
        accounts = [("admin", ADMIN, True), ("researcher", RESEARCHER, False)] + [
            (f"annotator{i}", ANNOTATOR, False) for i in range(1, annotators + 1)
        ]
        lines = []
        for username, role, staff in accounts:
            user, created = User.objects.get_or_create(username=username)
            if created or password:
                secret = password or get_random_string(14)
                user.set_password(secret)
                user.is_staff = user.is_superuser = staff
                user.save()
                lines.append(f"  {username:<12} {secret:<16} ({role})")
            else:
                lines.append(f"  {username:<12} {'(unchanged)':<16} ({role})")
            user.groups.add(groups[role])
        plan = assign_all(
            c, User.objects.filter(groups__name=ANNOTATOR, username__startswith="annotator").order_by("username")
        )
        if plan:
            self.stdout.write(f"assigned {len(plan)} folds to the demo annotators")
        text = "demo users (username, password, role):\n" + "\n".join(lines)
        self.stdout.write(text)
        if any("(unchanged)" not in line for line in lines):
            # bin/run-demo prints this file again last, where the server's output does not scroll it away.
            users_file = Path(settings.VAR_DIR) / "demo-users.txt"
            users_file.parent.mkdir(parents=True, exist_ok=True)
            users_file.write_text(text + "\n")
            users_file.chmod(0o600)
