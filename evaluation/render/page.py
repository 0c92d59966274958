"""What the report page shows, from report.json data: plain dicts of display strings (pure, no
database, no templates), so that the page's choices are tested here and the template only lays
them out.

Formats: Hscore, ROUGE-L, F1, EM in [0, 1] with 3 decimals; Hcorrect and coverage in % with 1
decimal; deltas as integers; lambda with 2 decimals, gain as ``2.50×``; p-values with 2 significant
digits (``< 0.001`` below); a missing value as an em dash. Significance marks: ``*`` raw p < 0.05,
``†`` Holm-corrected p < 0.05.
"""

from __future__ import annotations

import math

from evaluation.render.paper import AGGREGATE_TEXT, METRIC_TITLES

RAW_MARK, HOLM_MARK = "*", "†"
DASH = "—"
SIGNIFICANCE_CHOICE = {"raw": "raw p < 0.05 (as the paper)", "holm": "Holm-corrected p < 0.05"}


def _ok(v):
    return v is not None and not (isinstance(v, float) and not math.isfinite(v))


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
            {"system": "a", "n": 10, "coverage": 1.0, "f1": 0.612},
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


def score(v, decimals=3):
    """A score in [0, 1] with ``decimals`` decimals; a missing value as an em dash.

    Parameters
    ----------
    v : float or None
        The value.
    decimals : int, default 3
        Decimals shown.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.page import score
    >>> score(0.12345), score(0.5, 2), score(None)
    ('0.123', '0.50', '—')
    """
    return f"{v:.{decimals}f}" if _ok(v) else DASH


def percent(v, decimals=1):
    """A percentage with ``decimals`` decimals and a % sign; a missing value as an em dash.

    Parameters
    ----------
    v : float or None
        The value, already in %.
    decimals : int, default 1
        Decimals shown.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.page import percent
    >>> percent(45.678), percent(38.6, 0)
    ('45.7 %', '39 %')
    """
    return f"{v:.{decimals}f} %" if _ok(v) else DASH


def integer(v):
    """A whole number (a delta); a missing value as an em dash.

    Parameters
    ----------
    v : float or None
        The value.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.page import integer
    >>> integer(-3.0), integer(float("nan"))
    ('-3', '—')
    """
    return str(int(v)) if _ok(v) else DASH


def p_value(p):
    """A p-value with 2 significant digits, ``< 0.001`` below; a missing value as an em dash.

    Parameters
    ----------
    p : float or None
        The p-value.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.page import p_value
    >>> p_value(0.0321), p_value(0.0004), p_value(None)
    ('0.032', '< 0.001', '—')
    """
    if not _ok(p):
        return DASH
    return "< 0.001" if p < 0.001 else f"{p:.2g}"


def metric_value(metric, v):
    """A metric's value as the page shows it: Hcorrect in %, the others in [0, 1].

    Parameters
    ----------
    metric : str
        The metric.
    v : float or None
        Its value.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.page import metric_value
    >>> metric_value("hcorrect", 45.2), metric_value("f1", 0.5)
    ('45.2 %', '0.500')
    """
    return percent(v) if metric == "hcorrect" else score(v)


