"""The options of a report, each one ``ReportOption`` record: the one definition that the report job
(``evaluation.jobs.REPORT_OPTIONS``, its params), the report form (``evaluation.forms.ReportForm``),
the API (``evaluation.api.ReportRequest``), the offline command (``manage.py report``) and
``ReportConfig`` derive from. A new option is a record here (and, when it changes a number, a
``ReportConfig`` field of the same meaning); its default, label, help, bounds and choices follow
everywhere. Pure, no database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _

from evaluation.science import metric_registry
from evaluation.science.human import AGGREGATES, DEFAULT_AGGREGATE
from evaluation.science.rover import DEFAULT_ALPHA
from stats.bootstrap import DEFAULT_BOOT

SIGNIFICANCE_MARKS = ("raw", "holm")
SIGNIFICANCE_WORDS = {"raw": _("raw p < 0.05 (as the paper)"), "holm": _("Holm-corrected p < 0.05")}
AGGREGATE_WORDS = {
    "mean": _("mean of the labels' values"),
    "majority": _("majority label (ties: mean of the tied labels)"),
    "ds": _("Dawid-Skene (each annotator's reliability estimated; needs 2 labels on half the answers)"),
}


@dataclass(frozen=True)
class ReportOption:
    """One option of a report.

    ``name`` is its job param, form field and API field; ``kind`` one of ``list`` (names, comma
    separated in the form and the command), ``float``, ``int``, ``choice``, ``bool``, ``name`` (a
    free name, such as a judge's, null allowed); ``choices`` a function giving ``(value, words)``
    pairs; ``config`` the ``ReportConfig`` field it sets (None: it chooses inputs, not numbers of
    the computation); ``cli`` the offline command's flag (None: in the app only); ``form`` / ``api``
    whether the form / API offer it (the job takes every option); ``required`` in the form.
    """

    name: str
    kind: str
    default: object
    label: str
    help: str = ""
    choices: Callable | None = None
    min_value: float | None = None
    max_value: float | None = None
    config: str | None = None
    cli: str | None = None
    form: bool = True
    api: bool = True
    required: bool = False


OPTIONS = (
    ReportOption(
        "systems",
        "list",
        None,
        _("Systems"),
        _("ROVER systems, comma-separated, in tie-break order (empty: all but reference)"),
        config="systems",
        cli="--systems",
    ),
    ReportOption(
        "alpha",
        "float",
        DEFAULT_ALPHA,
        _("Alpha"),
        _("agree when Levenshtein distance < alpha"),
        min_value=0.5,
        config="alpha",
        cli="--alpha",
        required=True,
    ),
    ReportOption(
        "metric",
        "choice",
        "hscore",
        _("Metric"),
        choices=lambda: [(m, metric_registry.title(m)) for m in metric_registry.all_keys()],
        config="metric",
        cli="--metric",
        required=True,
    ),
    ReportOption(
        "n_boot",
        "int",
        DEFAULT_BOOT,
        _("Bootstrap replicates"),
        min_value=0,
        max_value=20000,
        config="n_boot",
        cli="--bootstrap",
        required=True,
    ),
    ReportOption("seed", "int", 0, _("Seed"), config="seed", cli="--seed", form=False),
    ReportOption("figures", "bool", True, _("Figures"), form=False, api=False),
    ReportOption(
        "adjudicated",
        "bool",
        False,
        _("Use adjudicated labels"),
        _("items an admin adjudicated count with the final label"),
        config="adjudicated",
    ),
    ReportOption(
        "include_excluded",
        "bool",
        False,
        _("Keep excluded participants"),
        _("crowd-study participants stopped on gold items count too (left out by default)"),
        config="include_excluded",
    ),
    ReportOption(
        "human_aggregate",
        "choice",
        DEFAULT_AGGREGATE,
        _("Labels of one answer"),
        _("printed with every table"),
        choices=lambda: [(a, AGGREGATE_WORDS[a]) for a in AGGREGATES],
        config="human_aggregate",
        cli="--human-aggregate",
    ),
    ReportOption(
        "judge",
        "name",
        None,
        _("Automatic judge"),
        _("prediction-powered estimates with this judge's labels (SPEC 10); none: human only"),
    ),
    ReportOption(
        "tie_margin",
        "float",
        0.02,
        _("Tie margin"),
        _(
            "two systems whose confidence sequences bound the difference of their scores within this share "
            "of the range are tied (SPEC 16)"
        ),
        min_value=0.0,
        max_value=0.5,
        config="tie_margin",
        cli="--tie-margin",
    ),
    ReportOption(
        "significance",
        "choice",
        "raw",
        _("Bold cells in the paper tables"),
        choices=lambda: [(s, SIGNIFICANCE_WORDS[s]) for s in SIGNIFICANCE_MARKS],
        config="table_significance",
        cli="--significance",
    ),
)
BY_NAME = {o.name: o for o in OPTIONS}


def defaults() -> dict:
    """Every option's default, in order (a report job's params before the user's choices).

    Returns
    -------
    dict

    Examples
    --------
    >>> d = defaults()
    >>> d["metric"], d["n_boot"] > 0, list(d)[:3]
    ('hscore', True, ['systems', 'alpha', 'metric'])
    """
    return {o.name: o.default for o in OPTIONS}


def config_defaults() -> dict:
    """The default of every ``ReportConfig`` field that an option sets, by field name (the fields'
    defaults are read from here, never typed again).

    Returns
    -------
    dict

    Examples
    --------
    >>> d = config_defaults()
    >>> d["human_aggregate"], d["table_significance"], "judge" in d
    ('mean', 'raw', False)
    """
    return {o.config: o.default for o in OPTIONS if o.config is not None}


def config_kwargs(params: dict) -> dict:
    """The ``ReportConfig`` keywords of a job's ``params`` (a missing option takes its default; an
    empty list of systems means all).

    Parameters
    ----------
    params : dict
        Option values by name.

    Returns
    -------
    dict

    Examples
    --------
    >>> config_kwargs({"metric": "f1", "systems": [], "significance": "holm"})["table_significance"]
    'holm'
    >>> config_kwargs({})["systems"] is None
    True
    """
    out = {}
    for o in OPTIONS:
        if o.config is None:
            continue
        value = params.get(o.name, o.default)
        if o.kind == "list":
            value = list(value) or None if value else None
        elif o.kind == "bool":
            value = bool(value)
        out[o.config] = value
    return out


def split_names(text: str | None) -> list:
    """A comma-separated list of names as typed (blanks dropped).

    Parameters
    ----------
    text : str or None
        The text.

    Returns
    -------
    list of str

    Examples
    --------
    >>> split_names(" a, b ,,c ")
    ['a', 'b', 'c']
    """
    return [x.strip() for x in (text or "").split(",") if x.strip()]
