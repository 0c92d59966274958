"""What the report page shows, from report.json data: plain dicts of display strings (pure, no
database, no templates), so that the page's choices are tested here and the template only lays
them out.

Formats: Hscore, ROUGE-L, F1, EM in [0, 1] with 3 decimals; Hcorrect and coverage in % with 1
decimal; deltas as integers; lambda with 2 decimals, gain as ``2.50×``; p-values with 2 significant
digits (``< 0.001`` below); a missing value as an em dash. Significance marks: ``*`` raw p < 0.05,
``†`` Holm-corrected p < 0.05.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from evaluation.render.choices import (
    AGGREGATE_TEXT,
    choices_caption,
    crowd_sensitivity_text,
    derived_text,
    report_choices,
)
from evaluation.render.estimates import active_tables, ppi_tables
from evaluation.render.numbers import (
    DASH,
    _local,
    _ok,
    integer,
    interval_text,
    metric_value,
    p_value,
    percent,
    score,
    sort_key,
)
from evaluation.report.config import recorded, recorded_aggregate
from evaluation.report.options import SIGNIFICANCE_WORDS
from evaluation.science import metric_registry
from frames.outcomes import OUTCOME_TEXT

RAW_MARK, HOLM_MARK = "*", "†"


def _example_data() -> dict:
    """The small report.json data of this module's examples."""
    factor_row = {
        "system": "a", "delta": -3, "diff": -0.03, "significant": True, "significant_holm": False,
        "s_hard": 0.6, "s_easy": 0.63, "n_hard": 4, "n_easy": 6, "u": 10.0, "p_value": 0.04, "p_holm": 0.08,
    }  # fmt: skip
    return {
        "available_metrics": ["f1"],
        "metric": "f1",
        "systems": [
            {"system": "a", "n": 10, "coverage": 1.0, "f1": 0.612, "f1_ci": [0.55, 0.67]},
            {"system": "ROVER", "n": 10, "coverage": 1.0, "f1": 0.7},
        ],
        "factors": [
            {
                "factor": "dist",
                "metric": "f1",
                "attribute": "dist",
                "op": ">=",
                "threshold": 2,
                "size_pct": 40.0,
                "size_pct_corpus": 38.6,
                "n_hard": 4,
                "n_easy": 6,
                "rows": [factor_row],
            }
        ],
        "partitions": {"n_systems": 2, "counts": {"2": 6, "1": 4}},
        "factor_by_partition": {"dist": {"2": 0.25, "1": 0.5}},
    }


def systems_rows(data):
    """The systems table: a row per system, a cell per available metric.

    Parameters
    ----------
    data : dict
        report.json data.

    Returns
    -------
    list of dict
        ``system``, ``n``, ``coverage`` (and its sort key), ``partial`` (coverage below 100%),
        ``is_rover`` and ``cells``: ``label`` (the metric's title), ``text``, ``sort``, ``ci`` (the 95%
        bootstrap interval: its ``label`` and ``range``; None without bootstrap) and ``bounds`` (only
        below 100% coverage: the means with every unlabeled answer counted 0 / 1, labelled as bounds).

    Examples
    --------
    >>> from evaluation.render import page
    >>> data = page._example_data()  # a report.json with one system, ROVER and one factor
    >>> page.systems_rows(data)[0]
    {'system': 'a', 'n': 10, 'coverage': '100.0 %', 'coverage_sort': '1.0', 'partial': False, 'is_rover': False,
     'cells': [{'label': 'F1', 'text': '0.612', 'sort': '0.612',
                'ci': {'label': '95% CI', 'range': '0.550 – 0.670'}, 'bounds': None}]}
    """
    rows = []
    for r in data["systems"]:
        cov = r.get("coverage")
        partial = _ok(cov) and cov < 1
        row = {
            "system": r["system"],
            "n": r["n"],
            "coverage": percent(100 * cov) if _ok(cov) else DASH,
            "coverage_sort": sort_key(cov),
            "partial": partial,
            "is_rover": r["system"] == "ROVER",
            "cells": [],
        }
        for m in data.get("available_metrics", []):
            ci = r.get(f"{m}_ci") or (None, None)
            bounds = None
            if partial and _ok(r.get(f"{m}_low")):
                bounds = {"label": _("coverage bounds"), "range": interval_text(m, r[f"{m}_low"], r[f"{m}_high"])}
            row["cells"].append(
                {
                    "label": metric_registry.get(m).title,
                    "text": metric_value(m, r.get(m)),
                    "sort": sort_key(r.get(m)),
                    "ci": {"label": _("95% CI"), "range": interval_text(m, *ci)} if _ok(ci[0]) and _ok(ci[1]) else None,
                    "bounds": bounds,
                }
            )
        rows.append(row)
    return rows


