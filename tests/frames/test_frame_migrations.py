"""The frame models moved from annotation to frames without moving data (issue 9): a database at the
old head, with frame rows in it, migrates forward and back with every row kept."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

OLD = [("annotation", "0005_worker_beat"), ("frames", None)]
NEW = [("annotation", "0007_frames_to_frames"), ("frames", "0001_initial")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state([t for t in targets if t[1]]).apps


def _seed(apps):
    get = apps.get_model
    user = get("auth", "User").objects.create(username="checker")
    corpus = get("annotation", "Corpus").objects.create(name="moved")
    question = get("annotation", "Question").objects.create(corpus=corpus, external_id="q1", question="Who attacked?")
    lexicon = get("annotation", "FrameLexicon").objects.create(name="mini")
    frame = get("annotation", "FrameDef").objects.create(lexicon=lexicon, name="Attack")
    get("annotation", "FrameElementDef").objects.create(frame=frame, name="Assailant")
    get("annotation", "LexicalUnitDef").objects.create(frame=frame, name="attack.v")
    annotation = get("annotation", "FrameAnnotation").objects.create(
        question=question, lexicon=lexicon, outcome="done", frame=frame, frame_name="Attack"
    )
    fold = get("annotation", "Fold").objects.create(corpus=corpus, kind="frame", index=0, name="f0")
    get("annotation", "FoldItem").objects.create(fold=fold, position=0, frame_annotation=annotation)
    check = get("annotation", "FrameCheck").objects.create(
        frame_annotation=annotation, annotator=user, fold=fold, frame_rating="full", fe_rating="partial"
    )
    get("annotation", "FrameCheckEvent").objects.create(frame_check=check, frame_rating="full", submission_id="s1")


MODELS = [
    "FrameLexicon",
    "FrameDef",
    "FrameElementDef",
    "LexicalUnitDef",
    "FrameAnnotation",
    "FrameCheck",
    "FrameCheckEvent",
]


def test_frame_rows_survive_the_move_and_its_reversal():
    try:
        _seed(_migrate(OLD))
        apps = _migrate(NEW)
        assert [apps.get_model("frames", m).objects.count() for m in MODELS] == [1] * 7
        item = apps.get_model("annotation", "FoldItem").objects.get()
        assert item.frame_annotation.frame.name == "Attack"
        assert item.frame_annotation.checks.get().events.get().submission_id == "s1"
        apps = _migrate(OLD)
        assert [apps.get_model("annotation", m).objects.count() for m in MODELS] == [1] * 7
    finally:  # the latest migrations of every app again, for the tests after this one
        MigrationExecutor(connection).migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


def test_the_tables_keep_their_names():
    from frames import models

    assert {getattr(models, m)._meta.db_table for m in MODELS} == {f"annotation_{m.lower()}" for m in MODELS}
