"""The interface's language (core.i18n, docs/i18n.md): the switcher (without JavaScript, kept on the
account across logout and login), the browser's Accept-Language, the corpus of an annotator's folds,
English by default; pages format numbers for the reader, downloads never do."""

import doctest

import pytest
from django.conf import settings
from django.urls import reverse

from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from core import i18n
from core.models import UserPreference

pytestmark = pytest.mark.django_db


def test_precedence_examples():
    assert doctest.testmod(i18n).failed == 0


def lang_of(resp):
    """The language the page was rendered in, from <html lang>."""
    text = resp.content.decode()
    start = text.index('<html lang="') + len('<html lang="')
    return text[start : text.index('"', start)]


def test_default_is_english_without_accept_language(client):
    resp = client.get(reverse("login"))
    assert lang_of(resp) == "en" and "Log in" in resp.content.decode()
    assert resp["Content-Language"] == "en"


@pytest.mark.parametrize(
    ("header", "expected"),
    [("fr-FR,fr;q=0.9,en;q=0.5", "fr"), ("de-DE, fr;q=0.4", "fr"), ("de, es", "en"), ("en-GB", "en")],
)
def test_browser_language(client, header, expected):
    resp = client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE=header)
    assert lang_of(resp) == expected
    assert "Accept-Language" in resp["Vary"]


def test_switcher_without_javascript_logged_out(client):
    page = client.get(reverse("login")).content.decode()
    # a plain form: one submit button per language, the current one disabled
    assert f'action="{reverse("set-language")}"' in page
    assert 'name="language" value="fr"' in page
    assert 'name="language" value="en" lang="en" class="link" aria-current="true" disabled' in page
    resp = client.post(reverse("set-language"), {"language": "fr", "next": reverse("login")})
    assert resp.status_code == 302 and resp["Location"] == reverse("login")
    assert resp.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fr"
    # the cookie wins over the browser
    assert lang_of(client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="en")) == "fr"


def test_choice_is_kept_on_the_account_across_logout_and_login(client, make_user):
    user = make_user("ann", "annotator")
    client.login(username="ann", password="pw-for-tests-1")
    client.post(reverse("set-language"), {"language": "fr", "next": "/"})
    assert UserPreference.objects.get(user=user).language == "fr"
    client.post(reverse("logout"))
    client.cookies.clear()  # another browser: nothing but the account remembers
    assert lang_of(client.get(reverse("login"))) == "en"
    client.login(username="ann", password="pw-for-tests-1")
    assert lang_of(client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en")) == "fr"
    # switching back to English is kept too, and beats a French cookie
    client.post(reverse("set-language"), {"language": "en", "next": "/"})
    client.post(reverse("logout"))
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    client.login(username="ann", password="pw-for-tests-1")
    assert lang_of(client.get(reverse("home"))) == "en"


def test_another_user_on_the_same_browser_gets_their_own_choice(client, make_user):
    make_user("first", "annotator")
    second = make_user("second", "annotator")
    UserPreference.objects.create(user=second, language="en")
    client.login(username="first", password="pw-for-tests-1")
    client.post(reverse("set-language"), {"language": "fr", "next": "/"})
    client.post(reverse("logout"))
    client.login(username="second", password="pw-for-tests-1")
    assert lang_of(client.get(reverse("home"))) == "en"


@pytest.mark.parametrize(
    "data",
    [{}, {"language": "de"}, {"language": "fr-xx"}, {"language": "x" * 500}, {"language": "FR "}],
)
def test_switcher_refuses_an_unknown_language(client, data):
    resp = client.post(reverse("set-language"), data)
    assert resp.status_code == 400
    assert "choose one of en, fr" in resp.content.decode()
    assert settings.LANGUAGE_COOKIE_NAME not in resp.cookies


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/x", "javascript:alert(1)"])
def test_switcher_goes_back_only_to_this_site(client, target):
    resp = client.post(reverse("set-language"), {"language": "fr", "next": target})
    assert resp.status_code == 302 and resp["Location"] == "/"


def test_switcher_needs_post(client):
    assert client.get(reverse("set-language")).status_code == 405


def french_fold(tiny_corpus, annotator):
    tiny_corpus.language = "fr"
    tiny_corpus.save()
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    assign_fold(fold, annotator)
    return fold


def test_annotators_fall_back_on_their_corpus_language(client, make_user, tiny_corpus):
    french_fold(tiny_corpus, make_user("ann", "annotator"))
    client.login(username="ann", password="pw-for-tests-1")
    assert lang_of(client.get(reverse("home"))) == "fr"  # the browser names nothing
    assert lang_of(client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="de")) == "fr"  # nothing the site speaks
    assert lang_of(client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en-US")) == "en"  # the browser wins


def test_corpus_language_is_for_annotators_only(client, make_user, tiny_corpus):
    french_fold(tiny_corpus, make_user("ann", "annotator"))
    make_user("boss", "admin")
    client.login(username="boss", password="pw-for-tests-1")
    assert lang_of(client.get(reverse("fold-assignments"))) == "en"


def test_import_sets_the_corpus_language(tmp_path):
    from annotation.importers import import_corpus
    from tests.conftest import write_jsonl

    row = {"context": "Paris est en France.", "question": "Où ?", "answers": ["Paris"]}
    rows = [{"id": f"q{i}", **row} for i in range(3)]
    write_jsonl(tmp_path / "fr.jsonl", [{**r, "language": "fr"} for r in rows])
    write_jsonl(tmp_path / "en.jsonl", rows)
    assert import_corpus(tmp_path / "fr.jsonl", "fr-corpus")["questions"] == 3
    import_corpus(tmp_path / "en.jsonl", "en-corpus")
    from annotation.models import Corpus

    assert dict(Corpus.objects.values_list("name", "language")) == {"fr-corpus": "fr", "en-corpus": "en"}


def test_javascript_catalogue_follows_the_language(client):
    fr = client.get(reverse("javascript-catalog"), HTTP_ACCEPT_LANGUAGE="fr")
    en = client.get(reverse("javascript-catalog"))
    assert fr.status_code == en.status_code == 200
    assert fr["Content-Type"].startswith("text/javascript")
    assert "django.gettext" in fr.content.decode()
    assert fr.content != en.content  # the French one carries the strings of static/js


def test_switcher_goes_back_to_the_referring_page(client):
    resp = client.post(reverse("set-language"), {"language": "fr"}, HTTP_REFERER="http://testserver/login/?next=/x/")
    assert resp["Location"] == "http://testserver/login/?next=/x/"
    resp = client.post(reverse("set-language"), {"language": "fr"}, HTTP_REFERER="https://evil.example/")
    assert resp["Location"] == "/"


def test_the_language_ends_with_the_request(client):
    from django.utils import translation

    assert lang_of(client.get(reverse("login"), HTTP_ACCEPT_LANGUAGE="fr")) == "fr"
    assert translation.get_language() == "en"  # a job or the next test runs in the default language