def factor_tables(data):
    """One table per metric: a column per factor, cells with delta and significance marks.

    Parameters
    ----------
    data : dict
        report.json data.

    Returns
    -------
    list of dict
        ``metric``, ``title``, ``header`` (per factor: ``rule``, sizes, counts), ``rows`` (per
        system: ``cells`` with ``delta``, ``marks``, a ``title`` with the test's numbers) and
        ``is_main``; the report's metric first.

    Examples
    --------
    >>> from evaluation.render import page
    >>> data = page._example_data()  # a report.json with one system, ROVER and one factor
    >>> table = page.factor_tables(data)[0]
    >>> table["header"][0]["rule"], table["header"][0]["size_corpus"]
    ('dist >= 2', '39 %')
    >>> cell = table["rows"][0]["cells"][0]
    >>> cell["delta"], cell["marks"]
    ('-3', '*')
    >>> cell["title"]
    'a / dist: S(E_f) 0.600 (n=4), S(rest) 0.630 (n=6), U 10.0, p 0.04, Holm p 0.08'
    """
    tables = []
    for metric in data.get("available_metrics", []):
        entries = [e for e in data["factors"] if e["metric"] == metric]
        if not entries:
            continue
        rows = [
            {
                "system": first["system"],
                "cells": _factor_cells(metric, entries, i),
                "is_rover": first["system"] == "ROVER",
            }
            for i, first in enumerate(entries[0]["rows"])
        ]
        tables.append(
            {
                "metric": metric,
                "title": metric_registry.get(metric).title,
                "header": [_factor_header(e) for e in entries],
                "derived": [e["factor"] for e in entries if e.get("derived")],
                "rows": rows,
                "is_main": metric == data.get("metric"),
            }
        )
    tables.sort(key=lambda t: not t["is_main"])
    return tables


def _factor_header(e):
    """The column head of one factor entry ``e``: its rule, its sizes and its counts."""
    return {
        "factor": e["factor"],
        "rule": f"{e['attribute']} {e['op']} {e['threshold']}" if e.get("threshold") is not None else e["attribute"],
        "size_corpus": percent(e.get("size_pct_corpus"), 0),
        "size": percent(e.get("size_pct"), 0),
        "n_hard": e["n_hard"],
        "n_easy": e["n_easy"],
        "derived": bool(e.get("derived")),
    }


def _factor_cells(metric, entries, i):
    """The cells of the ``i``-th system's row: one per factor, with delta, marks and the test's numbers."""
    system = entries[0]["rows"][i]["system"]
    cells = []
    for e in entries:
        r = e["rows"][i]
        marks = (RAW_MARK if r.get("significant") else "") + (HOLM_MARK if r.get("significant_holm") else "")
        cells.append(
            {
                "delta": integer(r.get("delta")),
                "sort": sort_key(r.get("diff")),
                "marks": marks,
                "significant": bool(r.get("significant")),
                "significant_holm": bool(r.get("significant_holm")),
                "title": f"{system} / {e['factor']}: S(E_f) {metric_value(metric, r.get('s_hard'))} "
                f"(n={r.get('n_hard')}), S(rest) {metric_value(metric, r.get('s_easy'))} "
                f"(n={r.get('n_easy')}), U {score(r.get('u'), 1)}, p {p_value(r.get('p_value'))}, "
                f"Holm p {p_value(r.get('p_holm'))}{_delta_ci(r)}",
            }
        )
    return cells


def _delta_ci(row):
    """``, δ 95% CI -5 – -1`` for a factor row with a bootstrap interval, else ""."""
    ci = row.get("delta_ci") or (None, None)
    return f", δ 95% CI {integer(ci[0])} – {integer(ci[1])}" if _ok(ci[0]) and _ok(ci[1]) else ""


