"""Helping annotators judge well (issue 12, point 3): corpus guidelines in safe Markdown with a first-run
screen, the answer highlighted in the passage, flags with a comment listed for admins and exported."""

import json

import pytest
from django.urls import reverse

from annotation import guidelines
from annotation.assignments import assign_fold
from annotation.fold_store import create_folds
from annotation.models import Flag, FoldItem
from tests.annotation.test_annotating import judge

pytestmark = pytest.mark.django_db

HOSTILE = (
    "# Judge carefully\n\n- **Correct**: exact\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>\n\n"
    "[click](javascript:alert(3)) and [docs](https://example.org/guide)"
)


def test_markdown_is_rendered_and_raw_html_is_text():
    html = guidelines.render_markdown(HOSTILE)
    assert "<h1>Judge carefully</h1>" in html and "<strong>Correct</strong>" in html
    assert "<script" not in html and "&lt;script&gt;" in html
    assert "<img" not in html and "&lt;img" in html
    assert 'href="javascript:' not in html and '<a href="https://example.org/guide">docs</a>' in html


def test_answer_segments_mark_every_occurrence_case_and_space_insensitive():
    segs = guidelines.answer_segments("Warsaw is big. WARSAW  is\nold.", "warsaw")
    assert segs == [("Warsaw", True), (" is big. ", False), ("WARSAW", True), ("  is\nold.", False)]
    assert guidelines.answer_segments("New\nYork City", "New York") == [("New\nYork", True), (" City", False)]
    assert guidelines.answer_segments("abc", "") == [("abc", False)]
    assert guidelines.answer_segments("abc", "zz") == [("abc", False)]
    assert "".join(t for t, _ in guidelines.answer_segments("a (b) c", "(b)")) == "a (b) c"


def lit(context, answer):
    return [text for text, hit in guidelines.answer_segments(context, answer) if hit]


@pytest.mark.parametrize(
    ("context", "answer", "expected"),
    [
        ("He ran 141 yards, then 41 more.", "41", ["41"]),  # issue 27: "41" was lit inside "141"
        ("Le taux est de 14,2 % à 14 ans.", "14", ["14"]),  # a decimal comma joins the digits
        ("Le taux est de 14,2 %.", "2", []),
        ("Le taux est de 14,2 %.", "14,2", ["14,2"]),
        ("Il a 100 000 soldats, 000 de plus.", "000", ["000"]),  # space as thousands separator
        ("Il a 100\u00a0000 soldats.", "100\u00a0000", ["100\u00a0000"]),
        ("Il a 100\u202f000 soldats.", "100", []),  # narrow no-break space
        ("In 2016 410 people came.", "410", ["410"]),  # a year and a number are two numbers
        ("Il sert dans l'armée, pas les armées.", "armée", ["armée"]),  # French elision, plural
        ("Il sert dans l’armée.", "l'armée", ["l’armée"]),  # any apostrophe
        ("Ça va ? ça va.", "ça", ["Ça", "ça"]),
        ("Schrödingers Katze und Schrödinger.", "Schrödinger", ["Schrödinger"]),
        ("Warsawa is not Warsaw.", "Warsaw", ["Warsaw"]),
        ("Die Straße und die Straßenbahn.", "straße", ["Straße"]),
        ("a (b) c", "(b)", ["(b)"]),  # an answer starting with punctuation has no word boundary to keep
    ],
)
def test_answer_highlight_keeps_to_word_and_number_boundaries(context, answer, expected):
    assert lit(context, answer) == expected


@pytest.fixture
def annotating(tiny_corpus, make_user, client):
    fold = create_folds(tiny_corpus, k=1, seed=0, overlap=0)[0]
    ann = make_user("ann", "annotator")
    assign_fold(fold, ann)
    client.force_login(ann)
    return {"fold": fold, "ann": ann, "client": client, "corpus": tiny_corpus}


def test_first_run_screen_then_guidelines_beside_every_item(annotating):
    client, fold, corpus = annotating["client"], annotating["fold"], annotating["corpus"]
    corpus.guidelines = HOSTILE
    corpus.save()
    first = client.get(reverse("annotate", args=[fold.pk])).content.decode()
    assert "Before you start" in first and "<h1>Judge carefully</h1>" in first and "<script>alert" not in first
    assert 'name="item"' not in first
    page = client.get(reverse("annotate", args=[fold.pk]) + "?start=1").content.decode()
    assert 'id="corpus-guidelines"' in page and "<strong>Correct</strong>" in page and "<script>alert" not in page
    again = client.get(reverse("annotate", args=[fold.pk])).content.decode()
    assert 'name="item"' in again  # seen once per session


