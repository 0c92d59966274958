"""Labels files from outside (SPEC 9): matching each line to a triplet, and planning the import.

Pure functions on plain data, no database. ``plan_labels`` reads every line and sorts it into rows
to import and rejected lines with their reason, so that the importer can refuse the file listing
every problem, do a dry run, or import the valid lines and write the rejects out.

Matching a label's answer to a triplet of its question:
- ``dedup`` (default): the answer is equal to the triplet's under the corpus's dedup policy;
- ``squad``: as ``dedup``, and when that finds nothing, the one triplet of the question equal under
  SQuAD normalization (lower case, punctuation and English articles dropped, whitespace
  collapsed); several such triplets are an error (ambiguous).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from annotation.dedup import normalize_answer, normalize_squad
from annotation.interchange import InterchangeError, problem_lines, rejected

MATCH_MODES = ("dedup", "squad")
USERNAME_MAX = 150  # django.contrib.auth's username length


class TripletIndex:
    """The triplets of one corpus, looked up by question and answer."""

    def __init__(self, triplets, policy):
        """``triplets``: iterable of ``(triplet_id, question_id, answer, normalized_answer)``."""
        self.policy = policy
        self.exact = {}
        self.squad = defaultdict(list)
        for tid, qid, answer, normalized in triplets:
            self.exact[(qid, normalized)] = tid
            self.squad[(qid, normalize_squad(answer))].append((tid, answer))

    def match(self, question_id, answer, mode="dedup"):
        """``(triplet_id, None)`` or ``(None, reason)``."""
        if mode not in MATCH_MODES:
            raise ValueError(f"unknown match mode {mode!r}; choose one of {', '.join(MATCH_MODES)}")
        tid = self.exact.get((question_id, normalize_answer(answer, self.policy)))
        if tid is not None:
            return tid, None
        if mode == "squad":
            found = self.squad.get((question_id, normalize_squad(answer)), [])
            if len(found) == 1:
                return found[0][0], None
            if found:
                shown = ", ".join(repr(a) for _, a in found)
                return None, f"answer {answer!r} is ambiguous under SQuAD normalization: it matches {shown}"
            return None, f"no answer {answer!r} among the triplets of this question, even under SQuAD normalization"
        return None, f"no answer {answer!r} among the triplets of this question (try match=squad)"


@dataclass
class LabelPlan:
    rows: list = field(default_factory=list)  # [{"line", "triplet", "annotator", "label", "meta"}]
    rejects: list = field(default_factory=list)  # [{"line", "reason", "input"}]
    annotators: set = field(default_factory=set)

    def problems(self, file, limit=None):
        return problem_lines(self.rejects, file, *([limit] if limit is not None else []))


def plan_labels(entries, questions, index, *, mode="dedup", prefix="", browser_accounts=(), attach_existing=False):
    """Sort the lines of a labels file into rows to import and rejects.

    ``entries``: ``(line, raw_text, record or InterchangeError)`` for every line (see
    ``interchange.each_label_line``); ``questions``: ``{external_id: question_id}``; ``index``: a
    ``TripletIndex``; ``prefix``: put before every annotator name; ``browser_accounts``: names of
    accounts that have labels made in the browser or the API, refused unless ``attach_existing``.
    """
    plan = LabelPlan()
    seen = {}
    browser_accounts = set(browser_accounts)

    def reject(line, raw, field, *, reason=None):
        """``field`` and ``reason``, or an ``InterchangeError`` alone."""
        plan.rejects.append(rejected(line, raw, field) if reason is None else rejected(line, raw, reason, field=field))

    for line, raw, record in entries:
        if isinstance(record, InterchangeError):
            reject(line, raw, record)
            continue
        qid = questions.get(record["question_id"])
        if qid is None:
            reject(line, raw, "question_id", reason=f"unknown question id {record['question_id']!r}")
            continue
        tid, why = index.match(qid, record["answer"], mode)
        if tid is None:
            reject(line, raw, "answer", reason=why)
            continue
        name = prefix + record["annotator"]
        if len(name) > USERNAME_MAX:
            reject(line, raw, "annotator", reason=f"longer than {USERNAME_MAX} characters (with the prefix)")
            continue
        if name in browser_accounts and not attach_existing:
            reject(
                line,
                raw,
                "annotator",
                reason=f"{name!r} is an existing account with labels made in the browser "
                "(attach them with attach-existing, or use an annotator prefix)",
            )
            continue
        if (tid, name) in seen:
            reject(
                line, raw, "annotator", reason=f"{name!r} labels this answer twice (first at line {seen[(tid, name)]})"
            )
            continue
        seen[(tid, name)] = line
        plan.annotators.add(name)
        plan.rows.append(
            {"line": line, "triplet": tid, "annotator": name, "label": record["label"], "meta": record["meta"]}
        )
    return plan


def history_of(meta):
    """The ``history`` a labels export writes (``[{"label", "skipped", "seconds", "at"}]``), checked;
    None when absent or not in that shape (the line then counts as one judgement)."""
    history = meta.get("history") if isinstance(meta, dict) else None
    if not isinstance(history, list) or not history:
        return None
    out = []
    for event in history:
        if not isinstance(event, dict) or not isinstance(event.get("at"), str):
            return None
        value = event.get("label")
        seconds = event.get("seconds", 0.0)
        if (
            (value is not None and not isinstance(value, str))
            or not isinstance(seconds, (int, float))
            or isinstance(seconds, bool)
        ):
            return None
        out.append(
            {"label": value, "skipped": bool(event.get("skipped", False)), "seconds": float(seconds), "at": event["at"]}
        )
    return out
