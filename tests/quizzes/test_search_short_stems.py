"""Edge cases of the Arabic light stemmer: a suffix is cut only where three letters stay, so
two short words that share their first letters are not found for each other."""

from __future__ import annotations

import re

import pytest

from tests.factories import make_quiz

pytestmark = pytest.mark.django_db


def _shown(client, query: str) -> list[str]:
    response = client.get("/ar/", {"q": query})
    assert response.status_code == 200
    return re.findall(
        r'class="card__title"><a href="/ar/quizzes/[^/]+/">([^<]+)<', response.content.decode()
    )


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("بيان", ["بيان النتائج"]),  # "statement": not «بيئة», whose stem would be «بي» too
        ("بيئة", ["بيئة التدريب"]),  # "environment"
        ("البيان", ["بيان النتائج"]),
    ],
)
def test_a_short_word_finds_its_own_quiz_not_one_sharing_two_letters(client, query, found):
    make_quiz(title_en="Training environment", title_ar="بيئة التدريب")
    make_quiz(title_en="Stating the results", title_ar="بيان النتائج")

    assert [title.strip() for title in _shown(client, query)] == found
