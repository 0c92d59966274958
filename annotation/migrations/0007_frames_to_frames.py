"""The frame models now live in the ``frames`` app: remove them from annotation's state only.

No table is touched (they keep their ``annotation_*`` names, see ``frames.0001_initial``); the fold
items' foreign key now points at ``frames.FrameAnnotation`` (same column, same table). The content
types of the moved models are relabelled ``frames`` so that their permissions and admin log entries
follow them.
"""
import django.db.models.deletion
from django.db import migrations, models

MOVED = ["framelexicon", "framedef", "frameelementdef", "lexicalunitdef", "frameannotation", "framecheck",
         "framecheckevent"]


def relabel(apps, schema_editor, old, new):
    content_type = apps.get_model("contenttypes", "ContentType")
    content_type.objects.using(schema_editor.connection.alias).filter(app_label=old, model__in=MOVED).update(
        app_label=new)


def forwards(apps, schema_editor):
    relabel(apps, schema_editor, "annotation", "frames")


def backwards(apps, schema_editor):
    relabel(apps, schema_editor, "frames", "annotation")


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0006_job_to_core"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("frames", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="folditem",
                    name="frame_annotation",
                    field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE,
                                            related_name="fold_items", to="frames.frameannotation"),
                ),
                migrations.DeleteModel(name="FrameCheckEvent"),
                migrations.DeleteModel(name="FrameCheck"),
                migrations.DeleteModel(name="FrameAnnotation"),
                migrations.DeleteModel(name="LexicalUnitDef"),
                migrations.DeleteModel(name="FrameElementDef"),
                migrations.DeleteModel(name="FrameDef"),
                migrations.DeleteModel(name="FrameLexicon"),
            ],
            database_operations=[],
        ),
        migrations.RunPython(forwards, backwards),
    ]
