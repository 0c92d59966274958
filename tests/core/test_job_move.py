"""Job and WorkerBeat moved from the annotation app to core without moving a row: a database
migrated as it was before the move keeps every job, its links and its permissions."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("annotation", "0005_worker_beat"), ("models_runner", "0002_judges"), ("core", None)]


def migrate(targets):
    """Migrate to ``targets`` (the other apps stay as far as their dependencies let them); the models
    as they are then, from the migrations applied (a later app's migration that needed a newer one of
    a moved app is unapplied too)."""
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(sorted(executor.loader.applied_migrations)).apps


@pytest.mark.django_db(transaction=True)
def test_rows_links_and_permissions_survive_the_move():
    from django.contrib.contenttypes.models import ContentType

    ContentType.objects.clear_cache()
    try:  # whatever fails, the database goes back to the latest migrations for the tests after this one
        old = migrate(BEFORE)
        job_type, _ = old.get_model("contenttypes", "ContentType").objects.get_or_create(
            app_label="annotation", model="job"
        )
        view_job, _ = old.get_model("auth", "Permission").objects.get_or_create(
            content_type=job_type, codename="view_job", defaults={"name": "Can view job"}
        )
        user = old.get_model("auth", "User").objects.create(username="u")
        job = old.get_model("annotation", "Job").objects.create(
            kind="inference", status="succeeded", created_by=user, params={"k": 1}, progress_done=2, progress_total=2
        )
        corpus = old.get_model("annotation", "Corpus").objects.create(name="c")
        system = old.get_model("annotation", "System").objects.create(name="s", kind="model")
        old.get_model("models_runner", "InferenceRun").objects.create(
            job=job, corpus=corpus, system=system, backend="baseline"
        )
        old.get_model("annotation", "WorkerBeat").objects.create(name="w1", queues="default")
        group = old.get_model("auth", "Group").objects.create(name="watchers")
        group.permissions.add(view_job)
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    from django.contrib.auth.models import Group

    from core.models import Job, WorkerBeat

    ContentType.objects.clear_cache()

    moved = Job.objects.get(pk=job.pk)
    assert (moved.kind, moved.status, moved.params) == ("inference", "succeeded", {"k": 1})
    assert moved.created_by.username == "u"
    assert moved.inference_run.backend == "baseline" and moved.percent == 100
    assert WorkerBeat.objects.get().name == "w1"
    assert ContentType.objects.get_for_model(Job).app_label == "core"
    assert not ContentType.objects.filter(app_label="annotation", model__in=["job", "workerbeat"]).exists()
    assert list(Group.objects.get(name="watchers").permissions.values_list("content_type__app_label", "codename")) == [
        ("core", "view_job")
    ]
    assert Job._meta.db_table == "annotation_job" and WorkerBeat._meta.db_table == "annotation_workerbeat"
