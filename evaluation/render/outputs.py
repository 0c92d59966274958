"""Writing a computed report to a folder: report.json, each data table as CSV and LaTeX, the paper
tables of SPEC 11 (``evaluation.render.paper``) as CSV and standalone LaTeX, each figure as PNG, PDF and
SVG, and the hard subset as corpus JSONL."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
from django.utils import translation

from core.export_safety import safe_frame
from evaluation.render import figures as figs
from evaluation.render import paper
from evaluation.render.choices import choices_caption
from evaluation.render.page import page_figure_name
from evaluation.report.inputs import corpus_records

REPORT_JSON = "report.json"
HARD_SUBSET = "hard_subset.jsonl"


def dumps_strict(data) -> str:
    """JSON with plain numbers only: NaN or infinity raise instead of writing invalid JSON.

    Parameters
    ----------
    data : object
        JSON-serializable data (``report.clean`` turns NaN into None beforehand).

    Returns
    -------
    str
        Indented JSON, non-ASCII characters kept.

    Raises
    ------
    ValueError
        On NaN or infinity.

    Examples
    --------
    >>> from evaluation.render.outputs import dumps_strict
    >>> print(dumps_strict({"f1": 0.5, "system": "sys-é"}))
    {
      "f1": 0.5,
      "system": "sys-é"
    }
    >>> dumps_strict({"f1": float("nan")})
    Traceback (most recent call last):
        ...
    ValueError: Out of range float values are not JSON compliant...
    """
    return json.dumps(data, allow_nan=False, ensure_ascii=False, indent=2)


def latex_table(table: pd.DataFrame, bold: pd.DataFrame | None = None, caption: str | None = None) -> str:
    r"""``Styler.to_latex`` with significant cells in bold (``\bfseries``), missing values as --.

    Numbers have 3 decimals; labels and text are escaped for LaTeX.

    Parameters
    ----------
    table : DataFrame
        A data table of the report.
    bold : DataFrame of bool, optional
        Cells to set in bold (aligned on ``table``'s index and columns; missing: not bold).
    caption : str, optional
        The table's caption.

    Returns
    -------
    str
        A standalone LaTeX document (``paper.standalone``).

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from evaluation.render.outputs import latex_table
    >>> table = pd.DataFrame({"F1": [0.5, np.nan]}, index=["sys_a", "ROVER"])
    >>> tex = latex_table(table, bold=pd.DataFrame({"F1": [True, False]}, index=table.index))
    >>> print(tex[tex.index(r"\begin{tabular}"):tex.index(r"\bottomrule")])
    \begin{tabular}{lr}
    \toprule
     & F1 \\
    \midrule
    sys\_a & \bfseries 0.500 \\
    ROVER & -- \\
    """
    numeric = table.select_dtypes("number").columns
    styler = table.style.format(precision=3, na_rep="--", escape="latex", subset=list(numeric))
    if len(numeric) < len(table.columns):
        other = [c for c in table.columns if c not in numeric]
        styler = styler.format(na_rep="--", escape="latex", subset=other)
    styler = styler.format_index(escape="latex", axis=0).format_index(escape="latex", axis=1)
    if bold is not None:
        mask = bold.reindex(index=table.index, columns=table.columns).fillna(False).astype(bool)
        styler = styler.apply(lambda _: np.where(mask.to_numpy(), "font-weight: bold;", ""), axis=None)
    return paper.standalone(styler.to_latex(convert_css=True, hrules=True, caption=caption, environment="table"))


def _page_figures(report, out, language):
    """Draw the page's SVG copy of each figure with its words and numbers in ``language``."""
    written = []
    with translation.override(language):
        for name, data in report.figures.items():
            fig = figs.FIGURES[name]({**data, "human_aggregate": report.data.get("human_aggregate")})
            file = page_figure_name(figs.FIGURE_FILES[name], language)
            fig.savefig(out / file, dpi=150)
            written.append(file)
    return written


@translation.override("en")
def write_report(report, out_dir, render_figures: bool = True, *, page_languages=()) -> list[str]:
    """Write every file of ``report`` under ``out_dir``, in the paper's language and number format
    whatever language the caller reads (the page translates; the files never do).

    report.json, each data table as CSV and LaTeX, the paper tables (``evaluation.render.paper``), each
    figure as PNG, PDF and SVG, and the hard subset as corpus JSONL. The page's copy of each figure in
    another language is one more SVG, ``<stem>.<language>.svg`` (``page.page_figure_name``), its words and
    numbers in that language; the paper's files keep their names and stay in English.

    Parameters
    ----------
    report : evaluation.report.config.Report
        A computed report.
    out_dir : str or Path
        The folder (created when missing).
    render_figures : bool, default True
        Draw the figures (the slowest part).
    page_languages : iterable of str, default ()
        Languages (codes other than ``en``) the page's figures are also drawn in.

    Returns
    -------
    list of str
        The file names written, in order.

    Examples
    --------
    >>> import tempfile
    >>> from evaluation.report.inputs import predictions_frame, questions_frame
    >>> from evaluation.render.outputs import write_report
    >>> from evaluation.report.config import ReportConfig
    >>> from evaluation.report.pipeline import compute_report
    >>> questions = questions_frame([{"id": "q1", "context": "Warsaw is in Poland.", "question": "Where?",
    ...                               "answers": ["Poland"]}])
    >>> predictions = predictions_frame([{"question_id": "q1", "system": "a", "answer": "Poland"}])
    >>> report = compute_report(questions, predictions, None, config=ReportConfig(n_boot=0))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     write_report(report, folder, render_figures=False)
    ['report.json', 'systems.csv', 'systems.tex', 'partitions.csv', 'partitions.tex', 'partition_counts.csv',
     'partition_counts.tex', 'table1_systems.csv', 'table1_systems.tex']
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []

    def put(name, text):
        (out / name).write_text(text, encoding="utf-8")
        written.append(name)

    put(REPORT_JSON, dumps_strict(report.data) + "\n")
    for name, table in report.tables.items():
        put(f"{name}.csv", safe_frame(table).to_csv())
        caption = paper.escape(f"{name.replace('_', ' ').capitalize()}. {choices_caption(report.data)}")
        put(f"{name}.tex", latex_table(table, report.bold.get(name), caption=caption))
    for name, table in paper.paper_tables(report.data).items():
        put(f"{name}.csv", safe_frame(table.frame).to_csv())
        put(f"{name}.tex", table.latex)
    if render_figures:
        for name, data in report.figures.items():
            fig = figs.FIGURES[name]({**data, "human_aggregate": report.data.get("human_aggregate")})
            stem = figs.FIGURE_FILES[name]
            for ext in figs.FORMATS:
                fig.savefig(out / f"{stem}.{ext}", dpi=150)
                written.append(f"{stem}.{ext}")
        for language in page_languages:
            written += _page_figures(report, out, language)
    if report.hard_subset is not None:
        extra = {qid: {"partition": int(k)} for qid, k in report.hard_subset["partition"].items()}
        records = corpus_records(report.hard_subset.drop(columns="partition"), extra)
        lines = [json.dumps(r, ensure_ascii=False) for r in records]
        put(HARD_SUBSET, "".join(line + "\n" for line in lines))
    return written
