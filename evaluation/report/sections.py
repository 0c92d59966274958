"""The sections ``compute_report`` adds once the tables are built (``evaluation.report.pipeline``): the
prediction-powered estimates of an automatic judge (SPEC 10; the statistics are ``evaluation.science.ppi``), the active
estimates of a design (SPEC 12; ``evaluation.science.active``) and the frame proxy's outcome counts, Table 4 and
agreement on frame checks (SPEC 7 and 8; ``evaluation.science.frame_check_stats``). Pure: data in, report changed in
place; the database shells (``evaluation.judge_inputs``, ``frames``) hand over plain data."""

from __future__ import annotations

import dataclasses

import pandas as pd

from evaluation.report.config import recorded_aggregate
from evaluation.report.context import clean
from evaluation.science import active, anytime, attribute_check_stats, frame_check_stats, human
from evaluation.science.ppi import ROW_KEYS, judge_agreement, ppi_rows, prediction_scores, validity_reasons
from evaluation.science.rows import SEQUENCE_KEYS, records


def judge_name(judge_labels: pd.DataFrame) -> str:
    """The name of the one judge of ``judge_labels`` (its ``annotator``), ``judge`` when unnamed.

    Parameters
    ----------
    judge_labels : DataFrame
        One judge's labels.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        When the labels name several judges.

    Examples
    --------
    >>> from evaluation.report import sections
    >>> from evaluation.science import ppi
    >>> labels, judge, predictions = ppi._example_frames()  # 6 triplets, 4 labelled
    >>> sections.judge_name(judge)
    'judge-1'
    """
    names = list(pd.unique(judge_labels["annotator"])) if "annotator" in judge_labels else []
    if len(names) > 1:
        raise ValueError(f"judge labels name several judges ({', '.join(map(str, names))}); give one judge at a time")
    return str(names[0]) if names else "judge"


def ppi_section(
    predictions: pd.DataFrame,
    labels: pd.DataFrame | None,
    judge_labels: pd.DataFrame,
    *,
    systems=None,
    facts: dict | None = None,
    aggregate: str = human.DEFAULT_AGGREGATE,
):
    """The prediction-powered part of one report, with the confidence sequences of SPEC 16 in each row.

    Parameters
    ----------
    predictions : DataFrame
        ``system`` and ``tkey`` of each prediction.
    labels : DataFrame or None
        Human labels (``tkey``, ``annotator``, ``label``).
    judge_labels : DataFrame
        One judge's labels (``annotator`` = its name, SPEC 10).
    systems : iterable of str, optional
        The systems, in order.
    facts : dict, optional
        Platform facts for ``validity_reasons``; ``gold_keys`` are left out of the human sample.
    aggregate : {"mean", "majority"}, default "mean"
        How a triplet's human labels make its score (SPEC 3).

    Returns
    -------
    rows : list of PpiRow
        The ``ppi`` rows (``evaluation.science.rows``), their sequence fields filled.
    judge : dict
        ``name``, ``n_labels``, ``agreement``, ``validity``.
    table : DataFrame
        ``table_ppi``, indexed by (system, metric).

    Examples
    --------
    >>> from evaluation.report import sections
    >>> from evaluation.science import ppi
    >>> labels, judge, predictions = ppi._example_frames()  # 6 triplets, 4 labelled
    >>> rows, judge_section, table = sections.ppi_section(predictions, labels, judge)
    >>> judge_section["name"], judge_section["n_labels"], table.shape
    ('judge-1', 6, (4, 18))
    """
    name = judge_name(judge_labels)
    scores = prediction_scores(
        predictions, labels, judge_labels, gold=(facts or {}).get("gold_keys"), aggregate=aggregate
    )
    sequences = anytime.sequence_rows(scores, systems, arrival=arrival_order(labels))
    rows = [
        dataclasses.replace(row, **{k: getattr(seq, k) for k in SEQUENCE_KEYS})
        for row, seq in zip(ppi_rows(scores, systems), sequences, strict=True)
    ]
    judge = {
        "name": name,
        "n_labels": int(judge_labels["label"].notna().sum()),
        "agreement": judge_agreement(labels, judge_labels),
        "validity": validity_reasons(scores, facts),
    }
    table = pd.DataFrame(records(rows), columns=list(ROW_KEYS)).set_index(["system", "metric"])
    return rows, judge, table


