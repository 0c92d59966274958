"""Every LaTeX file every report path writes compiles with pdflatex, and the paper tables read like
a paper's (words for headers, numbers rounded, the report's choices in the caption).

The report paths are ``REPORT_PATHS`` (offline, offline with a judge, in the app with frames
predicted and checked, a judge, adjudicated labels and every option of the report job set away from
its default). A new path is one more entry. Two checks keep the list honest without anyone
remembering to extend it: every ``table*`` builder of ``evaluation.render.paper`` must have written
a file on some path, and the in-app path must set every option of ``evaluation.jobs.REPORT_OPTIONS``
(a new option fails the test until the path sets it).
"""

import json
import re
import shutil
import subprocess

import pytest
from django.core.management import call_command
from django.urls import reverse

from tests.conftest import require, write_jsonl
from tests.evaluation.test_ppi import _offline_files
from tests.evaluation.test_report import CORPUS, LABELS, PREDICTIONS

pytestmark = pytest.mark.django_db

# The in-app path's options: each away from its default (so that its choice reaches a caption).
IN_APP_OPTIONS = {
    "systems": ["sys-a", "sys-b"],
    "alpha": 3.0,
    "metric": "hcorrect",
    "n_boot": 30,
    "seed": 7,
    "figures": False,  # figures are not LaTeX; they are looked at in test_report_browser
    "judge": "judge-a",
    "adjudicated": True,
    "include_excluded": False,  # no crowd study here: the choice is still recorded (test_crowd_report sets it)
    "human_aggregate": "majority",
    "significance": "holm",
    "tie_margin": 0.05,
}


def offline(tmp_path):
    out = tmp_path / "offline"
    files = [write_jsonl(tmp_path / n, rows) for n, rows in (("c", CORPUS), ("p", PREDICTIONS), ("l", LABELS))]
    call_command(
        "report",
        corpus=str(files[0]),
        predictions=str(files[1]),
        labels=str(files[2]),
        out=str(out),
        bootstrap=20,
        no_figures=True,
    )
    return out


def offline_judge(tmp_path):
    out = tmp_path / "offline_judge"
    corpus, preds, labels, judge = _offline_files(tmp_path)
    call_command(
        "report",
        corpus=str(corpus),
        predictions=str(preds),
        labels=str(labels),
        judge_labels=str(judge),
        out=str(out),
        bootstrap=20,
        no_figures=True,
        human_aggregate="majority",
    )
    return out


def in_app(tmp_path):
    from evaluation.jobs import report_dir

    return report_dir(in_app_job(tmp_path).pk)


