from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from annotation import fold_kinds
from annotation.assignments import annotators, assign_all
from annotation.fold_store import FoldError

from ._common import get_corpus


class Command(BaseCommand):
    help = "Assign the unassigned folds of a corpus to annotators, round robin."

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--annotators", help="comma-separated usernames (default: all active annotators)")
        parser.add_argument("--per-fold", type=int, default=1)
        parser.add_argument("--kind", choices=list(fold_kinds.KINDS), default="triplet", help="the kind of fold")

    def handle(self, corpus, per_fold, kind, **options):
        users = annotators_list(options["annotators"])
        try:
            plan = assign_all(get_corpus(corpus), users, per_fold=per_fold, kind=kind)
        except FoldError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"assigned {len(plan)} folds")


def annotators_list(names):
    if not names:
        return list(annotators())
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    users = {u.username: u for u in get_user_model().objects.filter(username__in=wanted)}
    missing = [n for n in wanted if n not in users]
    if missing:
        raise CommandError(f"unknown users: {', '.join(missing)}")
    return [users[n] for n in wanted]
