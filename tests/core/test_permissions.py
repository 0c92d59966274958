"""Role x endpoint x method matrix: every URL of the site, every role, the exact status of today.

The URLs come from the resolver (config/urls.py and the apps' urls): a URL without a row in
``MATRIX`` (or a row without a URL) fails ``test_every_url_has_a_row``. Paths are built with
``reverse()`` from the URL names. The Django admin's URLs are keyed by model and view
(``corpus.change``; ``ADMIN_MODELS``, ``ADMIN_OTHERS``), so that a model may move to another app;
an admin URL without a row fails the same test. The objects the URLs name are built once for the
module (``world``); each role's test sends every method to every URL and lists all differences.
"""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "annotator", "researcher", "admin"]
METHODS = ["get", "head", "post", "put", "patch", "delete"]

# One row per URL name and role: the status of GET HEAD POST PUT PATCH DELETE, in that order.
# L: 302 to the login page (?next=the path); H: 302 to the home page; S: 302 to the folds page;
# LI: 302 to the login page itself; R: 302 to a report's page; A: 302 to the fold's annotator
# page; self: 302 to the same path. POSTs carry no data: an allowed POST answers its form's error.
MATRIX = """
# URL name             role        GET  HEAD POST PUT  PATCH DELETE
api-schema             anonymous   401  401  401  401  401  401
api-schema             annotator   403  403  403  403  403  403
api-schema             researcher  200  200  405  405  405  405
api-schema             admin       200  200  405  405  405  405
api-docs               anonymous   200  200  405  405  405  405
api-docs               annotator   403  403  403  403  403  403
api-docs               researcher  200  200  405  405  405  405
api-docs               admin       200  200  405  405  405  405
api-redoc              anonymous   200  200  405  405  405  405
api-redoc              annotator   403  403  403  403  403  403
api-redoc              researcher  200  200  405  405  405  405
api-redoc              admin       200  200  405  405  405  405
reports                anonymous   L    L    L    L    L    L
reports                annotator   403  403  403  403  403  403
reports                researcher  200  405  400  405  405  405
reports                admin       200  405  400  405  405  405
report-detail          anonymous   L    L    L    L    L    L
report-detail          annotator   403  403  403  403  403  403
report-detail          researcher  200  200  405  405  405  405
report-detail          admin       200  200  405  405  405  405
report-progress        anonymous   L    L    L    L    L    L
report-progress        annotator   403  403  403  403  403  403
report-progress        researcher  200  200  405  405  405  405
report-progress        admin       200  200  405  405  405  405
report-file            anonymous   L    L    L    L    L    L
report-file            annotator   403  403  403  403  403  403
report-file            researcher  200  200  405  405  405  405
report-file            admin       200  200  405  405  405  405
conclusions            anonymous   L    L    L    L    L    L
conclusions            annotator   403  403  403  403  403  403
conclusions            researcher  200  200  405  405  405  405
conclusions            admin       200  200  405  405  405  405
conclusions-panel      anonymous   L    L    L    L    L    L
conclusions-panel      annotator   403  403  403  403  403  403
conclusions-panel      researcher  200  200  405  405  405  405
conclusions-panel      admin       200  200  405  405  405  405
api-conclusions        anonymous   401  401  401  401  401  401
api-conclusions        annotator   403  403  403  403  403  403
api-conclusions        researcher  200  200  405  405  405  405
api-conclusions        admin       200  200  405  405  405  405
api-reports            anonymous   401  401  401  401  401  401
api-reports            annotator   403  403  403  403  403  403
api-reports            researcher  200  200  400  405  405  405
api-reports            admin       200  200  400  405  405  405
api-report             anonymous   401  401  401  401  401  401
api-report             annotator   403  403  403  403  403  403
api-report             researcher  200  200  405  405  405  405
api-report             admin       200  200  405  405  405  405
api-report-json        anonymous   401  401  401  401  401  401
api-report-json        annotator   403  403  403  403  403  403
api-report-json        researcher  200  200  405  405  405  405
api-report-json        admin       200  200  405  405  405  405
api-report-files       anonymous   401  401  401  401  401  401
api-report-files       annotator   403  403  403  403  403  403
api-report-files       researcher  200  200  405  405  405  405
api-report-files       admin       200  200  405  405  405  405
api-report-file        anonymous   401  401  401  401  401  401
api-report-file        annotator   403  403  403  403  403  403
api-report-file        researcher  200  200  405  405  405  405
api-report-file        admin       200  200  405  405  405  405
api-study-archive      anonymous   401  401  401  401  401  401
api-study-archive      annotator   403  403  403  403  403  403
api-study-archive      researcher  403  403  403  403  403  403
api-study-archive      admin       200  200  405  405  405  405
api-study-import       anonymous   401  401  401  401  401  401
api-study-import       annotator   403  403  403  403  403  403
api-study-import       researcher  403  403  403  403  403  403
api-study-import       admin       405  405  400  405  405  405
api-runs               anonymous   401  401  401  401  401  401
api-runs               annotator   403  403  403  403  403  403
api-runs               researcher  200  200  403  403  403  403
api-runs               admin       200  200  400  405  405  405
api-run                anonymous   401  401  401  401  401  401
api-run                annotator   403  403  403  403  403  403
api-run                researcher  200  200  403  403  403  403
api-run                admin       200  200  405  405  405  405
api-run-cancel         anonymous   401  401  401  401  401  401
api-run-cancel         annotator   403  403  403  403  403  403
api-run-cancel         researcher  405  405  403  403  403  403
api-run-cancel         admin       405  405  200  405  405  405
api-backends           anonymous   401  401  401  401  401  401
api-backends           annotator   403  403  403  403  403  403
api-backends           researcher  200  200  403  403  403  403
api-backends           admin       200  200  405  405  405  405
home                   anonymous   L    L    L    L    L    L
home                   annotator   200  200  405  405  405  405
home                   researcher  200  200  405  405  405  405
home                   admin       200  200  405  405  405  405
login                  anonymous   200  200  200  200  405  405
login                  annotator   H    H    H    H    H    H
login                  researcher  H    H    H    H    H    H
login                  admin       H    H    H    H    H    H
logout                 anonymous   405  405  LI   405  405  405
logout                 annotator   405  405  LI   405  405  405
logout                 researcher  405  405  LI   405  405  405
logout                 admin       405  405  LI   405  405  405
annotate               anonymous   L    L    L    L    L    L
annotate               annotator   200  405  405  405  405  405
annotate               researcher  403  403  403  403  403  403
annotate               admin       403  403  403  403  403  403
annotate-item          anonymous   L    L    L    L    L    L
annotate-item          annotator   200  405  405  405  405  405
annotate-item          researcher  403  403  403  403  403  403
annotate-item          admin       403  403  403  403  403  403
previous               anonymous   L    L    L    L    L    L
previous               annotator   200  405  405  405  405  405
previous               researcher  403  403  403  403  403  403
previous               admin       403  403  403  403  403  403
judge                  anonymous   L    L    L    L    L    L
judge                  annotator   405  405  400  405  405  405
judge                  researcher  403  403  403  403  403  403
judge                  admin       403  403  403  403  403  403
item-list              anonymous   L    L    L    L    L    L
item-list              annotator   200  200  405  405  405  405
item-list              researcher  403  403  403  403  403  403
item-list              admin       403  403  403  403  403  403
review                 anonymous   L    L    L    L    L    L
review                 annotator   A    A    405  405  405  405
review                 researcher  403  403  403  403  403  403
review                 admin       403  403  403  403  403  403
flag-item              anonymous   L    L    L    L    L    L
flag-item              annotator   405  405  400  405  405  405
flag-item              researcher  403  403  403  403  403  403
flag-item              admin       403  403  403  403  403  403
attribute-check        anonymous   L    L    L    L    L    L
attribute-check        annotator   200  200  405  405  405  405
attribute-check        researcher  403  403  403  403  403  403
attribute-check        admin       403  403  403  403  403  403
attribute-check-item   anonymous   L    L    L    L    L    L
attribute-check-item   annotator   200  200  405  405  405  405
attribute-check-item   researcher  403  403  403  403  403  403
attribute-check-item   admin       403  403  403  403  403  403
attribute-check-previous anonymous L    L    L    L    L    L
attribute-check-previous annotator 200  200  405  405  405  405
attribute-check-previous researcher 403 403  403  403  403  403
attribute-check-previous admin     403  403  403  403  403  403
attribute-check-rate   anonymous   L    L    L    L    L    L
attribute-check-rate   annotator   405  405  400  405  405  405
attribute-check-rate   researcher  403  403  403  403  403  403
attribute-check-rate   admin       403  403  403  403  403  403
frame-check            anonymous   L    L    L    L    L    L
frame-check            annotator   200  200  405  405  405  405
frame-check            researcher  403  403  403  403  403  403
frame-check            admin       403  403  403  403  403  403
frame-check-item       anonymous   L    L    L    L    L    L
frame-check-item       annotator   200  200  405  405  405  405
frame-check-item       researcher  403  403  403  403  403  403
frame-check-item       admin       403  403  403  403  403  403
frame-check-previous   anonymous   L    L    L    L    L    L
frame-check-previous   annotator   200  200  405  405  405  405
frame-check-previous   researcher  403  403  403  403  403  403
frame-check-previous   admin       403  403  403  403  403  403
frame-check-rate       anonymous   L    L    L    L    L    L
frame-check-rate       annotator   405  405  400  405  405  405
frame-check-rate       researcher  403  403  403  403  403  403
frame-check-rate       admin       403  403  403  403  403  403
fold-assignments       anonymous   L    L    L    L    L    L
fold-assignments       annotator   403  403  403  403  403  403
fold-assignments       researcher  403  403  403  403  403  403
fold-assignments       admin       200  200  405  405  405  405
fold-action            anonymous   L    L    L    L    L    L
fold-action            annotator   403  403  403  403  403  403
fold-action            researcher  403  403  403  403  403  403
fold-action            admin       405  405  S    405  405  405
adjudicate             anonymous   L    L    L    L    L    L
adjudicate             annotator   403  403  403  403  403  403
adjudicate             researcher  403  403  403  403  403  403
adjudicate             admin       200  405  self 405  405  405
fold-unassign          anonymous   L    L    L    L    L    L
fold-unassign          annotator   403  403  403  403  403  403
fold-unassign          researcher  403  403  403  403  403  403
fold-unassign          admin       200  200  405  405  405  405
download-labels        anonymous   L    L    L    L    L    L
download-labels        annotator   403  403  403  403  403  403
download-labels        researcher  200  200  405  405  405  405
download-labels        admin       200  200  405  405  405  405
download-design        anonymous   L    L    L    L    L    L
download-design        annotator   403  403  403  403  403  403
download-design        researcher  400  400  405  405  405  405
download-design        admin       400  400  405  405  405  405
download-triplet-map   anonymous   L    L    L    L    L    L
download-triplet-map   annotator   403  403  403  403  403  403
download-triplet-map   researcher  200  200  405  405  405  405
download-triplet-map   admin       200  200  405  405  405  405
download-judge-labels  anonymous   L    L    L    L    L    L
download-judge-labels  annotator   403  403  403  403  403  403
download-judge-labels  researcher  200  200  405  405  405  405
download-judge-labels  admin       200  200  405  405  405  405
download-flags         anonymous   L    L    L    L    L    L
download-flags         annotator   403  403  403  403  403  403
download-flags         researcher  200  200  405  405  405  405
download-flags         admin       200  200  405  405  405  405
api-corpora            anonymous   401  401  401  401  401  401
api-corpora            annotator   403  403  403  403  403  403
api-corpora            researcher  200  200  405  405  405  405
api-corpora            admin       200  200  405  405  405  405
api-corpus             anonymous   401  401  401  401  401  401
api-corpus             annotator   403  403  403  403  403  403
api-corpus             researcher  200  200  405  405  405  405
api-corpus             admin       200  200  405  405  405  405
api-systems            anonymous   401  401  401  401  401  401
api-systems            annotator   403  403  403  403  403  403
api-systems            researcher  200  200  405  405  405  405
api-systems            admin       200  200  405  405  405  405
api-labels             anonymous   401  401  401  401  401  401
api-labels             annotator   403  403  403  403  403  403
api-labels             researcher  200  200  405  405  405  405
api-labels             admin       200  200  405  405  405  405
api-jobs               anonymous   401  401  401  401  401  401
api-jobs               annotator   403  403  403  403  403  403
api-jobs               researcher  200  200  405  405  405  405
api-jobs               admin       200  200  405  405  405  405
api-jobs-health        anonymous   401  401  401  401  401  401
api-jobs-health        annotator   403  403  403  403  403  403
api-jobs-health        researcher  200  200  405  405  405  405
api-jobs-health        admin       200  200  405  405  405  405
set-language           anonymous   405  405  400  405  405  405
set-language           annotator   405  405  400  405  405  405
set-language           researcher  405  405  400  405  405  405
set-language           admin       405  405  400  405  405  405
javascript-catalog     anonymous   200  200  405  405  405  405
javascript-catalog     annotator   200  200  405  405  405  405
javascript-catalog     researcher  200  200  405  405  405  405
javascript-catalog     admin       200  200  405  405  405  405
api-job                anonymous   401  401  401  401  401  401
api-job                annotator   403  403  403  403  403  403
api-job                researcher  200  200  405  405  405  405
api-job                admin       200  200  405  405  405  405
api-job-cancel         anonymous   401  401  401  401  401  401
api-job-cancel         annotator   403  403  403  403  403  403
api-job-cancel         researcher  403  403  403  403  403  403
api-job-cancel         admin       405  405  200  405  405  405
api-imports            anonymous   401  401  401  401  401  401
api-imports            annotator   403  403  403  403  403  403
api-imports            researcher  403  403  403  403  403  403
api-imports            admin       405  405  400  405  405  405
api-attributes         anonymous   401  401  401  401  401  401
api-attributes         annotator   403  403  403  403  403  403
api-attributes         researcher  403  403  403  403  403  403
api-attributes         admin       200  200  400  405  405  405
api-quality            anonymous   401  401  401  401  401  401
api-quality            annotator   403  403  403  403  403  403
api-quality            researcher  403  403  403  403  403  403
api-quality            admin       200  200  405  405  405  405
study-entry            anonymous   400  400  400  405  405  405
study-entry            annotator   400  400  400  405  405  405
study-entry            researcher  400  400  400  405  405  405
study-entry            admin       400  400  400  405  405  405
studies                anonymous   L    L    L    L    L    L
studies                annotator   403  403  403  403  403  403
studies                researcher  403  403  403  403  403  403
studies                admin       200  200  405  405  405  405
study-admin            anonymous   L    L    L    L    L    L
study-admin            annotator   403  403  403  403  403  403
study-admin            researcher  403  403  403  403  403  403
study-admin            admin       200  200  self 405  405  405
study-participants-csv anonymous   L    L    L    L    L    L
study-participants-csv annotator   403  403  403  403  403  403
study-participants-csv researcher  403  403  403  403  403  403
study-participants-csv admin       200  200  405  405  405  405
api-studies            anonymous   401  401  401  401  401  401
api-studies            annotator   403  403  403  403  403  403
api-studies            researcher  403  403  403  403  403  403
api-studies            admin       200  200  400  405  405  405
api-study-participants anonymous   401  401  401  401  401  401
api-study-participants annotator   403  403  403  403  403  403
api-study-participants researcher  403  403  403  403  403  403
api-study-participants admin       200  200  405  405  405  405
api-study-participant-erase anonymous   401  401  401  401  401  401
api-study-participant-erase annotator   403  403  403  403  403  403
api-study-participant-erase researcher  403  403  403  403  403  403
api-study-participant-erase admin       405  405  400  405  405  405
study-participant-data anonymous   L    L    L    L    L    L
study-participant-data annotator   403  403  403  403  403  403
study-participant-data researcher  403  403  403  403  403  403
study-participant-data admin       200  200  405  405  405  405
study-withdraw         anonymous   404  404  404  405  405  405
study-withdraw         annotator   404  404  404  405  405  405
study-withdraw         researcher  404  404  404  405  405  405
study-withdraw         admin       404  404  404  405  405  405
api-my-folds           anonymous   401  401  401  401  401  401
api-my-folds           annotator   200  200  405  405  405  405
api-my-folds           researcher  403  403  403  403  403  403
api-my-folds           admin       403  403  403  403  403  403
api-next-item          anonymous   401  401  401  401  401  401
api-next-item          annotator   200  200  405  405  405  405
api-next-item          researcher  403  403  403  403  403  403
api-next-item          admin       403  403  403  403  403  403
api-item               anonymous   401  401  401  401  401  401
api-item               annotator   200  200  405  405  405  405
api-item               researcher  403  403  403  403  403  403
api-item               admin       403  403  403  403  403  403
api-judge              anonymous   401  401  401  401  401  401
api-judge              annotator   405  405  400  405  405  405
api-judge              researcher  403  403  403  403  403  403
api-judge              admin       403  403  403  403  403  403
"""