def in_app_job(tmp_path, **options):
    """Frames predicted (scripted LLM) and rated, two systems, labels partly adjudicated, a judge;
    the report job of ``IN_APP_OPTIONS`` (``options`` override them), finished."""
    from django.contrib.auth import get_user_model

    from annotation.importers import import_predictions
    from annotation.models import Adjudication, Label, Triplet
    from evaluation.jobs import REPORT_OPTIONS, start_report
    from evaluation.tasks import build_report
    from frames.models import AttributeCheck, FrameAnnotation, FrameCheck
    from models_runner.models import Judge, JudgeLabel
    from tests.frames.fixtures import add_derivations, build_framed_corpus

    assert set(IN_APP_OPTIONS) == set(REPORT_OPTIONS), "a new report option: set it on the in-app path"
    corpus = build_framed_corpus()
    rows = [
        {"question_id": f"f{i}", "system": s, "answer": "x" if (i + k) % 2 else f"wrong {s} {i}"}
        for i in range(4)
        for k, s in enumerate(("sys-a", "sys-b"))
    ]
    import_predictions(write_jsonl(tmp_path / "app_p.jsonl", rows), corpus)
    users = [get_user_model().objects.create_user(f"ann{i}") for i in range(2)]
    triplets = list(Triplet.objects.filter(question__corpus=corpus).order_by("id"))
    for n, t in enumerate(triplets[:-1]):  # the last one unlabeled: partial coverage
        for user in users:
            Label.objects.create(
                triplet=t, annotator=user, value=("correct", "partial", "incorrect")[(n + user.pk) % 3]
            )
    Adjudication.objects.create(triplet=triplets[0], value="correct", adjudicator=users[0])
    judge = Judge.objects.create(name="judge-a", kind="file")
    JudgeLabel.objects.bulk_create(
        [
            JudgeLabel(judge=judge, triplet=t, value="correct" if t.answer == "x" else "incorrect", source="import")
            for t in triplets
        ]
    )
    for n, fa in enumerate(FrameAnnotation.objects.filter(question__corpus=corpus)):
        for user in users:
            FrameCheck.objects.create(
                frame_annotation=fa,
                annotator=user,
                frame_rating=("full", "partial")[n % 2],
                fe_rating=("full", "erroneous", "partial")[(n + user.pk) % 3],
            )
    add_derivations(corpus)  # issue 26 point 4: humans' checks of the derived attributes
    for n, q in enumerate(corpus.questions.order_by("position")):
        for user in users:
            AttributeCheck.objects.create(
                question=q,
                annotator=user,
                trigger_verdict=("correct", "other")[(n + user.pk) % 2],
                dist_class=("1", "2+")[n % 2],
            )
    job = start_report(corpus, None, **{**IN_APP_OPTIONS, **options})
    build_report(job.pk)
    job.refresh_from_db()
    assert job.status == "succeeded", job.error
    return job


def offline_active(tmp_path):
    from tests.evaluation.test_report_active import files
    from tests.evaluation.test_report_active import offline as active_offline

    out = tmp_path / "offline_active"
    active_offline(files(tmp_path / "active_files"), out)
    return out


REPORT_PATHS = {"offline": offline, "offline_judge": offline_judge, "in_app": in_app, "offline_active": offline_active}


@pytest.fixture
def pdflatex():
    require(shutil.which("pdflatex"), "pdflatex not installed (bin/test installs texlive-latex-recommended)")


def compile_tex(tex, folder):
    run = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-output-directory", str(folder), str(tex)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, f"{tex}:\n{run.stdout[-2000:]}"
    pdf = folder / (tex.stem + ".pdf")
    assert pdf.stat().st_size > 1000
    return pdf


def tabular_body(tex):
    text = tex.read_text()
    return text[text.index(r"\midrule") : text.index(r"\bottomrule")]


def caption(tex):
    return next(line for line in tex.read_text().splitlines() if line.startswith(r"\caption{"))


