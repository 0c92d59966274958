"""Frame folds on annotation's pages through the fold-kind registry (annotation never imports frames):
the admin's fold page builds them and counts checks; the check service raises a domain error, the
views answer 404."""

import doctest

import pytest
from django.urls import reverse

from annotation import fold_kinds
from annotation.assignments import assign_fold
from annotation.models import Fold
from frames import checking
from frames.folds import create_frame_folds

pytestmark = pytest.mark.django_db


def test_frames_registers_the_frame_kind():
    kind = fold_kinds.get(Fold.KIND_FRAME)
    assert kind.progress == checking.FRAME_CHECK.fold_progress and kind.build_action == "build_frames"
    assert fold_kinds.by_action("build_frames") is kind and fold_kinds.get(Fold.KIND_TRIPLET) is not None


def test_the_registry_examples_run_and_each_check_kind_has_its_card():
    assert doctest.testmod(fold_kinds).failed == 0
    cards = fold_kinds.built_by_form()
    assert list(cards) == [Fold.KIND_FRAME, Fold.KIND_ATTRIBUTE]
    assert [(k.item, str(k.words.title)) for k in cards.values()] == [
        ("frame_annotation", "Frame-check folds"),
        ("question", "Attribute-check folds"),
    ]
    assert fold_kinds.get(Fold.KIND_TRIPLET).item == "triplet" and Fold.KIND_TRIPLET not in cards


def test_fold_page_builds_frame_folds_and_counts_checks(client, framed_corpus, make_user):
    client.force_login(make_user("boss", "admin"))
    page = client.get(reverse("fold-assignments"), {"corpus": framed_corpus.name}).content.decode()
    assert 'name="frame_k"' in page and "Build frame-check folds" in page
    resp = client.post(
        reverse("fold-action", args=[framed_corpus.pk]),
        {"action": "build_frames", "frame_k": 2, "frame_seed": 0, "frame_overlap": 1.0},
        follow=True,
    )
    assert "built 2 frame-check folds" in resp.content.decode()
    fold = Fold.objects.filter(kind=Fold.KIND_FRAME).order_by("index").first()
    checker = make_user("checker", "annotator")
    assign_fold(fold, checker)
    item = checking.FRAME_CHECK.next_item(fold, checker)
    checking.save_frame_check(checker, fold, item, frame_rating="full", fe_rating="partial")
    table = client.get(reverse("fold-assignments"), {"corpus": framed_corpus.name}).context["table"]
    people = {row["fold"].pk: row["people"] for row in table}
    assert [done for _, done in people[fold.pk]] == [1]
    bad = client.post(
        reverse("fold-action", args=[framed_corpus.pk]), {"action": "build_frames", "frame_k": 0}, follow=True
    )
    assert "frame_k" in bad.content.decode() and Fold.objects.filter(kind=Fold.KIND_FRAME).count() == 2


def test_out_of_reach_is_a_domain_error_and_a_404(client, framed_corpus, make_user):
    fold = create_frame_folds(framed_corpus, k=1)[0]
    stranger = make_user("stranger", "annotator")
    with pytest.raises(checking.FrameCheckNotFound):
        checking.FRAME_CHECK.get_assigned_fold(stranger, fold.pk)
    assign_fold(fold, stranger)
    with pytest.raises(checking.FrameCheckNotFound):
        checking.FRAME_CHECK.get_fold_item(fold, 10**9)
    client.force_login(stranger)
    assert client.get(reverse("frame-check-item", args=[fold.pk, 10**9])).status_code == 404


def test_the_fold_page_says_what_to_do_when_frames_are_missing(client, tiny_corpus, framed_corpus, make_user):
    """Issue 27, point 6: no predicted frame -> no build form, a link to predict frames; a running
    frame job -> a link to its job page; frames -> how many questions, and the form."""
    from core.models import Job
    from core.runner import create_job

    client.force_login(make_user("boss", "admin"))
    page = client.get(reverse("fold-assignments"), {"corpus": tiny_corpus.name}).content.decode()
    predict = reverse("admin:annotation_predict_frames", args=[tiny_corpus.pk])
    assert "predict frames first" in page and f'href="{predict}"' in page and 'name="frame_k"' not in page
    job = create_job("frames", {"corpus": tiny_corpus.name})
    page = client.get(reverse("fold-assignments"), {"corpus": tiny_corpus.name}).content.decode()
    assert f"under way (job {job.pk})" in page and reverse("admin:core_job_change", args=[job.pk]) in page
    Job.objects.filter(pk=job.pk).update(status=Job.SUCCEEDED)
    page = client.get(reverse("fold-assignments"), {"corpus": framed_corpus.name}).content.decode()
    n = checking.frame_readiness(framed_corpus)[0]
    assert n > 0 and f"{n} questions with a predicted frame" in page and 'name="frame_k"' in page