def sort_key(v):
    """The value a sortable column sorts by (empty: last).

    Parameters
    ----------
    v : float or None
        The cell's value.

    Returns
    -------
    str
        ``repr`` of the float, or "" when missing.

    Examples
    --------
    >>> from evaluation.render.page import sort_key
    >>> sort_key(0.5), sort_key(None)
    ('0.5', '')
    """
    return "" if not _ok(v) else repr(float(v))


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
        ``is_rover`` and ``cells`` (``text``, ``sort``, ``bounds`` with unlabeled answers counted
        0 / 1 for a partial system).

    Examples
    --------
    >>> from evaluation.render import page
    >>> data = page._example_data()  # a report.json with one system, ROVER and one factor
    >>> page.systems_rows(data)[0]
    {'system': 'a', 'n': 10, 'coverage': '100.0 %', 'coverage_sort': '1.0', 'partial': False, 'is_rover': False,
     'cells': [{'text': '0.612', 'sort': '0.612', 'bounds': None}]}
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
            text = metric_value(m, r.get(m))
            bounds = None
            if partial and _ok(r.get(f"{m}_low")):
                bounds = f"{metric_value(m, r[f'{m}_low'])} – {metric_value(m, r[f'{m}_high'])}"
            row["cells"].append({"text": text, "sort": sort_key(r.get(m)), "bounds": bounds})
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
                "title": METRIC_TITLES[metric],
                "header": [_factor_header(e) for e in entries],
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
                f"Holm p {p_value(r.get('p_holm'))}",
            }
        )
    return cells


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
            return f"{v:.3f}"
        return f"undefined (n = {n_items} item{'s' if n_items != 1 else ''})"

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


def gain(v):
    """The PPI gain as ``2.50×``; a missing value as an em dash.

    Parameters
    ----------
    v : float or None
        The gain (classical variance / PPI variance).

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.page import gain
    >>> gain(2.5), gain(None)
    ('2.50×', '—')
    """
    return f"{v:.2f}×" if _ok(v) else DASH


def interval_text(metric, low, high):
    """An interval as ``low – high`` in the metric's format; an em dash when a bound is missing.

    Parameters
    ----------
    metric : str
        The metric.
    low, high : float or None
        The bounds.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.page import interval_text
    >>> interval_text("hscore", 0.4, 0.6), interval_text("hcorrect", None, 60.0)
    ('0.400 – 0.600', '—')
    """
    return f"{metric_value(metric, low)} – {metric_value(metric, high)}" if _ok(low) and _ok(high) else DASH


def ppi_tables(data):
    """The prediction-powered estimates (SPEC 10, ``ppi`` rows): one table per metric.

    Hscore in [0, 1], Hcorrect in %, a row per system; empty without a judge.

    Parameters
    ----------
    data : dict
        report.json data (``ppi``).

    Returns
    -------
    list of dict
        ``metric``, ``title``, ``rows`` (formatted ``n``, ``estimate``, ``interval``,
        ``classical``, ``classical_interval``, ``lambda``, ``gain`` and sort keys).

    Examples
    --------
    >>> from evaluation.render.page import ppi_tables
    >>> row = {"system": "a", "metric": "hscore", "n_human": 20, "n_total": 100, "estimate": 0.61, "ci_low": 0.5,
    ...        "ci_high": 0.72, "classical": 0.6, "classical_ci_low": 0.45, "classical_ci_high": 0.75,
    ...        "lambda": 0.8, "gain": 1.5}
    >>> shown = ppi_tables({"ppi": [row]})[0]["rows"][0]
    >>> shown["n"], shown["estimate"], shown["interval"], shown["gain"]
    ('20 / 100', '0.610', '0.500 – 0.720', '1.50×')
    """
    tables = []
    for metric in ("hscore", "hcorrect"):
        rows = [r for r in data.get("ppi") or [] if r["metric"] == metric]
        if not rows:
            continue
        tables.append(
            {
                "metric": metric,
                "title": METRIC_TITLES[metric],
                "rows": [
                    {
                        "system": r["system"],
                        "n": f"{r['n_human']} / {r['n_total']}",
                        "n_sort": r["n_human"],
                        "estimate": metric_value(metric, r.get("estimate")),
                        "estimate_sort": sort_key(r.get("estimate")),
                        "interval": interval_text(metric, r.get("ci_low"), r.get("ci_high")),
                        "classical": metric_value(metric, r.get("classical")),
                        "classical_sort": sort_key(r.get("classical")),
                        "classical_interval": interval_text(
                            metric, r.get("classical_ci_low"), r.get("classical_ci_high")
                        ),
                        "lambda": score(r.get("lambda"), 2),
                        "gain": gain(r.get("gain")),
                        "gain_sort": sort_key(r.get("gain")),
                    }
                    for r in rows
                ],
            }
        )
    return tables