def with_tkeys(frame: pd.DataFrame | None, policy: str) -> pd.DataFrame | None:
    """``frame`` with a ``tkey`` column (its triplet key under the dedup ``policy``), kept when given.

    Parameters
    ----------
    frame : DataFrame or None
        Predictions or labels with SPEC 9 columns (``question_id``, ``answer``).
    policy : str
        The dedup policy (``annotation.dedup``).

    Returns
    -------
    DataFrame or None

    Examples
    --------
    >>> import pandas as pd
    >>> from evaluation.report.sections import with_tkeys
    >>> frame = with_tkeys(pd.DataFrame({"question_id": ["q1", "q1"], "answer": ["Warsaw", " Warsaw"]}), "whitespace")
    >>> frame["tkey"].nunique()
    1
    """
    if frame is None or "tkey" in frame.columns:
        return frame
    return frame.assign(tkey=human.triplet_keys(frame["question_id"], frame["answer"], policy))


def ppi_step(
    report,
    predictions: pd.DataFrame,
    labels: pd.DataFrame | None,
    *,
    judge_labels: pd.DataFrame | None,
    policy: str,
    facts: dict | None = None,
    tie_margin=None,
) -> None:
    """Put ``ppi`` and ``judge`` into ``report.data``, the judge's name into its ``config`` and
    the ``ppi`` data table into its tables (the paper table ``table_ppi`` is ``paper.table_ppi``).

    A step of ``compute_report`` (the last but one); the validity guard's reasons become notes. Without judge labels:
    ``ppi`` is an empty list and ``judge`` null.

    Parameters
    ----------
    report : evaluation.report.config.Report
        A computed report (changed in place).
    predictions : DataFrame
        Its predictions (SPEC 9 columns, or with ``tkey``).
    labels : DataFrame or None
        Its human labels.
    judge_labels : DataFrame or None
        One judge's labels.
    policy : str
        The dedup policy giving triplet keys to frames without ``tkey``.
    facts : dict, optional
        Platform facts (``judge_inputs.sample_facts``).
    tie_margin : float, optional
        Not used here (``live_step``'s; the report's steps take the same keywords).

    Returns
    -------
    None

    Examples
    --------
    >>> from evaluation.report import sections
    >>> from evaluation.report.inputs import labels_frame, predictions_frame, questions_frame
    >>> from evaluation.report.config import ReportConfig
    >>> from evaluation.report.pipeline import compute_report
    >>> answers = ["yes", "no", "yes", "maybe"]
    >>> questions = questions_frame([{"id": f"q{i}", "context": "c", "question": "q", "answers": ["yes"]}
    ...                              for i in range(4)])
    >>> predictions = predictions_frame([{"question_id": f"q{i}", "system": "a", "answer": a}
    ...                                  for i, a in enumerate(answers)])
    >>> labels = labels_frame([{"question_id": "q0", "answer": "yes", "annotator": "ann", "label": "correct"},
    ...                        {"question_id": "q1", "answer": "no", "annotator": "ann", "label": "incorrect"}])
    >>> judge = labels_frame([{"question_id": f"q{i}", "answer": a, "annotator": "judge-1", "label": label}
    ...                       for i, (a, label) in enumerate(zip(answers, ["correct", "incorrect", "correct",
    ...                                                                    "partial"]))])
    >>> report = compute_report(questions, predictions, labels, config=ReportConfig(n_boot=0, systems=["a"]))
    >>> sections.ppi_step(report, predictions, labels, judge_labels=judge, policy="whitespace")
    >>> [(r["system"], r["metric"], r["n_human"], r["n_total"]) for r in report.data["ppi"]]
    [('a', 'hscore', 2, 4), ('a', 'hcorrect', 2, 4)]
    >>> report.tables["ppi"].index.name, report.data["config"]["judge"]
    ('system', 'judge-1')
    """
    if judge_labels is None or judge_labels.empty:
        report.data["ppi"], report.data["judge"] = [], None
        return
    predictions, labels, judge_labels = (with_tkeys(f, policy) for f in (predictions, labels, judge_labels))
    order = [s["system"] for s in report.data.get("systems", []) if s["system"] in set(predictions["system"])]
    aggregate = recorded_aggregate(report.data)
    rows, judge, table = ppi_section(
        predictions, labels, judge_labels, systems=order or None, facts=facts, aggregate=aggregate
    )
    report.data["ppi"], report.data["judge"] = clean(records(rows)), clean(judge)
    report.data.setdefault("config", {})["judge"] = judge["name"]  # a choice that changes numbers
    report.tables["ppi"] = table.reset_index(level="metric")  # one index level: no \multirow in its LaTeX
    for reason in judge["validity"]:
        report.data.setdefault("notes", []).append(
            f"prediction-powered estimates: {reason['reason']} ({reason['count']}); {reason['handling']}"
        )


