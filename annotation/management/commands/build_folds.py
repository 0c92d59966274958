from django.core.management.base import BaseCommand, CommandError

from annotation import fold_designs
from annotation.fold_store import FoldError, create_folds, extend_folds
from annotation.folds import FOLD_POLICIES

from ._common import get_corpus


class Command(BaseCommand):
    help = "Split a corpus's triplets into K folds (seeded), or add new triplets to existing folds."

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--k", type=int, default=10)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--policy", choices=FOLD_POLICIES, default="by_question")
        parser.add_argument("--overlap", type=float, default=0.1, help="share of questions labeled twice")
        parser.add_argument("--replace", action="store_true", help="rebuild folds that have no labels yet")
        parser.add_argument("--extend", action="store_true", help="add triplets that are in no fold yet")
        parser.add_argument(
            "--design",
            default="uniform",
            help="uniform (every triplet, default) or active: humans label a sample drawn where the judge is unsure",
        )
        parser.add_argument("--budget", help="active design: human-labelled triplets, a count (300) or a share (5%%)")
        parser.add_argument("--judge", help="active design: the judge whose uncertainty sets the chances")

    def handle(self, *, corpus, k, seed, policy, overlap, replace, extend, **options):
        corpus = get_corpus(corpus)
        try:
            if extend:
                self.stdout.write(f"added {extend_folds(corpus)} triplets to the folds of {corpus.name}")
                return
            plan = self._plan(corpus, seed, options)
            folds = create_folds(corpus, k=k, seed=seed, policy=policy, overlap=overlap, replace=replace, design=plan)
        except (FoldError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        sizes = [f.items.count() for f in folds]
        self.stdout.write(f"{len(folds)} folds for {corpus.name}: sizes {sizes}")
        if plan is not None:
            m = plan.meta
            self.stdout.write(
                f"{m['kind']} design, judge {m['judge']}: pilot of {m['n_pilot']} of {m['n_triplets']} triplets drawn "
                f"(budget {m['budget']}, p1 {m['p1']:.4f}, seed {m['seed']}); the main sample opens when the "
                "pilot is labelled" + (f"; {m['reason']}" if m["reason"] else "")
            )

    def _plan(self, corpus, seed, options):
        if options["design"] == "uniform":
            if options["budget"] or options["judge"]:
                raise CommandError("--budget and --judge go with --design active")
            return None
        if not options["budget"] or not options["judge"]:
            raise CommandError("--design active needs --budget and --judge")
        return fold_designs.get(options["design"]).plan(
            corpus, budget=options["budget"], judge=options["judge"], seed=seed
        )
