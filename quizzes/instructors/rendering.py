"""The renderer of a question's fields and parts on the admin's pages.

A quiz's page holds a form row per question and one per part: a hundred questions are some
6,500 fields. Django's template language writes them at about a millisecond per field with
the admin's own templates; these rows are written with Jinja2, one of Django's documented
template backends, through a form renderer of our own (`BaseRenderer.get_template`, as
Django's own `Jinja2` renderer does): its widgets are Django's Jinja2 widget templates, its
rows ours in quizzes/jinja2/. Every word on them comes from Python (labels, verbose names,
quizzes/instructors/parts.py), so that the catalogue extracts and translates them.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

import django.forms
import jinja2
from django.forms.renderers import BaseRenderer
from django.template.backends.jinja2 import Jinja2
from django.utils.text import capfirst

TEMPLATES = Path(__file__).resolve().parent.parent / "jinja2"


def environment(**options) -> jinja2.Environment:
    env = jinja2.Environment(**options)
    env.filters["capfirst"] = capfirst
    return env


class RowsRenderer(BaseRenderer):
    """Renders forms, formsets and widgets with Jinja2: our row templates, then Django's."""

    @cached_property
    def engine(self) -> Jinja2:
        return Jinja2(
            {
                "APP_DIRS": False,
                "DIRS": [TEMPLATES, Path(django.forms.__file__).resolve().parent / "jinja2"],
                "NAME": "daleel-rows",
                "OPTIONS": {"environment": "quizzes.instructors.rendering.environment"},
            }
        )

    def get_template(self, template_name: str):
        return self.engine.get_template(template_name)


ROWS = RowsRenderer()