def live_step(report, predictions, labels, *, judge_labels, policy, facts=None, tie_margin=None) -> None:
    """Put ``live`` into ``report.data``: per system and human metric the confidence sequence a reader
    quotes when the labels were watched while labelling (SPEC 16), prediction-powered with a judge.

    Null without human labels. Gold items' labels are left out with a judge (as in ``ppi``).

    Parameters
    ----------
    report : evaluation.report.config.Report
        A computed report (changed in place).
    predictions, labels : DataFrame
        Its predictions and human labels (SPEC 9 columns, or with ``tkey``).
    judge_labels : DataFrame or None
        One judge's labels.
    policy : str
        The dedup policy giving triplet keys to frames without ``tkey``.
    facts : dict, optional
        Platform facts (``gold_keys``).
    tie_margin : float, optional
        Not used here (``live_step``'s; the report's steps take the same keywords).

    Returns
    -------
    None

    Examples
    --------
    >>> from evaluation.report import sections
    >>> from evaluation.report.config import Report
    >>> from evaluation.science import ppi
    >>> labels, judge, predictions = ppi._example_frames()  # 4 labels: wide sequences
    >>> report = Report(data={"systems": [{"system": "a"}, {"system": "b"}, {"system": "ROVER"}]})
    >>> sections.live_step(report, predictions, labels, judge_labels=judge, policy="whitespace")
    >>> [(r["system"], r["metric"], r["n"], r["cs_low"]) for r in report.data["live"]["rows"]][:2]
    [('a', 'hscore', 2, 0.0), ('a', 'hcorrect', 2, 0.0)]
    """
    if labels is None or labels.empty:
        report.data["live"] = None
        return
    has_judge = judge_labels is not None and not judge_labels.empty
    predictions, labels, judge_labels = (with_tkeys(f, policy) for f in (predictions, labels, judge_labels))
    order = [s["system"] for s in report.data.get("systems", []) if s["system"] in set(predictions["system"])]
    aggregate = recorded_aggregate(report.data)
    gold = (facts or {}).get("gold_keys") if has_judge else None
    scores = prediction_scores(predictions, labels, judge_labels if has_judge else None, gold=gold, aggregate=aggregate)
    rows = anytime.sequence_rows(scores, order or None, arrival=arrival_order(labels))
    report.data["live"] = clean(anytime.live_section(records(rows), margin=tie_margin))


