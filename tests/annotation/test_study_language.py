"""A study has a language of its own (issue 32, friction 5): default the corpus's, checked against the
site's languages in the API, and its participants' pages speak it whatever the browser asks, without
"My folds" nor a logout (the browser path: tests/browser/test_study_language_browser.py)."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotation.models import Corpus, Study
from bench.kit.crowd import build_study

pytestmark = pytest.mark.django_db


def test_the_language_defaults_to_the_corpus_and_must_be_a_site_language(tmp_path, make_user):
    study = build_study(tmp_path, n_questions=2, k=1)
    assert study.language == "en"  # the generated corpus is English
    Corpus.objects.filter(pk=study.corpus_id).update(language="fr-CA")
    corpus = Corpus.objects.get(pk=study.corpus_id)
    again = Study.objects.create(slug="again", title="t", consent="c", corpus=corpus, completion_code="C")
    assert again.language == "fr" and again.page_language == "fr"
    api = APIClient()
    api.force_authenticate(make_user("boss", "admin"))
    body = {"slug": "w", "title": "W", "consent": "ok?", "corpus": study.corpus.name, "completion_code": "C"}
    bad = api.post("/api/studies/", {**body, "language": "de"}, format="json")
    assert bad.status_code == 400 and bad.json() == {"language": ["de is not a language of the site (en, fr)."]}
    made = api.post("/api/studies/", {**body, "language": "en"}, format="json")
    assert made.status_code == 201 and made.json()["language"] == "en"
    assert api.post("/api/studies/", {**body, "slug": "w2"}, format="json").json()["language"] == "fr"


def test_participants_get_the_study_language_and_no_account_controls(tmp_path):
    build_study(tmp_path, n_questions=4, k=2, language="fr")
    browser = Client(HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9")
    link = "/study/pilot/?PROLIFIC_PID=P1&STUDY_ID=s&SESSION_ID=x"
    consent = browser.get(link, follow=True)
    assert consent["Content-Language"] == "fr" and "Commencer l’étude" in consent.content.decode()
    page = browser.post(link, {"consent": "yes"}, follow=True)
    body = page.content.decode()
    assert page["Content-Language"] == "fr" and 'id="answer"' in body
    assert "Mes lots</a>" not in body.split("</header>")[0] and "Se déconnecter" not in body
    assert 'action="/logout/"' not in body
    # the visitor's own choice (the switcher's cookie) still wins
    chooser = Client(HTTP_ACCEPT_LANGUAGE="fr")
    chooser.cookies["qaeval_language"] = "en"
    assert chooser.get(link.replace("P1", "P2"))["Content-Language"] == "en"


def test_a_study_restored_without_a_language_speaks_its_corpus_language(tmp_path):
    """Archives made before studies had a language restore rows with none (bulk writes skip save())."""
    study = build_study(tmp_path, n_questions=2, k=1, language="en")
    Corpus.objects.filter(pk=study.corpus_id).update(language="fr-CA")
    Study.objects.filter(pk=study.pk).update(language="")
    restored = Study.objects.get(pk=study.pk)
    assert restored.language == "" and restored.page_language == "fr"
    consent = Client(HTTP_ACCEPT_LANGUAGE="en").get(
        f"/study/{study.slug}/?PROLIFIC_PID=P9&STUDY_ID=s&SESSION_ID=x", follow=True
    )
    assert consent["Content-Language"] == "fr"
