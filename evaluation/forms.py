"""The researcher's form to start a report."""
from django import forms

from annotation.models import Corpus
from evaluation.report import METRICS


class ReportForm(forms.Form):
    corpus = forms.ModelChoiceField(queryset=Corpus.objects.order_by("name"), to_field_name="name")
    systems = forms.CharField(required=False, help_text="ROVER systems, comma-separated, in tie-break order "
                              "(empty: all but reference)")
    alpha = forms.FloatField(initial=5, min_value=0.5, help_text="agree when Levenshtein distance < alpha")
    metric = forms.ChoiceField(choices=[(m, m) for m in METRICS], initial="hscore")
    n_boot = forms.IntegerField(initial=1000, min_value=0, max_value=20000, label="Bootstrap replicates")
    adjudicated = forms.BooleanField(required=False, label="Use adjudicated labels",
                                     help_text="items an admin adjudicated count with the final label")

    def clean_systems(self):
        return [s.strip() for s in self.cleaned_data["systems"].split(",") if s.strip()]
