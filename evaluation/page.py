"""What the report page shows, from report.json data: plain dicts of display strings (pure, no
database, no templates), so that the page's choices are tested here and the template only lays
them out.

Formats: Hscore, ROUGE-L, F1, EM in [0, 1] with 3 decimals; Hcorrect and coverage in % with 1
decimal; deltas as integers; lambda with 2 decimals, gain as ``2.50×``; p-values with 2 significant digits (``< 0.001`` below); a missing
value as an em dash. Significance marks: ``*`` raw p < 0.05, ``†`` Holm-corrected p < 0.05.
"""
from __future__ import annotations

import math

from evaluation.paper import AGGREGATE_TEXT, METRIC_TITLES

RAW_MARK, HOLM_MARK = "*", "†"
DASH = "—"
SIGNIFICANCE_CHOICE = {"raw": "raw p < 0.05 (as the paper)", "holm": "Holm-corrected p < 0.05"}


def _ok(v):
    return v is not None and not (isinstance(v, float) and not math.isfinite(v))


def score(v, decimals=3):
    return f"{v:.{decimals}f}" if _ok(v) else DASH


def percent(v, decimals=1):
    return f"{v:.{decimals}f} %" if _ok(v) else DASH


def integer(v):
    return str(int(v)) if _ok(v) else DASH


def p_value(p):
    if not _ok(p):
        return DASH
    return "< 0.001" if p < 0.001 else f"{p:.2g}"


def metric_value(metric, v):
    return percent(v) if metric == "hcorrect" else score(v)


def sort_key(v):
    """The value a sortable column sorts by (empty: last)."""
    return "" if not _ok(v) else repr(float(v))


def systems_rows(data):
    rows = []
    for r in data["systems"]:
        cov = r.get("coverage")
        partial = _ok(cov) and cov < 1
        row = {"system": r["system"], "n": r["n"], "coverage": percent(100 * cov) if _ok(cov) else DASH,
               "coverage_sort": sort_key(cov), "partial": partial, "is_rover": r["system"] == "ROVER", "cells": []}
        for m in data.get("available_metrics", []):
            text = metric_value(m, r.get(m))
            bounds = None
            if partial and _ok(r.get(f"{m}_low")):
                bounds = f"{metric_value(m, r[f'{m}_low'])} – {metric_value(m, r[f'{m}_high'])}"
            row["cells"].append({"text": text, "sort": sort_key(r.get(m)), "bounds": bounds})
        rows.append(row)
    return rows


def factor_tables(data):
    """One table per metric: a column per factor, cells with delta and significance marks."""
    tables = []
    for metric in data.get("available_metrics", []):
        entries = [e for e in data["factors"] if e["metric"] == metric]
        if not entries:
            continue
        header = [{"factor": e["factor"], "rule": f"{e['attribute']} {e['op']} {e['threshold']}"
                   if e.get("threshold") is not None else e["attribute"],
                   "size_corpus": percent(e.get("size_pct_corpus"), 0), "size": percent(e.get("size_pct"), 0),
                   "n_hard": e["n_hard"], "n_easy": e["n_easy"]} for e in entries]
        rows = []
        for i, first in enumerate(entries[0]["rows"]):
            cells = []
            for e in entries:
                r = e["rows"][i]
                marks = (RAW_MARK if r.get("significant") else "") + (HOLM_MARK if r.get("significant_holm") else "")
                cells.append({
                    "delta": integer(r.get("delta")), "sort": sort_key(r.get("diff")), "marks": marks,
                    "significant": bool(r.get("significant")), "significant_holm": bool(r.get("significant_holm")),
                    "title": f"{first['system']} / {e['factor']}: S(E_f) {metric_value(metric, r.get('s_hard'))} "
                             f"(n={r.get('n_hard')}), S(rest) {metric_value(metric, r.get('s_easy'))} "
                             f"(n={r.get('n_easy')}), U {score(r.get('u'), 1)}, p {p_value(r.get('p_value'))}, "
                             f"Holm p {p_value(r.get('p_holm'))}",
                })
            rows.append({"system": first["system"], "cells": cells, "is_rover": first["system"] == "ROVER"})
        tables.append({"metric": metric, "title": METRIC_TITLES[metric], "header": header, "rows": rows,
                       "is_main": metric == data.get("metric")})
    tables.sort(key=lambda t: not t["is_main"])
    return tables


