"""The whole report, from three DataFrames (questions, predictions, labels) to plain data.

``compute_report`` is pure (no database, no files): it scores every prediction (SPEC 3, 4), runs
ROVER (SPEC 5), the complexity factors (SPEC 6) and the agreement (SPEC 7), with bootstrap
confidence intervals and Holm-corrected p-values, and returns a ``Report``: ``data`` is the
``report.json`` content (SPEC 9 keys), ``tables`` the DataFrames behind each CSV / LaTeX table and
``figures`` the data behind each figure (rendered by ``evaluation.render.figures``).

Scores are held as (questions x systems) matrices, one per metric, the ROVER column last. A missing
prediction scores 0 on the automatic metrics (the official SQuAD convention) and is undefined (NaN)
on the human metrics, like an unlabeled one.
"""

from __future__ import annotations

import contextlib
import gc

import pandas as pd
from django.utils.translation import gettext_noop

from evaluation.report.config import Report, ReportConfig, ReportExtras, StepOutput
from evaluation.report.context import clean, prepare
from evaluation.report.crowd_section import crowd_step
from evaluation.report.factor_steps import combinations_step, factors_step, frames_step, hard_subset_step
from evaluation.report.sections import (
    active_step,
    attribute_check_step,
    frame_proxy_step,
    live_step,
    ppi_step,
    withhold_sequences,
)
from evaluation.report.system_steps import agreement_step, bootstrap_step, partitions_step, systems_step


def _noop(**kwargs):
    pass


# (progress message, step); ``compute_report`` runs them in this order, each returning a ``StepOutput``
# (its report.json keys with their tables and figures' data), and collects what they return.
STEPS = (
    (gettext_noop("bootstrap"), bootstrap_step),
    (gettext_noop("systems table"), systems_step),
    (gettext_noop("ROVER partitions"), partitions_step),
    (gettext_noop("complexity factors"), factors_step),
    (gettext_noop("frames and combinations"), frames_step),
    (gettext_noop("frames and combinations"), combinations_step),
    (gettext_noop("agreement"), agreement_step),
    (gettext_noop("hard subset"), hard_subset_step),
)


def compute_report(
    questions: pd.DataFrame,
    predictions: pd.DataFrame,
    labels: pd.DataFrame | None = None,
    *,
    config: ReportConfig | None = None,
    progress=_noop,
    extras: ReportExtras | None = None,
) -> Report:
    """The whole report from the three inputs: scores, ROVER, factors, agreement, intervals, then
    its tables, the prediction-powered estimates (``ppi``, ``judge``) and the frame proxy's section
    (``frames``). The one function behind the offline command and the report job.

    Parameters
    ----------
    questions, predictions, labels : pandas.DataFrame
        The inputs (``evaluation.report.inputs``); ``labels`` may be None (no human metrics).
    config : ReportConfig, optional
        The report's choices; default ``ReportConfig()``.
    progress : callable, optional
        Called with ``done``, ``total`` (first call) and ``message`` keywords as the steps run.
    extras : ReportExtras, optional
        A judge's labels (and the facts of its validity guard), the frame proxy's rows, the corpus
        name; without them ``ppi`` is empty and ``judge`` and ``frames`` are null.

    Returns
    -------
    Report
        ``data`` is the ``report.json`` content; ``ValueError`` for bad input.

    Examples
    --------
    >>> from evaluation.report.inputs import _example_inputs
    >>> report = compute_report(*_example_inputs(), config=ReportConfig(n_boot=0))
    >>> [(row["system"], row["hscore"], row["em"]) for row in report.data["systems"]]
    [('s1', 0.75, 1.0), ('s2', 0.0, 0.0), ('ROVER', 0.75, 1.0)]
    >>> sorted(report.tables)[:3]
    ['factor_by_partition', 'factors_em', 'factors_f1']
    """
    config = config or ReportConfig()
    total = len(STEPS) + 1
    progress(done=0, total=total, message=gettext_noop("scoring predictions"))
    collected = StepOutput()
    with _gc_paused():
        ctx = prepare(questions, predictions, labels, config=config)
        for done, (message, step) in enumerate(STEPS, start=1):
            progress(done=done, message=message)
            out = step(ctx)
            ctx.data.update(out.data)  # what the later steps may read
            collected.tables.update(out.tables)
            collected.bold.update(out.bold)
            collected.figures.update(out.figures)
    # The steps' data is plain already (each cleans its own): only the header is cleaned here.
    header = {
        "metric": ctx.metric,
        "metric_requested": config.metric,
        "available_metrics": list(ctx.available),
        "has_labels": ctx.has_labels,
        "notes": ctx.notes,
        "config": config.as_dict(),
        "human_aggregate": config.human_aggregate,
        "n_questions": ctx.n_q,
        "n_predictions": len(predictions),
        "empty_answers": ctx.table.empty_answers,
        "entropy": {
            "source": config.entropy_source,
            "n_frames": len(ctx.entropy),
            "median": float(ctx.entropy.median()) if len(ctx.entropy) else None,
        },
    }
    report = Report(
        data={**clean(header), **ctx.data},
        tables=collected.tables,
        bold=collected.bold,
        figures=collected.figures,
        scores=ctx.table,
        sides=ctx.sides,
        hard_subset=ctx.hard,
    )
    extras = extras or ReportExtras()
    if extras.corpus is not None:
        report.data["corpus"] = extras.corpus
    for step in (ppi_step, live_step):
        step(
            report,
            predictions,
            labels,
            judge_labels=extras.judge_labels,
            policy=config.dedup_policy,
            facts=extras.facts,
            tie_margin=config.tie_margin,
        )
    if extras.design is not None:  # SPEC 16: labels drawn with unequal chances, no sequence applies
        withhold_sequences(report)
    active_step(
        report,
        predictions,
        labels,
        judge_labels=extras.judge_labels,
        design_frame=extras.design,
        policy=config.dedup_policy,
        facts=extras.facts,
    )
    crowd_step(report, predictions, labels, extras=extras, config=config)
    frame_proxy_step(report, extras.frame_rows)
    attribute_check_step(report, extras.attribute_check_rows)
    progress(done=total, message="done")  # in words on the page: report_words.progress_message
    return report


@contextlib.contextmanager
def _gc_paused():
    """Python's cycle collector off while the report is computed (then as it was): each of its
    full passes walks every element of the large object arrays (the answers: millions) once more,
    looking for cycles the computation does not make. Memory is freed by reference counting as
    before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
