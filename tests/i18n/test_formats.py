"""Arabic dates and numbers as an Arabic reader writes them (config/formats/ar/formats.py)."""

from __future__ import annotations

import datetime as dt

from django.template import Context, Template
from django.utils import formats, translation

WHEN = dt.datetime(2026, 12, 1, 17, 34, tzinfo=dt.UTC)


def test_arabic_dates_put_the_day_first_with_the_arabic_comma_before_the_time():
    with translation.override("ar"):
        assert formats.date_format(WHEN, "DATETIME_FORMAT") == "1 ديسمبر 2026، 5:34 م"
        assert formats.date_format(WHEN, "SHORT_DATETIME_FORMAT") == "01/12/2026، 5:34 م"
        assert formats.date_format(WHEN, "SHORT_DATE_FORMAT") == "01/12/2026"


def test_arabic_numbers_use_the_decimal_point_as_the_learner_pages_do():
    template = Template("{% load daleel %}{{ x|floatformat:2 }} {{ y|floatformat:1 }} {{ x|ltr }}")
    with translation.override("ar"):
        assert template.render(Context({"x": -1, "y": 0.3})) == (
            '-1.00 0.3 <bdi dir="ltr">-1</bdi>'
        )


def test_a_percentage_is_isolated_so_it_is_drawn_as_written_in_either_direction():
    template = Template("{% load daleel %}{{ x|percent }}")
    for language in ("ar", "en"):
        with translation.override(language):
            assert template.render(Context({"x": 50})) == '<bdi dir="ltr">50%</bdi>'


def test_an_arabic_date_field_reads_dates_day_first_and_refuses_month_first_ones():
    from django import forms

    class When(forms.Form):
        day = forms.DateField()
        moment = forms.DateTimeField()

    with translation.override("ar"):
        form = When({"day": "01/12/2026", "moment": "01/12/2026 17:34"})
        assert form.is_valid(), form.errors
        assert form.cleaned_data["day"] == dt.date(2026, 12, 1)
        assert form.cleaned_data["moment"].date() == dt.date(2026, 12, 1)
        assert When({"day": "2026-12-01", "moment": "2026-12-01 17:34"}).is_valid()
        refused = When({"day": "12/31/2026", "moment": "12/31/2026 17:34"})
        assert not refused.is_valid() and set(refused.errors) == {"day", "moment"}
