"""The admin's forms for building check folds, shown on annotation's fold page: one per kind of human
check (``frames.human_checks``), each made by :func:`check_folds_form` with its own field prefix."""

from django import forms
from django.utils.translation import gettext_lazy as _

from core.number_field import NumberField


def check_folds_form(prefix, *, doc, k_label, sample_help, replace_help, target):
    """A Form class for the folds of one kind of check: ``<prefix>_k``, ``_seed``, ``_overlap``, ``_sample``
    and ``_replace`` (the prefix keeps the kinds' forms apart on one page); ``options()`` gives the
    keyword arguments of the kind's ``build`` (``target`` names it in the docstring)."""
    fields = {
        "k": NumberField(integer=True, min_value=1, max_value=1000, initial=2, label=k_label),
        "seed": NumberField(integer=True, min_value=-(2**31), max_value=2**31 - 1, initial=0, label=_("Seed")),
        "overlap": NumberField(
            min_value=0,
            max_value=1,
            initial=1.0,
            label=_("Overlap"),
            help_text=_("share of sampled questions checked by every fold (1: all)"),
        ),
        "sample": NumberField(
            integer=True, min_value=1, max_value=2**31 - 1, required=False, label=_("Sample"), help_text=sample_help
        ),
        "replace": forms.BooleanField(required=False, label=_("Replace"), help_text=replace_help),
    }

    def options(self):
        return {name: self.cleaned_data[f"{prefix}_{name}"] for name in fields}

    options.__doc__ = f"Keyword arguments of ``{target}``."
    attrs = {f"{prefix}_{name}": field for name, field in fields.items()}
    return type(f"Build{prefix.capitalize()}FoldsForm", (forms.Form,), {**attrs, "options": options, "__doc__": doc})


BuildFrameFoldsForm = check_folds_form(
    "frame",
    doc="Frame-check folds (paper Table 4): a sample of questions with a predicted frame, checked by K people.",
    k_label=_("Frame-check folds (K)"),
    sample_help=_("check only this many questions (empty: all with a frame)"),
    replace_help=_("rebuild frame folds that have no checks yet"),
    target="frames.folds.create_frame_folds",
)
BuildAttributeFoldsForm = check_folds_form(
    "attribute",
    doc="Attribute-check folds (issue 26 point 4): a sample of questions with derived attributes, checked by K people.",
    k_label=_("Attribute-check folds (K)"),
    sample_help=_("check only this many questions (empty: all with a derived trigger)"),
    replace_help=_("rebuild attribute folds that have no checks yet"),
    target="frames.attribute_checks.create_attribute_folds",
)