def agreement(data):
    """Krippendorff's alpha as the page shows it, overall and per annotator pair.

    Parameters
    ----------
    data : dict
        report.json data (``agreement``).

    Returns
    -------
    dict
        ``ordinal``, ``nominal`` (3 decimals, or why undefined), ``n_items``, ``n_labels``,
        ``n_annotators``, ``pairs``.

    Examples
    --------
    >>> from evaluation.render.page import agreement
    >>> shown = agreement({"agreement": {"alpha_ordinal": 0.8123, "alpha_nominal": None, "n_items": 1, "pairs": []}})
    >>> shown["ordinal"], shown["nominal"]
    ('0.812', 'undefined (n = 1 item)')
    """
    a = data.get("agreement") or {}
    n = a.get("n_items", 0)

    def alpha(v, n_items):
        if _ok(v):
            return _local(f"{v:.3f}")
        return ngettext("undefined (n = %(n)s item)", "undefined (n = %(n)s items)", n_items) % {"n": n_items}

    pairs = [
        {
            "a": p["annotators"][0],
            "b": p["annotators"][1],
            "n": p["n_items"],
            "ordinal": alpha(p.get("alpha_ordinal"), p["n_items"]),
            "nominal": alpha(p.get("alpha_nominal"), p["n_items"]),
            "ordinal_sort": sort_key(p.get("alpha_ordinal")),
            "defined": _ok(p.get("alpha_ordinal")),
        }
        for p in a.get("pairs", [])
    ]
    return {
        "ordinal": alpha(a.get("alpha_ordinal"), n),
        "nominal": alpha(a.get("alpha_nominal"), n),
        "n_items": n,
        "n_labels": a.get("n_labels", 0),
        "n_annotators": a.get("n_annotators", 0),
        "pairs": pairs,
    }


def factor_by_partition(data):
    """Table 3 as the page shows it: P(f | P_k), columns P_n down to P_1 with their counts.

    Parameters
    ----------
    data : dict
        report.json data (``factor_by_partition``, ``partitions``).

    Returns
    -------
    dict
        ``keys`` (``k``, ``n``) and ``rows`` (``factor``, ``cells`` with ``text`` and ``sort``).

    Examples
    --------
    >>> from evaluation.render import page
    >>> data = page._example_data()  # a report.json with one system, ROVER and one factor
    >>> page.factor_by_partition(data)
    {'keys': [{'k': '2', 'n': 6}, {'k': '1', 'n': 4}],
     'rows': [{'factor': 'dist', 'cells': [{'text': '0.25', 'sort': '0.25'}, {'text': '0.50', 'sort': '0.5'}]}]}
    """
    fbp = data.get("factor_by_partition") or {}
    n = data["partitions"]["n_systems"]
    keys = [str(k) for k in range(n, 0, -1)]
    counts = data["partitions"]["counts"]
    return {
        "keys": [{"k": k, "n": counts.get(k, 0)} for k in keys],
        "rows": [
            {"factor": f, "cells": [{"text": score(v.get(k), 2), "sort": sort_key(v.get(k))} for k in keys]}
            for f, v in fbp.items()
        ],
    }


def _quoted(text: str) -> str:
    """`name` (report.json's Markdown-like quoting) as ‘name’ for the page."""
    parts = text.split("`")
    return "".join(p if i % 2 == 0 else f"‘{p}’" for i, p in enumerate(parts))


CLOSEST_FLIPS = 3  # pairs the coverage warning names; the others are folded
FIGURE_TITLES = {
    "figure3_partitions": gettext_lazy("Figure 3: {metric} of each system per ROVER agreement partition"),
    "figure4_per_frame": gettext_lazy("Figure 4: ROVER's {metric} per frame"),
    "figure5_combinations": gettext_lazy("Figure 5: {metric} by combination of two factors"),
}


def _flip_text(f):
    return _(
        "%(a)s (%(a_score)s, bounds %(a_low)s – %(a_high)s) over %(b)s (%(b_score)s, bounds %(b_low)s – %(b_high)s)"
    ) % {
        "a": f["higher"],
        "a_score": score(f["higher_hscore"]),
        "a_low": score(f["higher_low"]),
        "a_high": score(f["higher_high"]),
        "b": f["lower"],
        "b_score": score(f["lower_hscore"]),
        "b_low": score(f["lower_low"]),
        "b_high": score(f["lower_high"]),
    }


