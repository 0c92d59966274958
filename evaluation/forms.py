"""The researcher's form to start a report: its fields derive from ``evaluation.report.options``."""

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.models import Corpus
from core.number_field import NumberField
from evaluation import judge_inputs
from evaluation.report.options import OPTIONS, split_names


def _field(option):
    """The form field of a report option (label, help, bounds, choices and initial from the option)."""
    common = {"required": option.required, "label": option.label, "help_text": option.help}
    if option.kind == "float":
        return NumberField(initial=option.default, min_value=option.min_value, **common)
    if option.kind == "int":
        return NumberField(
            integer=True, initial=option.default, min_value=option.min_value, max_value=option.max_value, **common
        )
    if option.kind == "bool":
        return forms.BooleanField(**common)
    if option.kind == "choice":
        return forms.ChoiceField(choices=option.choices, initial=option.default, **common)
    if option.kind == "name":  # the choices are the names the database holds (``__init__``)
        return forms.ChoiceField(**common)
    return forms.CharField(**common)  # list: comma-separated


class ReportForm(forms.Form):
    corpus = forms.ModelChoiceField(queryset=Corpus.objects.order_by("name"), to_field_name="name", label=_("Corpus"))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for option in OPTIONS:
            if option.form:
                self.fields[option.name] = _field(option)
        names = judge_inputs.judge_names()  # the most labels first: the default
        self.fields["judge"].choices = [("", gettext("none")), *((n, n) for n in names)]
        self.fields["judge"].initial = names[0] if names else ""

    def clean(self):
        data = super().clean()
        for option in OPTIONS:
            if not option.form or option.name not in data:
                continue
            if option.kind == "list":
                data[option.name] = split_names(data[option.name])
            elif option.kind == "choice" and not data[option.name]:
                data[option.name] = option.default  # left empty: the default
        corpus, name = data.get("corpus"), data.get("judge")
        if corpus is not None and name and judge_inputs.pick_judge(corpus, name) is None:
            others = [j.name for j in judge_inputs.corpus_judges(corpus)]
            where = {"name": name, "corpus": corpus.name, "others": ", ".join(others)}
            self.add_error(
                "judge",
                (
                    gettext("judge %(name)s has no labels in corpus %(corpus)s; choose one of %(others)s or none")
                    if others
                    else gettext("judge %(name)s has no labels in corpus %(corpus)s; choose none")
                )
                % where,
            )
        return data