def withhold_sequences(report) -> None:
    """An active design's report (SPEC 16): its labels were drawn with unequal chances, so no confidence
    sequence applies; the ``cs_*`` fields of the ``ppi`` rows become null, ``live`` says why and claims
    nothing, and a note says so.

    Parameters
    ----------
    report : evaluation.report.config.Report
        A computed report (changed in place).

    Returns
    -------
    None

    Examples
    --------
    >>> from evaluation.report.config import Report
    >>> from evaluation.report.sections import withhold_sequences
    >>> report = Report(data={"ppi": [{"system": "a", "cs_low": 0.4, "cs_high": 0.6}], "live": {"rows": [1]}})
    >>> withhold_sequences(report)
    >>> report.data["ppi"][0]["cs_low"], report.data["live"]["rows"], report.data["live"]["active_design"]
    (None, [], True)
    """
    for row in report.data.get("ppi") or []:
        row.update(dict.fromkeys(k for k in SEQUENCE_KEYS if k != "alpha_split"))
    if report.data.get("live") is not None:
        report.data["live"] = {"active_design": True, "rows": [], "settled_pairs": [], "tied_pairs": []}
    report.data.setdefault("notes", []).append(
        "confidence sequences: none with an active design (labels drawn with unequal chances are not a "
        "uniform sample); the active estimates' 95% intervals hold once the whole drawn sample is labelled"
    )


def arrival_order(labels):
    """The triplet keys of ``labels`` in the order they arrived (SPEC 16: the frame's order, which the
    readers give by ``created_at`` then file or id order), or None without labels.

    Parameters
    ----------
    labels : DataFrame or None
        Human labels with ``tkey``.

    Returns
    -------
    ndarray or None

    Examples
    --------
    >>> import pandas as pd
    >>> from evaluation.report.sections import arrival_order
    >>> arrival_order(pd.DataFrame({"tkey": ["t2", "t1", "t2"]})).tolist(), arrival_order(None)
    (['t2', 't1', 't2'], None)
    """
    if labels is None or labels.empty or "tkey" not in labels.columns:
        return None
    return labels["tkey"].to_numpy()


def active_step(report, predictions, labels, *, judge_labels, design_frame, policy, facts=None) -> None:
    """Put ``active`` and ``active_design`` into ``report.data`` and the ``active`` data table into its tables
    (the paper table ``table_active`` is ``paper.table_active``).

    Without judge labels or a design: ``active`` is an empty list and ``active_design`` null. The
    design's kind, the uniform fallback and the labelling progress become notes.

    Parameters
    ----------
    report : evaluation.report.config.Report
        A computed report (changed in place).
    predictions : DataFrame
        Its predictions (SPEC 9 columns, or with ``tkey``).
    labels : DataFrame or None
        Its human labels.
    judge_labels : DataFrame or None
        One judge's labels (``probs`` optional).
    design_frame : DataFrame or None
        ``pi`` and ``sampled`` per triplet (with ``tkey``, or ``question_id`` and ``answer``).
    policy : str
        The dedup policy giving triplet keys to frames without ``tkey``.
    facts : dict, optional
        Platform facts (``gold_keys``).

    Returns
    -------
    None

    Examples
    --------
    >>> from evaluation.report import sections
    >>> from evaluation.report.config import Report
    >>> from evaluation.science import active
    >>> predictions, labels, judge, plan = active._example_frames()
    >>> report = Report(data={"systems": [{"system": "a"}], "notes": []}, tables={})
    >>> sections.active_step(report, predictions, labels, judge_labels=judge, design_frame=plan, policy="whitespace")
    >>> report.data["active_design"]["progress"], len(report.data["active"])
    ('1 of 2 sampled triplets labelled (completion-rate rule)', 2)
    """
    if judge_labels is None or judge_labels.empty or design_frame is None or design_frame.empty:
        report.data["active"], report.data["active_design"] = [], None
        return
    predictions, labels, judge_labels, design_frame = (
        with_tkeys(f, policy) for f in (predictions, labels, judge_labels, design_frame)
    )
    order = [s["system"] for s in report.data.get("systems", []) if s["system"] in set(predictions["system"])]
    aggregate = recorded_aggregate(report.data)
    rows, design, table = active.active_section(
        predictions,
        labels,
        judge_labels,
        design_frame=design_frame,
        systems=order or None,
        facts=facts,
        aggregate=aggregate,
    )
    report.data["active"], report.data["active_design"] = clean(records(rows)), clean(design)
    report.tables["active"] = table
    report.data.setdefault("config", {})["design"] = design["kind"]
    notes = report.data.setdefault("notes", [])
    notes.append(f"active estimates ({design['kind']} design): {design['progress']}")
    if design["kind"] == "active" and report.data.get("ppi"):
        notes.append(
            "prediction-powered estimates: the human labels were drawn by an active design, not uniformly; "
            "the ppi rows assume a uniform sample: read the active rows"
        )
    if design["reason"]:
        notes.append(f"active estimates: {design['reason']}")