def coverage_warning(data):
    """The coverage warning, summarised: which systems, how many pairs could flip, the closest few.

    Parameters
    ----------
    data : dict
        report.json data (``systems``, ``ranking_flips``).

    Returns
    -------
    dict or None
        None when every system has full coverage; else ``summary`` (a sentence), ``systems``,
        ``closest`` (the ``CLOSEST_FLIPS`` pairs with the smallest Hscore gap) and ``rest`` (the
        other pairs, shown folded).

    Examples
    --------
    >>> from evaluation.render.page import coverage_warning
    >>> flip = {"higher": "a", "lower": "b", "higher_hscore": 0.8, "lower_hscore": 0.7, "higher_low": 0.4,
    ...         "higher_high": 0.9, "lower_low": 0.7, "lower_high": 0.7}
    >>> shown = coverage_warning({"systems": [{"system": "a", "coverage": 0.5}, {"system": "b", "coverage": 1.0}],
    ...                           "ranking_flips": [flip]})
    >>> shown["summary"]
    '1 pair of systems could swap places by Hscore inside the coverage bounds (1 system below 100%: coverage 50.0 %).'
    >>> shown["closest"], shown["rest"]
    (['a (0.800, bounds 0.400 – 0.900) over b (0.700, bounds 0.700 – 0.700)'], [])
    """
    partial = [r for r in data["systems"] if _ok(r.get("coverage")) and r["coverage"] < 1]
    if not partial:
        return None
    flips = sorted(data.get("ranking_flips") or [], key=lambda f: f["higher_hscore"] - f["lower_hscore"])
    low, high = min(r["coverage"] for r in partial), max(r["coverage"] for r in partial)
    span = percent(100 * low) if low == high else f"{percent(100 * low)} – {percent(100 * high)}"
    n = len(flips)
    if n:
        summary = ngettext(
            "%(n)s pair of systems could swap places by Hscore inside the coverage bounds",
            "%(n)s pairs of systems could swap places by Hscore inside the coverage bounds",
            n,
        ) % {"n": n}
    else:
        summary = _("No pair of systems could swap by Hscore inside the coverage bounds")
    below = ngettext(
        "(%(n)s system below 100%%: coverage %(span)s).",
        "(%(n)s systems below 100%%: coverage %(span)s).",
        len(partial),
    ) % {"n": len(partial), "span": span}
    return {
        "summary": f"{summary} {below}",
        "systems": [f"{r['system']} ({percent(100 * r['coverage'])})" for r in partial],
        "closest": [_flip_text(f) for f in flips[:CLOSEST_FLIPS]],
        "rest": [_flip_text(f) for f in flips[CLOSEST_FLIPS:]],
    }


def attribute_checks_section(data):
    """Humans' accuracy on the derived attributes (issue 26 point 4) for the page.

    Parameters
    ----------
    data : dict
        report.json data (``attribute_checks``: ``attribute_check_stats.table``).

    Returns
    -------
    dict or None
        None without checks; else ``rows`` (a row per attribute: its checks, correct ones, accuracy
        in % and the 95 % Wilson interval in %, in the reader's number format), ``questions`` and
        ``annotators``.

    Examples
    --------
    >>> section = {"trigger": {"n": 10, "correct": 8, "accuracy": 0.8, "ci_low": 0.49, "ci_high": 0.943},
    ...            "dist_class": {"n": 0, "correct": 0, "accuracy": None, "ci_low": None, "ci_high": None},
    ...            "checks": 10, "questions": 5, "annotators": 2, "verdicts": {}}
    >>> rows = attribute_checks_section({"attribute_checks": section})["rows"]
    >>> rows[0]["accuracy"], rows[0]["interval"], rows[1]["accuracy"], rows[1]["interval"]
    ('80.0', '49.0 – 94.3', '—', '—')
    """
    section = data.get("attribute_checks")
    if not section:
        return None

    def pct(x):
        return DASH if x is None else _local(f"{100 * x:.1f}")

    labels = {"trigger": _("context trigger"), "dist_class": _("distance class (1 arc / 2 or more)")}
    rows = [
        {
            "key": key,
            "label": labels[key],
            "n": section[key]["n"],
            "correct": section[key]["correct"],
            "accuracy": pct(section[key]["accuracy"]),
            "interval": DASH
            if section[key]["ci_low"] is None
            else f"{pct(section[key]['ci_low'])} – {pct(section[key]['ci_high'])}",
        }
        for key in ("trigger", "dist_class")
    ]
    return {"rows": rows, "questions": section["questions"], "annotators": section["annotators"]}


