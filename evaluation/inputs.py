"""The three input tables of a report, as pandas DataFrames, from interchange files or records.

- questions: index ``question_id``; columns context, question, answers (list), language, the SPEC 6
  attributes (None where absent) and meta (dict).
- predictions: question_id, system, answer; optionally ``tkey`` (the triplet key, e.g. a database
  triplet id) which otherwise is derived from the answer under the dedup policy.
- labels: question_id, answer, annotator, label (or ``tkey``, annotator, label).

Files are read with ``annotation.interchange`` (validated line by line; errors raise
``InterchangeError`` with the file, line and field).
"""
from __future__ import annotations

import pandas as pd

from annotation.interchange import SEMANTIC_FIELDS, read_corpus, read_labels, read_predictions

QUESTION_COLUMNS = ("context", "question", "answers", "language", *SEMANTIC_FIELDS, "meta")


def questions_frame(records) -> pd.DataFrame:
    rows = list(records)
    frame = pd.DataFrame.from_records(
        [{"question_id": r["id"], **{c: r.get(c) for c in QUESTION_COLUMNS}} for r in rows],
        columns=["question_id", *QUESTION_COLUMNS],
    )
    frame["language"] = frame["language"].fillna("en")
    frame["meta"] = frame["meta"].map(lambda m: m if isinstance(m, dict) else {})
    frame["answers"] = frame["answers"].map(lambda a: list(a) if isinstance(a, (list, tuple)) else [])
    if frame["question_id"].duplicated().any():
        dup = frame.loc[frame["question_id"].duplicated(), "question_id"].iloc[0]
        raise ValueError(f"duplicate question id {dup!r}")
    return frame.set_index("question_id")


def predictions_frame(records) -> pd.DataFrame:
    return pd.DataFrame.from_records(
        [(r["question_id"], r["system"], r.get("answer") or "") for r in records],
        columns=["question_id", "system", "answer"],
    )


def labels_frame(records) -> pd.DataFrame:
    return pd.DataFrame.from_records(
        [(r["question_id"], r.get("answer") or "", r["annotator"], r["label"]) for r in records],
        columns=["question_id", "answer", "annotator", "label"],
    )


REFERENCE = "reference"


def with_reference(questions: pd.DataFrame, predictions: pd.DataFrame) -> pd.DataFrame:
    """``predictions`` with the system ``reference`` first: the first reference answer of each
    question ("" when it has none), as the import of a corpus adds it (SPEC 1, 9). Unchanged when
    the predictions already hold a system of that name."""
    if (predictions["system"] == REFERENCE).any():
        return predictions
    refs = pd.DataFrame({"question_id": questions.index, "system": REFERENCE,
                         "answer": [a[0] if len(a) else "" for a in questions["answers"]]})
    return pd.concat([refs, predictions], ignore_index=True)


def read_inputs(corpus_path, predictions_path, labels_path=None, *, reference_system=False):
    """Read and validate the three JSONL files of SPEC 9 into (questions, predictions, labels|None);
    with ``reference_system``, the corpus answers are added as the system ``reference``."""
    questions = questions_frame(record for _, record in read_corpus(corpus_path))
    known = set(questions.index)
    predictions = predictions_frame(record for _, record in read_predictions(predictions_path, known_questions=known))
    if reference_system:
        predictions = with_reference(questions, predictions)
    labels = None
    if labels_path:
        labels = labels_frame(record for _, record in read_labels(labels_path, known_questions=known))
    return questions, predictions, labels


def read_judge_labels(path, questions: pd.DataFrame) -> pd.DataFrame:
    """A judge-labels file (SPEC 10: the labels format, ``annotator`` names the judge), validated."""
    known = set(questions.index)
    return labels_frame(record for _, record in read_labels(path, known_questions=known))


def corpus_records(questions: pd.DataFrame, extra_meta: dict | None = None):
    """Questions back to corpus JSONL records (SPEC 9): absent attributes are left out."""
    extra_meta = extra_meta or {}
    for qid, row in questions.iterrows():
        record = {"id": qid, "context": row["context"], "question": row["question"],
                  "answers": list(row["answers"]), "language": row["language"]}
        for field in SEMANTIC_FIELDS:
            value = row.get(field)
            if value is None or (isinstance(value, float) and value != value):
                continue
            value = value.item() if hasattr(value, "item") else value
            if SEMANTIC_FIELDS[field] is int:
                value = int(value)
            record[field] = value
        meta = dict(row.get("meta") or {})
        meta.update(extra_meta.get(qid, {}))
        if meta:
            record["meta"] = meta
        yield record
