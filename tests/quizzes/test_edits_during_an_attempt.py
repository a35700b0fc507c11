"""An instructor edits a quiz while learners are taking it: every attempt still ends well.

Answered questions cannot be deleted (the admin refuses), but unanswered ones can, questions
can be added or renumbered, and a quiz can lose every question.
"""

import re

import pytest
from django.contrib.messages import get_messages

from quizzes.attempts.services import attempt_start
from quizzes.content import content_changed
from quizzes.models import Answer, Attempt, Question, Quiz
from tests.admin_posts import choice_rows, save_question
from tests.factories import add_question, correct_choice, make_quiz, wrong_choice
from tests.steps import post_answer

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def _answer(attempt: Attempt, question: Question, right: bool = True):
    choice = correct_choice(question) if right else wrong_choice(question)
    return post_answer(attempt, question, choice=choice)


def _step(attempt: Attempt, number: int) -> str:
    return f"/en/attempts/{attempt.pk}/questions/{number}/"


def test_an_attempt_finishes_once_the_questions_left_unanswered_are_deleted(
    learner, learner_client, quiz
):
    first, second, third = quiz.questions.order_by("position")
    attempt = attempt_start(user=learner, quiz=quiz)
    _answer(attempt, first)
    _answer(attempt, second, right=False)

    third.delete()
    content_changed(quiz=quiz)
    response = learner_client.get(f"/en/attempts/{attempt.pk}/")

    assert response["Location"] == f"/en/attempts/{attempt.pk}/result/"
    attempt.refresh_from_db()
    assert attempt.is_finished and (attempt.score, attempt.total) == (1, 2)
    page = learner_client.get(response["Location"]).content.decode()
    assert "1 / 2" in page


def test_an_attempt_whose_quiz_lost_every_question_waits_without_a_redirect_loop(
    learner, learner_client, quiz
):
    attempt = attempt_start(user=learner, quiz=quiz)
    quiz.questions.all().delete()
    content_changed(quiz=quiz)

    for url in (f"/en/attempts/{attempt.pk}/", _step(attempt, 1), _step(attempt, 0)):
        response = learner_client.get(url)
        assert response["Location"] == "/en/", url
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert "This quiz has no questions at the moment; come back later." in messages
    attempt.refresh_from_db()
    assert not attempt.is_finished


def test_a_published_quiz_without_questions_is_not_offered(learner_client):
    empty = make_quiz(questions=0, title_en="Nothing yet")

    assert "Nothing yet" not in learner_client.get("/en/").content.decode()
    assert learner_client.get(f"/en/quizzes/{empty.slug}/").status_code == 404
    assert learner_client.post(f"/en/quizzes/{empty.slug}/start/").status_code == 404
    assert Quiz.objects.published().filter(pk=empty.pk).count() == 0


@pytest.fixture
def on_question_three(learner, quiz):
    """An attempt with questions 1 and 2 answered; returns it and the three questions."""
    first, second, third = quiz.questions.order_by("position")
    attempt = attempt_start(user=learner, quiz=quiz)
    _answer(attempt, first)
    _answer(attempt, second)
    return attempt, first, second, third


def test_an_answer_goes_to_the_question_the_learner_saw_when_steps_are_renumbered(
    learner_client, on_question_three
):
    attempt, first, _second, third = on_question_three
    page = learner_client.get(_step(attempt, 3)).content.decode()
    assert f'name="question" value="{third.pk}"' in page
    # While the learner reads question 3, an instructor moves the first question to the end:
    # step 3 is now that (answered) question, and the learner's is step 2.
    first.position = 9
    first.save()
    content_changed(quiz=first.quiz)

    response = learner_client.post(
        _step(attempt, 3), {"choice": correct_choice(third).pk, "question": third.pk}, **HX
    )

    assert response.status_code == 200
    assert Answer.objects.get(attempt=attempt, question=third).is_correct
    assert "feedback--right" in response.content.decode()
    assert response["HX-Push-Url"] == _step(attempt, 2)  # the address bar follows it


def test_a_question_inserted_before_the_learners_comes_first_and_the_learner_is_told(
    learner_client, quiz, on_question_three
):
    attempt, _first, _second, third = on_question_three
    inserted = add_question(quiz, 0)

    response = learner_client.post(
        _step(attempt, 3), {"choice": correct_choice(third).pk, "question": third.pk}
    )

    assert response["Location"] == _step(attempt, 1)
    assert not Answer.objects.filter(attempt=attempt, question__in=[third, inserted]).exists()
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert "This quiz changed while you were answering; here is where you are." in messages


def test_an_answer_to_a_question_removed_meanwhile_records_nothing_and_says_so(
    learner, learner_client, quiz
):
    first, second, third = quiz.questions.order_by("position")
    attempt = attempt_start(user=learner, quiz=quiz)
    seen = first.pk
    choice = correct_choice(first).pk
    Question.objects.filter(pk=seen).delete()  # nobody had answered it yet
    content_changed(quiz=quiz)

    response = learner_client.post(_step(attempt, 1), {"choice": choice, "question": seen})

    assert response["Location"] == _step(attempt, 1)
    assert not Answer.objects.filter(attempt=attempt).exists()
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert "This quiz changed while you were answering; here is where you are." in messages


def test_a_question_cannot_be_moved_to_another_quiz_in_the_admin(client, instructor, quiz):
    other = make_quiz(questions=1)
    question = quiz.questions.get(position=3)
    client.force_login(instructor)
    page = client.get(f"/en/admin/quizzes/question/{question.pk}/change/").content.decode()
    assert re.search(r'<select[^>]*name="quiz"[^>]*disabled', page)

    response = save_question(client, question, choice_rows(question), quiz=other.pk)

    assert response.status_code == 302
    question.refresh_from_db()
    assert question.quiz == quiz and question.position == 3


def test_a_questions_own_page_refuses_a_position_another_question_holds(client, instructor, quiz):
    question = quiz.questions.get(position=3)
    client.force_login(instructor)

    response = save_question(client, question, choice_rows(question), position=2)

    assert response.status_code == 200
    assert "Question with this Quiz and Position already exists." in response.content.decode()
    question.refresh_from_db()
    assert question.position == 3


def test_a_question_moved_by_code_leaves_its_old_quiz_once_both_are_touched(learner_client, quiz):
    other = make_quiz(questions=1)
    question = quiz.questions.get(position=3)
    question.prompt_en = "A prompt that moves."
    question.save()
    content_changed(quiz=quiz)
    assert (
        "A prompt that moves." in learner_client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    )

    question.quiz, question.position = other, 2
    question.save()
    content_changed(quiz=Quiz.objects.filter(pk__in=[quiz.pk, other.pk]))

    assert (
        "A prompt that moves."
        not in learner_client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    )
    assert (
        "A prompt that moves." in learner_client.get(f"/en/quizzes/{other.slug}/").content.decode()
    )
