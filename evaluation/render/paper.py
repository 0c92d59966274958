"""Paper-ready tables (SPEC 11): the paper's Tables 1 to 4 in its layout, from report.json data.

Each table is a ``PaperTable``: ``frame`` (the CSV: the same cells as printed, numbers rounded
as in the paper, plus the choices that shaped it as columns) and ``latex`` (a booktabs table in a
standalone ``article`` document that compiles with pdflatex; copy from ``\\begin{table}`` to
``\\end{table}`` into a paper). Pure: plain data in, strings and DataFrames out.

Layouts (paper): Table 1 ROUGE-L, Hscore (2 decimals), % Hcorrect (1 decimal), ROVER last after a
rule, coverage in % when a system is below 100%; Table 2 a column per factor, first row the size
of E_f in whole percents of the corpus, then delta per system as an integer, significant cells in
bold (raw p, or Holm-corrected p with ``table_significance="holm"``); Table 3 P(f | P_k) with
columns P_n down to P_1 (2 decimals); Table 4 full / partial / erroneous in whole percents.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from evaluation.render.choices import AGGREGATE_TEXT, choices_caption, crowd_sensitivity_text, derived_sources
from evaluation.report.config import recorded, recorded_aggregate
from evaluation.science import metric_registry

SIGNIFICANCE_TEXT = {"raw": "Mann-Whitney U $p < 0.05$", "holm": "Mann-Whitney U $p < 0.05$ after Holm's correction"}
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


@dataclass
class PaperTable:
    """One paper table, as data and as LaTeX.

    Parameters
    ----------
    frame : DataFrame
        The CSV: the printed cells, rounded as in the paper, plus the choices that shaped them.
    latex : str
        A standalone LaTeX document holding the booktabs table.

    Examples
    --------
    >>> import pandas as pd
    >>> from evaluation.render.paper import PaperTable
    >>> PaperTable(pd.DataFrame({"F1": [0.5]}), "...").frame["F1"].tolist()
    [0.5]
    """

    frame: pd.DataFrame
    latex: str


def escape(text) -> str:
    r"""``text`` with the LaTeX special characters escaped.

    Parameters
    ----------
    text : object
        Any value; it is converted with ``str``.

    Returns
    -------
    str

    Examples
    --------
    >>> from evaluation.render.paper import escape
    >>> print(escape("50% of R&D_x"))
    50\% of R\&D\_x
    """
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def _defined(v):
    return v is not None and not (isinstance(v, float) and not math.isfinite(v))


def fixed(v, decimals):
    """``v`` rounded to ``decimals`` as a float; None and non-finite values become None.

    Parameters
    ----------
    v : float or None
        A value.
    decimals : int
        Decimals kept.

    Returns
    -------
    float or None

    Examples
    --------
    >>> from evaluation.render.paper import fixed
    >>> fixed(0.12345, 2), fixed(float("nan"), 2)
    (0.12, None)
    """
    return round(float(v), decimals) if _defined(v) else None


def whole(v):
    """A whole number (percent, delta) as an int; None and non-finite values become None.

    Parameters
    ----------
    v : float or None
        A value.

    Returns
    -------
    int or None

    Examples
    --------
    >>> from evaluation.render.paper import whole
    >>> whole(66.6), whole(None)
    (67, None)
    """
    return round(float(v)) if _defined(v) else None


def _cell(v, decimals=None, *, bold=False, percent_sign=False):
    if v is None:
        return "--"
    text = f"{v:.{decimals}f}" if decimals is not None else str(v)
    if text.startswith("-"):
        text = "$-$" + text[1:]
    if percent_sign:
        text += r"\%"
    return r"\textbf{" + text + "}" if bold else text


def booktabs(header, rows, caption, *, label, align=None, rule_before_last=False, rules_before=()) -> str:
    r"""A standalone LaTeX document holding one booktabs table.

    Parameters
    ----------
    header : list of str
        The column titles (LaTeX).
    rows : list of lists of str
        The rows' LaTeX cells.
    caption : str
        The caption (LaTeX).
    label : str
        The ``\label``.
    align : str, optional
        The column alignment; default ``l`` then ``r`` for every other column.
    rule_before_last : bool, default False
        A ``\midrule`` before the last row (ROVER's).
    rules_before : collection of int, default ()
        Rows that get a ``\midrule`` before them (a new group).

    Returns
    -------
    str
        The document (``standalone``).

    Examples
    --------
    >>> from evaluation.render.paper import booktabs
    >>> tex = booktabs(["Model", "F1"], [["a", "0.50"], ["ROVER", "0.70"]], "Scores.", label="tab:x",
    ...                rule_before_last=True)
    >>> print(tex[tex.index(r"\begin{tabular}"):tex.index(r"\bottomrule")])
    \begin{tabular}{lr}
    \toprule
    Model & F1 \\
    \midrule
    a & 0.50 \\
    \midrule
    ROVER & 0.70 \\
    """
    align = align or "l" + "r" * (len(header) - 1)
    lines = [" & ".join(header) + r" \\", r"\midrule"]
    for i, row in enumerate(rows):
        if (rule_before_last and i == len(rows) - 1 and len(rows) > 1) or i in rules_before:
            lines.append(r"\midrule")
        lines.append(" & ".join(row) + r" \\")
    body = "\n".join(lines)
    return standalone(
        "\\begin{table}[ht]\n\\centering\n"
        f"\\caption{{{caption}}}\n\\label{{{label}}}\n"
        f"\\begin{{tabular}}{{{align}}}\n\\toprule\n{body}\n\\bottomrule\n\\end{{tabular}}\n"
        "\\end{table}\n"
    )


def standalone(table: str) -> str:
    r"""A LaTeX table (``\begin{table}`` ... ``\end{table}``) as a document pdflatex compiles.

    Parameters
    ----------
    table : str
        The table environment, ending with a newline.

    Returns
    -------
    str
        An ``article`` document with booktabs, T1 fonts and landscape margins.

    Examples
    --------
    >>> from evaluation.render.paper import standalone
    >>> print("\n".join(standalone("\\begin{table}\\end{table}\n").splitlines()[-3:]))
    \begin{document}
    \begin{table}\end{table}
    \end{document}
    """
    return (
        "% Generated by the QA evaluation platform. The table needs \\usepackage{booktabs}.\n"
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n\\usepackage{booktabs}\n"
        "\\usepackage[landscape,margin=1cm]{geometry}\n\\pagestyle{empty}\n\\begin{document}\n"
        f"{table}\\end{{document}}\n"
    )


def _choices_text(data, metric) -> str:
    aggregate = recorded_aggregate(data)
    return (
        f"Human metrics: {AGGREGATE_TEXT[aggregate]}."
        if metric is None or metric in metric_registry.human_keys()
        else ""
    )


def _choices(data) -> str:
    """The report's choices as a caption sentence, LaTeX-escaped (``evaluation.render.choices``)."""
    return escape(choices_caption(data))


def table1_systems(data) -> PaperTable:
    """Table 1: the metrics of each system, ROVER last after a rule.

    ROUGE-L, Hscore (2 decimals), % Hcorrect (1 decimal) with labels, else ROUGE-L, F1 and EM;
    coverage in % when a system is below 100%.

    Parameters
    ----------
    data : dict
        report.json data (``systems``, ``has_labels``, ``human_aggregate``).

    Returns
    -------
    PaperTable

    Examples
    --------
    >>> from evaluation.render import paper
    >>> data = {"has_labels": False, "available_metrics": ["f1"], "factors": [], "systems": [
    ...     {"system": "ROVER", "rouge_l": 0.7, "f1": 0.66, "em": 0.5, "coverage": 1.0},
    ...     {"system": "sys-a", "rouge_l": 0.61234, "f1": 0.6, "em": 0.4, "coverage": 1.0}]}
    >>> paper.table1_systems(data).frame
            ROUGE-L    F1   EM
    system
    sys-a      0.61  0.60  0.4
    ROVER      0.70  0.66  0.5
    """
    rows = data["systems"]
    metrics = ["rouge_l", "hscore", "hcorrect"] if data.get("has_labels") else ["rouge_l", "f1", "em"]
    decimals = {m: metric_registry.get(m).paper_decimals for m in metrics}
    show_coverage = any(r.get("coverage") is not None and r["coverage"] < 1 for r in rows)
    ordered = [r for r in rows if r["system"] != "ROVER"] + [r for r in rows if r["system"] == "ROVER"]
    records, latex_rows = [], []
    for r in ordered:
        record = {"system": r["system"]}
        cells = [escape(r["system"])]
        for m in metrics:
            v = fixed(r.get(m), decimals[m])
            record[metric_registry.get(m).title] = v
            cells.append(_cell(v, decimals[m]))
        if show_coverage:
            cov = r.get("coverage")
            v = fixed(100 * cov, 1) if _defined(cov) else None
            record["% coverage"] = v
            cells.append(_cell(v, 1))
        records.append(record)
        latex_rows.append(cells)
    header = ["Model"] + [metric_registry.get(m).latex for m in metrics] + ([r"\% coverage"] if show_coverage else [])
    caption = "Performance of each system and of their ROVER combination (last row)."
    if data.get("has_labels"):
        caption += " " + _choices_text(data, "hscore")
        if show_coverage:
            caption += (
                " Systems below 100\\% coverage: means over their labeled answers; bounds with unlabeled "
                "answers counted 0 / 1 are in report.json."
            )
    frame = pd.DataFrame(records).set_index("system")
    if data.get("has_labels"):
        frame["aggregation"] = recorded_aggregate(data)
    crowd = crowd_sensitivity_text(data)
    if crowd:
        caption += " " + escape(crowd)
    caption += " " + _choices(data)
    return PaperTable(frame, booktabs(header, latex_rows, caption, label="tab:systems", rule_before_last=True))


def table2_factors(data, metric) -> PaperTable | None:
    """Table 2 for one metric: a column per factor, delta per system, significant cells in bold.

    The first row is the size of E_f in whole percents of the corpus; the bold follows the raw
    p-value, or Holm's with ``config.table_significance = "holm"``.

    Parameters
    ----------
    data : dict
        report.json data (``factors``, ``config``, ``human_aggregate``).
    metric : str
        The metric of the table.

    Returns
    -------
    PaperTable or None
        None when no factor entry has this metric.

    Examples
    --------
    >>> from evaluation.render import paper
    >>> data = {"config": {}, "factors": [{"factor": "dist", "metric": "f1", "size_pct": 40.0,
    ...     "size_pct_corpus": 38.6, "rows": [{"system": "sys-a", "delta": -3, "significant": True},
    ...                                       {"system": "ROVER", "delta": 1, "significant": False}]}]}
    >>> paper.table2_factors(data, "f1").frame
                     dist significant: dist significance
    system
    size of E_f (%)    39              None          raw
    sys-a              -3              True          raw
    ROVER               1             False          raw
    """
    entries = [e for e in data["factors"] if e["metric"] == metric]
    if not entries:
        return None
    marks = recorded(data, "table_significance")
    key = "significant_holm" if marks == "holm" else "significant"
    factors = [e["factor"] for e in entries]
    systems = [r["system"] for r in entries[0]["rows"]]
    size_row = {
        "system": "size of E_f (%)",
        **{e["factor"]: whole(e.get("size_pct_corpus", e["size_pct"])) for e in entries},
    }
    records, sig = [size_row], {}
    latex_rows = [["size of $E_f$ (\\%)"] + [_cell(size_row[f], percent_sign=True) for f in factors]]
    for i, system in enumerate(systems):
        record = {"system": system}
        cells = [escape(system)]
        for e in entries:
            row = e["rows"][i]
            delta = row["delta"]
            record[e["factor"]] = delta
            significant = bool(row.get(key))
            sig.setdefault(e["factor"], []).append(significant)
            cells.append(_cell(delta, bold=significant))
        records.append(record)
        latex_rows.append(cells)
    frame = pd.DataFrame(records).set_index("system").astype("Int64")  # integers, <NA> (empty) where undefined
    for f in factors:  # the bold of the LaTeX table, as columns (the size row has none)
        frame[f"significant: {f}"] = [None] + sig[f]
    frame["significance"] = marks
    if metric in metric_registry.human_keys():
        frame["aggregation"] = recorded_aggregate(data)
    title = metric_registry.get(metric).title
    caption = (
        (
            f"Complexity factors with {escape(title)}: $\\delta = \\lfloor 100 (S(E_f) - S(\\overline{{E_f}})) "
            f"\\rfloor$ per system; bold: {SIGNIFICANCE_TEXT[marks]}. Size: $E_f$ in \\% of the corpus. "
            + _choices_text(data, metric)
        ).strip()
        + " "
        + _choices(data)
    )
    derived = [escape(e["factor"]) for e in entries if e.get("derived")]
    if derived:  # SPEC 15: say which factors rest on attributes parsed from the text, and how
        caption += f" Computed from derived attributes: {', '.join(derived)} ({escape(derived_sources(data))})."
    header = ["models/factors"] + [escape(f) for f in factors]
    return PaperTable(
        frame, booktabs(header, latex_rows, caption, label=f"tab:factors-{metric}", rule_before_last=True)
    )


def table3_factor_by_partition(data) -> PaperTable | None:
    """Table 3: P(f | P_k) per factor, columns P_n down to P_1 (2 decimals).

    Parameters
    ----------
    data : dict
        report.json data (``factor_by_partition``, ``partitions``).

    Returns
    -------
    PaperTable or None
        None when the report has no factor by partition.

    Examples
    --------
    >>> from evaluation.render.paper import table3_factor_by_partition
    >>> data = {"factor_by_partition": {"dist": {"2": 0.25, "1": 0.5}}, "partitions": {"n_systems": 2, "alpha": 5}}
    >>> table3_factor_by_partition(data).frame
               P2   P1
    factor
    P(dist)  0.25  0.5
    """
    fbp = data.get("factor_by_partition") or {}
    if not fbp:
        return None
    n = data["partitions"]["n_systems"]
    keys = [str(k) for k in range(n, 0, -1)]
    records, latex_rows = [], []
    for factor, shares in fbp.items():
        record = {"factor": f"P({factor})", **{f"P{k}": fixed(shares.get(k), 2) for k in keys}}
        records.append(record)
        latex_rows.append([f"$P(f_{{\\mathrm{{{escape(factor)}}}}})$"] + [_cell(record[f"P{k}"], 2) for k in keys])
    header = ["f/P"] + [f"$P_{{{k}}}$" for k in keys]
    caption = (
        f"Probability of each factor by agreement partition, of increasing complexity $P_{{{n}}}$ to $P_1$ "
        f"(ROVER over {n} systems, Levenshtein distance below {data['partitions']['alpha']:g}). " + _choices(data)
    )
    return PaperTable(
        pd.DataFrame(records).set_index("factor"),
        booktabs(header, latex_rows, caption, label="tab:factor-by-partition"),
    )


def table4_frame_checks(data) -> PaperTable | None:
    """Table 4: full / partial / erroneous frame checks, in whole percents.

    Parameters
    ----------
    data : dict
        report.json data (``frames.table4``).

    Returns
    -------
    PaperTable or None
        None without rated frame checks.

    Examples
    --------
    >>> from evaluation.render.paper import table4_frame_checks
    >>> data = {"frames": {"table4": {"lu": {"label": "LU", "full": 70.4, "partial": 20.0, "erroneous": 9.6, "n": 50}}}}
    >>> table4_frame_checks(data).frame
                Full  Partial  Erroneous   n
    evaluation
    LU            70       20         10  50
    """
    section = data.get("frames") or {}
    t4 = section.get("table4") or {}
    if not t4 or not any(t.get("n") for t in t4.values()):
        return None
    records, latex_rows = [], []
    for t in t4.values():
        shares = {k.capitalize(): whole(t.get(k)) for k in ("full", "partial", "erroneous")}
        record = {"evaluation": t["label"], **shares, "n": t["n"]}
        records.append(record)
        latex_rows.append([escape(t["label"])] + [_cell(record[k]) for k in ("Full", "Partial", "Erroneous")])
    n = max(t["n"] for t in t4.values())
    caption = f"Manual evaluation (in \\%) of the predicted frames ({n} ratings)."
    frame = pd.DataFrame(records).set_index("evaluation").astype("Int64")
    return PaperTable(
        frame, booktabs(["Evaluation", "Full", "Partial", "Erroneous"], latex_rows, caption, label="tab:frame-checks")
    )


def _interval(low, high, decimals):
    """``[low, high]`` in LaTeX, or -- when a bound is missing."""
    if low is None or high is None:
        return "--"
    return f"[{_cell(low, decimals)}, {_cell(high, decimals)}]"


def table_ppi(data) -> PaperTable | None:
    r"""The prediction-powered estimates (SPEC 10): a row per system and human metric.

    Human-labelled / judged predictions, the estimate with its 95% interval and its confidence
    sequence (SPEC 16: what to quote when the labels were watched while labelling), the classical
    estimate from the human labels alone with its interval, lambda and the gain; Hscore with 2
    decimals, % Hcorrect with 1 (as Table 1), lambda and gain with 2; a rule between the metrics.

    Parameters
    ----------
    data : dict
        report.json data (``ppi``, ``config``).

    Returns
    -------
    PaperTable or None
        None without a judge.

    Examples
    --------
    >>> from evaluation.render.paper import table_ppi
    >>> row = {"system": "a", "metric": "hscore", "n_human": 20, "n_total": 100, "estimate": 0.6149, "ci_low": 0.5,
    ...        "ci_high": 0.72, "classical": 0.6, "classical_ci_low": 0.45, "classical_ci_high": 0.75,
    ...        "lambda": 0.8, "gain": 1.5}
    >>> table = table_ppi({"ppi": [row], "config": {"judge": "gpt"}})
    >>> table.frame[["metric", "human-labelled", "judged", "estimate", "ci_low", "ci_high"]]
           metric  human-labelled  judged  estimate  ci_low  ci_high
    system
    a      Hscore              20     100      0.61     0.5     0.72
    >>> print(table.latex[table.latex.index(r"\midrule"):table.latex.index(r"\bottomrule")].strip())
    \midrule
    a & Hscore & 20 / 100 & 0.61 & [0.50, 0.72] & -- & 0.60 & [0.45, 0.75] & 0.80 & 1.50 \\
    """
    rows = [r for m in metric_registry.human_keys() for r in data.get("ppi") or [] if r["metric"] == m]
    if not rows:
        return None
    decimals = {m: metric_registry.get(m).paper_decimals for m in metric_registry.human_keys()}
    records, latex_rows, rules = [], [], set()
    for i, r in enumerate(rows):
        d = decimals[r["metric"]]
        record = {
            "system": r["system"],
            "metric": metric_registry.get(r["metric"]).title,
            "human-labelled": r["n_human"],
            "judged": r["n_total"],
            **{k: fixed(r.get(k), d) for k in ("estimate", "ci_low", "ci_high", "cs_low", "cs_high")},
            **{k: fixed(r.get(k), d) for k in ("classical", "classical_ci_low", "classical_ci_high")},
            "lambda": fixed(r.get("lambda"), 2),
            "gain": fixed(r.get("gain"), 2),
        }
        if i and r["metric"] != rows[i - 1]["metric"]:
            rules.add(i)
        records.append(record)
        latex_rows.append(
            [escape(r["system"]), escape(record["metric"]), f"{r['n_human']} / {r['n_total']}",
             _cell(record["estimate"], d), _interval(record["ci_low"], record["ci_high"], d),
             _interval(record["cs_low"], record["cs_high"], d),
             _cell(record["classical"], d), _interval(record["classical_ci_low"], record["classical_ci_high"], d),
             _cell(record["lambda"], 2), _cell(record["gain"], 2)]
        )  # fmt: skip
    header = ["Model", "Metric", "Human / judged", "PPI", "95\\% CI", "Sequence", "Classical", "95\\% CI",
              "$\\lambda$", "Gain"]  # fmt: skip
    judge = escape((data.get("config") or {}).get("judge") or "the judge")
    caption = (
        f"Prediction-powered estimates with {judge}'s labels (PPI++) beside the classical estimates from the "
        "human labels alone, with 95\\% intervals; gain: classical variance over PPI variance. "
        + _sequence_words(data)
        + _choices(data)
    )
    frame = pd.DataFrame(records).set_index("system")
    return PaperTable(frame, booktabs(header, latex_rows, caption, label="tab:ppi", rules_before=rules))


def _sequence_words(data) -> str:
    r"""The caption's sentence on which interval to quote (SPEC 16).

    Examples
    --------
    >>> words = _sequence_words({"ppi": [{"alpha_split": 0.025, "cs_low": 0.4}]})
    >>> "split over 2 systems, exact at every number" in words, "quote it when the labels were watched" in words
    (True, True)
    """
    rows = data.get("ppi") or []
    if not rows or rows[0].get("alpha_split") is None or all(r.get("cs_low") is None for r in rows):
        return ""  # no sequence (an active design, SPEC 16)
    k = round(0.05 / rows[0]["alpha_split"])
    return (
        f"Sequence: the 95\\% betting confidence sequence (alpha 0.05 split over {k} systems, exact at every number "
        "of labels), which holds however often it is watched: quote it when the labels were watched while "
        "labelling (e.g.\\ stopped once the ranking looked settled); the 95\\% intervals hold only for a "
        "number of labels fixed in advance. "
    )


def table_active(data) -> PaperTable | None:
    """Hscore and % Hcorrect per system from the human labels of an active design (SPEC 12).

    Each estimate with its 95% interval in brackets, then the human labels of the system's predictions
    out of its predictions, and the gain (variance without / with the judge). The caption names the
    design (active, or uniform with its reason), the judge, the labelling progress and the choices.

    Parameters
    ----------
    data : dict
        report.json data (``active``, ``active_design``, ``judge``).

    Returns
    -------
    PaperTable or None
        None without active rows.

    Examples
    --------
    >>> from evaluation.render.paper import table_active
    >>> rows = [{"system": "a", "metric": "hscore", "estimate": 0.612, "ci_low": 0.58, "ci_high": 0.644,
    ...          "n_labeled": 40, "n_total": 400, "gain": 2.5},
    ...         {"system": "a", "metric": "hcorrect", "estimate": 55.0, "ci_low": 50.1, "ci_high": 59.9,
    ...          "n_labeled": 40, "n_total": 400, "gain": 2.0}]
    >>> design = {"kind": "active", "reason": None, "progress": "40 of 50 sampled triplets labelled"}
    >>> table = table_active({"active": rows, "active_design": design, "judge": {"name": "gpt"}})
    >>> table.frame.loc["a", ["Hscore", "Hscore low", "Hscore high", "% Hcorrect", "human labels"]].tolist()
    [0.61, 0.58, 0.64, 55.0, 40.0]
    """
    rows = data.get("active") or []
    if not rows:
        return None
    design = data.get("active_design") or {}
    by_system = {}
    for r in rows:
        by_system.setdefault(r["system"], {})[r["metric"]] = r
    records, latex_rows = [], []
    keys = [k for k in metric_registry.human_keys() if any(k in m for m in by_system.values())]
    for system, metrics in by_system.items():
        h = metrics.get(keys[0], {})
        record = {"system": system}
        cells = [escape(system)]
        for key in keys:
            r, m = metrics.get(key, {}), metric_registry.get(key)
            title, decimals = m.title, m.paper_decimals
            v, lo, hi = (fixed(r.get(k), decimals) for k in ("estimate", "ci_low", "ci_high"))
            record.update({title: v, f"{title} low": lo, f"{title} high": hi})
            interval = f" [{_cell(lo, decimals)}, {_cell(hi, decimals)}]" if lo is not None else ""
            cells.append(_cell(v, decimals) + interval)
        record.update({"human labels": h.get("n_labeled"), "predictions": h.get("n_total")})
        record["gain Hscore"] = fixed(h.get("gain"), 1)
        cells += [f"{h.get('n_labeled', 0):,} / {h.get('n_total', 0):,}", _cell(record["gain Hscore"], 1)]
        records.append(record)
        latex_rows.append(cells)
    kind = design.get("kind", "active")
    judge = escape((data.get("judge") or {}).get("name", "the judge"))
    how = (
        f"humans labelled a uniform pilot, then a main sample drawn where a residual model fitted on the pilot "
        f"expects judge {judge} to be wrong (estimates re-weighted by each triplet's chance, with the judge's "
        "score and an intercept as control variates)"
        if kind == "active"
        else f"uniform design ({escape(design.get('reason') or 'every triplet had the same chance')})"
    )
    caption = (
        f"Human scores estimated from a sample of human labels: {how}; {escape(design.get('progress', ''))}. "
        "Brackets: 95\\% intervals. Gain: how many times fewer human labels than without the judge for the "
        "same width. " + _choices(data)
    )
    header = ["Model", *(metric_registry.get(k).latex for k in keys), "Human labels", "Gain"]
    return PaperTable(
        pd.DataFrame(records).set_index("system"),
        booktabs(header, latex_rows, caption, label="tab:active", align="l" + "l" * len(keys) + "rr"),
    )


def paper_tables(data) -> dict:
    """Every paper table the data allows.

    Parameters
    ----------
    data : dict
        report.json data.

    Returns
    -------
    dict
        File stem -> PaperTable: ``table1_systems``, ``table2_factors_<metric>`` per available
        metric with factors, ``table3_factor_by_partition``, ``table4_frame_checks``, ``table_ppi``, ``table_active``.

    Examples
    --------
    >>> from evaluation.render import paper
    >>> data = {"has_labels": False, "available_metrics": ["f1"], "factors": [], "systems": [
    ...     {"system": "ROVER", "rouge_l": 0.7, "f1": 0.66, "em": 0.5, "coverage": 1.0},
    ...     {"system": "sys-a", "rouge_l": 0.61234, "f1": 0.6, "em": 0.4, "coverage": 1.0}]}
    >>> list(paper.paper_tables(data))
    ['table1_systems']
    """
    out = {"table1_systems": table1_systems(data)}
    for metric in data.get("available_metrics", []):
        table = table2_factors(data, metric)
        if table is not None:
            out[f"table2_factors_{metric}"] = table
    for stem, table in (
        ("table3_factor_by_partition", table3_factor_by_partition(data)),
        ("table4_frame_checks", table4_frame_checks(data)),
        ("table_ppi", table_ppi(data)),
        ("table_active", table_active(data)),
    ):
        if table is not None:
            out[stem] = table
    return out
