"""The researcher's form to start a report."""

from django import forms

from annotation.models import Corpus
from evaluation import judge_inputs
from evaluation.science import metric_registry
from evaluation.science.rover import DEFAULT_ALPHA
from evaluation.science.stats import DEFAULT_BOOT


class ReportForm(forms.Form):
    corpus = forms.ModelChoiceField(queryset=Corpus.objects.order_by("name"), to_field_name="name")
    systems = forms.CharField(
        required=False, help_text="ROVER systems, comma-separated, in tie-break order (empty: all but reference)"
    )
    alpha = forms.FloatField(initial=DEFAULT_ALPHA, min_value=0.5, help_text="agree when Levenshtein distance < alpha")
    metric = forms.ChoiceField(choices=lambda: [(m, m) for m in metric_registry.all_keys()], initial="hscore")
    n_boot = forms.IntegerField(initial=DEFAULT_BOOT, min_value=0, max_value=20000, label="Bootstrap replicates")
    adjudicated = forms.BooleanField(
        required=False,
        label="Use adjudicated labels",
        help_text="items an admin adjudicated count with the final label",
    )
    include_excluded = forms.BooleanField(
        required=False,
        label="Keep excluded participants",
        help_text="crowd-study participants stopped on gold items count too (left out by default)",
    )
    human_aggregate = forms.ChoiceField(
        choices=[
            ("mean", "mean of the labels' values"),
            ("majority", "majority label (ties: mean of the tied labels)"),
        ],
        initial="mean",
        required=False,
        label="Labels of one answer",
        help_text="printed with every table",
    )
    judge = forms.ChoiceField(
        required=False,
        label="Automatic judge",
        help_text="prediction-powered estimates with this judge's labels (SPEC 10); none: human only",
    )
    significance = forms.ChoiceField(
        choices=[("raw", "raw p < 0.05 (as the paper)"), ("holm", "Holm-corrected p < 0.05")],
        initial="raw",
        required=False,
        label="Bold cells in the paper tables",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        names = judge_inputs.judge_names()  # the most labels first: the default
        self.fields["judge"].choices = [("", "none"), *((n, n) for n in names)]
        self.fields["judge"].initial = names[0] if names else ""

    def clean(self):
        data = super().clean()
        corpus, name = data.get("corpus"), data.get("judge")
        if corpus is not None and name and judge_inputs.pick_judge(corpus, name) is None:
            others = [j.name for j in judge_inputs.corpus_judges(corpus)]
            self.add_error(
                "judge",
                f"judge {name} has no labels in corpus {corpus.name}; choose "
                + (f"one of {', '.join(others)} or none" if others else "none"),
            )
        return data

    def clean_systems(self):
        return [s.strip() for s in self.cleaned_data["systems"].split(",") if s.strip()]

    def clean_human_aggregate(self):
        return self.cleaned_data["human_aggregate"] or "mean"

    def clean_significance(self):
        return self.cleaned_data["significance"] or "raw"
