"""The report page's figures in the reader's language (issue 32): a report job draws the page's copy
of each figure in French (``<stem>.fr.svg``: French words, decimal comma); the French page shows it,
the English page the paper's English file; the paper's files keep their names and stay in English."""

import re

import pytest
from django.urls import reverse

from evaluation.jobs import report_dir
from tests.evaluation.test_app import run_report, world  # noqa: F401 - world is a fixture

pytestmark = pytest.mark.django_db

STEMS = ("figure3_partitions", "figure4_per_frame", "figure5_combinations")


def svg_text(path):
    """The words drawn in an SVG (matplotlib writes each text as glyph paths after a comment holding it)."""
    return re.findall(r"<!-- (.*?) -->", path.read_text(encoding="utf-8"))


def shown_figures(client, job, language):
    headers = {"HTTP_ACCEPT_LANGUAGE": language} if language else {}
    html = client.get(reverse("report-detail", args=[job.pk]), **headers).content.decode()
    return re.findall(r'<img src="[^"]*/(figure[^"/]+)"', html), html


@pytest.fixture
def figured_job(world):  # noqa: F811
    job = run_report(world["corpus"], world["users"]["researcher"], n_boot=0)
    assert job.status == job.SUCCEEDED, job.error
    return job


def test_report_job_draws_french_page_figures(figured_job):
    folder = report_dir(figured_job.pk)
    files = figured_job.result["files"]
    assert "figure3_partitions.fr.svg" in files
    english, french = svg_text(folder / "figure3_partitions.svg"), svg_text(folder / "figure3_partitions.fr.svg")
    assert "Hscore per ROVER agreement partition" in english and "(labels: mean)" in english
    assert "Hscore par partition d’accord de ROVER" in french and "(étiquettes moyennées)" in french
    assert not any("per ROVER agreement partition" in t or "agreement partition (" in t for t in french)
    assert any(t.startswith("partition d’accord (nombre de systèmes") for t in french)
    assert not any("partition d’accord" in t for t in english)
    # the value axis: a decimal comma in French, a point in English
    assert any(re.fullmatch(r"0,\d+", t) for t in french) and not any(re.fullmatch(r"0\.\d+", t) for t in french)
    assert any(re.fullmatch(r"0\.\d+", t) for t in english) and not any(re.fullmatch(r"0,\d+", t) for t in english)
    # the paper's files: PNG, PDF and SVG under their fixed names, only the page's SVG copy in French
    for stem in (s for s in STEMS if f"{s}.svg" in files):
        assert {f"{stem}.png", f"{stem}.pdf", f"{stem}.svg", f"{stem}.fr.svg"} <= set(files)
        assert f"{stem}.fr.png" not in files and f"{stem}.fr.pdf" not in files


def test_french_page_shows_french_figures_english_page_english(client, world, figured_job):  # noqa: F811
    client.force_login(world["users"]["researcher"])
    english, english_html = shown_figures(client, figured_job, None)
    french, french_html = shown_figures(client, figured_job, "fr")
    assert "figure3_partitions.svg" in english and not any(".fr." in n for n in english)
    assert french == [n.replace(".svg", ".fr.svg") for n in english]
    # the caption names the paper's files, and the downloads list only them
    assert "Fichiers : figure3_partitions.svg" in re.sub(r"<[^>]+>|\s+", " ", french_html).replace("\xa0", " ")
    assert ".fr.svg</code>" not in french_html and ".fr.svg</code>" not in english_html
    served = client.get(reverse("report-file", args=[figured_job.pk, "figure3_partitions.fr.svg"]))
    assert served.status_code == 200 and served["Content-Type"].startswith("image/svg")


def test_report_made_before_shows_english_figures_in_french(client, world, figured_job):  # noqa: F811
    figured_job.result["files"] = [n for n in figured_job.result["files"] if ".fr." not in n]
    figured_job.save(update_fields=["result"])
    client.force_login(world["users"]["researcher"])
    french, _ = shown_figures(client, figured_job, "fr")
    assert "figure3_partitions.svg" in french and not any(".fr." in n for n in french)
