"""Triplet keys under the dedup policies now write the typographic apostrophes U+2019 and U+02BC as
``'`` (``annotation.dedup.APOSTROPHES``): stored keys are rewritten so that lookups by the new key find
their triplet. Where a question already holds a triplet under the rewritten key (the two spellings
were two triplets), both are kept as they are, with their labels: merging labeled triplets is a
decision for an admin, not for a migration."""

from django.db import migrations
from django.db.models import Q

APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'"})


def rewrite_keys(apps, schema_editor):
    Triplet = apps.get_model("annotation", "Triplet")
    stale = (
        Triplet.objects.filter(Q(normalized_answer__contains="\u2019") | Q(normalized_answer__contains="\u02bc"))
        .exclude(question__corpus__dedup_policy="exact")
        .order_by("id")
    )
    for triplet in stale.iterator():
        key = triplet.normalized_answer.translate(APOSTROPHES)
        if not Triplet.objects.filter(question_id=triplet.question_id, normalized_answer=key).exists():
            Triplet.objects.filter(pk=triplet.pk).update(normalized_answer=key)


class Migration(migrations.Migration):
    dependencies = [("annotation", "0013_label_titles")]

    operations = [migrations.RunPython(rewrite_keys, migrations.RunPython.noop)]
