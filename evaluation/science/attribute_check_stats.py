"""Accuracy of the derived attributes as humans judged them (issue 26 point 4; the counterpart for
SPEC 15 of the paper's Table 4 on frames). Pure: rows in, numbers out.

A row is one annotator's check of one question: the derived distance ``derived_dist`` (arcs), the
``trigger_verdict`` (``correct`` / ``other`` / ``absent``) and the annotator's ``dist_class`` (``1`` or
``2+``); a skipped check has neither and is left out.

- trigger accuracy: checks whose verdict is ``correct`` over checks with a verdict;
- distance-class accuracy: checks whose class equals the derived one over checks with a class.

Each comes with a 95 % Wilson score interval.

>>> rows = [{"question_id": "q1", "annotator": "a", "derived_dist": 1, "trigger_verdict": "correct",
...          "dist_class": "1"},
...         {"question_id": "q2", "annotator": "a", "derived_dist": 3, "trigger_verdict": "other",
...          "dist_class": "1"}]
>>> t = table(rows)
>>> t["trigger"]["correct"], t["trigger"]["n"], t["dist_class"]["accuracy"]
(1, 2, 0.5)
"""

from __future__ import annotations

from frames.attributes import dist_class  # "1" / "2+" of a derived distance (one home: the derived attributes)
from stats.intervals import wilson


def accuracy(correct, n):
    low, high = wilson(correct, n)
    return {"n": n, "correct": correct, "accuracy": correct / n if n else None, "ci_low": low, "ci_high": high}


def table(rows):
    """``{"trigger": accuracy, "dist_class": accuracy, "checks", "questions", "annotators", "verdicts"}``
    or None when no row has a verdict."""
    judged = [r for r in rows if r.get("trigger_verdict")]
    if not judged:
        return None
    verdicts = {v: sum(r["trigger_verdict"] == v for r in judged) for v in ("correct", "other", "absent")}
    classed = [r for r in judged if r.get("dist_class") and dist_class(r.get("derived_dist"))]
    return {
        "trigger": accuracy(verdicts["correct"], len(judged)),
        "dist_class": accuracy(sum(r["dist_class"] == dist_class(r["derived_dist"]) for r in classed), len(classed)),
        "verdicts": verdicts,
        "checks": len(judged),
        "questions": len({r["question_id"] for r in judged}),
        "annotators": len({r["annotator"] for r in judged}),
    }


def table_rows(section):
    """Rows of the report's ``attribute_checks`` table: one per checked attribute."""
    if not section:
        return []
    names = {"trigger": "context trigger", "dist_class": "distance class (1 arc / 2 or more)"}
    return [
        {
            "attribute": names[key],
            "checks": section[key]["n"],
            "correct": section[key]["correct"],
            "accuracy": section[key]["accuracy"],
            "ci95_low": section[key]["ci_low"],
            "ci95_high": section[key]["ci_high"],
        }
        for key in ("trigger", "dist_class")
    ]
