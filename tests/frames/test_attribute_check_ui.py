"""Attribute-check folds (issue 26 point 4): building them, the annotator's page, saving checks, the
report's accuracy table."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.assignments import assign_fold
from annotation.fold_store import FoldError
from annotation.models import Assignment, Fold
from evaluation.science import attribute_check_stats as stats
from frames import attribute_checks as checks
from frames.attribute_checks import AttributeFoldError, create_attribute_folds, plan_attribute_folds
from frames.models import AttributeCheck, AttributeCheckEvent
from stats.intervals import wilson
from tests.frames.fixtures import add_derivations

pytestmark = pytest.mark.django_db


def test_plan_is_seeded_and_samples():
    plans = plan_attribute_folds(range(50), k=2, seed=1, overlap=1.0, sample=20)
    a, b = ({x for x, _, _ in p.items} for p in plans)
    assert a == b and len(a) == 20
    assert plan_attribute_folds(range(50), k=2, seed=1, overlap=1.0, sample=20)[0].items == plans[0].items
    with pytest.raises(AttributeFoldError):
        plan_attribute_folds([], k=1)
    with pytest.raises(AttributeFoldError):
        plan_attribute_folds(range(5), sample=0)


def test_checkable_needs_trigger_and_answer():
    rows = [
        (1, {"derivation": {"trigger": {"start": 0, "end": 2}, "answer": {"start": 3, "end": 4}}}),
        (2, {"derivation": {"answer": {"start": 3, "end": 4}, "missing": {"dist": "no_context_trigger"}}}),
        (3, {}),
    ]
    assert checks.checkable(rows) == [1]


def test_passage_words_keep_offsets_and_marks():
    context = "Le club a gagné le match."
    words = checks.passage_words(checks.passage_segments(context, (10, 15), (16, 24)))
    assert "".join(t for _, _, t, _, _ in words) == context
    assert all(context[s:e] == t for s, e, t, _, _ in words)
    assert [(t, k) for _, _, t, k, w in words if k] == [
        ("gagné", "trigger"),
        ("le", "answer"),
        (" ", "answer"),
        ("match", "answer"),
    ]
    # a span outside the text is ignored rather than cut
    assert checks.passage_segments("abc", (1, 9), (0, 1)) == [(0, "a", "answer"), (1, "bc", "")]


def test_accuracy_with_wilson_interval():
    rows = [
        {"question_id": f"q{i}", "annotator": "a", "derived_dist": d, "trigger_verdict": v, "dist_class": c}
        for i, (d, v, c) in enumerate(
            [(1, "correct", "1"), (1, "correct", "2+"), (3, "other", "2+"), (2, "absent", None), (None, "correct", "1")]
        )
    ] + [{"question_id": "q9", "annotator": "b", "derived_dist": 1, "trigger_verdict": None, "dist_class": None}]
    t = stats.table(rows)
    assert t["trigger"] == {**t["trigger"], "n": 5, "correct": 3, "accuracy": 0.6}
    assert (t["dist_class"]["n"], t["dist_class"]["correct"]) == (3, 2)  # the absent and unknown-dist ones left out
    assert t["verdicts"] == {"correct": 3, "other": 1, "absent": 1} and t["annotators"] == 1
    low, high = t["trigger"]["ci_low"], t["trigger"]["ci_high"]
    assert 0.2 < low < 0.6 < high < 0.95
    assert wilson(0, 0) == (None, None) and wilson(5, 5)[1] == 1.0
    assert stats.table([]) is None


def test_create_folds_needs_derived_attributes(framed_corpus):
    with pytest.raises(AttributeFoldError, match="no derived attributes yet"):
        create_attribute_folds(framed_corpus)
    add_derivations(framed_corpus, skip_positions={3})
    folds = create_attribute_folds(framed_corpus, k=2, overlap=1.0)
    assert [f.kind for f in folds] == ["attribute", "attribute"]
    items = [i for f in folds for i in f.items.all()]
    assert len(items) == 6 and all(i.question_id and i.question.position != 3 for i in items)


def test_folds_page_builds_and_says_what_is_missing(client, framed_corpus, make_user):
    client.force_login(make_user("boss", "admin"))
    page = client.get(reverse("fold-assignments"), {"corpus": framed_corpus.name}).content.decode()
    assert 'id="attribute-next-step"' in page and "derive attributes first" in page
    resp = client.post(
        reverse("fold-action", args=[framed_corpus.pk]),
        {"action": "build_attributes", "attribute_k": 1, "attribute_seed": 0, "attribute_overlap": 0},
        follow=True,
    )
    assert any("no derived attributes yet" in str(m) for m in resp.context["messages"])
    add_derivations(framed_corpus)
    resp = client.post(
        reverse("fold-action", args=[framed_corpus.pk]),
        {"action": "build_attributes", "attribute_k": 1, "attribute_seed": 0, "attribute_overlap": 0},
        follow=True,
    )
    assert Fold.objects.filter(corpus=framed_corpus, kind="attribute").count() == 1
    resp = client.post(
        reverse("fold-action", args=[framed_corpus.pk]),
        {"action": "build_attributes", "attribute_k": 1, "attribute_seed": 2**40, "attribute_overlap": 0},
        follow=True,
    )
    assert resp.status_code == 200 and Fold.objects.filter(corpus=framed_corpus, kind="attribute").count() == 1


def test_disjoint_attribute_folds_go_to_one_annotator_and_overlapping_ones_do_not(framed_corpus, make_user):
    """Items are told apart by the field their kind names (``FoldKind.item``: the question), so two
    folds of different questions are no clash, and two of the same questions are."""
    add_derivations(framed_corpus)
    first, second = create_attribute_folds(framed_corpus, k=2, overlap=0.0)
    user = make_user("checker", "annotator")
    assign_fold(first, user)
    assign_fold(second, user)
    assert set(Fold.objects.filter(assignments__annotator=user).values_list("pk", flat=True)) == {first.pk, second.pk}
    first, second = create_attribute_folds(framed_corpus, k=2, overlap=1.0, replace=True)
    other = make_user("other", "annotator")
    assign_fold(first, other)
    with pytest.raises(FoldError, match="already has 4 of this fold's items"):
        assign_fold(second, other)


def test_assign_folds_command_knows_every_registered_kind(framed_corpus, make_user):
    add_derivations(framed_corpus)
    folds = create_attribute_folds(framed_corpus, k=2, overlap=0.0)
    make_user("checker", "annotator")
    out = io.StringIO()
    call_command("assign_folds", corpus=framed_corpus.name, kind="attribute", stdout=out)
    assert out.getvalue().strip() == "assigned 2 folds"
    assert {a.fold_id for a in Assignment.objects.filter(annotator__username="checker")} == {f.pk for f in folds}
    with pytest.raises(CommandError, match="invalid choice: 'toy'"):
        call_command("assign_folds", "--corpus", framed_corpus.name, "--kind", "toy")


@pytest.fixture
def fold_and_user(framed_corpus, make_user):
    add_derivations(framed_corpus)
    fold = create_attribute_folds(framed_corpus, k=1)[0]
    user = make_user("checker", "annotator")
    assign_fold(fold, user)
    return fold, user


def post(client, fold, **data):
    return client.post(reverse("attribute-check-rate", args=[fold.pk]), data, HTTP_HX_REQUEST="true")


def test_page_marks_trigger_and_answer_and_saves(client, fold_and_user):
    fold, user = fold_and_user
    client.force_login(user)
    page = client.get(reverse("attribute-check", args=[fold.pk]))
    html = page.content.decode()
    first = checks.ATTRIBUTE_CHECK.next_item(fold, user)
    assert f'data-item="{first.handle}"' in html and f"item/{first.pk}/" not in html
    assert '<span class="w k-trigger" data-start="' in html and '<span class="w k-answer"' in html
    assert "scripted" not in html  # no model/system name on the annotator's page
    # "other" without a word is refused with a clear 400; a word outside the passage too
    assert post(client, fold, item=first.handle, trigger_verdict="other", dist_class="1").status_code == 400
    bad = post(
        client, fold, item=first.handle, trigger_verdict="other", trigger_start=0, trigger_end=10**6, dist_class="1"
    )
    assert bad.status_code == 400
    assert post(client, fold, item=first.handle, trigger_verdict="correct", dist_class="3").status_code == 400
    assert post(client, fold, item=str(2**70), trigger_verdict="correct", dist_class="1").status_code in (400, 404)
    ok = post(
        client,
        fold,
        item=first.handle,
        trigger_verdict="other",
        trigger_start=0,
        trigger_end=9,
        dist_class="2+",
        submission_id="s1",
    )
    assert ok.status_code == 200
    row = AttributeCheck.objects.get(question=first.question, annotator=user)
    assert (row.trigger_verdict, row.trigger_start, row.trigger_end, row.dist_class) == ("other", 0, 9, "2+")
    again = post(
        client,
        fold,
        item=first.handle,
        trigger_verdict="other",
        trigger_start=0,
        trigger_end=9,
        dist_class="2+",
        submission_id="s1",
    )
    assert again.status_code == 200 and AttributeCheckEvent.objects.count() == 1
    second = checks.ATTRIBUTE_CHECK.next_item(fold, user)
    assert second != first
    post(client, fold, item=second.handle, trigger_verdict="absent", dist_class="1")
    row2 = AttributeCheck.objects.get(question=second.question, annotator=user)
    assert (row2.trigger_verdict, row2.dist_class) == ("absent", None)
    assert checks.ATTRIBUTE_CHECK.fold_progress(fold, user).done == 2
    rows = checks.attribute_check_rows(fold.corpus)
    assert {r["trigger_verdict"] for r in rows} == {"other", "absent"}


def test_other_annotator_and_other_roles_get_404_or_403(client, fold_and_user, make_user):
    fold, user = fold_and_user
    item = fold.items.first()
    client.force_login(make_user("stranger", "annotator"))
    assert client.get(reverse("attribute-check", args=[fold.pk])).status_code == 404
    assert client.get(reverse("attribute-check-item", args=[fold.pk, item.handle])).status_code == 404
    assert post(client, fold, item=item.handle, trigger_verdict="correct", dist_class="1").status_code == 404
    client.force_login(user)
    assert client.get(reverse("attribute-check-item", args=[fold.pk, item.handle + 1])).status_code == 404
    home = client.get(reverse("home")).content.decode()
    assert reverse("attribute-check", args=[fold.pk]) in home