def agreement(data):
    a = data.get("agreement") or {}
    n = a.get("n_items", 0)

    def alpha(v, n_items):
        if _ok(v):
            return f"{v:.3f}"
        return f"undefined (n = {n_items} item{'s' if n_items != 1 else ''})"

    pairs = [{"a": p["annotators"][0], "b": p["annotators"][1], "n": p["n_items"],
              "ordinal": alpha(p.get("alpha_ordinal"), p["n_items"]), "nominal": alpha(p.get("alpha_nominal"), p["n_items"]),
              "ordinal_sort": sort_key(p.get("alpha_ordinal")), "defined": _ok(p.get("alpha_ordinal"))}
             for p in a.get("pairs", [])]
    return {"ordinal": alpha(a.get("alpha_ordinal"), n), "nominal": alpha(a.get("alpha_nominal"), n), "n_items": n,
            "n_labels": a.get("n_labels", 0), "n_annotators": a.get("n_annotators", 0), "pairs": pairs}


def factor_by_partition(data):
    fbp = data.get("factor_by_partition") or {}
    n = data["partitions"]["n_systems"]
    keys = [str(k) for k in range(n, 0, -1)]
    counts = data["partitions"]["counts"]
    return {"keys": [{"k": k, "n": counts.get(k, 0)} for k in keys],
            "rows": [{"factor": f, "cells": [{"text": score(v.get(k), 2), "sort": sort_key(v.get(k))} for k in keys]}
                     for f, v in fbp.items()]}


def gain(v):
    return f"{v:.2f}×" if _ok(v) else DASH


def interval_text(metric, low, high):
    return f"{metric_value(metric, low)} – {metric_value(metric, high)}" if _ok(low) and _ok(high) else DASH


def ppi_tables(data):
    """The prediction-powered estimates (SPEC 10, ``ppi`` rows): one table per metric (Hscore 0-1,
    Hcorrect %), a row per system; empty without a judge."""
    tables = []
    for metric in ("hscore", "hcorrect"):
        rows = [r for r in data.get("ppi") or [] if r["metric"] == metric]
        if not rows:
            continue
        tables.append({"metric": metric, "title": METRIC_TITLES[metric], "rows": [{
            "system": r["system"], "n": f"{r['n_human']} / {r['n_total']}", "n_sort": r["n_human"],
            "estimate": metric_value(metric, r.get("estimate")), "estimate_sort": sort_key(r.get("estimate")),
            "interval": interval_text(metric, r.get("ci_low"), r.get("ci_high")),
            "classical": metric_value(metric, r.get("classical")), "classical_sort": sort_key(r.get("classical")),
            "classical_interval": interval_text(metric, r.get("classical_ci_low"), r.get("classical_ci_high")),
            "lambda": score(r.get("lambda"), 2), "gain": gain(r.get("gain")), "gain_sort": sort_key(r.get("gain")),
        } for r in rows]})
    return tables


def _quoted(text: str) -> str:
    """`name` (report.json's Markdown-like quoting) as ‘name’ for the page."""
    parts = text.split("`")
    return "".join(p if i % 2 == 0 else f"‘{p}’" for i, p in enumerate(parts))


def report_page(data) -> dict:
    """Everything the report page shows, formatted."""
    config = data.get("config", {})
    aggregate = data.get("human_aggregate") or config.get("human_aggregate", "mean")
    significance = config.get("table_significance", "raw")
    partial = [r for r in data["systems"] if _ok(r.get("coverage")) and r["coverage"] < 1]
    return {
        "metric": METRIC_TITLES.get(data["metric"], data["metric"]),
        "aggregate": aggregate, "aggregate_text": AGGREGATE_TEXT.get(aggregate, aggregate),
        "significance": SIGNIFICANCE_CHOICE.get(significance, significance),
        "has_labels": data.get("has_labels"),
        "metrics": [{"key": m, "title": METRIC_TITLES[m]} for m in data.get("available_metrics", [])],
        "systems": systems_rows(data),
        "coverage_warning": {
            "systems": [f"{r['system']} ({percent(100 * r['coverage'])})" for r in partial],
            "flips": [f"{f['higher']} ({score(f['higher_hscore'])}, bounds {score(f['higher_low'])} – "
                      f"{score(f['higher_high'])}) over {f['lower']} ({score(f['lower_hscore'])}, bounds "
                      f"{score(f['lower_low'])} – {score(f['lower_high'])})" for f in data.get("ranking_flips", [])],
        } if partial else None,
        "factor_tables": factor_tables(data),
        "skipped": [{"factor": name, "reason": _quoted((data.get("factors_skipped_reasons") or {}).get(
            name, "no question has the attribute"))} for name in data.get("factors_skipped", [])],
        "factor_by_partition": factor_by_partition(data),
        "agreement": agreement(data),
        "ppi_tables": ppi_tables(data),
        "notes": [n for n in data.get("notes", []) if not n.startswith("partial coverage:")],
        "marks": {"raw": RAW_MARK, "holm": HOLM_MARK},
    }
