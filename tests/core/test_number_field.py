"""Every number a person types is read in either language (issue 45, point 3): ``core.numbers`` and
``core.number_field``. A French "0,08" is 0.08, never 8; a value outside what the number means is
refused with a message in the page's language; the form shows back what was typed."""

import pytest
from django import forms
from django.utils import translation

from core.number_field import BudgetField, NumberField
from core.numbers import NotANumber, parse_number


@pytest.mark.parametrize(
    ("text", "value"),
    [("0,08", 0.08), ("0.08", 0.08), (" 0,5 ", 0.5), ("1\u202f234,5", 1234.5), ("-2", -2.0), ("1e-3", 0.001)],
)
def test_a_comma_or_a_point_reads_the_same(text, value):
    assert parse_number(text) == (pytest.approx(value), False)


@pytest.mark.parametrize("text", ["", "  ", "abc", "1,2.3", "1,2,3", "1.2.3", "nan", "inf", "0,08x", "5%"])
def test_anything_else_is_refused_not_guessed(text):
    with pytest.raises(NotANumber):
        parse_number(text)


def test_a_percentage_only_where_asked():
    assert parse_number("5 %", percent=True) == (pytest.approx(0.05), True)
    assert parse_number("0,05", percent=True) == (pytest.approx(0.05), False)


class HalfWidth(forms.Form):
    width = NumberField(min_value=0, min_open=True, max_value=1, max_open=True, meaning="a half-width")
    count = NumberField(integer=True, min_value=1, required=False)
    budget = BudgetField(required=False)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_field_reads_both_separators_in_both_languages(lang):
    with translation.override(lang):
        for typed in ("0,08", "0.08"):
            form = HalfWidth({"width": typed})
            assert form.is_valid(), form.errors
            assert form.cleaned_data["width"] == pytest.approx(0.08)


def test_out_of_range_is_refused_with_its_meaning_in_the_page_language():
    with translation.override("en"):
        form = HalfWidth({"width": "8"})
        assert not form.is_valid()
        assert form.errors["width"] == ["Enter a number greater than 0 and less than 1 (a half-width); 8 is not."]
    with translation.override("fr"):
        form = HalfWidth({"width": "1,5"})
        assert not form.is_valid()
        assert form.errors["width"] == [
            "Saisissez un nombre supérieur à 0 et inférieur à 1 (a half-width) ; 1,5 ne l’est pas."
        ]
        assert 'value="1,5"' in str(form["width"])  # what was typed comes back
        assert 'inputmode="decimal"' in str(form["width"]) and 'type="number"' not in str(form["width"])
        for bound in ("0", "1"):  # open bounds
            assert not HalfWidth({"width": bound}).is_valid()


def test_counts_are_whole_and_initial_values_show_in_the_page_language():
    with translation.override("fr"):
        form = HalfWidth({"width": "0,1", "count": "2,5"})
        assert not form.is_valid() and "nombre entier" in form.errors["count"][0]
        assert 'value="0,02"' in str(HalfWidth(initial={"width": 0.02})["width"])
    form = HalfWidth({"width": "0.1", "count": "12"})
    assert form.is_valid() and form.cleaned_data["count"] == 12 and isinstance(form.cleaned_data["count"], int)


@pytest.mark.parametrize(
    ("typed", "cleaned"), [("300", 300), ("0,05", 0.05), ("5 %", 0.05), ("99,5%", 0.995), ("1", 1)]
)
def test_a_budget_is_a_count_or_a_share(typed, cleaned):
    form = HalfWidth({"width": "0.5", "budget": typed})
    assert form.is_valid(), form.errors
    got = form.cleaned_data["budget"]
    assert got == pytest.approx(cleaned) and type(got) is type(cleaned)


@pytest.mark.parametrize("typed", ["0", "-3", "2,5", "150 %", "100%", "douze"])
def test_a_budget_that_means_nothing_is_refused(typed):
    assert not HalfWidth({"width": "0.5", "budget": typed}).is_valid()
