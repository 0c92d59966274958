"""Every page, as each role, in French: no English message left (issue 25, done when).

The pages come from the URL resolver (as the permission matrix enumerates them, on the same world
of objects: ``tests/core/test_permissions.py``), plus the crowd participant's pages and our own
admin pages. Each page is rendered in English (no Accept-Language) and in French; every text block
of the English page (the text between tags, and the title / aria-label / placeholder attributes)
that holds language must be absent from the French page, unless it is data (questions, answers,
names: they stay as written) or words French shares with English (``SAME_IN_FRENCH``).
"""

import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from tests.core.test_permissions import QUERY, site_urls, url_kwargs, world  # noqa: F401 - world is a fixture

pytestmark = pytest.mark.django_db

# Words spelled the same in French (cognates, proper nouns, units and formats).
SAME_IN_FRENCH = {
    "Annotation",
    "Passage",  # attribute-check page
    "arc",
    "Administration",
    "Corpus",
    "corpus",
    "Question",
    "Questions",
    "question",
    "questions",
    "Participant",
    "Participants",
    "participants",
    "Actions",
    "Budget",
    "Format",
    "Total",
    "Description",
    "Django",
    "FrameNet",
    "Prolific",
    "SQuAD",
    "JSON",
    "JSONL",
    "CSV",
    "LaTeX",
    "API",
    "UTC",
    "SPEC",
    "QA",
    "Swagger",
    "Redoc",
    "ID",
    "min",
    "Token",
    "English",
    "Français",
    "triplets",
    "Triplet",
    "triplet",
    "Statut",
    "Triplets",
    "Slug",
    "participant",
    "Documentation",
    "Message",
    "message",
    "Source",
    "source",
    "Position",
    "Type",
    # the report's metric and factor names (SPEC 3-6: names, not words) and a French cognate
    "Hscore",
    "hscore",
    "Hcorrect",
    "hcorrect",
    "EM",
    "ROUGE",
    "ROVER",
    "Bootstrap",
    "bias",
    "coref",
    "dist",
    "entropy",
    "trigger",
    "lu_in_q",
    "nb_fes",
    "lu",  # pieces of the factor names lu_in_q and nb_fes
    "in",
    "nb",
    "fes",
    "nominal",
    "Alpha",  # a report parameter (the job page)
    "Figures",
}
HOLE = "\ue000"
NO_TEXT = {"script", "style", "code", "kbd", "pre", "textarea", "option", "select"}
READ = {"title", "aria-label", "placeholder", "alt"}
# The researcher's pages (evaluation/): checked here as each role that reaches them.
RESEARCH_PAGES = {"reports", "report-detail", "conclusions", "conclusions-panel", "report-progress"}
# Django's own admin templates carry a few untranslated words (the search icon's alt, the boolean icons').
DJANGO_UNTRANSLATED = {"Search", "True", "False", "Unknown"}
# Not pages: files, scripts, POST-only endpoints, redirects.
NOT_PAGES = ("api-", "download-", "admin:")


class Blocks(HTMLParser):
    """The text blocks of a page; text inside an element marked ``lang="en"`` is left out: the page
    says it is English on purpose (the report's own notes, as report.json records them)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks, self.inside = [], []  # open elements: (tag, text of it is English on purpose)

    def handle_starttag(self, tag, attrs):
        if tag not in ("br", "hr", "img", "input", "meta", "link"):
            self.inside.append((tag, tag != "html" and dict(attrs).get("lang") == "en"))
        self.blocks += [v for k, v in attrs if k in READ and v]

    def handle_endtag(self, tag):
        if any(t == tag for t, _ in self.inside):
            while self.inside and self.inside.pop()[0] != tag:
                pass

    def handle_data(self, data):
        skip = any(t in NO_TEXT or english for t, english in self.inside)
        if not skip and data.strip():
            self.blocks.append(" ".join(data.split()))


def blocks(html):
    parser = Blocks()
    parser.feed(html)
    return parser.blocks


def language(text, data):
    """The words of ``text`` that are English to translate: data strings and shared words removed (a
    block that is a piece of a data string, such as a highlighted part of a question, is data)."""
    if any(text in value for value in data):
        return []
    for value in data:
        if len(value) > 2:  # whole data strings only (a one-letter part of speech is no word)
            text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", " ", text)
    return [w for w in re.findall(r"[^\W\d_]{2,}", text) if w not in SAME_IN_FRENCH]


def world_data():
    """Every string the world's rows hold that a page may show as it is (never translated)."""
    from django.contrib.auth import get_user_model

    from annotation.models import Corpus, Question, Study, System, Triplet

    values = set(get_user_model().objects.values_list("username", flat=True))
    for q in Question.objects.all():
        values |= {q.question, q.context, q.external_id, *(a for a in q.answers if isinstance(a, str))}
        values |= {line.strip() for line in q.context.splitlines()}
    values |= set(Triplet.objects.values_list("answer", flat=True))
    for corpus in Corpus.objects.all():
        values |= {corpus.name, corpus.dedup_policy, corpus.language, corpus.description}
    # fold names are not data: pages show Fold.title, in the reader's language (issue 32)
    values |= set(System.objects.values_list("name", flat=True))
    for s in Study.objects.all():
        values |= {s.title, s.slug, s.consent, s.completion_code}
    values |= lexicon_data()
    return sorted((v for v in values if v and v.strip()), key=len, reverse=True)