def test_no_first_run_screen_without_corpus_guidelines(annotating):
    html = annotating["client"].get(reverse("annotate", args=[annotating["fold"].pk])).content.decode()
    assert 'name="item"' in html and "Before you start" not in html


def test_the_answer_is_highlighted_in_the_passage(annotating):
    client, fold = annotating["client"], annotating["fold"]
    item = FoldItem.objects.filter(fold=fold).select_related("triplet__question").order_by("position")
    hit = next(i for i in item if i.triplet.answer and i.triplet.answer.lower() in i.triplet.question.context.lower())
    html = client.get(reverse("annotate-item", args=[fold.pk, hit.handle])).content.decode()
    assert '<mark class="answer-in-passage">' in html


def test_flag_with_comment_is_listed_for_admins_and_exported(annotating, admin_client, make_user):
    client, fold = annotating["client"], annotating["fold"]
    item = FoldItem.objects.filter(fold=fold).order_by("position").first()
    judge(client, fold, item.handle, "partial", "s1")
    resp = client.post(
        reverse("flag-item", args=[fold.pk]),
        {"item": item.handle, "reason": "ambiguous_question", "comment": "two readings =1+1"},
        HTTP_HX_REQUEST="true",
    )
    assert resp.status_code == 200 and "Ambiguous question" in resp.content.decode()
    flag = Flag.objects.get()
    assert (flag.annotator, flag.triplet_id, flag.comment) == (annotating["ann"], item.triplet_id, "two readings =1+1")
    bad = client.post(
        reverse("flag-item", args=[fold.pk]), {"item": item.handle, "reason": "nonsense"}, HTTP_HX_REQUEST="true"
    )
    assert bad.status_code == 400 and "reason" in bad.content.decode() and Flag.objects.count() == 1
    other = make_user("other", "annotator")
    client.force_login(other)
    assert (
        client.post(reverse("flag-item", args=[fold.pk]), {"item": item.handle, "reason": "other"}).status_code == 404
    )

    listed = admin_client.get(reverse("admin:annotation_flag_changelist")).content.decode()
    assert "two readings =1+1" in listed and "Ambiguous question" in listed

    researcher = make_user("res", "researcher")
    client.force_login(researcher)
    rows = [json.loads(line) for line in b"".join(client.get(reverse("download-flags")).streaming_content).splitlines()]
    assert rows == [
        {
            **rows[0],
            "reason": "ambiguous_question",
            "comment": "two readings =1+1",
            "label": "partial",
            "annotator": "ann",
            "resolved": False,
        }
    ]
    csv = b"".join(client.get(reverse("download-flags") + "?format=csv").streaming_content).decode()
    assert csv.splitlines()[0].startswith("question_id,answer,annotator,label,reason,comment")
    client.force_login(annotating["ann"])
    assert client.get(reverse("download-flags")).status_code == 403


def test_guidelines_edited_mid_fold_are_announced_once_with_what_changed(annotating, admin_client):
    """Issue 27 point 10: an admin edits the guidelines while an annotator is working; the next item
    says "Guidelines changed" with the lines added and removed, once (every fold of the corpus)."""
    client, fold, corpus = annotating["client"], annotating["fold"], annotating["corpus"]
    corpus.guidelines = "Judge the answer only.\n\nAn empty answer is incorrect."
    corpus.save()
    page = client.get(reverse("annotate", args=[fold.pk]) + "?start=1").content.decode()
    assert "Guidelines changed" not in page  # read for the first time: nothing to announce
    items = list(FoldItem.objects.filter(fold=fold).order_by("position"))
    judge(client, fold, items[0].handle, "correct", "g1")
    resp = admin_client.post(
        reverse("admin:annotation_corpus_change", args=[corpus.pk]),
        {
            "name": corpus.name,
            "dedup_policy": corpus.dedup_policy,
            "language": corpus.language,
            "description": "",
            "guidelines": "Judge the answer only.\n\nAn empty answer is correct when the passage has none.",
        },
    )
    assert resp.status_code == 302, resp.content.decode()[:2000]
    html = judge(client, fold, items[1].handle, "partial", "g2").content.decode()
    assert 'id="guidelines-changed"' in html and "Guidelines changed" in html
    assert "Removed:</span> <del>An empty answer is incorrect.</del>" in html
    assert "Added:</span> <ins>An empty answer is correct when the passage has none.</ins>" in html
    assert 'hx-swap-oob="true"' in html and "correct when the passage has none" in html.split("hx-swap-oob")[1]
    assert "Judge the answer only." not in html.split('id="guidelines-changed"')[1].split("</ul>")[0]
    again = judge(client, fold, items[2].handle, "correct", "g3").content.decode()
    assert "Guidelines changed" not in again  # once
    assert "Guidelines changed" not in client.get(reverse("annotate", args=[fold.pk])).content.decode()
