"""The form field of every number a person types (issue 45, point 3): parsed in either language
(``core.numbers.parse_number``: comma or point), range-checked against what the number means, with a
message in the page's language; a text input (``inputmode="decimal"``), never ``type="number"``,
whose parsing depends on the browser's locale. Django re-renders what was typed after an error."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils import formats
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.numbers import NotANumber, parse_number


def shown(value):
    """A number in the page's language, as few digits as it needs ("0,02" in French)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return formats.number_format(value, use_l10n=True) if isinstance(value, int) else formats.localize_input(value)


class NumberField(forms.Field):
    """A number typed with a comma or a point; bounds may be open (``min_open``: greater than).

    Parameters
    ----------
    min_value, max_value : float, optional
        The bounds.
    min_open, max_open : bool, default False
        Whether the bound itself is refused.
    integer : bool, default False
        A count: a whole number (the cleaned value is an int).
    percent : bool, default False
        Accept "5 %" (cleaned to 0.05).
    meaning : str, optional
        What the number is, said in the range error ("a half-width on a [0, 1] scale").
    """

    widget = forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off", "spellcheck": "false"})

    def __init__(
        self, *, min_value=None, max_value=None, min_open=False, max_open=False, integer=False, percent=False,
        meaning=None, **kwargs,
    ):  # fmt: skip
        self.min_value, self.max_value, self.min_open, self.max_open = min_value, max_value, min_open, max_open
        self.integer, self.percent, self.meaning = integer, percent, meaning
        self.was_percent = False
        super().__init__(**kwargs)

    def prepare_value(self, value):
        return shown(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value

    def to_python(self, value):
        if value in self.empty_values or (isinstance(value, str) and not value.strip()):
            return None
        try:
            number, self.was_percent = parse_number(value, percent=self.percent)
        except NotANumber:
            example = shown(300) if self.integer else shown(0.05)
            raise ValidationError(
                gettext(
                    "“%(text)s” is not a number: type one such as %(example)s (a comma or a point before the decimals)."
                )
                % {"text": str(value).strip()[:40], "example": example},
                code="invalid",
            ) from None
        if self.integer and not number.is_integer():
            raise ValidationError(
                gettext("Enter a whole number (a count), such as %(example)s; %(value)s is not.")
                % {"example": shown(300), "value": shown(number)},
                code="integer",
            )
        return int(number) if self.integer else number

    def validate(self, value):
        super().validate(value)
        if value is None:
            return
        low, high = self.min_value, self.max_value
        too_low = low is not None and (value <= low if self.min_open else value < low)
        too_high = high is not None and (value >= high if self.max_open else value > high)
        if too_low or too_high:
            raise ValidationError(self.range_message(value), code="range")

    def range_message(self, value):
        parts = []
        if self.min_value is not None:
            low = shown(self.min_value)
            parts.append(gettext("greater than %s") % low if self.min_open else gettext("at least %s") % low)
        if self.max_value is not None:
            high = shown(self.max_value)
            parts.append(gettext("less than %s") % high if self.max_open else gettext("at most %s") % high)
        bounds = gettext(" and ").join(parts)
        if self.meaning:
            return gettext("Enter a number %(bounds)s (%(meaning)s); %(value)s is not.") % {
                "bounds": bounds,
                "meaning": self.meaning,
                "value": shown(value),
            }
        return gettext("Enter a number %(bounds)s; %(value)s is not.") % {"bounds": bounds, "value": shown(value)}


class BudgetField(NumberField):
    """A budget of human labels: a count of triplets (300) or a share of them (0,05 or 5 %). Cleaned to
    an int (a count) or a float below 1 (a share); "100 %" is refused (every triplet: the uniform design)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("meaning", _("a count of triplets, such as 300, or a share, such as 0.05 or 5%"))
        super().__init__(min_value=0, min_open=True, percent=True, **kwargs)

    def to_python(self, value):
        number = super().to_python(value)
        if number is None or self.was_percent or number < 1:
            if number is not None and self.was_percent and number >= 1:
                raise ValidationError(self.range_message(number), code="range")
            return number
        if not number.is_integer():
            raise ValidationError(
                gettext("A budget of 1 or more is a count of triplets: a whole number; %(value)s is not.")
                % {"value": shown(number)},
                code="integer",
            )
        return int(number)