def lexicon_data():
    """The frame lexicon's names and definitions (data of the frames app, in the lexicon's language)."""
    from django.apps import apps

    values = set()
    for label in ("frames.FrameDef", "frames.FrameElementDef", "frames.LexicalUnitDef", "frames.FrameAnnotation"):
        model = apps.get_model(label)
        fields = [f.name for f in model._meta.concrete_fields if f.get_internal_type() in ("CharField", "TextField")]
        for row in model.objects.values_list(*fields):
            values |= {v for v in row if isinstance(v, str)}
            values |= {f"({v})" for v in row if isinstance(v, str)} | {
                f"({v.lower()})" for v in row if isinstance(v, str)
            }
    return values


def untranslated(client, path, data):
    """English text blocks of ``path`` found as they are in its French page (or why it is no page)."""
    english = client.get(path)
    french = client.get(path, HTTP_ACCEPT_LANGUAGE="fr")
    if english.status_code != 200 or not english["Content-Type"].startswith("text/html"):
        return None
    assert french.status_code == 200, (path, french.status_code)
    if "<html" in french.content.decode():  # a whole page, not an htmx fragment
        assert '<html lang="fr"' in french.content.decode() or 'lang="fr"' in french.content.decode()
    french_blocks = set(blocks(french.content.decode()))
    english_blocks = blocks(english.content.decode())
    return sorted({b for b in english_blocks if b in french_blocks and language(b, data)})


ROLES = ["anonymous", "annotator", "researcher", "admin"]


def page_names():
    return [name for name, _ in site_urls() if not name.startswith(NOT_PAGES)]


@pytest.mark.parametrize("role", ROLES)
def test_every_page_is_in_french(world, client, role):  # noqa: F811 - world is the imported fixture
    if role != "anonymous":
        client.force_login(world["users"][role])
    data = world_data()
    found, seen = {}, 0
    for name in page_names():
        if name in ("logout", "set-language", "javascript-catalog"):
            continue
        path = reverse(name, kwargs=url_kwargs(name, world)) + QUERY.get(name, "")
        left = untranslated(client, path, data)
        if left is None:
            continue
        seen += 1
        if left:
            found[path] = left
    assert seen >= {"anonymous": 1, "annotator": 5, "researcher": 1, "admin": 5}[role]
    assert not found, f"English left on the French pages as {role}: {found}"


@pytest.mark.parametrize("name", sorted(RESEARCH_PAGES))
@pytest.mark.parametrize("role", ["researcher", "admin"])
def test_research_pages_are_in_french(world, client, role, name):  # noqa: F811
    client.force_login(world["users"][role])
    path = reverse(name, kwargs=url_kwargs(name, world)) + QUERY.get(name, "")
    assert not untranslated(client, path, world_data())


def test_crowd_participant_pages_are_in_french(world, client):  # noqa: F811
    from annotation.models import Participant

    data = world_data()
    from annotation.models import Study

    # a newcomer from the panel: the consent page, in the study's language whatever the browser asks
    # (issue 32): the study in English, then in French
    entry = reverse("study-entry", kwargs={"slug": world["study"]}) + "?PROLIFIC_PID=new-person"
    pages = {}
    for code in ("en", "fr"):
        Study.objects.filter(slug=world["study"]).update(language=code)
        asked = "en" if code == "fr" else "fr"  # the entry link redirects to the study's address without ids
        pages[code] = client.get(entry, HTTP_ACCEPT_LANGUAGE=asked, follow=True).content.decode()
    assert '<html lang="fr"' in pages["fr"] and '<html lang="en"' in pages["en"]
    french_blocks = set(blocks(pages["fr"]))
    assert sorted({b for b in blocks(pages["en"]) if b in french_blocks and language(b, data)}) == []
    # a participant at work: their fold's pages
    participant = Participant.objects.get(external_id="matrix-p1")
    client.force_login(participant.user)
    fold = participant.fold_id
    for path in (reverse("annotate", args=[fold]), reverse("item-list", args=[fold])):
        assert untranslated(client, path, data) == [], path


ADMIN_PAGES = [
    "admin:index",
    "admin:app_list",
    *(f"admin:annotation_{m}_changelist" for m in ("corpus", "question", "triplet", "fold", "label", "flag")),
    *(f"admin:annotation_{m}_changelist" for m in ("golditem", "adjudication", "study", "participant", "system")),
    "admin:annotation_corpus_add",
    "admin:annotation_import",
    "admin:core_job_changelist",
]


