"""Issue 27: item handles that carry no order (annotators see them instead of item ids), and the
guidelines each annotator last read. Existing fold items get a random handle each."""

from django.db import migrations, models

import annotation.models.triplets

BATCH = 2000


def fill_handles(apps, schema_editor):
    FoldItem = apps.get_model("annotation", "FoldItem")
    pks = list(FoldItem.objects.filter(handle__isnull=True).values_list("pk", flat=True))
    for start in range(0, len(pks), BATCH):
        items = [FoldItem(pk=pk, handle=annotation.models.triplets.new_handle()) for pk in pks[start : start + BATCH]]
        FoldItem.objects.bulk_update(items, ["handle"])


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0009_crowd_studies"),  # frames.0001 comes before through 0007 (the one migration that names frames)
    ]

    operations = [
        migrations.AddField(
            model_name="assignment",
            name="guidelines_seen",
            field=models.TextField(blank=True, editable=False, null=True),
        ),
        migrations.AddField(
            model_name="folditem",
            name="handle",
            field=models.BigIntegerField(editable=False, null=True),
        ),
        migrations.RunPython(fill_handles, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="folditem",
            name="handle",
            field=models.BigIntegerField(default=annotation.models.triplets.new_handle, editable=False),
        ),
        migrations.AddConstraint(
            model_name="folditem",
            constraint=models.UniqueConstraint(fields=("fold", "handle"), name="uniq_fold_handle"),
        ),
    ]
