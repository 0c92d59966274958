"""Job and WorkerBeat leave the annotation app for ``core`` (``core/migrations/0001_initial.py``):
their tables and rows stay as they are; this removes them from the annotation app's state only, and
points the frame annotations' job at ``core.Job`` (same table, same column).

On a database that already has content types for them, those rows move to the ``core`` app, so the
permissions and admin history that refer to them keep working."""
import django.db.models.deletion
from django.db import migrations, models

MODELS = ("job", "workerbeat")


def move_content_types(apps, schema_editor, source="annotation", target="core"):
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    for model in MODELS:
        if not ContentType.objects.using(db).filter(app_label=target, model=model).exists():
            ContentType.objects.using(db).filter(app_label=source, model=model).update(app_label=target)


def move_content_types_back(apps, schema_editor):
    move_content_types(apps, schema_editor, source="core", target="annotation")


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0005_worker_beat"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("core", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="frameannotation",
                    name="job",
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to="core.job"),
                ),
                migrations.DeleteModel(name="Job"),
                migrations.DeleteModel(name="WorkerBeat"),
            ],
            database_operations=[],
        ),
        migrations.RunPython(move_content_types, move_content_types_back),
    ]
