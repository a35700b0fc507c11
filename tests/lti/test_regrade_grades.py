"""A regrade sends the platform a grade again only where the grade it holds changes, with the
regrade's time, over real HTTP to the test platform (issue 55)."""

from __future__ import annotations

from decimal import Decimal

import pytest
import time_machine as tm

from lti.models import QuizGrading, ScorePost
from quizzes.attempts.regrade import regrade_apply, regrade_preview
from quizzes.content import content_changed
from tests.factories import make_quiz

from .test_grades import launched_learner, take

pytestmark = pytest.mark.django_db


def make_second_choice_right(question) -> None:
    """The key fixed: the question's second choice is the right one, not the first."""
    for choice in question.choices.all():
        choice.is_correct = choice.position == 2
        choice.fraction = Decimal(int(choice.position == 2))
        choice.save()
    content_changed(quiz=question.quiz)


def regrade(quiz) -> None:
    regrade_apply(preview=regrade_preview(quiz=quiz))


def test_a_regrade_that_changes_the_grade_sends_it_once_with_the_regrades_time(
    registered, django_capture_on_commit_callbacks
):
    quiz = make_quiz(questions=3)
    client = launched_learner(registered, quiz)
    with django_capture_on_commit_callbacks(execute=True):
        attempt = take(client, quiz, right=2)  # the third answered wrong: choice 2
    assert [s["scoreGiven"] for s in registered.received.scores] == [2]

    make_second_choice_right(quiz.questions.get(position=3))
    with (
        tm.travel("2027-01-05 09:30:00+00:00", tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        regrade(quiz)

    first, second = registered.received.scores
    assert (second["scoreGiven"], second["scoreMaximum"]) == (3, 3)
    assert second["timestamp"].startswith("2027-01-05T09:30:00")
    post = ScorePost.objects.get(attempt=attempt)
    assert post.status == ScorePost.Status.SENT and post.score_given == 3

    # The same regrade again changes nothing, and sends nothing.
    with django_capture_on_commit_callbacks(execute=True):
        regrade(quiz)
    assert len(registered.received.scores) == 2


def test_a_regrade_that_leaves_the_platforms_grade_as_it_is_sends_nothing(
    registered, django_capture_on_commit_callbacks
):
    # One answer goes down and another up: the attempt's score, and the grade, stay 1 of 3.
    quiz = make_quiz(questions=3)
    client = launched_learner(registered, quiz)
    with django_capture_on_commit_callbacks(execute=True):
        attempt = take(client, quiz, right=1)
    assert [s["scoreGiven"] for s in registered.received.scores] == [1]

    make_second_choice_right(quiz.questions.get(position=1))
    make_second_choice_right(quiz.questions.get(position=2))
    preview = regrade_preview(quiz=quiz)
    assert (preview.answer_count, preview.attempt_count) == (2, 0)
    with django_capture_on_commit_callbacks(execute=True):
        regrade_apply(preview=preview)

    attempt.refresh_from_db()
    assert attempt.score == 1
    assert len(registered.received.scores) == 1


def test_a_regrade_that_lowers_the_last_attempt_sends_the_lower_grade(
    registered, django_capture_on_commit_callbacks
):
    quiz = make_quiz(questions=2)
    QuizGrading.objects.create(quiz=quiz, counts=QuizGrading.Counts.LAST)
    client = launched_learner(registered, quiz)
    with django_capture_on_commit_callbacks(execute=True):
        take(client, quiz, right=2)
    assert [s["scoreGiven"] for s in registered.received.scores] == [2]

    make_second_choice_right(quiz.questions.get(position=1))  # choice 1 was picked: now wrong
    with django_capture_on_commit_callbacks(execute=True):
        regrade(quiz)

    assert [s["scoreGiven"] for s in registered.received.scores] == [2, 1]