def _quoted(text: str) -> str:
    """`name` (report.json's Markdown-like quoting) as ‘name’ for the page."""
    parts = text.split("`")
    return "".join(p if i % 2 == 0 else f"‘{p}’" for i, p in enumerate(parts))


def excluded_note(config):
    """What the report did with crowd participants excluded on gold items (SPEC 13), or None.

    Parameters
    ----------
    config : dict
        The ``config`` of ``report.json``.

    Returns
    -------
    str or None
        None when no participant was excluded.

    Examples
    --------
    >>> excluded_note({"excluded_participants": 2, "include_excluded": False})
    '2 left out'
    >>> excluded_note({"excluded_participants": 1, "include_excluded": True})
    '1 kept (include_excluded)'
    >>> excluded_note({}) is None
    True
    """
    n = config.get("excluded_participants") or 0
    if not n:
        return None
    return f"{n} kept (include_excluded)" if config.get("include_excluded") else f"{n} left out"


def report_page(data) -> dict:
    """Everything the report page shows, formatted.

    Parameters
    ----------
    data : dict
        report.json data.

    Returns
    -------
    dict
        ``metric``, ``aggregate`` and its text, ``significance``, ``has_labels``, ``metrics``,
        ``systems``, ``coverage_warning`` (None when every system has full coverage),
        ``factor_tables``, ``skipped``, ``factor_by_partition``, ``agreement``, ``ppi_tables``,
        ``notes``, ``marks``.

    Examples
    --------
    >>> from evaluation.render import page
    >>> data = page._example_data()  # a report.json with one system, ROVER and one factor
    >>> shown = page.report_page(data)
    >>> shown["metric"], shown["significance"], shown["coverage_warning"]
    ('F1', 'raw p < 0.05 (as the paper)', None)
    """
    config = data.get("config", {})
    aggregate = data.get("human_aggregate") or config.get("human_aggregate", "mean")
    significance = config.get("table_significance", "raw")
    partial = [r for r in data["systems"] if _ok(r.get("coverage")) and r["coverage"] < 1]
    return {
        "metric": METRIC_TITLES.get(data["metric"], data["metric"]),
        "aggregate": aggregate,
        "aggregate_text": AGGREGATE_TEXT.get(aggregate, aggregate),
        "significance": SIGNIFICANCE_CHOICE.get(significance, significance),
        "has_labels": data.get("has_labels"),
        "excluded_note": excluded_note(config),
        "metrics": [{"key": m, "title": METRIC_TITLES[m]} for m in data.get("available_metrics", [])],
        "systems": systems_rows(data),
        "coverage_warning": {
            "systems": [f"{r['system']} ({percent(100 * r['coverage'])})" for r in partial],
            "flips": [
                f"{f['higher']} ({score(f['higher_hscore'])}, bounds {score(f['higher_low'])} – "
                f"{score(f['higher_high'])}) over {f['lower']} ({score(f['lower_hscore'])}, bounds "
                f"{score(f['lower_low'])} – {score(f['lower_high'])})"
                for f in data.get("ranking_flips", [])
            ],
        }
        if partial
        else None,
        "factor_tables": factor_tables(data),
        "skipped": [
            {
                "factor": name,
                "reason": _quoted(
                    (data.get("factors_skipped_reasons") or {}).get(name, "no question has the attribute")
                ),
            }
            for name in data.get("factors_skipped", [])
        ],
        "factor_by_partition": factor_by_partition(data),
        "agreement": agreement(data),
        "ppi_tables": ppi_tables(data),
        "notes": [n for n in data.get("notes", []) if not n.startswith("partial coverage:")],
        "marks": {"raw": RAW_MARK, "holm": HOLM_MARK},
    }
