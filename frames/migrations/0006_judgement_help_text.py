# The help text every judgement's time spent has (annotation.models.judgement.Judgement, issue 43 point 6):
# no SQL on either database (sqlmigrate: no-op).

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('frames', '0005_twins_human_checks'),
    ]

    operations = [
        migrations.AlterField(
            model_name='attributecheck',
            name='seconds_spent',
            field=models.FloatField(default=0.0, help_text='Total time spent on this item, all visits.', verbose_name='seconds spent'),
        ),
        migrations.AlterField(
            model_name='framecheck',
            name='seconds_spent',
            field=models.FloatField(default=0.0, help_text='Total time spent on this item, all visits.', verbose_name='seconds spent'),
        ),
    ]
