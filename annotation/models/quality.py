"""Quality control: gold items (an expected label an admin set) and adjudications (the final label an
admin picked where annotators disagree)."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.label_titles import LABEL_TITLES
from stats.labels import LABEL_VALUES

_CHOICES = [(v, LABEL_TITLES[v]) for v in LABEL_VALUES]


class GoldItem(models.Model):
    triplet = models.OneToOneField(
        "annotation.Triplet", on_delete=models.CASCADE, related_name="gold", verbose_name=_("triplet")
    )
    expected = models.CharField(
        max_length=16, choices=_CHOICES, help_text=_("The label a careful annotator gives."), verbose_name=_("expected")
    )
    note = models.TextField(
        blank=True, help_text=_("Why (for admins; never shown to annotators)."), verbose_name=_("note")
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("created by")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("gold item")
        verbose_name_plural = _("gold items")

    def __str__(self):
        value = LABEL_TITLES.get(self.expected, self.expected)
        return gettext("gold %(value)s for triplet %(triplet)s") % {"value": value, "triplet": self.triplet_id}


class Adjudication(models.Model):
    triplet = models.OneToOneField(
        "annotation.Triplet", on_delete=models.CASCADE, related_name="adjudication", verbose_name=_("triplet")
    )
    value = models.CharField(max_length=16, choices=_CHOICES, verbose_name=_("value"))
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("adjudicator")
    )
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("adjudication")
        verbose_name_plural = _("adjudications")

    def __str__(self):
        value = LABEL_TITLES.get(self.value, self.value)
        return gettext("adjudicated %(value)s for triplet %(triplet)s") % {"value": value, "triplet": self.triplet_id}
