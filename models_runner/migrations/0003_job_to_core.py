"""The runs' jobs are ``core.Job`` now (the same table, ``annotation_job``: see
``core/migrations/0001_initial.py``): only Django's state changes, the database is not touched.
Runs before the annotation app drops its Job from its state."""
import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("core", "0001_initial"),
        ("models_runner", "0002_judges"),
    ]

    run_before = [
        ("annotation", "0006_job_to_core"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="inferencerun",
                    name="job",
                    field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name="inference_run", to="core.job"),
                ),
                migrations.AlterField(
                    model_name="judgerun",
                    name="job",
                    field=models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name="judge_run", to="core.job"),
                ),
            ],
            database_operations=[],
        ),
    ]
