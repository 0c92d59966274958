"""Admin pages that tell the truth (issue 12, point 5): job list, frame-check folds, removal asks first."""

import pytest
from django.urls import reverse

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import Assignment, Fold
from core.models import Job
from tests.frames.fixtures import framed_corpus  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db


def test_job_progress_text_never_shows_a_zero_total():
    assert Job(progress_done=1057, progress_total=0, status=Job.SUCCEEDED).progress_text == "1057 done"
    assert Job(progress_done=3, progress_total=10, status=Job.RUNNING).progress_text == "3 / 10"
    assert Job(status=Job.CREATED).progress_text == "not started"
    assert (
        Job(error="Traceback...\n  File x\nValueError: bad.jsonl:3: field 'id'\n").error_summary
        == "ValueError: bad.jsonl:3: field 'id'"
    )


def test_job_list_shows_progress_and_error_refreshes_while_running_and_rows_are_read_only(admin_client):
    failed = Job.objects.create(
        kind="import_corpus",
        status=Job.FAILED,
        progress_done=1057,
        error="Traceback\nImportError: data.jsonl:7: field 'question': missing",
    )
    html = admin_client.get(reverse("admin:core_job_changelist")).content.decode()
    assert "1057 done" in html and "1057 / 0" not in html
    assert "data.jsonl:7: field &#x27;question&#x27;: missing" in html
    assert 'http-equiv="refresh"' not in html  # nothing running: no reload
    Job.objects.create(kind="report", status=Job.RUNNING, progress_done=2, progress_total=5)
    html = admin_client.get(reverse("admin:core_job_changelist")).content.decode()
    assert '<meta http-equiv="refresh" content="5">' in html and "2 / 5" in html
    change = admin_client.post(reverse("admin:core_job_change", args=[failed.pk]), {"status": "succeeded"})
    assert change.status_code == 403
    failed.refresh_from_db()
    assert failed.status == Job.FAILED
    view = admin_client.get(reverse("admin:core_job_change", args=[failed.pk])).content.decode()
    assert 'name="_save"' not in view


def test_frame_check_folds_are_built_and_assigned_from_the_folds_page(admin_client, framed_corpus, make_user):  # noqa: F811
    ann, other = make_user("checker", "annotator"), make_user("checker2", "annotator")
    url = reverse("fold-action", args=[framed_corpus.pk])
    resp = admin_client.post(url, {"action": "build_frames", "frame_k": 2, "frame_seed": 0, "frame_overlap": 1.0})
    assert resp.status_code == 302
    frame_folds = Fold.objects.filter(corpus=framed_corpus, kind=Fold.KIND_FRAME)
    assert frame_folds.count() == 2
    page = admin_client.get(reverse("fold-assignments") + f"?corpus={framed_corpus.name}").content.decode()
    assert "Assign every unassigned frame-check fold" in page
    admin_client.post(url, {"action": "assign_all", "kind": "frame"})
    assert Assignment.objects.filter(fold__kind=Fold.KIND_FRAME, annotator=ann).count() == 1
    assert Assignment.objects.filter(fold__kind=Fold.KIND_FRAME, annotator=other).count() == 1
    bad = admin_client.post(
        url, {"action": "build_frames", "frame_k": 0, "frame_seed": 0, "frame_overlap": 1.0}, follow=True
    )
    assert "frame_k" in bad.content.decode() and frame_folds.count() == 2


def test_removing_an_assignment_asks_for_confirmation(admin_client, tiny_corpus, make_user):
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    ann = make_user("ann", "annotator")
    assignment = assign_fold(fold, ann) or Assignment.objects.get(fold=fold, annotator=ann)
    page = admin_client.get(reverse("fold-assignments") + f"?corpus={tiny_corpus.name}").content.decode()
    confirm_url = reverse("fold-unassign", args=[tiny_corpus.pk, assignment.pk])
    assert confirm_url in page and 'value="unassign"' not in page  # no one-click removal on the list
    confirm = admin_client.get(confirm_url)
    assert confirm.status_code == 200 and "Remove ann from" in confirm.content.decode()
    assert Assignment.objects.filter(pk=assignment.pk).exists()  # asking removes nothing
    admin_client.post(
        reverse("fold-action", args=[tiny_corpus.pk]), {"action": "unassign", "assignment": assignment.pk}
    )
    assert not Assignment.objects.filter(pk=assignment.pk).exists()
