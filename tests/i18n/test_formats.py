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