def _share_interval(ci):
    """A Table 4 share's interval as the page shows it (``{"label", "range"}``, as the systems table's),
    None when report.json has none (a report made before intervals were recorded)."""
    if not ci or not (_ok(ci[0]) and _ok(ci[1])):
        return None
    return {"label": _("95% CI"), "range": f"{percent(ci[0], 0)} – {percent(ci[1], 0)}"}


def frames_section(data):
    """The frame proxy on the page: outcome counts, Table 4 and the agreement on frame checks.

    Parameters
    ----------
    data : dict
        report.json data (``frames``: SPEC 8.4 counts, ``table4``, ``agreement``).

    Returns
    -------
    dict or None
        None without frame predictions or checks; else ``outcomes`` (``text``, ``n``, ``share``),
        ``total``, ``table4`` (``label``, ``cells``: full / partial / erroneous in whole percents, each
        with its 95% Wilson interval when report.json has it; ``n``) and ``agreement`` (alpha ordinal
        per rating, with its n).

    Examples
    --------
    >>> from evaluation.render.page import frames_section
    >>> from frames import outcomes as o
    >>> frames = {"outcomes": {o.NO_TRIGGER: 2, o.UNKNOWN_FRAME: 1, o.BAD_OUTPUT: 0, o.DONE: 7, o.ERROR: 0,
    ...                        "total": 10},
    ...           "table4": {"frame": {"label": "Frame Prediction", "n": 4, "full": 50.0, "partial": 25.0,
    ...                                "erroneous": 25.0, "full_ci": [15.0, 85.0]}},
    ...           "agreement": {"frame": {"alpha_ordinal": None, "n_items": 1}}}
    >>> shown = frames_section({"frames": frames})
    >>> first = shown["outcomes"][0]
    >>> first["key"] == o.NO_TRIGGER, first["text"], first["n"], first["share"]
    (True, 'no trigger (no candidate word in the question)', 2, '20.0 %')
    >>> full, partial, _ = shown["table4"][0]["cells"]
    >>> full["text"], full["ci"], partial["ci"]
    ('50 %', {'label': '95% CI', 'range': '15 % – 85 %'}, None)
    """
    section = data.get("frames")
    if not section:
        return None
    counts = section.get("outcomes") or {}
    total = counts.get("total", 0)
    outcomes = [
        {"key": k, "text": _(text), "n": counts.get(k, 0), "share": percent(100 * counts[k] / total) if total else DASH}
        for k, text in OUTCOME_TEXT.items()
        if k in counts
    ]
    table4 = [
        {
            "label": _(t["label"]),
            "cells": [
                {"key": k, "text": percent(t.get(k), 0), "ci": _share_interval(t.get(f"{k}_ci"))}
                for k in ("full", "partial", "erroneous")
            ],
            "n": t["n"],
        }
        for t in (section.get("table4") or {}).values()
        if t.get("n")
    ]
    agreement_rows = [
        {"label": {"frame": _("frame"), "fes": _("frame elements")}.get(k, k), **agreement({"agreement": a})}
        for k, a in (section.get("agreement") or {}).items()
        if a
    ]
    return {"outcomes": outcomes, "total": total, "table4": table4, "agreement": agreement_rows}


PAGE_FORMAT = "svg"  # the format the page shows a figure in


def page_figure_name(stem: str, language: str) -> str:
    """The file name of the page's copy of a figure in ``language`` (the English one is the paper's).

    Parameters
    ----------
    stem : str
        The figure's file stem (``figures.FIGURE_FILES``, the keys of ``FIGURE_TITLES``).
    language : str
        A language code.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.page import page_figure_name
    >>> page_figure_name("figure3_partitions", "fr"), page_figure_name("figure3_partitions", "en")
    ('figure3_partitions.fr.svg', 'figure3_partitions.svg')
    """
    infix = "" if language == "en" else f".{language}"
    return f"{stem}{infix}.{PAGE_FORMAT}"


def _is_page_copy(name: str) -> bool:
    stem, _dot, rest = name.partition(".")
    return stem in FIGURE_TITLES and rest.count(".") == 1 and rest.endswith(f".{PAGE_FORMAT}")


def downloads(names):
    """The report's files to download: all but the page's copies of the figures in other languages.

    Parameters
    ----------
    names : list of str
        The report's file names.

    Returns
    -------
    list of str

    Examples
    --------
    >>> from evaluation.render.page import downloads
    >>> downloads(["report.json", "figure3_partitions.svg", "figure3_partitions.fr.svg"])
    ['report.json', 'figure3_partitions.svg']
    """
    return [n for n in names if not _is_page_copy(n)]


