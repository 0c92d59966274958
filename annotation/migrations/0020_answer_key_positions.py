"""Issue 44: a triplet is unique by a fixed-size key of its answer, a question's position is unique in
its corpus.

- ``Triplet.answer_key`` (SHA-256 of the normalized answer) replaces the normalized answer itself in
  the unique index: PostgreSQL refused answers of more than about 2.7 KB there ("index row size ...
  exceeds btree maximum"). Existing triplets get their key here.
- ``Question.position`` becomes unique per corpus. Corpora whose questions share positions (imports
  that raced before this) are renumbered in their present order (position, then id).
"""

import hashlib

from django.db import migrations, models
from django.db.models import Count

BATCH = 2000


def _checks_now(schema_editor):
    """PostgreSQL: run the deferred foreign key checks of the rows just updated, so that the
    constraint added next does not meet "pending trigger events"."""
    if schema_editor is not None and schema_editor.connection.vendor == "postgresql":
        with schema_editor.connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def fill_answer_keys(apps, schema_editor):
    Triplet = apps.get_model("annotation", "Triplet")
    pending = Triplet.objects.filter(answer_key="").order_by("pk")
    last = 0
    while True:
        batch = list(pending.filter(pk__gt=last).only("pk", "normalized_answer")[:BATCH])
        if not batch:
            return _checks_now(schema_editor)
        for triplet in batch:
            triplet.answer_key = hashlib.sha256(triplet.normalized_answer.encode("utf-8", "surrogatepass")).hexdigest()
        Triplet.objects.bulk_update(batch, ["answer_key"])
        last = batch[-1].pk


def renumber_shared_positions(apps, schema_editor):
    Question = apps.get_model("annotation", "Question")
    shared = (
        Question.objects.values("corpus_id", "position").annotate(n=Count("id")).filter(n__gt=1).values("corpus_id")
    )
    for corpus_id in sorted(set(shared.values_list("corpus_id", flat=True))):
        questions = list(Question.objects.filter(corpus_id=corpus_id).order_by("position", "pk").only("pk"))
        for position, question in enumerate(questions):
            question.position = position
        Question.objects.bulk_update(questions, ["position"], batch_size=BATCH)
    _checks_now(schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0019_french_field_labels"),
    ]

    operations = [
        migrations.RemoveConstraint(model_name="triplet", name="uniq_triplet_per_question"),
        migrations.AddField(
            model_name="triplet",
            name="answer_key",
            field=models.CharField(default="", editable=False, max_length=64, verbose_name="answer key"),
            preserve_default=False,
        ),
        migrations.RunPython(fill_answer_keys, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="triplet",
            constraint=models.UniqueConstraint(fields=("question", "answer_key"), name="uniq_triplet_answer_key"),
        ),
        migrations.AlterField(
            model_name="question",
            name="position",
            field=models.PositiveIntegerField(
                blank=True, help_text="Order of the question in its file.", verbose_name="position"
            ),
        ),
        migrations.RunPython(renumber_shared_positions, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="question",
            constraint=models.UniqueConstraint(fields=("corpus", "position"), name="uniq_question_position"),
        ),
    ]
