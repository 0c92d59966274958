"""The frame models move here from annotation WITHOUT moving data (issue 9).

State only: the tables keep their names (``annotation_framelexicon`` ... ``annotation_framecheckevent``,
``db_table`` in each model's options) and nothing is created in the database. On a new database
annotation's 0001-0003 create the tables; ``annotation.0007_frames_to_frames`` removes the models
from annotation's state once they exist here.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('annotation', '0005_worker_beat'),
        ('core', '0001_initial'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='FrameDef',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=200)),
                        ('fn_id', models.IntegerField(blank=True, null=True)),
                        ('definition', models.TextField(blank=True)),
                    ],
                    options={
                        'db_table': 'annotation_framedef',
                        'ordering': ['lexicon', 'name'],
                    },
                ),
                migrations.CreateModel(
                    name='FrameLexicon',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.SlugField(max_length=100, unique=True)),
                        ('source_path', models.CharField(blank=True, max_length=500)),
                        ('meta', models.JSONField(blank=True, default=dict)),
                        ('imported_at', models.DateTimeField(auto_now_add=True)),
                    ],
                    options={
                        'db_table': 'annotation_framelexicon',
                    },
                ),
                migrations.CreateModel(
                    name='FrameAnnotation',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('outcome', models.CharField(choices=[('no_trigger', 'no_trigger'), ('unknown_frame', 'unknown_frame'), ('bad_output', 'bad_output'), ('done', 'done'), ('error', 'error')], max_length=20)),
                        ('candidates', models.JSONField(blank=True, default=list, help_text='[[frame, word], ...]')),
                        ('frame_name', models.CharField(blank=True, help_text='As the LLM named it.', max_length=200)),
                        ('trigger', models.CharField(blank=True, max_length=200)),
                        ('lu', models.CharField(blank=True, max_length=200)),
                        ('frame_elements', models.JSONField(blank=True, default=dict, help_text='FE name -> text span')),
                        ('frame_prompt', models.TextField(blank=True)),
                        ('frame_reply', models.TextField(blank=True)),
                        ('fe_prompt', models.TextField(blank=True)),
                        ('fe_reply', models.TextField(blank=True)),
                        ('model', models.CharField(blank=True, max_length=200)),
                        ('meta', models.JSONField(blank=True, default=dict, help_text='Parsing notes: dropped FEs, replaced words, the reason of a bad outcome.')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('job', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='core.job')),
                        ('question', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='frame_annotations', to='annotation.question')),
                        ('frame', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='frames.framedef')),
                        ('lexicon', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='annotations', to='frames.framelexicon')),
                    ],
                    options={
                        'db_table': 'annotation_frameannotation',
                    },
                ),
                migrations.CreateModel(
                    name='FrameCheck',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('frame_rating', models.CharField(blank=True, choices=[('full', 'full'), ('partial', 'partial'), ('erroneous', 'erroneous')], max_length=16, null=True)),
                        ('fe_rating', models.CharField(blank=True, choices=[('full', 'full'), ('partial', 'partial'), ('erroneous', 'erroneous')], max_length=16, null=True)),
                        ('skipped', models.BooleanField(default=False)),
                        ('seconds_spent', models.FloatField(default=0.0)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('annotator', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='frame_checks', to=settings.AUTH_USER_MODEL)),
                        ('fold', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, to='annotation.fold')),
                        ('frame_annotation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='checks', to='frames.frameannotation')),
                    ],
                    options={
                        'db_table': 'annotation_framecheck',
                    },
                ),
                migrations.CreateModel(
                    name='FrameCheckEvent',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('frame_rating', models.CharField(blank=True, max_length=16, null=True)),
                        ('fe_rating', models.CharField(blank=True, max_length=16, null=True)),
                        ('skipped', models.BooleanField(default=False)),
                        ('seconds', models.FloatField(default=0.0)),
                        ('submission_id', models.CharField(blank=True, help_text='Chosen by the client; unique per judgement row (annotator and item).', max_length=64, null=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('frame_check', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='events', to='frames.framecheck')),
                    ],
                    options={
                        'db_table': 'annotation_framecheckevent',
                        'ordering': ['frame_check', 'created_at', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='FrameElementDef',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(max_length=200)),
                        ('core_type', models.CharField(blank=True, max_length=40)),
                        ('definition', models.TextField(blank=True)),
                        ('frame', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='elements', to='frames.framedef')),
                    ],
                    options={
                        'db_table': 'annotation_frameelementdef',
                    },
                ),
                migrations.AddField(
                    model_name='framedef',
                    name='lexicon',
                    field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='frames', to='frames.framelexicon'),
                ),
                migrations.CreateModel(
                    name='LexicalUnitDef',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('name', models.CharField(help_text='e.g. attack.v', max_length=200)),
                        ('pos', models.CharField(blank=True, max_length=20)),
                        ('fn_id', models.IntegerField(blank=True, null=True)),
                        ('frame', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='lexical_units', to='frames.framedef')),
                    ],
                    options={
                        'db_table': 'annotation_lexicalunitdef',
                    },
                ),
                migrations.AddConstraint(
                    model_name='framecheck',
                    constraint=models.UniqueConstraint(fields=('frame_annotation', 'annotator'), name='uniq_frame_check_per_annotator'),
                ),
                migrations.AddConstraint(
                    model_name='framecheckevent',
                    constraint=models.UniqueConstraint(fields=('frame_check', 'submission_id'), name='uniq_frame_check_event_submission'),
                ),
                migrations.AddConstraint(
                    model_name='frameelementdef',
                    constraint=models.UniqueConstraint(fields=('frame', 'name'), name='uniq_fe_per_frame'),
                ),
                migrations.AddConstraint(
                    model_name='framedef',
                    constraint=models.UniqueConstraint(fields=('lexicon', 'name'), name='uniq_frame_per_lexicon'),
                ),
                migrations.AddConstraint(
                    model_name='frameannotation',
                    constraint=models.UniqueConstraint(fields=('question', 'lexicon'), name='uniq_frame_annotation_per_question'),
                ),
                migrations.AddConstraint(
                    model_name='lexicalunitdef',
                    constraint=models.UniqueConstraint(fields=('frame', 'name'), name='uniq_lu_per_frame'),
                ),
            ],
            database_operations=[],
        ),
    ]