def parse_matrix(text):
    rows = {}
    for line in text.strip().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, role, *codes = line.split()
        assert role in ROLES and len(codes) == len(METHODS), line
        rows.setdefault(name, {})[role] = dict(zip(METHODS, codes))
    return rows


def url_patterns(resolver=None, namespace=""):
    """(full URL name, pattern) of every named URL under ``resolver``."""
    for p in (resolver or get_resolver()).url_patterns:
        if isinstance(p, URLResolver):
            yield from url_patterns(p, f"{namespace}{p.namespace}:" if p.namespace else namespace)
        elif isinstance(p, URLPattern) and p.name:
            yield namespace + p.name, p


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):
    """One of each object the URLs name, built once for the module (in a transaction rolled back at
    its end; each test runs in a savepoint of it): folds and their items (labels and frame checks),
    an assignment, a judge, a finished report, an inference run not started. The frame-check folds,
    the report and the run are made through the site itself."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.db import transaction
    from django.test import Client, TestCase, override_settings

    from annotation import studies
    from annotation.models import Assignment, Study
    from config.celery import app
    from models_runner.models import Judge
    from tests.conftest import build_tiny_corpus
    from tests.frames.fixtures import add_derivations, build_framed_corpus

    folder = tmp_path_factory.mktemp("permissions")
    with django_db_blocker.unblock(), transaction.atomic(), override_settings(MEDIA_ROOT=folder / "media"):
        users = {}
        for role, username in (("annotator", "ann"), ("researcher", "res"), ("admin", "adm")):
            # the admin as load_demo makes it: staff, superuser and in the admin group
            users[role] = get_user_model().objects.create_user(
                username, is_staff=role == "admin", is_superuser=role == "admin"
            )
            users[role].groups.add(Group.objects.get_or_create(name=role)[0])
        tiny, framed = build_tiny_corpus(folder), add_derivations(build_framed_corpus())
        Judge.objects.create(name="matrix-judge", prompt="Is {answer} right for {question}? {context}")
        fold = create_folds(tiny, k=2, seed=0, overlap=0)[0]
        assign_fold(fold, users["annotator"])
        client = Client()
        client.force_login(users["admin"])
        for data in (
            {"action": "build_frames", "frame_k": 2, "frame_seed": 0, "frame_overlap": 0},
            {"action": "assign_all", "kind": "frame"},
            {"action": "build_attributes", "attribute_k": 1, "attribute_seed": 0, "attribute_overlap": 0},
            {"action": "assign_all", "kind": "attribute"},
        ):
            resp = client.post(reverse("fold-action", args=[framed.pk]), data, follow=True)
            assert not [str(m) for m in resp.context["messages"] if m.level_tag == "error"]
        with TestCase.captureOnCommitCallbacks(execute=False):
            run = client.post(
                reverse("api-runs"),
                {"corpus": tiny.name, "system": "matrix-run", "backend": "baseline"},
                content_type="application/json",
            )
        assert run.status_code == 202, run.content
        client.force_login(users["researcher"])
        app.conf.task_always_eager = True
        try:
            with override_settings(CELERY_TASK_ALWAYS_EAGER=True), TestCase.captureOnCommitCallbacks(execute=True):
                form = {
                    "corpus": tiny.name,
                    "alpha": 5,
                    "metric": "hscore",
                    "n_boot": 0,
                    "human_aggregate": "mean",
                    "significance": "raw",
                }
                report = client.post(reverse("reports"), form)
        finally:
            app.conf.task_always_eager = False
        assert report.status_code == 302, report.content
        report_pk = resolve(report["Location"]).kwargs["pk"]
        assert client.get(reverse("api-report", args=[report_pk])).json()["status"] == "succeeded"
        frame_fold = (
            Assignment.objects.filter(fold__corpus=framed, fold__kind="frame", annotator=users["annotator"])
            .first()
            .fold
        )
        attribute_fold = Assignment.objects.get(fold__kind="attribute", annotator=users["annotator"]).fold
        study = Study.objects.create(
            slug="matrix", title="Matrix", consent="Agree?", corpus=tiny, completion_code="M", open=True
        )
        matrix_participant, _ = studies.admit(study, ("matrix-p1", "", ""), token="t")
        yield {
            "users": users,
            "fold": fold.pk,
            "item": fold.items.first().handle,  # annotators name items by handle
            "corpus": tiny.pk,
            "assignment": Assignment.objects.get(fold=fold, annotator=users["annotator"]).pk,
            "frame_fold": frame_fold.pk,
            "frame_item": frame_fold.items.first().handle,
            "attribute_fold": attribute_fold.pk,
            "attribute_item": attribute_fold.items.first().handle,
            "report": report_pk,
            "run": run.json()["id"],
            "study": "matrix",
            "code": matrix_participant.code,
        }
        transaction.set_rollback(True)


def url_kwargs(name, w):
    """The arguments of URL ``name`` in the world ``w`` (a URL with arguments missing here fails)."""
    fold, report = {"fold_id": w["fold"]}, {"pk": w["report"]}
    item = {"fold_id": w["fold"], "handle": w["item"]}
    frame, frame_item = {"fold_id": w["frame_fold"]}, {"fold_id": w["frame_fold"], "handle": w["frame_item"]}
    corpus, my_fold = {"corpus_id": w["corpus"]}, {"pk": w["fold"]}
    return {
        "annotate": fold,
        "annotate-item": item,
        "previous": fold,
        "judge": fold,
        "item-list": fold,
        "review": fold,
        "flag-item": fold,
        "frame-check": frame,
        "frame-check-item": frame_item,
        "frame-check-previous": frame,
        "frame-check-rate": frame,
        "attribute-check": {"fold_id": w["attribute_fold"]},
        "attribute-check-item": {"fold_id": w["attribute_fold"], "handle": w["attribute_item"]},
        "attribute-check-previous": {"fold_id": w["attribute_fold"]},
        "attribute-check-rate": {"fold_id": w["attribute_fold"]},
        "fold-action": corpus,
        "adjudicate": corpus,
        "fold-unassign": {**corpus, "assignment_id": w["assignment"]},
        "api-corpus": {"pk": w["corpus"]},
        "api-job": report,
        "api-job-cancel": report,
        "api-next-item": my_fold,
        "api-item": {"pk": w["fold"], "handle": w["item"]},
        "api-judge": my_fold,
        "report-detail": report,
        "report-progress": report,
        "report-file": {**report, "name": "report.json"},
        "api-report": report,
        "api-report-json": report,
        "api-report-files": report,
        "api-report-file": {**report, "name": "report.json"},
        "api-run": {"pk": w["run"]},
        "api-study-archive": {"pk": w["corpus"]},
        "api-run-cancel": {"pk": w["run"]},
        **{name: {"slug": w["study"]} for name in ("study-entry", "study-admin", "study-participants-csv")},
        "api-study-participants": {"slug": w["study"]},
        "study-participant-data": {"slug": w["study"], "code": w["code"]},
        "api-study-participant-erase": {"slug": w["study"], "code": w["code"]},
    }.get(name, {})


QUERY = {"api-quality": "?corpus=tiny", "api-conclusions": "?corpus=tiny"}  # what these GETs need to answer


def request(client, method, path):
    if method in ("put", "patch", "delete"):
        return getattr(client, method)(path, data={}, content_type="application/json")
    return getattr(client, method)(path)


def observed(resp, path, w):
    """The status as the matrix writes it (a redirect by where it goes)."""
    code = resp.status_code
    if code != 302:
        return str(code)
    where = resp["Location"]
    for short, prefix in (("L", f"{reverse('login')}?next="), ("AL", f"{reverse('admin:login')}?next=")):
        if where.startswith(prefix):
            return short
    targets = {
        reverse("home"): "H",
        reverse("login"): "LI",
        reverse("fold-assignments"): "S",
        path: "self",
        reverse("annotate", args=[w["fold"]]): "A",
        reverse("admin:index"): "AI",
    }
    base = where.split("?")[0]
    if base in targets:
        return targets[base]
    if resolve(base).url_name == "report-detail":
        return "R"
    return f"302>{where}"


def site_urls():
    return [(name, p) for name, p in url_patterns() if not name.startswith("admin:")]


# --- the Django admin --------------------------------------------------------------------------

ADMIN_METHODS = ["get", "post"]
# The admin role (a superuser, as load_demo makes it): GET and POST (no data) of each admin URL.
# A model's five views on one line, on its first object (AI where the world holds none: the admin
# answers 302 to its index, "perhaps it was deleted"); read-only admins refuse add (403) and a POST
# on change (403). Every other role gets 302 to the admin's login page on every admin URL ("AL"),
# but for the login page itself (200) and its logout (302 to the admin index, "AI").
ADMIN_MODELS = """
# model            changelist  add      change   delete   history
group              200 200  200 200  200 200  200 200  200 200
user               200 200  200 200  200 200  200 200  200 200
tokenproxy         200 200  200 200  AI  AI   AI  AI   AI  AI
accessattempt      200 200  403 403  AI  AI   AI  AI   AI  AI
accesslog          200 200  403 403  AI  AI   AI  AI   AI  AI
accessfailurelog   200 200  403 403  AI  AI   AI  AI   AI  AI
corpus             200 200  200 200  200 200  200 200  200 200
question           200 200  200 200  200 200  200 200  200 200
system             200 200  200 200  200 200  200 200  200 200
prediction         200 200  200 200  200 200  200 200  200 200
triplet            200 200  200 200  200 200  200 200  200 200
fold               200 200  200 200  200 200  200 200  200 200
label              200 200  200 200  AI  AI   AI  AI   AI  AI
job                200 200  403 403  200 403  200 200  200 200
framelexicon       200 200  200 200  200 200  200 200  200 200
frameannotation    200 200  200 200  200 200  200 200  200 200
framecheck         200 200  200 200  AI  AI   AI  AI   AI  AI
flag               200 200  403 403  AI  AI   AI  AI   AI  AI
golditem           200 200  200 200  AI  AI   AI  AI   AI  AI
adjudication       200 200  200 200  AI  AI   AI  AI   AI  AI
study              200 200  200 200  200 200  200 200  200 200
participant        200 200  403 403  200 200  200 200  200 200
inferencerun       200 200  403 403  200 403  200 200  200 200
llmexchange        200 200  403 403  AI  403  AI  AI   AI  AI
judge              200 200  200 200  200 200  200 200  200 200
judgerun           200 200  403 403  AI  403  AI  AI   AI  AI
judgelabel         200 200  403 403  AI  403  AI  AI   AI  AI
llmendpoint        200 200  200 200  AI  AI   AI  AI   AI  AI
studyarchive       200 200  403 403  200 403  403 403  200 200
"""
ADMIN_OTHERS = """
# the site's own views and the models' custom views (model.view)
index                  200 200
login                  AI  200
logout                 405 LI
password_change        200 200
password_change_done   200 405
autocomplete           403 405
jsi18n                 200 405
view_on_site           404 404
app_list               200 200
user.password_change   200 200
corpus.import          200 200
corpus.predict_frames  200 200
corpus.derive_attributes 200 200
inferencerun.start     200 200
judge.start            200 200
job.status             200 405
framelexicon.upload    200 200
studyarchive.import    200 200
"""
ADMIN_VIEWS = ["changelist", "add", "change", "delete", "history"]


def admin_matrix():
    """{admin URL key: {method: status}} for the admin role."""
    rows = {}
    for line in ADMIN_MODELS.strip().splitlines()[1:]:
        model, *codes = line.split()
        assert len(codes) == 2 * len(ADMIN_VIEWS), line
        for i, view in enumerate(ADMIN_VIEWS):
            rows[f"{model}.{view}"] = dict(zip(ADMIN_METHODS, codes[2 * i : 2 * i + 2]))
    for line in ADMIN_OTHERS.strip().splitlines()[1:]:
        key, *codes = line.split()
        rows[key] = dict(zip(ADMIN_METHODS, codes))
    return rows


def admin_expected(key, role):
    if role == "admin":
        return admin_matrix().get(key)
    return {"login": {"get": "200", "post": "200"}, "logout": {"get": "AI", "post": "AI"}}.get(
        key, {"get": "AL", "post": "AL"}
    )


def admin_url_patterns():
    """(key, URL name, pattern, model) of every URL of the Django admin: key is ``<model>.<view>`` for
    a model's views (``corpus.changelist``, ``corpus.import``: the model's name, not its app's, so
    that a model may change apps), the URL name for the site's own views (``index``)."""
    for name, p in url_patterns():
        if not name.startswith("admin:"):
            continue
        # a model's own views carry their ModelAdmin; a custom view (get_urls) is one of its methods
        model_admin = getattr(p.callback, "model_admin", None) or getattr(
            getattr(p.callback, "__wrapped__", None), "__self__", None
        )
        model = getattr(model_admin, "model", None)
        key = name.removeprefix("admin:")
        if model is not None:
            meta = model._meta
            view = key.removeprefix(f"{meta.app_label}_{meta.model_name}_").removeprefix(f"{meta.app_label}_")
            key = f"{meta.model_name}.{view}"
        yield key, name, p, model