def figure_titles(names, data, language="en"):
    """The page's figures titled in words, each the copy in ``language`` when the report has one
    (reports made before the copies existed, or in a language without one, show the English file).

    Parameters
    ----------
    names : list of str
        The report's file names.
    data : dict
        report.json data (``metric``).
    language : str, default "en"
        The reader's language.

    Returns
    -------
    list of dict
        ``name`` (the file shown), ``file`` (the paper's file of the figure) and ``title``.

    Examples
    --------
    >>> from evaluation.render.page import figure_titles
    >>> figure_titles(["figure3_partitions.svg", "figure3_partitions.fr.svg"], {"metric": "hscore"})
    [{'name': 'figure3_partitions.svg', 'file': 'figure3_partitions.svg',
      'title': 'Figure 3: Hscore of each system per ROVER agreement partition'}]
    >>> figure_titles(["figure3_partitions.svg", "figure3_partitions.fr.svg"], {"metric": "f1"}, "fr")[0]["name"]
    'figure3_partitions.fr.svg'
    >>> figure_titles(["figure3_partitions.svg"], {"metric": "f1"}, "fr")[0]["name"]
    'figure3_partitions.svg'
    """
    metric = metric_registry.title(data.get("metric"))
    present = set(names)
    out = []
    for name in downloads(names):
        stem, _dot, ext = name.rpartition(".")
        if ext != PAGE_FORMAT:
            continue
        local = page_figure_name(stem, language)
        title = str(FIGURE_TITLES.get(stem, stem.replace("_", " "))).format(metric=metric)
        out.append({"name": local if local in present else name, "file": name, "title": title})
    return out


def report_page(data) -> dict:
    """Everything the report page shows, formatted.

    Parameters
    ----------
    data : dict
        report.json data.

    Returns
    -------
    dict
        ``metric``, ``aggregate`` and its text, ``significance``, ``choices`` (every choice that
        changes a number, ``evaluation.render.choices``) and ``caption`` (the same in a few words),
        ``has_labels``, ``has_ci``, ``metrics``, ``systems``, ``coverage_warning`` (None when every
        system has full coverage), ``factor_tables``, ``skipped``, ``factor_by_partition``,
        ``agreement``, ``ppi_tables``, ``active``, ``frames``, ``notes``, ``marks``.

    Examples
    --------
    >>> from evaluation.render import page
    >>> data = page._example_data()  # a report.json with one system, ROVER and one factor
    >>> shown = page.report_page(data)
    >>> shown["metric"], shown["significance"], shown["coverage_warning"]
    ('F1', 'raw p < 0.05 (as the paper)', None)
    """
    aggregate = recorded_aggregate(data)
    significance = recorded(data, "table_significance")
    return {
        "metric": metric_registry.get(data["metric"]).title,
        "aggregate": aggregate,
        "aggregate_text": str(AGGREGATE_TEXT.get(aggregate, aggregate)),
        "significance": str(SIGNIFICANCE_WORDS.get(significance, significance)),
        "choices": report_choices(data),
        "caption": choices_caption(data),
        "crowd_line": crowd_sensitivity_text(data),  # SPEC 17, under the main table
        "two_way": data.get("bootstrap") == "two-way",
        "has_labels": data.get("has_labels"),
        "has_ci": any(k.endswith("_ci") and v for r in data["systems"] for k, v in r.items()),
        "metrics": [{"key": m, "title": metric_registry.get(m).title} for m in data.get("available_metrics", [])],
        "systems": systems_rows(data),
        "coverage_warning": coverage_warning(data),
        "factor_tables": factor_tables(data),
        "derived": derived_text(data),
        "skipped": [
            {
                "factor": name,
                "reason": _quoted(
                    (data.get("factors_skipped_reasons") or {}).get(name) or _("no question has the attribute")
                ),
            }
            for name in data.get("factors_skipped", [])
        ],
        "factor_by_partition": factor_by_partition(data),
        "agreement": agreement(data),
        "ppi_tables": ppi_tables(data),
        "frames": frames_section(data),
        "attribute_checks": attribute_checks_section(data),
        "active": active_tables(data),
        "notes": [n for n in data.get("notes", []) if not n.startswith("partial coverage:")],
        "marks": {"raw": RAW_MARK, "holm": HOLM_MARK},
    }
