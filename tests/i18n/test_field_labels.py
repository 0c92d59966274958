"""Every label a French admin or researcher reads has a French entry (issue 32, done when).

Generated from Django's own introspection, so that a new model, field, choice, admin column, form or
job kind cannot skip the check: every app the admin shows, every model of the site (its names, each
field's verbose name, help text and choice labels), every admin's columns, actions and forms (add and
change), every form class of our apps (labels, help texts, choices) and every registered job kind and
result key. A text has its French when it reads differently in French, or when the French catalogue
holds it with a non-empty translation (a word French shares: « Description », « Corpus »).
A model's texts must be lazy as well (``gettext_lazy``): they are read at import, before any request
has chosen a language.
"""

import importlib
import pkgutil
import re

import pytest
from django import forms
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.forms.utils import pretty_name
from django.test import RequestFactory
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import trans_real

OWN_APPS = [
    c
    for c in apps.get_app_configs()
    if str(c.path).startswith(str(settings.BASE_DIR)) and "-packages" not in str(c.path)
]
# A language's own name (the switcher's choices) is written in that language on purpose.
AUTONYMS = {name for _, name in settings.LANGUAGES}
# Names, not words: formats and proper nouns (a text made of these and of acronyms needs no French).
NAMES = {"SQuAD", "FrameNet", "Prolific", "HELM", "Hscore", "Hcorrect", "Dawid", "Skene"}  # Dawid-Skene: its authors


def read(value, language):
    with translation.override(language):
        return str(value)


def has_french(value):
    """True when ``value`` reads differently in French, or the French catalogue translates it as it is."""
    english, french = read(value, "en"), read(value, "fr")
    words = re.findall(r"[^\W\d_]{2,}", english)
    if english != french or english in AUTONYMS or all(w.isupper() or w in NAMES for w in words):
        return True
    catalogue = trans_real.translation("fr")._catalog
    return any(catalogue.get(msgid) for msgid in {english, english[:1].lower() + english[1:], english.lower()})


def model_texts(model):
    """(where, text, must be lazy) of every text a model shows: its names, its fields' verbose names,
    help texts and choice labels."""
    meta = model._meta
    yield f"{meta.label} verbose_name", meta.verbose_name, True
    yield f"{meta.label} verbose_name_plural", meta.verbose_name_plural, True
    for field in meta.get_fields():
        if (field.auto_created and not field.concrete) or not hasattr(field, "verbose_name"):
            continue  # a reverse relation: the other model names it
        if field.auto_created:  # the id Django adds (« ID », Django's own word)
            continue
        where = f"{meta.label}.{field.name}"
        yield f"{where} verbose_name", field.verbose_name, True
        if field.help_text:
            yield f"{where} help_text", field.help_text, True
        for value, label in field.flatchoices or ():
            yield f"{where} choice {value!r}", label, label not in AUTONYMS


def untranslated(texts, *, lazy=True):
    return sorted(
        f"{where}: {read(text, 'en')!r}"
        for where, text, must_be_lazy in texts
        if not has_french(text) or (lazy and must_be_lazy and not isinstance(text, Promise) and str(text).strip())
    )


def test_every_admin_section_has_french():
    """The admin's side bar and index name every app with a model in the admin (« AXES » was left)."""
    labels = {model._meta.app_config for model in admin.site._registry}
    assert len(labels) >= 6
    missing = untranslated((c.label, c.verbose_name, False) for c in labels)
    assert not missing, "no French for:\n" + "\n".join(missing)


@pytest.mark.parametrize("model", sorted(apps.get_models(), key=lambda m: m._meta.label), ids=lambda m: m._meta.label)
def test_every_model_text_has_french(model):
    """Models of every app: ours must be lazy and translated; others (Django's, axes', DRF's) must be
    translated, by their own catalogue or ours, when the admin shows them."""
    own = model._meta.app_config in OWN_APPS
    if not own and model not in admin.site._registry:
        return
    missing = untranslated(model_texts(model), lazy=own)
    assert not missing, "no French for:\n" + "\n".join(missing)


def admin_request():
    from django.contrib.auth import get_user_model

    request = RequestFactory().get("/admin/")
    request.user = get_user_model()(is_staff=True, is_superuser=True, is_active=True)
    return request


def form_texts(form_class, where):
    """The labels, help texts and choices of a form class's fields (as declared: ``base_fields``; what
    a form sets when it is built, from its arguments, its page shows: ``test_pages_in_french``)."""
    for name, field in form_class.base_fields.items():
        # no label: Django writes the field's name (« Dry run »), which no catalogue translates
        yield f"{where}.{name} label", field.label if field.label is not None else pretty_name(name), False
        if field.help_text:
            yield f"{where}.{name} help_text", field.help_text, False
        if isinstance(field, forms.ModelChoiceField):
            continue  # its choices are rows (data), named by their models
        for value, label in getattr(field, "choices", None) or ():
            if value not in ("", None) and not isinstance(label, (list, tuple)):
                yield f"{where}.{name} choice {value!r}", label, False


def admin_texts(model_admin, request):
    """The columns, filters' titles, actions and the add and change forms of one admin."""
    where = type(model_admin).__name__
    for column in model_admin.get_list_display(request):
        if callable(column) or hasattr(model_admin, column):
            attribute = column if callable(column) else getattr(model_admin, column)
            if hasattr(attribute, "short_description"):
                yield f"{where} column {column}", attribute.short_description, True
    for name, (_, _, description) in model_admin.get_actions(request).items():
        yield f"{where} action {name}", description, False
    for change in (False, True):
        if change or model_admin.has_add_permission(request):
            form = model_admin.get_form(request, None, change=change)
            yield from form_texts(form, f"{where} {'change' if change else 'add'} form")
    for title, _ in model_admin.get_fieldsets(request):
        if title:
            yield f"{where} fieldset", title, False


@pytest.mark.parametrize(
    "model", sorted(admin.site._registry, key=lambda m: m._meta.label), ids=lambda m: m._meta.label
)
def test_every_admin_page_text_has_french(model):
    texts = list(admin_texts(admin.site._registry[model], admin_request()))
    missing = untranslated(texts, lazy=model._meta.app_config in OWN_APPS)
    assert not missing, "no French for:\n" + "\n".join(missing)


def own_form_classes():
    """Every form class defined in a module of our apps (imported here, so none is missed)."""
    for config in OWN_APPS:
        for info in pkgutil.walk_packages([str(config.path)], prefix=f"{config.name}."):
            if ".migrations" not in info.name and ".management" not in info.name and ".tests" not in info.name:
                importlib.import_module(info.name)
    found, todo = set(), [forms.BaseForm]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if any(sub.__module__.startswith(f"{c.name}.") for c in OWN_APPS) and "Mixin" not in sub.__name__:
                found.add(sub)
    return sorted(found, key=lambda c: f"{c.__module__}.{c.__qualname__}")


def test_our_forms_are_found():
    names = {c.__name__ for c in own_form_classes()}
    assert {"BuildFoldsForm"} <= names, names


@pytest.mark.django_db
@pytest.mark.parametrize("form_class", own_form_classes(), ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_every_form_text_has_french(form_class):
    with translation.override("fr"):
        texts = list(form_texts(form_class, form_class.__qualname__))
    missing = untranslated(texts)
    assert not missing, "no French for:\n" + "\n".join(missing)
