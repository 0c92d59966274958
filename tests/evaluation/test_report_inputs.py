"""The report job's inputs are read in one pass (issue 43 point 7): ``evaluation.report_inputs.read_inputs``
reads each kind of thing once, a fixed number of statements whatever the number of systems, labels or
judge labels; the pure report computed from what it hands over reads no database."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import Adjudication, Corpus, GoldItem, Label, Triplet
from evaluation.report.config import ReportConfig
from evaluation.report.pipeline import compute_report
from evaluation.report_inputs import read_inputs
from models_runner.models import Judge, JudgeLabel
from tests.conftest import write_jsonl

pytestmark = pytest.mark.django_db

LABELS = ("correct", "partial", "incorrect")
# questions, predictions, labels, excluded participants, gold, adjudications, judges, judge labels,
# design, facts (folds started, triplet folds, skipped, imported, gold labelled, the fold design),
# frame outcomes, frame checks, attribute checks, study participants; and whether any judge label exists
# at all before the judges are listed (one EXISTS: the live page reads the same list, issue 46)
READS = 20


def a_corpus(tmp_path, make_user, name, n_systems):
    """A corpus of 4 questions answered by the reference and ``n_systems`` systems (answers of their own),
    each answer labelled by two annotators and by a judge, one gold triplet, one adjudicated triplet."""
    from annotation.importers import import_corpus, import_predictions

    records = [
        {
            "id": f"q{i}",
            "context": f"Passage {i} says gold {i}.",
            "question": f"Question {i}?",
            "answers": [f"gold {i}"],
        }
        for i in range(4)
    ]
    import_corpus(write_jsonl(tmp_path / f"{name}-c.jsonl", records), name)
    corpus = Corpus.objects.get(name=name)
    predictions = [
        {"question_id": f"q{i}", "system": f"s{s}", "answer": f"answer {s}.{i}"}
        for s in range(n_systems)
        for i in range(4)
    ]
    import_predictions(write_jsonl(tmp_path / f"{name}-p.jsonl", predictions), corpus)
    triplets = list(Triplet.objects.filter(question__corpus=corpus).order_by("id"))
    users = [make_user(f"{name}-{who}", "annotator") for who in ("x", "y")]
    judge = Judge.objects.get_or_create(name="judge", kind="file")[0]
    for k, triplet in enumerate(triplets):
        for j, user in enumerate(users):
            Label.objects.create(triplet=triplet, annotator=user, value=LABELS[(k + j) % 3])
        JudgeLabel.objects.create(judge=judge, triplet=triplet, value=LABELS[k % 3], source="import")
    GoldItem.objects.create(triplet=triplets[0], expected="correct")
    Adjudication.objects.create(triplet=triplets[1], value="correct")
    return corpus


def reads(corpus, **options):
    with CaptureQueriesContext(connection) as queries:
        inputs = read_inputs(corpus, **options)
    return inputs, len(queries)


def test_the_inputs_are_read_in_a_fixed_number_of_statements_whatever_the_systems(tmp_path, make_user):
    small, n_small = reads(a_corpus(tmp_path, make_user, "small", 2), adjudicated=True)
    large, n_large = reads(a_corpus(tmp_path, make_user, "large", 5), adjudicated=True)
    assert (n_small, n_large) == (READS, READS)
    # what was read is all there: every prediction (the reference's too), both annotators' labels of
    # each triplet, the judge's, gold, facts
    assert (len(small.predictions), len(large.predictions)) == (4 + 8, 4 + 20)
    assert (len(small.labels), len(large.labels)) == (2 * 12, 2 * 24)
    assert len(large.extras.judge_labels) == 24 and len(large.extras.crowd_labels) == 48
    assert large.extras.facts["gold"] == 1 and len(large.extras.facts["gold_keys"]) == 1
    # without adjudication nor judge, four reads fewer (no adjudications, no judges nor their EXISTS, no judge labels)
    _, n_plain = reads(Corpus.objects.get(name="large"), judge="")
    assert n_plain == READS - 4


def test_one_read_of_the_labels_gives_the_reports_labels_and_the_crowds(tmp_path, make_user):
    corpus = a_corpus(tmp_path, make_user, "c", 3)
    first, adjudicated = (f"t{t.pk}" for t in Triplet.objects.order_by("id")[:2])
    inputs = read_inputs(corpus, adjudicated=True)
    labels, crowd = inputs.labels, inputs.extras.crowd_labels
    # the same labels, in two shapes: the report's named A01, A02 (SPEC 18), the crowd's by account
    assert sorted(labels["tkey"]) == sorted(crowd["tkey"]) and len(labels) == 2 * 16
    assert set(labels["annotator"]) == {"A01", "A02"} and set(crowd["annotator"]) == {"c-x", "c-y"}
    assert not crowd["excluded"].any() and inputs.extras.from_study is False
    for table in (labels, crowd):
        assert set(table.loc[table["tkey"] == adjudicated, "label"]) == {"correct"}  # the admin's decision
        assert set(table.loc[table["tkey"] == first, "gold"]) == {"correct"}  # the gold item's label
        assert table.loc[table["tkey"] != first, "gold"].isna().all()
    assert inputs.extras.facts["gold_keys"] == [first]
    # without adjudication, the annotators' own labels
    own = read_inputs(corpus).labels
    assert len(set(own.loc[own["tkey"] == adjudicated, "label"])) == 2


def test_the_report_computed_from_the_inputs_reads_no_database(tmp_path, make_user):
    inputs = read_inputs(a_corpus(tmp_path, make_user, "c", 3))
    with CaptureQueriesContext(connection) as queries:
        report = compute_report(
            inputs.questions,
            inputs.predictions,
            inputs.labels,
            config=ReportConfig(n_boot=10),
            extras=inputs.extras,
        )
    assert list(queries) == []
    assert report.data["n_questions"] == 4 and report.data["judge"]


def test_a_corpus_without_predictions_or_an_unknown_judge_is_refused(tmp_path, make_user):
    corpus = a_corpus(tmp_path, make_user, "c", 2)
    with pytest.raises(ValueError, match="no judge named 'nobody'"):
        read_inputs(corpus, judge="nobody")
    with pytest.raises(ValueError, match="corpus empty has no predictions"):
        read_inputs(Corpus.objects.create(name="empty"))
