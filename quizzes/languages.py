"""Which language's text a page shows: the page's own, else English, else any (as
modeltranslation's fallback reads a model's field), for the content's read model and what
reads it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.utils.translation import get_language

LANGUAGE_CODES = tuple(code for code, _name in settings.LANGUAGES)


def active_language() -> str:
    """The page's language, without a region: "ar", "en"."""
    return (get_language() or settings.LANGUAGE_CODE).split("-")[0]


def right_answers_in_language(texts: Iterable[Any]) -> list[str]:
    """The accepted answers worth the whole mark (rows with `text_en`, `text_ar` and
    `fraction`), as a page in the active language lists them as the right answer: those
    written in its language, and English ones only when none is (a question not translated
    yet). An Arabic page does not list «… · the optimizer states»."""
    whole = [text for text in texts if text.fraction == 1]
    for code in dict.fromkeys((active_language(), settings.LANGUAGE_CODE, *LANGUAGE_CODES)):
        written = [getattr(text, f"text_{code}", "") for text in whole]
        if any(written):
            return [text for text in written if text]
    return []


def in_language(obj: object, name: str) -> str:
    """`obj`'s `name_<language>` in the page's language, else English, else any: as
    modeltranslation's fallback reads a model's field."""
    active = active_language()
    for code in (active, settings.LANGUAGE_CODE, *LANGUAGE_CODES):
        value = getattr(obj, f"{name}_{code}", "")
        if value:
            return str(value)
    return ""