def admin_urls(w):
    """(key, path) of every admin URL; object URLs name the model's first object, or 0 if it has none."""
    from django.contrib.auth import get_user_model
    from django.contrib.contenttypes.models import ContentType

    for key, name, p, model in admin_url_patterns():
        kwargs = {}
        for arg in p.pattern.regex.groupindex:
            if arg == "app_label":
                kwargs[arg] = "auth"
            elif arg == "content_type_id":
                kwargs[arg] = ContentType.objects.get_for_model(get_user_model()).pk
            elif model is None:
                kwargs[arg] = w["users"]["admin"].pk
            else:
                first = model._default_manager.order_by("pk").first()
                kwargs[arg] = first.pk if first else 0
        yield key, reverse(name, kwargs=kwargs)


# --- the tests ---------------------------------------------------------------------------------


def show(key, role, codes):
    return f"{key:22} {role:11} " + " ".join(f"{c:4}" for c in codes).rstrip()


@pytest.mark.parametrize("role", ROLES)
def test_matrix(world, db, client, role):
    """Every URL of the site, then every URL of the admin, as ``role``: the exact status of each method."""
    rows = parse_matrix(MATRIX)

    def login_again():  # a POST to a logout page logs the user out
        if role != "anonymous":
            client.force_login(world["users"][role])

    login_again()
    failures, got = [], []
    for name, _ in site_urls():
        path = reverse(name, kwargs=url_kwargs(name, world))
        codes = []
        for method in METHODS:
            codes.append(observed(request(client, method, path + QUERY.get(name, "")), path, world))
            if name == "logout":
                login_again()
        want = [rows.get(name, {}).get(role, {}).get(m) for m in METHODS]
        got.append(show(name, role, codes))
        if codes != want:
            failures.append(f"{name} as {role}: got {' '.join(codes)}, expected {' '.join(map(str, want))}")
    for key, path in admin_urls(world):
        codes = []
        for method in ADMIN_METHODS:
            codes.append(observed(getattr(client, method)(path), path, world))
            if key == "logout":
                login_again()
        want = [(admin_expected(key, role) or {}).get(m) for m in ADMIN_METHODS]
        got.append(show(f"admin {key}", role, codes))
        if codes != want:
            failures.append(
                f"admin {key} ({path}) as {role}: got {' '.join(codes)}, expected {' '.join(map(str, want))}"
            )
    assert not failures, "\n".join(failures) + "\n\nall answers:\n" + "\n".join(got)


