"""Offline report: ``python manage.py report --corpus C --predictions P [--labels L] --out DIR``.

Reads the three JSONL files of SPEC 9 (no database), computes the report and writes report.json,
the tables (CSV, LaTeX) and the figures (PNG, SVG) into DIR. ``--judge-labels FILE`` (labels format,
``annotator`` = the judge, optional ``probs``) adds the prediction-powered estimates of SPEC 10 (``ppi``,
``table_ppi``); with ``--design FILE`` (SPEC 12: ``{"question_id", "answer", "pi", "sampled"}`` per
triplet) also the active estimates (``active``, ``active_design``, the paper table ``table_active``).
"""

import time

from django.core.management.base import BaseCommand, CommandError

from annotation.dedup import POLICIES
from annotation.interchange import InterchangeError
from evaluation.render.outputs import write_report
from evaluation.report.config import ReportConfig, ReportExtras, config_field_defaults
from evaluation.report.inputs import read_design, read_inputs, read_judge_labels
from evaluation.report.options import OPTIONS, config_kwargs, split_names
from evaluation.report.pipeline import compute_report

DEFAULTS = config_field_defaults()  # the choices that are not report options: ReportConfig's defaults


def _cli_kwargs(option):
    """argparse keywords of a report option shared with the app: its type, default, choices and help."""
    kwargs = {"default": option.default, "help": f"{option.label}: {option.help}" if option.help else option.label}
    if option.kind == "list":
        kwargs["type"] = split_names
    elif option.kind in ("float", "int"):
        kwargs["type"] = float if option.kind == "float" else int
    elif option.kind == "choice" and option.config != "metric":  # a metric as the user spells it: canonical_metric
        kwargs["choices"] = [value for value, _ in option.choices()]
    kwargs["help"] += f" (default {option.default})"
    return kwargs


class Command(BaseCommand):
    help = "Compute the evaluation report from corpus, predictions and (optional) labels JSONL files."
    # Files in, files out: no database, so no system checks (they would need the settings of a server).
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--predictions", required=True)
        parser.add_argument("--labels")
        parser.add_argument("--judge-labels", help="labels JSONL of one automatic judge (SPEC 10): adds the `ppi` rows")
        parser.add_argument(
            "--design",
            help="design JSONL of an active design (SPEC 12: question_id, answer, pi, sampled); needs --judge-labels",
        )
        parser.add_argument("--out", required=True)
        for option in OPTIONS:  # the options shared with the app (evaluation.report.options)
            if option.cli:
                parser.add_argument(option.cli, dest=option.name, **_cli_kwargs(option))
        parser.add_argument(
            "--factor",
            action="append",
            default=[],
            help="extra factor name:attribute:op:threshold[:frames] (repeatable)",
        )
        parser.add_argument("--only-factors", help="comma-separated subset of the predefined factors")
        parser.add_argument("--entropy-source", default=DEFAULTS["entropy_source"], choices=["corpus", "lexicon"])
        parser.add_argument("--lexicon", help="JSON file {frame: [LU names]} for --entropy-source lexicon")
        parser.add_argument("--dedup-policy", default=DEFAULTS["dedup_policy"], choices=POLICIES)
        parser.add_argument("--hard-partitions", help="export questions of these partitions, e.g. 1,2")
        parser.add_argument("--hard-factors", help="export questions in E_f of these factors, e.g. nb_fes,entropy")
        parser.add_argument("--hard-require", default=DEFAULTS["hard_require"], choices=["any", "all"])
        parser.add_argument("--no-figures", action="store_true")
        parser.add_argument(
            "--no-reference-system",
            action="store_true",
            help="do not add the corpus answers as the system `reference` (added by default, as an import does)",
        )

    def handle(self, *args, **o):
        import json

        from evaluation.science.factors import DEFAULT_FACTORS, FACTORS_BY_NAME, parse_factor

        try:
            only = split_names(o["only_factors"])
            base = [FACTORS_BY_NAME[n] for n in only] if o["only_factors"] else list(DEFAULT_FACTORS)
        except KeyError as exc:
            raise CommandError(f"unknown predefined factor {exc.args[0]!r}") from None
        lexicon = None
        if o["lexicon"]:
            with open(o["lexicon"], encoding="utf-8") as f:
                lexicon = json.load(f)
        try:
            config = ReportConfig(
                **config_kwargs({option.name: o[option.name] for option in OPTIONS if option.cli}),
                factors=tuple(base + [parse_factor(s) for s in o["factor"]]),
                entropy_source=o["entropy_source"],
                lexicon=lexicon,
                dedup_policy=o["dedup_policy"],
                hard_partitions=tuple(int(k) for k in split_names(o["hard_partitions"])),
                hard_factors=tuple(split_names(o["hard_factors"])),
                hard_require=o["hard_require"],
            )
            started = time.perf_counter()
            questions, predictions, labels = read_inputs(
                o["corpus"], o["predictions"], o["labels"], reference_system=not o["no_reference_system"]
            )
            read_s = time.perf_counter() - started
            started = time.perf_counter()
            if o["design"] and not o["judge_labels"]:
                raise CommandError("--design needs --judge-labels (the judge whose uncertainty set the chances)")
            judge_labels = read_judge_labels(o["judge_labels"], questions) if o["judge_labels"] else None
            design = read_design(o["design"], questions) if o["design"] else None
            extras = ReportExtras(judge_labels=judge_labels, design=design)
            report = compute_report(questions, predictions, labels, config=config, extras=extras)
            compute_s = time.perf_counter() - started
        except (InterchangeError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        started = time.perf_counter()
        files = write_report(report, o["out"], render_figures=not o["no_figures"])
        write_s = time.perf_counter() - started
        self.stdout.write(
            f"report on {report.data['n_questions']} questions, "
            f"{len(report.data['systems']) - 1} systems + ROVER, metric {report.data['metric']}"
        )
        for note in report.data["notes"]:
            self.stdout.write(f"note: {note}")
        self.stdout.write(
            f"read {read_s:.2f}s, computed {compute_s:.2f}s, wrote {len(files)} files in {write_s:.2f}s to {o['out']}"
        )
