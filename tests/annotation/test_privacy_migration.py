"""Migration 0020 (SPEC 18): existing participants get pseudonyms and their accounts lose the panel id
from their names; each study's consent text becomes version 1; going back keeps every row."""

import re

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("annotation", "0021_crowd_screening")]
AFTER = [("annotation", "0022_participants_privacy")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


def test_existing_accounts_are_renamed_from_pseudonyms():
    try:
        old = _migrate(BEFORE)
        get = old.get_model
        corpus = get("annotation", "Corpus").objects.create(name="older")
        study = get("annotation", "Study").objects.create(
            slug="older", title="T", consent="Agree?", corpus=corpus, completion_code="C", language="fr"
        )
        for pid in ("5f3e9a7b1c2d", "61aa02"):
            user = get("auth", "User").objects.create(username=f"s{study.pk}.{pid}")
            get("annotation", "Participant").objects.create(study=study, external_id=pid, user=user)
        new = _migrate(AFTER)
        rows = list(new.get_model("annotation", "Participant").objects.order_by("pk"))
        assert [p.external_id for p in rows] == ["5f3e9a7b1c2d", "61aa02"]  # the panel ids stay (admins only)
        codes = [p.code for p in rows]
        assert len(set(codes)) == 2 and all(re.fullmatch(r"P-[0-9A-Z]{6}", c) for c in codes)
        names = list(new.get_model("auth", "User").objects.filter(participant__isnull=False).values_list("username"))
        assert sorted(n for (n,) in names) == sorted(f"s{study.pk}.{c}" for c in codes)
        (version,) = new.get_model("annotation", "ConsentVersion").objects.all()
        assert (version.number, version.language, version.text, len(version.sha256)) == (1, "fr", "Agree?", 64)
        back = _migrate(BEFORE)
        assert back.get_model("annotation", "Participant").objects.count() == 2
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
