"""The abstract judgement models (issue 43 point 6): the fields every judgement row and every judgement
event has, whatever its kind (answer labels: ``Label`` / ``LabelEvent``; frames' checks: ``HumanCheck`` /
``HumanCheckEvent``). Their one save path is ``annotation.judgements.save``, which reads and writes exactly
these fields."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class Judgement(models.Model):
    """What every judgement row keeps: the latest verdict (the concrete model's fields), whether the
    item is skipped, the time spent on it over all visits, the fold it was first judged in."""

    fold = models.ForeignKey(
        "annotation.Fold", null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("fold")
    )
    skipped = models.BooleanField(default=False, verbose_name=_("skipped"))
    seconds_spent = models.FloatField(
        default=0.0, help_text=_("Total time spent on this item, all visits."), verbose_name=_("seconds spent")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        abstract = True


class JudgementEvent(models.Model):
    """What every submission keeps: its verdict fields (the concrete model's), skipped, the time of the
    visit and the client's id."""

    skipped = models.BooleanField(default=False, verbose_name=_("skipped"))
    seconds = models.FloatField(default=0.0, verbose_name=_("seconds"))
    submission_id = models.CharField(
        max_length=64,
        null=True,
        blank=True,
        help_text=_("Chosen by the client; unique per judgement row (annotator and item)."),
        verbose_name=_("submission id"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        abstract = True
