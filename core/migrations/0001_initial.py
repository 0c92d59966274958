"""Job and WorkerBeat become core models WITHOUT moving data: their tables keep the names the
annotation app gave them (``annotation_job``, ``annotation_workerbeat``), so this migration changes
only Django's idea of which app holds them; the database is not touched. The annotation app drops
them from its own state in ``annotation/migrations/0006_job_to_core.py``."""
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("annotation", "0005_worker_beat"),  # the tables exist (created by the annotation app)
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Job",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("kind", models.CharField(max_length=40)),
                        ("status", models.CharField(choices=[("created", "created"), ("running", "running"), ("succeeded", "succeeded"), ("failed", "failed"), ("cancelled", "cancelled")], db_index=True, default="created", max_length=20)),
                        ("params", models.JSONField(blank=True, default=dict)),
                        ("result", models.JSONField(blank=True, default=dict)),
                        ("progress_done", models.PositiveIntegerField(default=0)),
                        ("progress_total", models.PositiveIntegerField(default=0)),
                        ("message", models.CharField(blank=True, max_length=500)),
                        ("error", models.TextField(blank=True)),
                        ("cancel_requested", models.BooleanField(default=False)),
                        ("celery_task_id", models.CharField(blank=True, max_length=100)),
                        ("worker", models.CharField(blank=True, max_length=200)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("started_at", models.DateTimeField(blank=True, null=True)),
                        ("finished_at", models.DateTimeField(blank=True, null=True)),
                        ("heartbeat_at", models.DateTimeField(blank=True, null=True)),
                        ("resumable", models.BooleanField(default=False, help_text="A redelivered task may pick this job up again after its worker died.")),
                        ("attempts", models.PositiveIntegerField(default=0)),
                        ("created_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "annotation_job",
                        "ordering": ["-created_at", "-id"],
                    },
                ),
                migrations.CreateModel(
                    name="WorkerBeat",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("name", models.CharField(max_length=200, unique=True)),
                        ("queues", models.CharField(blank=True, max_length=500)),
                        ("seen_at", models.DateTimeField(default=django.utils.timezone.now)),
                    ],
                    options={
                        "db_table": "annotation_workerbeat",
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
