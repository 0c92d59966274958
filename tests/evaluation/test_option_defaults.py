"""One home for the defaults of a report's choices (issue 31 point 4): the default label aggregation is
``evaluation.science.human.DEFAULT_AGGREGATE``, every other option's default its ``ReportOption``
(``evaluation.report.options``), the choices that are not options ``ReportConfig``'s fields; the readers
of report.json (sections, page, paper tables, captions, the offline command) ask
``evaluation.report.config``, never type a default again.

A default changed in its home, in a fresh interpreter before anything reads it, is seen everywhere.
"""

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code):
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_default_aggregate_changed_in_its_home_is_seen_everywhere():
    seen = _run("""
        import inspect
        from evaluation.science import human
        human.DEFAULT_AGGREGATE = "majority"  # the one home, changed before anyone reads it
        import django
        django.setup()
        from evaluation.science import active, metric_registry, ppi
        from evaluation.report import config, options, scoring, sections
        from evaluation.render import choices

        def default(f):
            return inspect.signature(f).parameters["aggregate"].default

        print(options.BY_NAME["human_aggregate"].default, config.ReportConfig(metric="f1").human_aggregate)
        print(config.config_field_defaults()["human_aggregate"], config.recorded_aggregate({"config": {}}))
        for f in (metric_registry.hscore, metric_registry.hcorrect, ppi.prediction_scores, active.active_scores,
                  active.active_section, sections.ppi_section, scoring._score_empty_answers):
            print(default(f))
        data = {"metric": "hscore", "has_labels": True, "config": {}}
        print([c["short"] for c in choices.report_choices(data) if c["key"] == "human_aggregate"][0].split()[-1])
    """)
    assert seen == ["majority"] * 12


def test_an_option_default_changed_in_its_record_is_seen_by_the_config_and_the_readers():
    seen = _run("""
        import dataclasses
        from evaluation.report import options
        options.OPTIONS = tuple(
            dataclasses.replace(o, default="holm") if o.name == "significance" else o for o in options.OPTIONS
        )
        import django
        django.setup()
        from evaluation.report import config
        from evaluation.render import choices

        print(config.ReportConfig(metric="f1").table_significance, config.recorded({}, "table_significance"))
        shown = [c["short"] for c in choices.report_choices({"metric": "f1"}) if c["key"] == "table_significance"]
        print(shown[0].replace(" ", "_"))
    """)
    assert seen == ["holm", "holm", "bold:_Holm-corrected_p_<_0.05"]


def test_the_defaults_agree_between_the_options_the_config_and_the_readers():
    from evaluation.render import choices
    from evaluation.report import config, options

    fields = config.config_field_defaults()
    for name, value in options.config_defaults().items():
        assert fields[name] == value, name
    shown = {c["key"]: c["short"] for c in choices.report_choices({"metric": "f1", "has_labels": True})}
    assert shown["human_aggregate"] == "labels mean"
    assert shown["alpha"] == f"ROVER Levenshtein alpha {options.BY_NAME['alpha'].default:g}"


# A default typed again: ``aggregate="mean"``, ``.get("human_aggregate", "mean")``, ``"raw")`` as a fallback.
TYPED_AGAIN = re.compile(
    r"""aggregate\w*\s*(?::\s*str\s*)?=\s*["']mean["']"""
    r"""|\.get\(\s*["'](?:human_aggregate|table_significance|dedup_policy|design|alpha)["']\s*,"""
    r"""|DEFAULTS\s*=\s*\{"""
)


def test_no_reader_types_a_default_again():
    typed = []
    for path in sorted((ROOT / "evaluation").rglob("*.py")):
        if "migrations" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if TYPED_AGAIN.search(line):
                typed.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert typed == []
