"""An archive made before the judgement models became one abstract pair (issue 43 point 6) still
imports: ``tests/data/study-before-43.zip`` was written by the code of commit 7506bd2
(``tests/data/make_study_before_43.py``), whose ``Label`` / ``LabelEvent`` spelled their judgement
fields by hand and whose human checks had their own abstract pair in ``frames``. Its rows come back
with their values and histories, and the save path takes up where they left off."""

from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.annotating import save_judgement
from annotation.models import FoldItem, Label, LabelEvent
from frames.checking import save_frame_check
from frames.models import AttributeCheck, AttributeCheckEvent, FrameCheck, FrameCheckEvent

ARCHIVE = Path(__file__).parents[1] / "data" / "study-before-43.zip"

pytestmark = pytest.mark.django_db


@pytest.fixture
def restored():
    call_command("import_study", str(ARCHIVE), corpus="restored", verbosity=0)
    return "restored"


def _labels(corpus):
    rows = Label.objects.filter(triplet__question__corpus__name=corpus).order_by("triplet__question__position", "pk")
    return [
        (
            label.annotator.username,
            label.fold.kind,
            label.value,
            label.skipped,
            label.seconds_spent,
            [(e.value, e.skipped, e.seconds, e.submission_id) for e in label.events.order_by("pk")],
        )
        for label in rows
    ]


def test_labels_and_their_history_come_back(restored):
    labels = _labels(restored)
    assert len(labels) == 4 and {who for who, *_ in labels} == {"ann-before"}
    assert {kind for _, kind, *_ in labels} == {"triplet"}
    events = sorted((e for *_, history in labels for e in history), key=str)
    assert events == sorted(
        [
            ("correct", False, 1.5, "s0"),
            ("partial", False, 2.5, "s1"),
            ("incorrect", False, 3.5, "s2"),
            ("incorrect", False, 2.25, "change"),
            (None, True, 0.5, "skip"),
        ],
        key=str,
    )
    changed = next(label for label in labels if len(label[-1]) == 2)  # the change of mind: two events
    assert changed[2:5] == ("incorrect", False, 1.5 + 2.25)
    skipped = next(label for label in labels if label[-1][0][3] == "skip")
    assert skipped[2:5] == (None, True, 0.5)
    assert LabelEvent.objects.filter(label__triplet__question__corpus__name=restored).count() == 5


def test_frame_and_attribute_checks_come_back(restored):
    checks = FrameCheck.objects.filter(frame_annotation__question__corpus__name=restored).order_by("pk")
    assert [(c.annotator.username, c.frame_rating, c.fe_rating, c.skipped, c.seconds_spent) for c in checks] == [
        ("ann-before", "partial", "partial", False, 4.0),
        ("ann-before", None, None, True, 0.5),
    ]
    events = FrameCheckEvent.objects.filter(frame_check__in=checks).order_by("pk")
    assert [(e.frame_rating, e.fe_rating, e.skipped, e.seconds, e.submission_id) for e in events] == [
        ("full", "partial", False, 3.0, "f1"),
        ("partial", "partial", False, 1.0, "f2"),
        (None, None, True, 0.5, "f3"),
    ]
    attributes = AttributeCheck.objects.filter(question__corpus__name=restored).order_by("pk")
    assert [
        (a.trigger_verdict, a.trigger_start, a.trigger_end, a.dist_class, a.seconds_spent, a.fold.kind)
        for a in attributes
    ] == [("correct", None, None, "1", 4.0, "attribute"), ("other", 0, 3, "2+", 5.0, "attribute")]
    assert list(
        AttributeCheckEvent.objects.filter(attribute_check__in=attributes)
        .order_by("pk")
        .values_list("trigger_verdict", "submission_id")
    ) == [("correct", "a1"), ("other", "a2")]


def test_the_save_path_takes_up_the_restored_rows(restored):
    """A resubmission of an archived submission id is a no-op; a new one updates the restored row."""
    label = Label.objects.get(triplet__question__corpus__name=restored, events__submission_id="change")
    item = FoldItem.objects.get(fold=label.fold, triplet=label.triplet)
    _row, changed = save_judgement(label.annotator, label.fold, item, value="incorrect", submission_id="change")
    assert not changed and label.events.count() == 2
    row, changed = save_judgement(label.annotator, label.fold, item, value="correct", seconds=1.0, submission_id="new")
    assert changed and row.pk == label.pk and (row.value, row.seconds_spent) == ("correct", 1.5 + 2.25 + 1.0)
    check = FrameCheck.objects.get(frame_annotation__question__corpus__name=restored, skipped=True)
    item = FoldItem.objects.get(fold=check.fold, frame_annotation=check.frame_annotation)
    row, changed = save_frame_check(check.annotator, check.fold, item, frame_rating="full", fe_rating="full")
    assert changed and row.pk == check.pk and (row.frame_rating, row.skipped, row.events.count()) == ("full", False, 2)
