"""The result page of a finished attempt: right answers for unanswered questions, "Take it
again" only with an attempt left, and a partial mark drawn without a glyph that claims a half."""

from __future__ import annotations

import pytest

from quizzes.attempts.services import attempt_start, attempt_submit_all
from quizzes.models import Quiz
from tests.factories import correct_choice, make_mixed_quiz, make_quiz
from tests.steps import bystander_on

# Another learner with activity on the same quiz: none of it may show here (tests/conftest.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("among_others")]


def step(attempt, number: int) -> str:
    return f"/en/attempts/{attempt.pk}/questions/{number}/"


def result(client, attempt, lang="en") -> str:
    return client.get(f"/{lang}/attempts/{attempt.pk}/result/").content.decode()


def test_an_exam_submitted_with_questions_unanswered_shows_their_right_answers(
    learner, learner_client
):
    exam = make_mixed_quiz(feedback=Quiz.Feedback.DEFERRED)
    attempt = attempt_start(user=learner, quiz=exam)
    attempt_submit_all(user=learner, attempt_id=attempt.pk)

    page = result(learner_client, attempt)

    assert page.count("Not answered") == 4
    assert page.count("Correct answer") == 4
    assert correct_choice(exam.questions.get(position=1)).text_en in page
    assert "Box 2.1" in page and "Box 2.2" in page and "Box 2.3" not in page  # several right
    assert '<span class="review__choice">True' in page  # true or false
    assert "16 ± 0.5" in page and "8</dd>" not in page  # the whole-mark number only


def test_take_it_again_is_offered_only_while_attempts_are_left(learner, learner_client):
    quiz = make_quiz(questions=1, max_attempts=2)
    first = attempt_start(user=learner, quiz=quiz)
    learner_client.post(step(first, 1), {"choice": correct_choice(quiz.questions.get()).pk})
    assert "Take it again" in result(learner_client, first)

    second = attempt_start(user=learner, quiz=quiz)
    learner_client.post(step(second, 1), {"choice": correct_choice(quiz.questions.get()).pk})
    page = result(learner_client, second)

    assert "Take it again" not in page
    assert "You have used every attempt this quiz allows." in page
    assert "Take it again" not in result(learner_client, first)


def test_a_quiz_without_limits_always_offers_take_it_again(learner, learner_client, quiz):
    attempt = attempt_start(user=learner, quiz=quiz)
    for question in quiz.questions.order_by("position"):
        learner_client.post(
            step(attempt, question.position), {"choice": correct_choice(question).pk}
        )

    assert "Take it again" in result(learner_client, attempt)


@pytest.mark.parametrize("lang", ["en", "ar"])
def test_a_partial_mark_is_drawn_as_a_bar_of_its_share_not_a_half(learner, learner_client, lang):
    quiz = make_quiz(questions=0)
    from tests.factories import add_multiple_question

    question = add_multiple_question(quiz, 1, choices=3, right=(1, 2, 3))
    attempt = attempt_start(user=learner, quiz=quiz)
    first = question.choices.get(position=1)
    learner_client.post(step(attempt, 1), {"choice": [first.pk]})

    page = result(learner_client, attempt, lang)

    assert "½" not in page
    assert 'class="mark-meter__fill mark-meter__fill--3"' in page
    if lang == "en":
        assert "Partly correct: 0.33 of 1" in page


def _finish_with_misses(learner, quiz, wrong: int):
    from tests.factories import wrong_choice
    from tests.steps import post_answer

    attempt = attempt_start(user=learner, quiz=quiz)
    for number, question in enumerate(quiz.questions.order_by("position"), 1):
        choice = wrong_choice(question) if number <= wrong else correct_choice(question)
        post_answer(attempt, question, choice=choice)
    return attempt


@pytest.mark.parametrize(("lang", "said"), [("en", "3 questions to practise"), ("ar", "3 أسئلة")])
def test_a_result_with_misses_points_to_the_spaced_review_of_them(
    learner, learner_client, lang, said
):
    quiz = make_quiz(questions=8)
    bystander_on(quiz)  # eight misses of their own, none of them this learner's to practise
    attempt = _finish_with_misses(learner, quiz, wrong=3)

    page = result(learner_client, attempt, lang)

    link = page.split('aria-describedby="practise-hint">', 1)[1].split("</a>", 1)[0]
    assert f'<a class="button" href="/{lang}/review/" aria-describedby' in page
    assert said in link
    # The attempt's own answers are "Answers": "Review" is the spaced review only.
    assert '<h2 id="review-heading">' + ("Answers" if lang == "en" else "الإجابات") in page


def test_a_result_without_misses_offers_no_practice(learner, learner_client):
    quiz = make_quiz(questions=3)
    bystander_on(quiz)
    attempt = _finish_with_misses(learner, quiz, wrong=0)

    page = result(learner_client, attempt)

    assert "to practise" not in page
