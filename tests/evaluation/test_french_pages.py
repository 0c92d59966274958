"""The researcher's and admin's pages of evaluation, frames and models_runner in French (issue 25):
the French words are there and the English ones gone, numbers take the French decimal comma on
the pages, and a report's files are the same bytes whatever the reader's language."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from evaluation.jobs import report_dir
from tests.evaluation.test_app import run_report, world  # noqa: F401 - world is a fixture

pytestmark = pytest.mark.django_db


def page(client, path, language):
    resp = client.get(path, **({"HTTP_ACCEPT_LANGUAGE": language} if language else {}))
    assert resp.status_code == 200, (path, resp.status_code)
    return resp.content.decode()


def text_of(html):
    """The text people read: tags, scripts and attributes dropped, spaces collapsed."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def assert_french(client, path, french, english):
    en, fr = text_of(page(client, path, None)), text_of(page(client, path, "fr"))
    for words in english:
        assert words in en, (path, words)  # the English page says it
        assert words not in fr, (path, words)
    for words in french:
        assert words in fr, (path, words)
        assert words not in en, (path, words)
    return fr


def test_reports_list_in_french(client, world):  # noqa: F811
    client.force_login(world["users"]["researcher"])
    fr = assert_french(
        client,
        reverse("reports"),
        french=["Rapports récents", "Nouveau rapport", "Calculer le rapport", "conclusions en direct"],
        english=["Recent reports", "New report", "Compute report", "live conclusions"],
    )
    assert "réussi" in fr  # the job's status in words


def test_report_detail_in_french_with_french_numbers(client, world):  # noqa: F811
    client.force_login(world["users"]["researcher"])
    path = reverse("report-detail", args=[world["job"].pk])
    fr = assert_french(
        client,
        path,
        french=["Choix qui changent les chiffres", "Accord entre annotateurs", "Couverture partielle", "Systèmes"],
        english=["Choices that change the numbers", "Agreement between annotators", "Partial coverage"],
    )
    en = text_of(page(client, path, None))
    # sys-beta's Hscore 0.75 (test_app): a point in English, a comma in French, on the page only
    assert "0.750" in en and "0,750" not in en
    assert "0,750" in fr and "0.750" not in fr


def test_report_files_are_the_same_bytes_in_french(client, world):  # noqa: F811
    """Served under French, a report's files are the English bytes; and a report computed while
    French is active (a job started from a French page) writes the same files as in English."""
    client.force_login(world["users"]["researcher"])
    job = world["job"]
    for name in ("systems.csv", "report.json"):
        url = reverse("report-file", args=[job.pk, name])
        english = b"".join(client.get(url).streaming_content)
        assert english
        assert b"".join(client.get(url, HTTP_ACCEPT_LANGUAGE="fr").streaming_content) == english
    with translation.override("fr"):
        french_job = run_report(world["corpus"], world["users"]["researcher"], figures=False)
    english_dir, french_dir = report_dir(job.pk), report_dir(french_job.pk)
    compared = 0
    for path in sorted(english_dir.iterdir()):
        if path.suffix in (".csv", ".tex"):
            assert (french_dir / path.name).read_bytes() == path.read_bytes(), path.name
            compared += 1
    assert compared >= 3
    assert re.search(r"\b0\.\d", (french_dir / "systems.csv").read_text())  # decimals with a point


def test_live_conclusions_in_french(client, world):  # noqa: F811
    from evaluation.live_state import refresh

    client.force_login(world["users"]["researcher"])
    refresh(world["corpus"].pk)  # the background job stored the sequences (SPEC 16: no request computes them)
    path = reverse("conclusions") + f"?corpus={world['corpus'].name}"
    assert_french(
        client,
        path,
        french=["Conclusions en direct", "L’ordre est-il établi"],
        english=["Live conclusions", "Is the order settled?"],
    )


def test_frame_admin_pages_in_french(admin_client, world):  # noqa: F811
    client = admin_client  # a superuser: the lexicons and archives are the site owner's
    assert_french(
        client,
        reverse("admin:frames_framelexicon_changelist"),
        french=["Téléverser un lexique"],
        english=["Upload a lexicon"],
    )
    assert_french(
        client,
        reverse("admin:frames_framelexicon_upload"),
        french=["Téléverser un lexique FrameNet"],
        english=["Upload a FrameNet lexicon"],
    )
    assert_french(
        client,
        reverse("admin:annotation_corpus_changelist"),
        french=["prédire les cadres…", "dériver les attributs…"],
        english=["predict frames…", "derive attributes…"],
    )
    corpus = world["corpus"]
    fr = text_of(page(client, reverse("admin:annotation_predict_frames", args=[corpus.pk]), "fr"))
    assert "Each question's FrameNet frame" not in fr


def test_model_run_admin_pages_in_french(admin_client, world):  # noqa: F811
    client = admin_client
    assert_french(
        client,
        reverse("admin:models_runner_inferencerun_changelist"),
        french=["Lancer une exécution"],
        english=["Start a run"],
    )
    fr = assert_french(
        client,
        reverse("admin:models_runner_start"),
        french=["Lancer une inférence"],
        english=["Start an inference run", "Model weights are read from local directories only"],
    )
    assert "arrière-plan" in fr or "tâche de fond" in fr  # the page's explanation, in French
    assert_french(
        client,
        reverse("admin:evaluation_studyarchive_changelist"),
        french=["Importer une archive d’étude"],
        english=["Import a study archive"],
    )


def test_model_names_in_the_admin_in_french(admin_client, world):  # noqa: F811
    """The admin index and a change list name our models_runner models in French (Meta verbose names)."""
    assert_french(
        admin_client,
        reverse("admin:index"),
        french=["Juges automatiques", "Jugements", "Étiquettes de juge", "Points d’accès LLM", "Échanges avec un LLM"],
        english=["Automatic judges", "Judge runs", "Judge labels", "LLM endpoints", "LLM exchanges"],
    )
    assert_french(
        admin_client,
        reverse("admin:models_runner_llmendpoint_add"),
        french=["Ajout de point d’accès LLM"],
        english=["Add LLM endpoint"],
    )
    assert_french(
        admin_client,
        reverse("admin:models_runner_judge_changelist"),
        french=["Sélectionnez l’objet juge automatique à changer"],
        english=["Select automatic judge to change"],
    )
