"""Load a demo: a corpus with the reference and other systems, folds, users (passwords printed).

``--lang en`` (default): the small SQuAD dev set with the answers of 10 real systems
(``predictions.jsonl``). ``--lang fr``: PIAF small (857 French questions, no predictions file): the
platform answers it with its own systems (``models_runner.demo``: ``baseline`` and the random-weight
``tiny-bert-fr`` built on the fly), imports the French frame lexicon ``framenet-fr-mini``, and gives
the demo users who chose no language French pages. Lives in the top app because it wires them all.
"""

import argparse
import os
import time
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils.crypto import get_random_string

from annotation.assignments import assign_all
from annotation.fold_store import create_folds
from annotation.importers import import_corpus, import_predictions
from annotation.interchange import InterchangeError
from annotation.models import Corpus, Fold, Prediction
from core import languages
from core.models import UserPreference
from core.roles import ADMIN, ANNOTATOR, RESEARCHER, ensure_groups
from frames.lexicon_store import ensure_shipped_lexicon
from models_runner.demo import FRENCH_SYSTEMS, DemoRunError, run_systems
from models_runner.inference import RunError

SHARED = Path(settings.BASE_DIR).parent / "shared" / "data"


def demos():
    """language -> its demo (``core.languages``: data folder, environment override, corpus name)."""
    return {lang.code: lang.demo for lang in languages.all_languages() if lang.demo is not None}


class Command(BaseCommand):
    help = "Load the demo corpus, its systems' predictions, folds and demo users (passwords printed)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--lang",
            choices=sorted(demos()),
            default=languages.DEFAULT,
            help="en: SQuAD small and 10 real systems; fr: PIAF small and the platform's own systems",
        )
        parser.add_argument("--data", help="folder with corpus.jsonl (and predictions.jsonl for en)")
        parser.add_argument("--corpus", help="corpus name (default squad-small, or piaf-small with --lang fr)")
        parser.add_argument("--annotators", type=int, default=5)
        parser.add_argument("--k", type=int, default=None, help="folds (default: one per annotator)")
        parser.add_argument(
            "--password",
            default=os.environ.get("DEMO_PASSWORD"),
            help="one password for every demo user (default: a random one each, printed)",
        )
        parser.add_argument(
            "--print-users",
            action=argparse.BooleanOptionalAction,
            default=True,
            help="print the users' table (bin/run-demo prints var/demo-users.txt itself, once the servers are up)",
        )

    def handle(self, *, lang, data, corpus, annotators, k, password, **options):
        started = time.perf_counter()
        demo = demos()[lang]
        data = Path(data or os.environ.get(demo.env) or SHARED / demo.folder)
        corpus = corpus or demo.corpus
        if not (data / "corpus.jsonl").exists():
            raise CommandError(f"demo data not found: {data / 'corpus.jsonl'} (use --data)")
        groups = ensure_groups()
        c = self.load_corpus(data, corpus, lang)
        if demo.own_systems:
            self.own_systems(c, lang)
        if not Fold.objects.filter(corpus=c, kind=Fold.KIND_TRIPLET).exists():
            folds = create_folds(c, k=k or annotators, seed=0)
            self.stdout.write(f"built {len(folds)} folds")
        language = lang if lang != languages.DEFAULT else None
        users = self.users(groups, annotators, password, language=language, show=options["print_users"])
        plan = assign_all(c, users)
        if plan:
            self.stdout.write(f"assigned {len(plan)} folds to the demo annotators")
        self.stdout.write(f"demo {lang} loaded in {time.perf_counter() - started:.1f} s")

    def load_corpus(self, data, corpus, lang):
        try:
            if not Corpus.objects.filter(name=corpus).exists():
                result = import_corpus(data / "corpus.jsonl", corpus)
                self.stdout.write(f"imported {result['questions']} questions into {corpus}")
                c = Corpus.objects.get(name=corpus)
                if not demos()[lang].own_systems or (data / "predictions.jsonl").exists():
                    result = import_predictions(data / "predictions.jsonl", c)
                    self.stdout.write(
                        f"imported {result['predictions']} predictions of {len(result['systems'])} systems "
                        f"-> {c.triplets_count()} triplets"
                    )
        except InterchangeError as exc:
            raise CommandError(f"nothing imported: {exc}") from None
        c = Corpus.objects.get(name=corpus)
        if lang != languages.DEFAULT and c.language != lang:
            c.language = lang  # the annotators' pages fall back to it (annotation.i18n)
            c.save(update_fields=["language"])
        return c

    def own_systems(self, c, lang):
        """The systems the platform runs itself on the corpus (the French ones: ``models_runner.demo``), and
        the language's frame lexicon."""
        try:
            results = run_systems(c, settings.VAR_DIR, FRENCH_SYSTEMS, say=self.stdout.write)
        except (DemoRunError, RunError) as exc:
            raise CommandError(str(exc)) from None
        for name, result in results.items():
            empty = Prediction.objects.filter(system__name=name, question__corpus=c, triplet=None).count()
            self.stdout.write(f"  {name}: {result['answered_now']} answers in {result['duration_s']} s ({empty} empty)")
        self.stdout.write(f"{c.triplets_count()} triplets (an empty answer is none)")
        lexicon = ensure_shipped_lexicon(languages.get(lang).lexicon)
        self.stdout.write(f"frame lexicon {lexicon.name} ready (choose it for a frame job on this corpus)")

    def users(self, groups, annotators, password, *, language=None, show=True):
        """The demo users (created, or their passwords reset with ``password``); the users file.
        ``language``: set as the interface language of the users who chose none; ``show``: print the table."""
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
            if language:
                UserPreference.objects.get_or_create(user=user, defaults={"language": language})
        text = "demo users (username, password, role):\n" + "\n".join(lines)
        if show:
            self.stdout.write(text)
        if any("(unchanged)" not in line for line in lines):
            # bin/run-demo prints this file (once, last), where the server's output does not scroll it away.
            users_file = Path(settings.VAR_DIR) / "demo-users.txt"
            users_file.parent.mkdir(parents=True, exist_ok=True)
            users_file.write_text(text + "\n")
            users_file.chmod(0o600)
        return User.objects.filter(groups__name=ANNOTATOR, username__startswith="annotator").order_by("username")
