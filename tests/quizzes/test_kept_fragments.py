"""What pages keep rendered in the process's `local` cache ({% cache %}) is only what every
learner sees alike, keyed by everything it shows, so no learner ever sees another's. A step's
fields are not kept (the measurement that added it found it bought nothing: issue 51); these
hold that each learner, order of choices and language sees its own step, and an edit at once,
whatever is kept."""

import re

import pytest
from django.test import Client

from quizzes.attempts.services import attempt_start
from quizzes.content import content_changed
from quizzes.models import Choice, Question, Quiz
from tests.factories import make_quiz, make_user, wrong_choice
from tests.steps import post_answer

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def step(attempt, number: int = 1, language: str = "en") -> str:
    return f"/{language}/attempts/{attempt.pk}/questions/{number}/"


def choice_texts(page: str) -> list[str]:
    return re.findall(r'<span class="choice__text">(?:<[^>]+>)*([^<]+)<', page)


def test_an_edit_shows_in_the_kept_fields_at_once():
    quiz = make_quiz(questions=1)
    learner = make_user()
    attempt = attempt_start(user=learner, quiz=quiz)
    client = signed_in(learner)
    assert "Question 1 prompt?" in client.get(step(attempt), **HX).content.decode()

    Question.objects.filter(quiz=quiz).update(prompt_en="A new prompt?")
    content_changed(quiz=quiz)
    assert "A new prompt?" in client.get(step(attempt), **HX).content.decode()


def test_each_learner_sees_the_choices_in_their_own_attempts_order():
    quiz = make_quiz(questions=1, choices=4, shuffle_choices=True)
    question = quiz.questions.get()
    pages = {}
    for _ in range(12):  # enough attempts that two orders differ
        learner = make_user()
        attempt = attempt_start(user=learner, quiz=quiz)
        page = signed_in(learner).get(step(attempt), **HX).content.decode()
        order = [Choice.objects.get(pk=pk).text_en for pk in attempt.choice_order[str(question.pk)]]
        pages[attempt.pk] = (order, choice_texts(page))
    assert all(shown == order for order, shown in pages.values())
    assert len({tuple(shown) for _order, shown in pages.values()}) > 1


def test_each_language_has_its_own_fields():
    quiz = make_quiz(questions=1)
    learner = make_user()
    attempt = attempt_start(user=learner, quiz=quiz)
    client = signed_in(learner)
    english = client.get(step(attempt), **HX).content.decode()
    arabic = client.get(step(attempt, language="ar"), **HX).content.decode()
    assert "Question 1 prompt?" in english and "نص السؤال 1؟" in arabic
    assert "نص السؤال 1؟" not in english


def test_a_saved_exam_pick_is_the_learners_own_and_never_kept_for_others():
    quiz = make_quiz(questions=2, feedback=Quiz.Feedback.DEFERRED)
    question = quiz.questions.get(position=1)
    picked = wrong_choice(question)
    first, second = make_user(), make_user()
    mine = attempt_start(user=first, quiz=quiz)
    theirs = attempt_start(user=second, quiz=quiz)
    signed_in(second).get(step(theirs), **HX)  # the unanswered fields, seen first by another
    post_answer(mine, question, choice=picked)

    page = signed_in(first).get(step(mine), **HX).content.decode()
    other = signed_in(second).get(step(theirs), **HX).content.decode()

    assert f'value="{picked.pk}" required checked' in page
    assert "checked" not in other
