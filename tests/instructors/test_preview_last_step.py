"""The preview's last question leads back to the quiz's page, not to a next question that does
not exist; every other question leads to the next."""

import re

import pytest

from tests.factories import correct_choice, make_quiz

pytestmark = pytest.mark.django_db


def _url(quiz, number: int) -> str:
    return f"/en/admin/quizzes/quiz/{quiz.pk}/preview/{number}/"


def _actions(html: str) -> str:
    """The step's own buttons under the feedback (the page's banner links elsewhere too)."""
    return re.search(r'<div class="step__actions">(.*?)</div>', html, re.S).group(1)


def test_after_the_last_question_the_preview_offers_the_quizs_page_and_no_next_question(
    instructor_client,
):
    quiz = make_quiz(questions=2, is_published=False)
    questions = list(quiz.questions.order_by("position"))

    pages = [
        instructor_client.post(
            _url(quiz, number), {"choice": correct_choice(question).pk, "question": question.pk}
        ).content.decode()
        for number, question in enumerate(questions, start=1)
    ]

    first, last = (_actions(page) for page in pages)
    assert "Next question" in first and f'href="{_url(quiz, 2)}"' in first
    assert "Next question" not in last and "/preview/3/" not in last
    assert f'href="/en/admin/quizzes/quiz/{quiz.pk}/change/"' in last
    assert instructor_client.get(_url(quiz, 3)).status_code == 404
