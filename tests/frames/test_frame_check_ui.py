"""Frame-check folds and the annotator's frame-check page through Django's test client."""

import pytest
from django.urls import reverse

from annotation.assignments import assign_fold
from annotation.fold_store import FoldError
from annotation.models import Fold
from frames import checking as frame_checking
from frames.folds import FrameFoldError, create_frame_folds, plan_frame_folds
from frames.models import FrameAnnotation, FrameCheck, FrameCheckEvent

pytestmark = pytest.mark.django_db


def test_plan_frame_folds_is_pure_and_seeded():
    plans = plan_frame_folds(range(100), k=2, seed=3, overlap=1.0, sample=50)
    a, b = ({x for x, _, _ in p.items} for p in plans)
    assert a == b and len(a) == 50  # two annotators on the same 50 sampled questions (paper Table 4)
    assert plan_frame_folds(range(100), k=2, seed=3, overlap=1.0, sample=50)[0].items == plans[0].items
    other = {x for x, _, _ in plan_frame_folds(range(100), k=2, seed=4, overlap=1.0, sample=50)[0].items}
    assert other != a
    with pytest.raises(FrameFoldError):
        plan_frame_folds([], k=1)


def test_create_frame_folds_only_done_annotations(framed_corpus):
    FrameAnnotation.objects.filter(question__position=3).update(outcome="bad_output")
    folds = create_frame_folds(framed_corpus, k=2, seed=0)
    assert [f.kind for f in folds] == ["frame", "frame"]
    items = [i for f in folds for i in f.items.all()]
    assert len(items) == 3 and all(i.triplet_id is None and i.frame_annotation.outcome == "done" for i in items)
    with pytest.raises(FrameFoldError, match="already has 2 frame folds"):
        create_frame_folds(framed_corpus)
    assert len(create_frame_folds(framed_corpus, k=1, replace=True)) == 1


def test_question_segments_marks_trigger_and_spans():
    segs = frame_checking.question_segments(
        "What year was Beyoncé born?", "born", {"Child": "beyoncé", "Time": "What year", "X": "absent"}
    )
    assert segs == [
        ("What year", "fe", "Time"),
        (" was ", "", ""),
        ("Beyoncé", "fe", "Child"),
        (" ", "", ""),
        ("born", "trigger", "born"),
        ("?", "", ""),
    ]
    assert "".join(t for t, _, _ in segs) == "What year was Beyoncé born?"


@pytest.fixture
def fold_for(framed_corpus, make_user):
    def make(username="checker"):
        fold = (
            create_frame_folds(framed_corpus, k=1)[0]
            if not Fold.objects.filter(kind="frame").exists()
            else Fold.objects.get(kind="frame")
        )
        user = make_user(username, "annotator")
        assign_fold(fold, user)
        return fold, user

    return make


def post(client, fold, **data):
    return client.post(reverse("frame-check-rate", args=[fold.pk]), data, HTTP_HX_REQUEST="true")


