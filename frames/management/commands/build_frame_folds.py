from django.core.management.base import BaseCommand, CommandError

from annotation.management.commands._common import get_corpus
from frames.errors import FrameJobError
from frames.folds import FrameFoldError, create_frame_folds
from frames.lexicon_store import get_lexicon


class Command(BaseCommand):
    help = (
        "Build folds of frame checks over the questions whose frame was predicted (outcome done). "
        "Assign them with: manage.py assign_folds --kind frame --corpus NAME"
    )

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--lexicon", default=None, help="only the annotations made with this lexicon")
        parser.add_argument("--k", type=int, default=1)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--overlap",
            type=float,
            default=0.0,
            help="share of questions checked twice (the paper: two annotators on all 50: use k=2, overlap=1)",
        )
        parser.add_argument(
            "--sample", type=int, default=None, help="check a seeded random sample of this many (paper: 50)"
        )
        parser.add_argument("--replace", action="store_true")

    def handle(self, *, corpus, lexicon, k, seed, overlap, sample, replace, **options):
        corpus = get_corpus(corpus)
        try:
            lexicon_row = get_lexicon(lexicon) if lexicon else None
            folds = create_frame_folds(
                corpus, lexicon=lexicon_row, k=k, seed=seed, overlap=overlap, sample=sample, replace=replace
            )
        except (FrameFoldError, FrameJobError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"{len(folds)} frame folds for {corpus.name}: sizes {[f.items.count() for f in folds]}")
