"""Admin forms: start an inference run (checked by ``inference.prepare_run``), edit an LLM judge, start a judge run."""

import json

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.models import Corpus
from core.number_field import NumberField
from models_runner.backends import REGISTRY, TITLES
from models_runner.models import Judge


class StartRunForm(forms.Form):
    corpus = forms.ModelChoiceField(label=_("Corpus"), queryset=Corpus.objects.order_by("name"), to_field_name="name")
    system = forms.CharField(
        label=_("System"), max_length=200, help_text=_("name of the system whose predictions the run writes")
    )
    backend = forms.ChoiceField(label=_("Backend"), choices=[(name, _(TITLES[name])) for name in REGISTRY])
    model = forms.CharField(
        label=_("Model"),
        required=False,
        max_length=1000,
        help_text=_("local model directory (extractive, seq2seq, causal) or API model name (openai)"),
    )
    batch_size = NumberField(integer=True, label=_("Batch size"), min_value=1, max_value=4096, initial=8)
    device = forms.CharField(label=_("Device"), initial="auto", max_length=20, help_text=_("auto, cpu, cuda, cuda:N"))
    options = forms.CharField(
        label=_("Options"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "cols": 60}),
        help_text=_('other backend options as a JSON object, e.g. {"adapter": "/models/lora", "shots": 2}'),
    )

    def clean_options(self):
        raw = self.cleaned_data.get("options") or ""
        if not raw.strip():
            return {}
        try:
            value = json.loads(raw)
        except ValueError as exc:
            raise forms.ValidationError(gettext("not valid JSON: %(error)s") % {"error": exc}) from None
        if not isinstance(value, dict):
            raise forms.ValidationError(gettext("give a JSON object"))
        return value

    def backend_options(self):
        options = dict(self.cleaned_data["options"])
        if self.cleaned_data.get("model"):
            options["model"] = self.cleaned_data["model"]
        return options


class JudgeForm(forms.ModelForm):
    """An LLM judge as an admin edits it: the prompt (default ``judging.DEFAULT_PROMPT``) and the
    parameters, both checked."""

    class Meta:
        model = Judge
        fields = ["name", "kind", "description", "prompt", "parameters"]
        widgets = {"prompt": forms.Textarea(attrs={"rows": 18, "cols": 90})}

    def clean_prompt(self):
        from models_runner import judging

        prompt = self.cleaned_data.get("prompt") or ""
        if self.cleaned_data.get("kind", "llm") == "llm" or prompt:
            try:
                judging.check_prompt(prompt or judging.DEFAULT_PROMPT)
            except judging.JudgeError as exc:
                raise forms.ValidationError(str(exc)) from None
        return prompt

    def clean(self):
        from models_runner import judging

        data = super().clean()
        if data.get("kind") == "llm" and "parameters" in data:
            try:
                data["parameters"] = judging.judge_parameters(data["parameters"] or {})
            except judging.JudgeError as exc:
                self.add_error("parameters", str(exc))
        return data


class StartJudgeRunForm(forms.Form):
    corpus = forms.ModelChoiceField(label=_("Corpus"), queryset=Corpus.objects.order_by("name"), to_field_name="name")
    batch_size = NumberField(integer=True, label=_("Batch size"), min_value=1, max_value=4096, initial=8)