@pytest.mark.parametrize("name", ADMIN_PAGES)
def test_our_admin_pages_are_in_french(world, client, name):  # noqa: F811
    client.force_login(world["users"]["admin"])
    path = reverse(name, kwargs={"app_label": "annotation"} if name == "admin:app_list" else {})
    left = untranslated(client, path, world_data())
    assert left is not None, f"{path} is no page"
    assert [b for b in left if b not in other_apps_words() | DJANGO_UNTRANSLATED] == [], path


def other_apps_words():
    """Names of the apps and models of the i18n-eval branch and of third parties (shown by the admin's
    side bar on every admin page): checked there, not here."""
    from django.apps import apps

    words = set()
    for config in apps.get_app_configs():
        if config.label not in ("core", "annotation"):
            words.add(str(config.verbose_name))
            for model in config.get_models():
                words |= {str(model._meta.verbose_name_plural), str(model._meta.verbose_name_plural).capitalize()}
    return words


# Issue 45, point 7: form errors, close reasons, live-page notes and job pages in French too.


def untranslated_post(client, path, form, data):
    """As ``untranslated``, for the page a POST answers (a form sent back with its errors)."""
    english = client.post(path, form)
    french = client.post(path, form, HTTP_ACCEPT_LANGUAGE="fr")
    assert english.status_code == french.status_code, (path, english.status_code, french.status_code)
    french_blocks = set(blocks(french.content.decode()))
    return sorted({b for b in blocks(english.content.decode()) if b in french_blocks and language(b, data)})


BAD_BUILDS = [
    {"action": "build", "k": "0", "seed": "x", "policy": "by_question", "overlap": "0,5,5"},
    {"action": "build", "k": "2", "seed": "0", "policy": "by_question", "overlap": "8", "design": "active"},
    {"action": "build", "k": "2", "seed": "0", "policy": "by_question", "overlap": "0,1", "design": "active",
     "budget": "2,5"},
]  # fmt: skip


@pytest.mark.parametrize("form", BAD_BUILDS)
def test_form_errors_are_in_french(world, client, form):  # noqa: F811
    client.force_login(world["users"]["admin"])
    path = reverse("fold-action", args=[world["corpus"]])
    assert client.post(path, form, HTTP_ACCEPT_LANGUAGE="fr").status_code == 400  # the form comes back
    assert untranslated_post(client, path, form, world_data()) == []


def test_the_live_page_refuses_a_half_width_out_of_range_in_french(world, client):  # noqa: F811
    from annotation.models import Corpus

    client.force_login(world["users"]["researcher"])
    name = Corpus.objects.get(pk=world["corpus"]).name
    path = reverse("conclusions") + f"?corpus={name}&half_width=8"
    page = client.get(path, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Saisissez un nombre supérieur à 0 et inférieur à 1" in page
    assert untranslated(client, path, world_data()) == []


def test_every_close_reason_note_and_progress_sentence_has_french():
    """Generated from the sentences the science and the close rule compute (``evaluation.live_words``),
    filled with values as they write them: each one reads in French on a French page."""
    from django.utils import translation

    from core.job_kinds import message_text
    from evaluation import live_words
    from models_runner import chat

    values = {"a": "0.812", "b": "0.544", "p": "0.0031", "k": "3", "n": "484", "order": "a > b > c", "judge": "j1"}
    values |= {"w": "0.02", "name": "OPENAI_API_KEY"}
    sentences = [*live_words.SENTENCES, *(t % values for t in live_words.TEMPLATES), chat.NO_KEY % values]
    with translation.override("fr"):
        left = [s for s in sentences if message_text(s) == s or language(message_text(s), [*values.values()])
                == language(s, [*values.values()])]  # fmt: skip
    assert left == []


def test_a_close_reason_and_a_failed_job_read_in_french(world, client):  # noqa: F811
    from django.utils import timezone

    from annotation.models import Study
    from core.models import Job
    from models_runner import chat

    Study.objects.filter(slug=world["study"]).update(
        open=False,
        closed_at=timezone.now(),
        closed_reason="ranking settled: a > b (Hscore confidence sequences with judge j1, alpha 0.05 split over 2 "
        "systems)",
    )
    client.force_login(world["users"]["admin"])
    data = world_data()
    page = client.get(reverse("study-admin", args=[world["study"]]), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "classement tranché : a &gt; b" in page and 'id="study-reopen"' in page
    assert untranslated(client, reverse("study-admin", args=[world["study"]]), data) == []
    job = Job.objects.create(kind="judge", status="failed", error=chat.NO_KEY % {"name": "OPENAI_API_KEY"})
    status = client.get(reverse("admin:core_job_status", args=[job.pk]), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "aucune clé d’API : définissez la variable d’environnement OPENAI_API_KEY" in status
    left = untranslated(client, reverse("admin:core_job_change", args=[job.pk]), data)
    assert [b for b in (left or []) if b not in other_apps_words() | DJANGO_UNTRANSLATED] == []
    report = Job.objects.filter(kind="report", status="succeeded").first()  # its parameters and result, in words
    left = untranslated(client, reverse("admin:core_job_change", args=[report.pk]), data)
    assert [b for b in (left or []) if b not in other_apps_words() | DJANGO_UNTRANSLATED] == []
