"""An instructor walks a quiz as a learner sees it, from its admin page; nothing is recorded."""

import pytest

from quizzes.models import Answer, Attempt, ReviewAnswer, ReviewCard
from tests.factories import correct_choice, make_mixed_quiz, make_typed_quiz, wrong_choice

pytestmark = pytest.mark.django_db


def _url(quiz, number, language="en"):
    return f"/{language}/admin/quizzes/quiz/{quiz.pk}/preview/{number}/"


def test_the_quiz_page_links_to_the_preview_in_both_languages(instructor_client):
    quiz = make_mixed_quiz(is_published=False)
    page = instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/change/").content.decode()
    assert f'href="{_url(quiz, 1)}"' in page and f'href="{_url(quiz, 1, "ar")}"' in page


def test_an_instructor_walks_every_kind_with_feedback_and_nothing_is_recorded(
    instructor_client,
):
    quiz = make_mixed_quiz(is_published=False)
    questions = {q.position: q for q in quiz.questions.all()}

    first = instructor_client.get(_url(quiz, 1)).content.decode()
    assert "nothing is recorded" in first and questions[1].prompt_en in first
    right = instructor_client.post(
        _url(quiz, 1), {"choice": correct_choice(questions[1]).pk, "question": questions[1].pk}
    ).content.decode()
    assert "feedback--right" in right and "Because of reason 1." in right
    assert f'href="{_url(quiz, 2)}"' in right

    boxes = [c.pk for c in questions[2].choices.all() if c.is_correct]
    several = instructor_client.post(_url(quiz, 2), {"choice": boxes[:1]}).content.decode()
    assert "feedback--partly" in several
    wrong = instructor_client.post(
        _url(quiz, 3), {"choice": wrong_choice(questions[3]).pk}
    ).content.decode()
    assert "feedback--wrong" in wrong
    number = instructor_client.post(_url(quiz, 4), {"number": "٨"}).content.decode()
    assert "feedback--partly" in number
    assert "Back to the quiz" in number  # the last question

    assert not Attempt.objects.exists() and not Answer.objects.exists()
    assert not ReviewCard.objects.exists() and not ReviewAnswer.objects.exists()


@pytest.mark.parametrize(
    ("typed", "verdict"),
    [
        ("حالة المُحَسِّن.", "feedback--wrong"),  # one state is not the states
        ("حالات المُحَسِّن.", "feedback--right"),  # full marks and a final full stop
        ("\u200bOptimizer\u2011States؟", "feedback--wrong"),  # a hyphen is not a space
        ("\u200bOptimizer States؟", "feedback--right"),
    ],
)
def test_the_preview_marks_a_short_answer_folded_as_the_grading_folds_it(
    instructor_client, typed, verdict
):
    quiz = make_typed_quiz(is_published=False)

    page = instructor_client.post(_url(quiz, 1, "ar"), {"text": typed}).content.decode()

    assert verdict in page


def test_the_preview_speaks_arabic_on_the_arabic_address(instructor_client):
    quiz = make_mixed_quiz(is_published=False)
    page = instructor_client.get(_url(quiz, 1, "ar")).content.decode()
    assert 'lang="ar"' in page and "نص السؤال 1؟" in page


def test_an_unreadable_answer_is_said_and_a_missing_question_is_a_404(instructor_client):
    quiz = make_mixed_quiz(is_published=False)
    response = instructor_client.post(_url(quiz, 4), {"number": "sixteen"})
    assert response.status_code == 422
    assert instructor_client.get(_url(quiz, 5)).status_code == 404


def test_staff_who_may_not_view_the_content_cannot_preview(bare_staff_client):
    quiz = make_mixed_quiz(is_published=False)
    assert bare_staff_client.get(_url(quiz, 1)).status_code == 403
