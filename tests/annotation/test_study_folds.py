"""Issue 32, friction 3: a study takes only answer folds of its own corpus, in the admin's study form
(the add page offers none: every fold of the corpus; the change page only the corpus's) and in the API,
with a clear error naming the stray folds, and nothing saved."""

import re

import pytest
from django.test import Client
from rest_framework.test import APIClient

from annotation import studies
from annotation.models import Fold, Study
from bench.kit.crowd import build_study

pytestmark = pytest.mark.django_db

OPTION = re.compile(r'<option value="(\d+)"[^>]*>([^<]*)</option>')


def form_data(study, **changes):
    data = {
        "slug": study.slug,
        "title": study.title,
        "consent": study.consent,
        "corpus": study.corpus_id,
        "slots_per_fold": study.slots_per_fold,
        "idle_minutes": study.idle_minutes,
        "completion_code": study.completion_code,
        "completion_url": study.completion_url,
        "tie_margin": study.tie_margin,  # SPEC 16 (issue 40): prefilled with 0.02 on the form
        "open": "on",
        # SPEC 18: what withdrawal and "returned" do, how long panel ids are kept
        "withdraw_mode": study.withdraw_mode,
        "returned_mode": study.returned_mode,
        "identifiers_days_after_close": study.identifiers_days_after_close,
        "participants-TOTAL_FORMS": 0,
        "participants-INITIAL_FORMS": 0,
        **changes,
    }
    return {k: v for k, v in data.items() if v is not None}


@pytest.fixture
def two(tmp_path):
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    return build_study(tmp_path / "a", slug="one", k=2), build_study(tmp_path / "b", slug="two", k=3)


def test_the_study_form_offers_and_takes_only_the_corpus_folds(two, django_user_model):
    one, other = two
    own = set(Fold.objects.filter(corpus=one.corpus).values_list("pk", flat=True))
    foreign = list(Fold.objects.filter(corpus=other.corpus).values_list("pk", flat=True))
    admin = Client()
    admin.force_login(django_user_model.objects.create_superuser("root", password="pw-for-tests-1"))
    change = admin.get(f"/admin/annotation/study/{one.pk}/change/").content.decode()
    select = re.search(r"<select[^>]*name=\"folds\".*?</select>", change, re.S).group(0)
    assert {int(pk) for pk, _name in OPTION.findall(select)} == own
    assert 'name="folds"' not in admin.get("/admin/annotation/study/add/").content.decode()
    # a forged POST with another corpus's fold: refused, named, nothing changed
    page = admin.post(f"/admin/annotation/study/{one.pk}/change/", form_data(one, folds=[*own, foreign[0]]))
    assert page.status_code == 200
    assert "Select a valid choice" in page.content.decode()
    assert not one.folds.exists()
    # the corpus changed with the old corpus's folds kept: the form says which folds do not fit
    one.folds.set(own)
    page = admin.post(f"/admin/annotation/study/{one.pk}/change/", form_data(one, corpus=other.corpus_id, folds=own))
    text = page.content.decode()
    assert page.status_code == 200
    assert "A study only takes answer folds of its own corpus (two-corpus); not these: one-corpus fold" in text
    one.refresh_from_db()
    assert one.corpus.name == "one-corpus"
    ok = admin.post(f"/admin/annotation/study/{one.pk}/change/", form_data(one, folds=sorted(own)[:1]))
    assert ok.status_code == 302
    assert list(one.folds.values_list("pk", flat=True)) == sorted(own)[:1]


def test_the_api_refuses_another_corpus_folds_with_a_clear_error(two, make_user):
    one, other = two
    api = APIClient()
    api.force_authenticate(make_user("boss", "admin"))
    foreign = Fold.objects.filter(corpus=other.corpus).order_by("index").first()
    body = {"slug": "wave", "title": "W", "consent": "ok?", "corpus": "one-corpus", "completion_code": "C"}
    resp = api.post("/api/studies/", {**body, "folds": [foreign.pk]}, format="json")
    assert resp.status_code == 400
    assert resp.json() == {
        "folds": [f"A study only takes answer folds of its own corpus (one-corpus); not these: {foreign.name}."]
    }
    assert not Study.objects.filter(slug="wave").exists()
    mine = Fold.objects.filter(corpus=one.corpus).order_by("index").first()
    assert api.post("/api/studies/", {**body, "folds": [mine.pk]}, format="json").status_code == 201


def test_check_folds_names_frame_folds_too(two):
    one, _other = two
    frame_fold = Fold.objects.create(corpus=one.corpus, name="one frames 1", index=99, kind="frame")
    with pytest.raises(studies.StrayFolds, match="not these: one frames 1"):
        studies.check_folds(one.corpus, [frame_fold])
    studies.check_folds(one.corpus, list(Fold.objects.filter(corpus=one.corpus, kind=Fold.KIND_TRIPLET)))