def test_rate_skip_back_and_double_submit(client, fold_for):
    fold, user = fold_for()
    client.force_login(user)
    page = client.get(reverse("frame-check", args=[fold.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    first = frame_checking.FRAME_CHECK.next_item(fold, user)
    fa = first.frame_annotation
    assert fa.frame.name in html and fa.frame.definition in html and fa.trigger in html
    for name, span in fa.frame_elements.items():
        assert name in html and span in html
    assert "0 / 4" in html and "Guidelines" in html

    r = post(
        client, fold, item=first.handle, frame_rating="full", fe_rating="partial", submission_id="s1", seconds="2.5"
    )
    assert r.status_code == 200 and "1 / 4" in r.content.decode()
    retry = post(client, fold, item=first.handle, frame_rating="full", fe_rating="partial", submission_id="s1")
    assert retry.status_code == 200  # a retry of the same submission is a no-op
    changed = post(client, fold, item=first.handle, frame_rating="erroneous", fe_rating="erroneous", submission_id="s1")
    assert changed.status_code == 409 and "already used" in changed.content.decode()  # never dropped silently
    check = FrameCheck.objects.get(frame_annotation=fa, annotator=user)
    assert (check.frame_rating, check.fe_rating, check.seconds_spent) == ("full", "partial", 2.5)
    assert FrameCheckEvent.objects.filter(frame_check=check).count() == 1

    second = frame_checking.FRAME_CHECK.next_item(fold, user)
    post(client, fold, item=second.handle, action="skip", submission_id="s2")
    assert frame_checking.FRAME_CHECK.fold_progress(fold, user).skipped == 1
    assert post(client, fold, item=second.handle, frame_rating="full", submission_id="s3").status_code == 400
    assert (
        post(client, fold, item=second.handle, frame_rating="full", fe_rating="correct", submission_id="s4").status_code
        == 400
    )

    # going back to the first item and changing it keeps the history
    back = client.get(
        reverse("frame-check-previous", args=[fold.pk]) + f"?before={second.position}", HTTP_HX_REQUEST="true"
    )
    assert f'value="{first.handle}"' in back.content.decode() and 'name="revisit"' in back.content.decode()
    post(client, fold, item=first.handle, frame_rating="partial", fe_rating="full", submission_id="s5", revisit="1")
    check.refresh_from_db()
    assert (check.frame_rating, check.fe_rating) == ("partial", "full")
    assert list(check.events.values_list("frame_rating", flat=True)) == ["full", "partial"]
    assert FrameCheck.objects.count() == 2


def test_permissions(client, fold_for, make_user, framed_corpus):
    fold, user = fold_for()
    other = make_user("other", "annotator")
    client.force_login(other)
    assert client.get(reverse("frame-check", args=[fold.pk])).status_code == 404
    item = fold.items.first()
    assert post(client, fold, item=item.handle, frame_rating="full", fe_rating="full").status_code == 404
    researcher = make_user("res", "researcher")
    client.force_login(researcher)
    assert client.get(reverse("frame-check", args=[fold.pk])).status_code == 403
    client.logout()
    assert client.get(reverse("frame-check", args=[fold.pk])).status_code == 302
    # a triplet page URL never serves a frame fold
    client.force_login(user)
    assert client.get(reverse("annotate", args=[fold.pk])).status_code == 404
    home = client.get(reverse("home")).content.decode()
    assert f"/frames/check/{fold.pk}/" in home and "0 / 4" in home


def test_fold_finished_page(client, fold_for):
    fold, user = fold_for()
    for item in fold.items.all():
        frame_checking.save_frame_check(user, fold, item, frame_rating="full", fe_rating="full")
    client.force_login(user)
    html = client.get(reverse("frame-check", args=[fold.pk])).content.decode()
    assert "Fold finished" in html and "4 / 4" in html


def test_overlap_fold_never_goes_twice_to_one_annotator(framed_corpus, make_user):
    first, second = create_frame_folds(framed_corpus, k=2, overlap=1.0)
    user = make_user("ann", "annotator")
    assign_fold(first, user)
    with pytest.raises(FoldError, match="never judges the same item twice"):
        assign_fold(second, user)


def test_report_from_database_rows(framed_corpus, make_user):
    from evaluation.science.frame_check_stats import frame_report
    from frames.proxy_store import outcome_rows

    first, second = create_frame_folds(framed_corpus, k=2, overlap=1.0)
    a, b = make_user("a", "annotator"), make_user("b", "annotator")
    assign_fold(first, a)
    assign_fold(second, b)
    ratings = {"a": ["full", "full", "partial", "erroneous"], "b": ["full", "partial", "partial", "erroneous"]}
    for user, fold in ((a, first), (b, second)):
        items = sorted(fold.items.all(), key=lambda i: i.frame_annotation_id)
        for item, value in zip(items, ratings[user.username]):
            frame_checking.save_frame_check(user, fold, item, frame_rating=value, fe_rating="full")
    rows = frame_checking.frame_check_rows(framed_corpus)
    assert len(rows) == 8 and {r["annotator"] for r in rows} == {"A01", "A02"}  # never by account (SPEC 18)
    report = frame_report(outcome_rows(framed_corpus), rows)
    assert report["outcomes"]["done"] == 4 and report["outcomes"]["total"] == 4
    assert report["table4"]["frame"]["counts"] == {"full": 3, "partial": 3, "erroneous": 2}
    assert report["table4"]["fes"]["full"] == 100.0
    assert report["agreement"]["frame"]["n_items"] == 4 and 0 < report["agreement"]["frame"]["alpha_ordinal"] < 1
    assert report["agreement"]["fes"]["alpha_nominal"] is None  # no variation


def test_api_my_folds_lists_only_folds_its_next_endpoint_serves(client, fold_for):
    fold, user = fold_for()
    client.force_login(user)
    first = frame_checking.FRAME_CHECK.next_item(fold, user)
    post(client, fold, item=first.handle, frame_rating="full", fe_rating="full", submission_id="p1")
    second = frame_checking.FRAME_CHECK.next_item(fold, user)
    post(client, fold, item=second.handle, action="skip", submission_id="p2")
    # Frame-check folds are labelled on their page (the home page shows their progress); the API's
    # list holds only the folds whose /next/ it answers (issue 27 point 9).
    listed = client.get("/api/my/folds/").json()
    assert fold.pk not in [f["id"] for f in listed]
    for f in listed:
        assert client.get(f["next"]).status_code == 200
    assert client.get(reverse("api-next-item", args=[fold.pk])).status_code == 404
    assert "1 / 4" in client.get(reverse("home")).content.decode()


def test_items_travel_by_handle_and_guidelines_changes_are_announced_once(client, fold_for):
    """Issue 27: frame-check pages name an item by its handle, never its id (the id is refused:
    404), and an edit of the corpus guidelines mid-fold is announced once, with what changed, as on
    the triplet pages."""
    from annotation.models import FoldItem

    fold, user = fold_for()
    client.force_login(user)
    corpus = fold.corpus
    corpus.guidelines = "Rate the frame.\n\nA frame on a wrong trigger is erroneous."
    corpus.save()
    page = client.get(reverse("frame-check", args=[fold.pk])).content.decode()
    assert "Guidelines changed" not in page and 'id="corpus-guidelines"' in page  # first read
    first, second, third = FoldItem.objects.filter(fold=fold).order_by("position")[:3]
    assert f'value="{first.handle}"' in page and f'data-item="{first.handle}"' in page
    assert f'value="{first.pk}"' not in page and f'data-item="{first.pk}"' not in page
    shown = client.get(reverse("frame-check-item", args=[fold.pk, second.handle]))
    assert shown.status_code == 200 and f'value="{second.handle}"' in shown.content.decode()
    if second.pk != second.handle:
        assert client.get(reverse("frame-check-item", args=[fold.pk, second.pk])).status_code == 404
    post(client, fold, item=first.handle, frame_rating="full", fe_rating="full", submission_id="h1")
    corpus.guidelines = "Rate the frame.\n\nA frame on a wrong trigger is partial."
    corpus.save()
    html = post(client, fold, item=second.handle, frame_rating="full", fe_rating="full", submission_id="h2")
    html = html.content.decode()
    assert 'id="guidelines-changed"' in html
    assert "<del>A frame on a wrong trigger is erroneous.</del>" in html
    assert "<ins>A frame on a wrong trigger is partial.</ins>" in html
    assert 'hx-swap-oob="true"' in html  # the corpus guidelines beside the item show the new text
    again = post(client, fold, item=third.handle, frame_rating="full", fe_rating="full", submission_id="h3")
    assert "Guidelines changed" not in again.content.decode()  # once
