"""The report in the app: the Celery task over the database, the researcher pages, the REST API,
and who may reach them (role x endpoint x method)."""

import json

import pytest

from annotation.models import Label, Triplet
from core.models import Job
from evaluation.jobs import report_dir, start_report
from evaluation.report.config import ReportConfig
from evaluation.report.pipeline import compute_report
from evaluation.report_inputs import read_inputs
from evaluation.tasks import build_report

pytestmark = pytest.mark.django_db


def label(corpus, qid, answer, user, value):
    triplet = Triplet.objects.get(question__corpus=corpus, question__external_id=qid, normalized_answer=answer)
    Label.objects.create(triplet=triplet, annotator=user, value=value)


@pytest.fixture
def world(tiny_corpus, make_user, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    users = {r: make_user(r[:3], r) for r in ("annotator", "researcher", "admin")}
    ann2 = make_user("ann2", "annotator")
    label(tiny_corpus, "q1", "Denver Broncos", users["annotator"], "correct")
    label(tiny_corpus, "q1", "Denver Broncos", ann2, "partial")
    label(tiny_corpus, "q1", "Carolina Panthers", users["annotator"], "incorrect")
    label(tiny_corpus, "q2", "Warsaw", users["annotator"], "partial")
    job = run_report(tiny_corpus, users["researcher"], figures=False)
    return {"users": users, "corpus": tiny_corpus, "job": job}


def run_report(corpus, user, **params):
    job = start_report(corpus, user, n_boot=params.pop("n_boot", 50), **params)
    build_report(job.pk)  # the task body, run here (no broker in tests)
    job.refresh_from_db()
    return job


def test_task_computes_report_from_database(world):
    job = run_report(world["corpus"], world["users"]["researcher"])
    assert job.status == Job.SUCCEEDED, job.error
    folder = report_dir(job.pk)
    data = json.loads((folder / "report.json").read_text())
    rows = {r["system"]: r for r in data["systems"]}
    # sys-alpha: q1 triplet (correct, partial) 0.75, q2 partial 0.5, q3 unlabeled
    assert rows["sys-alpha"]["hscore"] == pytest.approx(0.625)
    assert rows["sys-alpha"]["coverage"] == pytest.approx(2 / 3)
    assert rows["sys-beta"]["hscore"] == pytest.approx(0.75)  # " Denver  Broncos" shares the triplet
    assert rows["sys-gamma"]["hscore"] == 0.0
    assert rows["reference"]["hscore"] == pytest.approx(0.625)
    assert data["partitions"]["n_systems"] == 3  # reference does not vote
    assert data["agreement"]["n_items"] == 1
    assert {
        "report.json",
        "systems.csv",
        "systems.tex",
        "figure3_partitions.png",
        "figure3_partitions.pdf",
        "figure3_partitions.svg",
        "table1_systems.csv",
        "table1_systems.tex",
    } <= set(job.result["files"])


def test_database_inputs_match_offline_computation(world):
    q, p, l = read_inputs(world["corpus"]).tables
    assert list(p["system"].unique()) == ["reference", "sys-alpha", "sys-beta", "sys-gamma"]
    a = compute_report(q, p, l, config=ReportConfig(n_boot=0)).data["systems"]
    # the same labels keyed by (question, answer) instead of triplet ids give the same scores
    tmap = {f"t{t.pk}": (t.question.external_id, t.answer) for t in Triplet.objects.select_related("question")}
    offline_labels = l.assign(
        question_id=l["tkey"].map(lambda k: tmap[k][0]), answer=l["tkey"].map(lambda k: tmap[k][1])
    )
    b = compute_report(
        q, p.drop(columns="tkey"), offline_labels.drop(columns="tkey"), config=ReportConfig(n_boot=0)
    ).data["systems"]
    assert a == b


def test_bad_parameters_fail_the_job_with_a_clear_message(world):
    job = start_report(world["corpus"], world["users"]["researcher"], systems=["nope"], n_boot=0)
    build_report(job.pk)
    job.refresh_from_db()
    assert job.status == Job.FAILED
    assert "unknown system(s) for ROVER: nope" in job.error and "Traceback" not in job.error


def test_pages_show_progress_tables_and_figures(world, client):
    client.force_login(world["users"]["researcher"])
    job = run_report(world["corpus"], world["users"]["researcher"])
    page = client.get(f"/research/reports/{job.pk}/").content.decode()
    assert "figure3_partitions.svg" in page and "<table" in page and "sys-alpha" in page
    assert 'hx-trigger="every 1s"' not in page  # finished: no more polling
    pending = start_report(world["corpus"], world["users"]["researcher"])
    page = client.get(f"/research/reports/{pending.pk}/").content.decode()
    assert 'hx-trigger="every 1s"' in page and f"/research/reports/{pending.pk}/progress/" in page
    resp = client.get(f"/research/reports/{job.pk}/progress/", HTTP_HX_REQUEST="true")
    assert resp["HX-Refresh"] == "true"
    resp = client.get(f"/research/reports/{job.pk}/files/systems.csv")
    assert resp.status_code == 200 and b"sys-alpha" in b"".join(resp.streaming_content)
    assert client.get(f"/research/reports/{job.pk}/files/..%2Fsecret").status_code == 404
    assert client.get(f"/research/reports/{job.pk}/files/other.csv").status_code == 404


def test_form_starts_a_report(world, client):
    client.force_login(world["users"]["researcher"])
    resp = client.post(
        "/research/", {"corpus": "tiny", "systems": "sys-beta, sys-alpha", "alpha": 3, "metric": "em", "n_boot": 0}
    )
    job = Job.objects.filter(kind="report").order_by("-id").first()
    assert resp.status_code == 302 and resp["Location"] == f"/research/reports/{job.pk}/"
    assert job.params["systems"] == ["sys-beta", "sys-alpha"] and job.params["metric"] == "em"
    assert client.post("/research/", {"corpus": "missing"}).status_code == 400


def test_api_start_status_json_and_files(world, client):
    client.force_login(world["users"]["researcher"])
    resp = client.post(
        "/research/api/reports/", {"corpus": "tiny", "metric": "f1", "n_boot": 0}, content_type="application/json"
    )
    assert resp.status_code == 202
    new = resp.json()["id"]
    assert client.get(f"/research/api/reports/{new}/").json()["status"] == "created"
    assert client.get(f"/research/api/reports/{new}/report.json").status_code == 409
    job = world["job"]
    data = client.get(f"/research/api/reports/{job.pk}/report.json").json()
    assert data["systems"][0]["system"] == "reference"
    listing = client.get(f"/research/api/reports/{job.pk}/files/").json()
    assert "report.json" in [f["name"] for f in listing["files"]]
    resp = client.get(f"/research/api/reports/{job.pk}/files/systems.tex")
    assert resp.status_code == 200 and b"\\begin{tabular}" in b"".join(resp.streaming_content)
    bad = client.post("/research/api/reports/", {"corpus": "nope"}, content_type="application/json")
    assert bad.status_code == 400 and "no corpus named" in bad.content.decode()


ROLES = ["anonymous", "annotator", "researcher", "admin"]
METHODS = ["get", "post", "put", "delete"]


def endpoints(job):
    j = job.pk
    return [
        ("/research/", "page", {"get", "post"}),
        (f"/research/reports/{j}/", "page", {"get"}),
        (f"/research/reports/{j}/progress/", "page", {"get"}),
        (f"/research/reports/{j}/files/report.json", "page", {"get"}),
        ("/research/api/reports/", "api", {"get", "post"}),
        (f"/research/api/reports/{j}/", "api", {"get"}),
        (f"/research/api/reports/{j}/report.json", "api", {"get"}),
        (f"/research/api/reports/{j}/files/", "api", {"get"}),
        (f"/research/api/reports/{j}/files/report.json", "api", {"get"}),
    ]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("method", METHODS)
def test_role_endpoint_method_matrix(world, client, role, method):
    if role != "anonymous":
        client.force_login(world["users"][role])
    failures = []
    for path, kind, methods in endpoints(world["job"]):
        resp = getattr(client, method)(path, content_type="application/json") if method != "get" else client.get(path)
        code = resp.status_code
        if role == "anonymous":
            ok = (code == 302 and "/login/" in resp["Location"]) if kind == "page" else code in (401, 403)
        elif role == "annotator":
            ok = code == 403
        elif method in methods:
            ok = code not in (401, 403, 404, 405, 500)
        else:
            ok = code == 405
        if not ok:
            failures.append(f"{method.upper()} {path} as {role}: {code}")
    assert not failures, "\n".join(failures)


def test_frame_section_in_database_report(world, make_user):
    from annotation.models import Question
    from frames.models import FrameAnnotation, FrameCheck, FrameLexicon

    lexicon = FrameLexicon.objects.create(name="mini")
    checker_a, checker_b = make_user("fa", "annotator"), make_user("fb", "annotator")
    for i, qid in enumerate(["q1", "q2", "q3"]):
        question = Question.objects.get(corpus=world["corpus"], external_id=qid)
        outcome = FrameAnnotation.NO_TRIGGER if qid == "q3" else FrameAnnotation.DONE
        fa = FrameAnnotation.objects.create(question=question, lexicon=lexicon, outcome=outcome, frame_name="Win")
        if outcome == FrameAnnotation.DONE:
            FrameCheck.objects.create(
                frame_annotation=fa, annotator=checker_a, frame_rating="full", fe_rating="partial"
            )
            FrameCheck.objects.create(
                frame_annotation=fa, annotator=checker_b, frame_rating="full" if i else "erroneous", fe_rating="partial"
            )
    job = run_report(world["corpus"], world["users"]["researcher"], n_boot=0, figures=False)
    assert job.status == Job.SUCCEEDED, job.error
    data = json.loads((report_dir(job.pk) / "report.json").read_text())
    assert data["frames"]["outcomes"]["no_trigger"] == 1
    assert "frame_checks.csv" in job.result["files"]


def test_offline_and_in_app_reports_agree_on_the_same_data(world, tmp_path, settings):
    """The files the app imported, plus its labels exported as a labels file (SPEC 9), give the
    offline command the same report: the reference system, every metric and the agreement."""
    from django.core.management import call_command

    from annotation.pseudonyms import annotator_labels
    from tests.conftest import write_jsonl

    rows = Label.objects.select_related("triplet__question", "annotator")
    # SPEC 18: the app's reports name annotators A01..An (sorted accounts); the labels file says the same
    names = annotator_labels([*rows.values_list("annotator__username", flat=True), "ann2"])
    labels = write_jsonl(
        tmp_path / "labels.jsonl",
        [
            {
                "question_id": r.triplet.question.external_id,
                "answer": r.triplet.answer,
                "annotator": names[r.annotator.username],
                "label": r.value,
            }
            for r in rows.order_by("updated_at", "id")
        ],
    )
    # an extra label on an answer no system gave: it must not change the agreement
    extra = tmp_path / "labels.jsonl"
    with open(extra, "a", encoding="utf-8") as f:
        f.write(
            json.dumps({"question_id": "q2", "answer": "Krakow", "annotator": names["ann2"], "label": "correct"}) + "\n"
        )
    job = run_report(world["corpus"], world["users"]["researcher"], n_boot=0, figures=False)
    app = json.loads((report_dir(job.pk) / "report.json").read_text())
    call_command(
        "report",
        corpus=str(tmp_path / "corpus.jsonl"),
        predictions=str(tmp_path / "predictions.jsonl"),
        labels=str(labels),
        out=str(tmp_path / "offline"),
        bootstrap=0,
        no_figures=True,
    )
    offline = json.loads((tmp_path / "offline" / "report.json").read_text())
    assert [r["system"] for r in offline["systems"]] == [r["system"] for r in app["systems"]]
    assert offline["systems"] == app["systems"]
    assert offline["agreement"] == app["agreement"]
    assert offline["factors"] == app["factors"] and offline["partitions"] == app["partitions"]