def test_every_tex_of_every_report_path_compiles_and_reads_like_a_paper_table(pdflatex, tmp_path, settings):
    from evaluation.render import paper

    settings.MEDIA_ROOT = tmp_path / "media"
    written = {}
    for name, build in REPORT_PATHS.items():
        out = build(tmp_path)
        texs = sorted(out.glob("*.tex"))
        assert texs, name
        pdfs = tmp_path / f"pdf_{name}"
        pdfs.mkdir()
        for tex in texs:
            compile_tex(tex, pdfs)
        written[name] = {t.stem: t for t in texs}
        data = json.loads((out / "report.json").read_text())
        for stem, tex in written[name].items():
            if stem.startswith("table"):  # paper tables: words for headers, rounded numbers
                body = tabular_body(tex)
                assert not re.search(r"n\\_total|ci\\_low|n\\_human|\\multirow", tex.read_text()), stem
                assert all(len(d) <= 2 for d in re.findall(r"\d\.(\d+)", body)), f"{stem}: more than 2 decimals"
            if stem != "table4_frame_checks":  # every other table's numbers depend on the choices
                text = caption(tex)
                assert "Choices: " in text and "ROVER Levenshtein alpha" in text, stem
                if data["has_labels"]:
                    assert f"labels {data['human_aggregate']}" in text, stem
    # report.json records every choice that changed a number, on every path
    configs = {name: json.loads((files["table1_systems"].parent / "report.json").read_text())["config"]
               for name, files in written.items()}  # fmt: skip
    choice_keys = {"metric", "human_aggregate", "adjudicated", "include_excluded", "judge", "design",
                   "table_significance", "n_boot", "seed", "alpha", "systems", "dedup_policy"}  # fmt: skip
    assert all(choice_keys <= set(c) for c in configs.values())
    app_config = configs["in_app"]
    assert (app_config["adjudicated"], app_config["judge"], app_config["design"]) == (True, "judge-a", "uniform")
    assert (app_config["n_boot"], app_config["seed"], app_config["alpha"]) == (30, 7, 3.0)
    assert (app_config["table_significance"], app_config["human_aggregate"]) == ("holm", "majority")
    assert (configs["offline_judge"]["judge"], configs["offline"]["judge"]) == ("gpt-judge", None)
    assert configs["offline"]["adjudicated"] is False and configs["offline"]["include_excluded"] is False
    # every paper table builder wrote a file on some path (a new builder needs a path that writes it)
    stems = {stem for files in written.values() for stem in files}
    builders = [n for n in vars(paper) if n.startswith("table") and callable(getattr(paper, n))]
    assert len(builders) >= 5
    for builder in builders:
        assert any(stem.startswith(builder) for stem in stems), f"no report path writes {builder}"
    # the in-app path's choices reached every caption: adjudicated labels, the judge, Holm, the bootstrap
    app = written["in_app"]
    assert {"table_ppi", "table4_frame_checks", "ppi", "frame_checks", "per_frame"} <= set(app)
    for words in (
        "adjudicated labels",
        "judge judge-a",
        "bold: Holm-corrected",
        "30 bootstrap replicates, seed 7",
        "ROVER Levenshtein alpha 3",
        "ROVER voters: sys-a, sys-b",
        "metric \\% Hcorrect",
    ):
        assert words in caption(app["table1_systems"]) or words.replace("\\%", "%") in caption(app["table1_systems"]), (
            words
        )
    ppi_caption = caption(written["offline_judge"]["table_ppi"])
    assert "gpt-judge" in ppi_caption and "uniform design" in ppi_caption and "labels majority" in ppi_caption
    header = tex_header(written["offline_judge"]["table_ppi"])
    assert (
        "Model & Metric & Human / judged & PPI & 95\\% CI & Sequence & Classical & 95\\% CI & $\\lambda$ & Gain"
        in header
    )


def tex_header(tex):
    text = tex.read_text()
    return text[text.index(r"\toprule") : text.index(r"\midrule")]


def test_attribute_checks_table_in_json_csv_latex_and_page(pdflatex, tmp_path, settings, client, make_user):
    """Issue 26 point 4: the accuracy of the derived attributes as humans judged them."""
    from evaluation.jobs import report_dir

    settings.MEDIA_ROOT = tmp_path / "media"
    job = in_app_job(tmp_path)
    out = report_dir(job.pk)
    section = json.loads((out / "report.json").read_text())["attribute_checks"]
    # 4 questions x 2 annotators; the verdict alternates with question and annotator: half correct
    assert section["trigger"]["n"] == 8 and section["trigger"]["correct"] == 4
    assert section["dist_class"]["n"] == 8 and section["dist_class"]["accuracy"] == 1.0  # dist 1 / 3 as derived
    assert section["trigger"]["ci_low"] < 0.5 < section["trigger"]["ci_high"]
    csv = (out / "attribute_checks.csv").read_text()
    assert csv.splitlines()[0] == "attribute,checks,correct,accuracy,ci95_low,ci95_high"
    compile_tex(out / "attribute_checks.tex", tmp_path)
    client.force_login(make_user("res", "researcher"))
    page = client.get(reverse("report-detail", args=[job.pk])).content.decode()
    assert 'id="table-attribute-checks"' in page and "95% Wilson score interval" in page
    assert ">50.0<" in page and ">100.0<" in page