def test_every_url_has_a_row():
    """A new URL (or a removed one) must be written into the matrix: nothing is left unchecked."""
    rows = parse_matrix(MATRIX)
    names = [name for name, _ in site_urls()]
    assert sorted(set(names) - set(rows)) == [], "URLs without rows in MATRIX (one per role)"
    assert sorted(set(rows) - set(names)) == [], "rows of MATRIX for URLs that no longer exist"
    assert [name for name in rows if set(rows[name]) != set(ROLES)] == [], "rows missing a role"
    keys = [key for key, *_ in admin_url_patterns()]
    assert len(keys) == len(set(keys))
    assert sorted(set(keys) - set(admin_matrix())) == [], "admin URLs without a row in ADMIN_MODELS / ADMIN_OTHERS"
    assert sorted(set(admin_matrix()) - set(keys)) == [], "admin rows for URLs that no longer exist"


def test_other_annotator_gets_404_for_fold_they_do_not_have(world, client, make_user):
    client.force_login(make_user("stranger", "annotator"))
    f, i = world["fold"], world["item"]
    for name, kwargs in (
        ("annotate", {"fold_id": f}),
        ("annotate-item", {"fold_id": f, "handle": i}),
        ("api-next-item", {"pk": f}),
        ("api-item", {"pk": f, "handle": i}),
    ):
        assert client.get(reverse(name, kwargs=kwargs)).status_code == 404, name
    assert client.post(reverse("judge", args=[f]), {"item": i, "value": "correct"}).status_code == 404


@pytest.mark.parametrize(
    "url",
    ["admin:annotation_predict_frames", "admin:annotation_derive_attributes", "admin:models_runner_judge_start"],
)
def test_admin_pages_of_a_missing_object_answer_404(client, make_user, url):
    """Found by the matrix: these admin pages crashed (500) for an id that does not exist."""
    client.force_login(make_user("boss", "admin"))
    assert client.get(reverse(url, args=[987654])).status_code == 404
    assert client.post(reverse(url, args=[987654])).status_code == 404
