"""The admin's form for building frame-check folds, shown on annotation's fold page."""

from django import forms
from django.utils.translation import gettext_lazy as _


class BuildFrameFoldsForm(forms.Form):
    """Frame-check folds (paper Table 4): a sample of questions with a predicted frame, checked by K people."""

    frame_k = forms.IntegerField(min_value=1, max_value=1000, initial=2, label=_("Frame-check folds (K)"))
    frame_seed = forms.IntegerField(initial=0, label=_("Seed"))
    frame_overlap = forms.FloatField(
        min_value=0,
        max_value=1,
        initial=1.0,
        label=_("Overlap"),
        help_text=_("share of sampled questions checked by every fold (1: all)"),
    )
    frame_sample = forms.IntegerField(
        min_value=1,
        required=False,
        label=_("Sample"),
        help_text=_("check only this many questions (empty: all with a frame)"),
    )
    frame_replace = forms.BooleanField(
        required=False, label=_("Replace"), help_text=_("rebuild frame folds that have no checks yet")
    )

    def options(self):
        """Keyword arguments of ``frames.folds.create_frame_folds``."""
        data = self.cleaned_data
        return {
            "k": data["frame_k"],
            "seed": data["frame_seed"],
            "overlap": data["frame_overlap"],
            "sample": data["frame_sample"],
            "replace": data["frame_replace"],
        }


class BuildAttributeFoldsForm(forms.Form):
    """Attribute-check folds (issue 26 point 4): a sample of questions with derived attributes, checked by K people."""

    attribute_k = forms.IntegerField(min_value=1, max_value=1000, initial=2, label=_("Attribute-check folds (K)"))
    attribute_seed = forms.IntegerField(min_value=-(2**31), max_value=2**31 - 1, initial=0, label=_("Seed"))
    attribute_overlap = forms.FloatField(
        min_value=0,
        max_value=1,
        initial=1.0,
        label=_("Overlap"),
        help_text=_("share of sampled questions checked by every fold (1: all)"),
    )
    attribute_sample = forms.IntegerField(
        min_value=1,
        max_value=2**31 - 1,
        required=False,
        label=_("Sample"),
        help_text=_("check only this many questions (empty: all with a derived trigger)"),
    )
    attribute_replace = forms.BooleanField(
        required=False, label=_("Replace"), help_text=_("rebuild attribute folds that have no checks yet")
    )

    def options(self):
        """Keyword arguments of ``frames.attribute_checks.create_attribute_folds``."""
        data = self.cleaned_data
        return {
            "k": data["attribute_k"],
            "seed": data["attribute_seed"],
            "overlap": data["attribute_overlap"],
            "sample": data["attribute_sample"],
            "replace": data["attribute_replace"],
        }
