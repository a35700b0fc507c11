"""`attempt_answer`: a posted step, every outcome the rules give it, in one place."""

from __future__ import annotations

import pytest

from quizzes.attempts import rules
from quizzes.attempts.services import Step, attempt_finish_if_over, attempt_start
from quizzes.attempts.state import attempt_state
from quizzes.content import content_changed
from quizzes.models import Answer
from tests.factories import add_question, correct_choice, wrong_choice
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def attempt(learner, quiz):
    return attempt_start(user=learner, quiz=quiz)


def submit(attempt, number, question, choice, *, seen=True):
    return post_answer(attempt, question, choice=choice, number=number, seen=seen)


def test_a_right_pick_on_the_current_step_is_recorded_as_right(attempt, quiz):
    first = quiz.questions.get(position=1)

    outcome = submit(attempt, 1, first, correct_choice(first))

    assert outcome.step is Step.ANSWERED and outcome.number == 1
    assert outcome.answer.is_correct
    assert Answer.objects.get(attempt=attempt, question=first).is_correct


def test_the_same_pick_again_is_a_repeat_that_writes_nothing(attempt, quiz):
    first = quiz.questions.get(position=1)
    submit(attempt, 1, first, wrong_choice(first))

    outcome = submit(attempt, 1, first, wrong_choice(first))

    assert outcome.step is Step.REPEATED and outcome.message == ""
    assert Answer.objects.filter(attempt=attempt).count() == 1


def test_another_pick_for_an_answered_question_keeps_the_first_and_says_so(attempt, quiz):
    first = quiz.questions.get(position=1)
    submit(attempt, 1, first, wrong_choice(first))

    outcome = submit(attempt, 1, first, correct_choice(first))

    assert outcome.step is Step.ANSWERED_BEFORE
    assert "your first answer counts" in str(outcome.message)
    assert not Answer.objects.get(attempt=attempt, question=first).is_correct


def test_a_later_step_is_not_open_and_records_nothing(attempt, quiz):
    third = quiz.questions.get(position=3)

    outcome = submit(attempt, 3, third, correct_choice(third))

    assert outcome.step is Step.NOT_OPEN
    assert not Answer.objects.filter(attempt=attempt).exists()


def test_a_choice_of_another_question_is_refused_with_a_reason(attempt, quiz):
    first, second = quiz.questions.get(position=1), quiz.questions.get(position=2)

    outcome = submit(attempt, 1, first, correct_choice(second))

    assert outcome.step is Step.REFUSED and outcome.number == 1
    assert str(outcome.message) == "Choose one of this question's answers."
    assert not Answer.objects.filter(attempt=attempt).exists()


def test_the_last_answer_finishes_and_scores_the_attempt(attempt, quiz):
    first, second, third = quiz.questions.order_by("position")
    post_answer(attempt, first, choice=correct_choice(first))
    post_answer(attempt, second, choice=wrong_choice(second))

    outcome = submit(attempt, 3, third, correct_choice(third))

    assert outcome.step is Step.ANSWERED
    attempt.refresh_from_db()
    assert attempt.is_finished and (attempt.score, attempt.total) == (2, 3)


def test_an_answer_follows_its_question_when_an_edit_renumbers_the_steps(attempt, quiz):
    first, second, third = quiz.questions.order_by("position")
    post_answer(attempt, first, choice=correct_choice(first))
    post_answer(attempt, second, choice=correct_choice(second))
    first.position = 9  # the learner reads step 3 while the first question moves to the end
    first.save()
    content_changed(quiz=quiz)
    attempt.quiz.refresh_from_db()

    outcome = submit(attempt, 3, third, correct_choice(third))

    assert outcome.step is Step.ANSWERED and outcome.number == 2
    assert Answer.objects.get(attempt=attempt, question=third).is_correct


def test_a_question_the_learner_saw_that_is_no_longer_theirs_is_a_quiz_change(attempt, quiz):
    first = quiz.questions.get(position=1)
    add_question(quiz, 0)  # a new first question comes before the one the learner saw
    attempt.quiz.refresh_from_db()

    outcome = submit(attempt, 1, first, correct_choice(first))

    assert outcome.step is Step.QUIZ_CHANGED
    assert "This quiz changed" in str(outcome.message)
    assert not Answer.objects.filter(attempt=attempt).exists()


def test_reading_an_attempt_never_finishes_it_finishing_if_over_does(learner, quiz):

    first, second, third = quiz.questions.order_by("position")
    attempt = attempt_start(user=learner, quiz=quiz)
    post_answer(attempt, first, choice=correct_choice(first))
    post_answer(attempt, second, choice=correct_choice(second))
    third.delete()
    content_changed(quiz=quiz)

    state = attempt_state(attempt)
    attempt.refresh_from_db()
    assert rules.is_complete(state) and not attempt.is_finished

    assert attempt_finish_if_over(state=state) is True
    attempt.refresh_from_db()
    assert attempt.is_finished and (attempt.score, attempt.total) == (2, 2)
    assert attempt_finish_if_over(state=attempt_state(attempt)) is False
