"""Numbers in the admin's forms: a weight or an accepted number shows as many decimals as it
has, and its sign stays before it in an Arabic page (the field is written left to right)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest

from quizzes.models import Choice
from tests.factories import add_multiple_question, add_numerical_question, make_quiz

pytestmark = pytest.mark.django_db


def _input(page: str, name: str) -> str:
    [field] = re.findall(rf'<input [^>]*name="{re.escape(name)}"[^>]*>', page)
    return field


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_weights_show_their_own_decimals_with_the_sign_first(admin_client, lang):
    quiz = make_quiz(questions=0)
    question = add_multiple_question(quiz, 1, choices=3, right=(1, 2))
    for position, weight in ((1, "0.25"), (2, "0.75"), (3, "-1")):
        Choice.objects.filter(question=question, position=position).update(fraction=Decimal(weight))

    page = admin_client.get(f"/{lang}/admin/quizzes/question/{question.pk}/change/")
    html = page.content.decode()

    weights = [_input(html, f"choices-{n}-fraction") for n in range(3)]
    assert [re.search(r'value="([^"]*)"', w).group(1) for w in weights] == ["0.25", "0.75", "-1"]
    assert all('dir="ltr"' in w and 'type="number"' in w for w in weights)
    assert "0000" not in "".join(weights)


def test_accepted_numbers_show_their_own_decimals(admin_client):
    quiz = make_quiz(questions=0)
    question = add_numerical_question(quiz, 1, answers=((16, 0, 1), (-2.5, 0.05, 0.5)))

    html = admin_client.get(f"/ar/admin/quizzes/question/{question.pk}/change/").content.decode()

    values = [
        re.search(r'value="([^"]*)"', _input(html, f"numerical_answers-{n}-{field}")).group(1)
        for n in range(2)
        for field in ("value", "tolerance", "fraction")
    ]
    assert values == ["16", "0", "1", "-2.5", "0.05", "0.5"]
