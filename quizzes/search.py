"""Catalog search: one normal form for what is searched and what a learner types.

A quiz keeps its English and Arabic titles and descriptions, normalised, in
`Quiz.search_text` (set by `Quiz.save()`; `search_text_refresh()` for rows written around it,
such as fixtures loaded raw or `bulk_create`). A search is then a plain substring match of
each normalised word, the same on SQLite and PostgreSQL; PostgreSQL answers it from a
trigram index (migration 0004) instead of reading every quiz.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from django.conf import settings

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from .models import Quiz

# Arabic marks a reader may or may not type: harakat, tanween, shadda, sukun, the dagger
# alef, Quranic annotation marks, and tatweel (the stretching of a word, ـ).
_IGNORED = re.compile("[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06ed\u0640]")
# Letters written several ways: hamza and madda on alef, wasla; hamza on its other seats
# (often typed without it); ta marbuta; alef maqsura.
_FOLD = str.maketrans(
    {"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ئ": "ي", "ؤ": "و", "ة": "ه", "ى": "ي"}
)
_SPACES = re.compile(r"\s+")

MAX_WORDS = 8


def search_normalise(text: str) -> str:
    """Lower case, Arabic folded (no diacritics or tatweel; one alef; ي for ى and ئ, و for
    ؤ, ه for ة), single spaces."""
    text = unicodedata.normalize("NFKC", text or "").casefold()
    text = _IGNORED.sub("", text).translate(_FOLD)
    return _SPACES.sub(" ", text).strip()


def search_words(query: str) -> list[str]:
    """The distinct normalised words of a learner's query, at most MAX_WORDS of them."""
    words = dict.fromkeys(search_normalise(query).split())
    return list(words)[:MAX_WORDS]


def search_text_for(quiz: Quiz) -> str:
    """What a quiz is found by: its titles and descriptions in every language."""
    parts = (
        getattr(quiz, f"{field}_{code}", None)
        for field in ("title", "description")
        for code, _name in settings.LANGUAGES
    )
    return search_normalise(" ".join(part for part in parts if part))


def search_text_refresh(quizzes: QuerySet[Quiz] | None = None) -> int:
    """Recompute `search_text` for `quizzes` (a queryset; default every quiz), returning how
    many changed: for quizzes written without `Quiz.save()`."""
    from .models import Quiz

    changed: list[Quiz] = []
    for quiz in (quizzes if quizzes is not None else Quiz.objects.all()).iterator(2000):
        text = search_text_for(quiz)
        if text != quiz.search_text:
            quiz.search_text = text
            changed.append(quiz)
    Quiz.objects.bulk_update(changed, ["search_text"], batch_size=500)
    return len(changed)