def frame_proxy_step(report, frame_rows: tuple | None) -> None:
    """Put the frame proxy's section into ``report.data["frames"]`` and Table 4's rows into its tables.

    Parameters
    ----------
    report : evaluation.report.config.Report
        A computed report (changed in place).
    frame_rows : tuple of (list of dict, list of dict) or None
        The frame prediction outcomes ``{question_id, outcome, frame}`` and the frame checks
        ``{item, question_id, annotator, frame_rating, fe_rating}`` of the corpus (SPEC 7, 8); None
        or two empty lists: ``frames`` is null.

    Returns
    -------
    None

    Examples
    --------
    >>> from evaluation.report import sections
    >>> from evaluation.report.config import Report
    >>> report = Report(data={})
    >>> sections.frame_proxy_step(report, None)
    >>> report.data["frames"] is None
    True
    >>> outcomes = [{"question_id": "q1", "outcome": "done", "frame": "Win"}]
    >>> sections.frame_proxy_step(report, (outcomes, []))
    >>> report.data["frames"]["outcomes"]["done"], report.data["frames"]["outcomes"]["total"]
    (1, 1)
    """
    outcomes, checks = frame_rows or ([], [])
    if not outcomes and not checks:
        report.data["frames"] = None
        return
    section = frame_check_stats.frame_report(outcomes, checks)
    report.data["frames"] = section
    rows = frame_check_stats.table4_rows(section["table4"])
    if rows:
        report.tables["frame_checks"] = pd.DataFrame(rows).set_index("evaluation")


def attribute_check_step(report, rows: list | None) -> None:
    """Accuracy of the derived context trigger and distance class as humans judged them (issue 26 point 4):
    ``report.data["attribute_checks"]`` (``attribute_check_stats.table``, None without checks) and the
    ``attribute_checks`` table (CSV and LaTeX).

    Parameters
    ----------
    report : evaluation.report.config.Report
        A computed report (changed in place).
    rows : list of dict or None
        The attribute checks (``frames.attribute_checks`` report rows): question, annotator, the
        derived distance, the verdict on the trigger and the distance class given.

    Returns
    -------
    None

    Examples
    --------
    >>> from evaluation.report.config import Report
    >>> report = Report(data={})
    >>> attribute_check_step(report, [{"question_id": "q1", "annotator": "a", "derived_dist": 2,
    ...     "trigger_verdict": "correct", "dist_class": "2+"}])
    >>> report.data["attribute_checks"]["trigger"]["accuracy"], list(report.tables["attribute_checks"].index)
    (1.0, ['context trigger', 'distance class (1 arc / 2 or more)'])
    """
    section = attribute_check_stats.table(rows or [])
    report.data["attribute_checks"] = section
    if section:
        rows_out = attribute_check_stats.table_rows(section)
        report.tables["attribute_checks"] = pd.DataFrame(rows_out).set_index("attribute")
