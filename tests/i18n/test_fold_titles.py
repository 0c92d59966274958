"""Fold names in the reader's language (issue 32): a built fold is stored as "{corpus} {word} {n}"
(English, as downloads and the API give it) and every page names it with ``Fold.title``."""

import pytest
from django.utils import translation

from annotation.models import Fold


@pytest.mark.parametrize(
    ("kind", "french"),
    [
        (Fold.KIND_TRIPLET, "piaf-small lot 2"),
        (Fold.KIND_FRAME, "piaf-small cadres 2"),
        (Fold.KIND_ATTRIBUTE, "piaf-small attributs 2"),
    ],
)
def test_a_built_fold_is_named_in_french(kind, french):
    fold = Fold(kind=kind, index=1, name=f"piaf-small {Fold.NAME_WORDS[kind]} 2")
    with translation.override("fr"):
        assert fold.title == french == str(fold)
    with translation.override("en"):
        assert fold.title == fold.name


def test_a_name_given_by_hand_is_kept():
    for name in ("Pilot batch", "fold 2", "piaf fold 3"):
        fold = Fold(kind=Fold.KIND_TRIPLET, index=1, name=name)
        with translation.override("fr"):
            assert fold.title == name


@pytest.mark.django_db
def test_the_annotators_pages_name_their_fold_in_french(tiny_corpus, client, make_user):
    from annotation.assignments import assign_fold
    from annotation.fold_store import create_folds

    folds = create_folds(tiny_corpus, k=2, seed=0)
    user = make_user("ann", "annotator")
    assign_fold(folds[0], user)
    client.force_login(user)
    assert folds[0].name.endswith(" fold 1")
    for path in ("/", f"/annotate/{folds[0].pk}/", f"/annotate/{folds[0].pk}/items/"):
        page = client.get(path, HTTP_ACCEPT_LANGUAGE="fr", follow=True).content.decode()
        assert f"{tiny_corpus.name} lot 1" in page, path
        assert folds[0].name not in page, path
