"""The step's read (quizzes.attempts.attempt_with_answers): an attempt with its answers in one
statement, its quiz content found by (quiz id, version)."""

import pytest
from django.test import Client

from quizzes.attempts import answer_record, attempt_start, attempt_with_answers
from quizzes.content import content_changed
from quizzes.models import Question
from tests.factories import make_quiz, make_user, wrong_choice

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def step(attempt, number: int) -> str:
    return f"/en/attempts/{attempt.pk}/questions/{number}/"


def test_an_attempt_is_read_with_its_answers_in_one_statement_and_no_quiz_row(
    django_assert_num_queries,
):
    learner = make_user()
    quiz = make_quiz(questions=3)
    attempt = attempt_start(user=learner, quiz=quiz)
    first = quiz.questions.get(position=1)
    answer_record(attempt=attempt, question=first, choice_id=wrong_choice(first).pk)
    attempt_with_answers(user=learner, pk=attempt.pk)  # the content version, cached
    guide_title = quiz.guide.title_en
    in_order = list(quiz.questions.order_by("position").values_list("pk", flat=True))
    picked = wrong_choice(first).text_en

    with django_assert_num_queries(1):
        state = attempt_with_answers(user=learner, pk=attempt.pk)
        assert state is not None
        assert state.attempt.quiz.guide.title_en == guide_title
        assert [q.pk for q in state.content.questions] == in_order
        answer = state.answer_for(first)
        assert answer is not None and not answer.is_correct
        assert answer.choice.text_en == picked
    assert state.current_number == 2
    assert state.attempt.started_at == attempt.started_at


def test_another_learners_attempt_reads_as_none():
    owner, stranger = make_user(), make_user()
    attempt = attempt_start(user=owner, quiz=make_quiz())
    assert attempt_with_answers(user=stranger, pk=attempt.pk) is None
    assert attempt_with_answers(user=owner, pk=attempt.pk + 1000) is None


def test_an_edit_reaches_the_next_step_read():
    learner = make_user()
    quiz = make_quiz(questions=2)
    attempt = attempt_start(user=learner, quiz=quiz)
    attempt_with_answers(user=learner, pk=attempt.pk)
    Question.objects.filter(quiz=quiz, position=1).update(prompt_en="Edited prompt")
    content_changed(quiz=quiz)
    state = attempt_with_answers(user=learner, pk=attempt.pk)
    assert state is not None and state.content.at(1).prompt_en == "Edited prompt"
