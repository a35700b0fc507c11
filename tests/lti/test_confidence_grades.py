"""The LMS gets the certainty-based grade where a quiz marks by certainty (issue 56):
max(0, CBM average) / 3 of the marks, over real HTTP; the plain score where it only asks."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client

from lti.models import QuizGrading
from quizzes.models import Attempt
from tests.factories import correct_choice, make_quiz, wrong_choice

from .test_grades import launched_learner

pytestmark = pytest.mark.django_db


def take(client: Client, quiz, answers: list[tuple[bool, int]]) -> Attempt:
    """Answer each question (right or wrong) at its level, through the site's own views."""
    assert client.post(f"/en/quizzes/{quiz.slug}/start/").status_code == 302
    attempt = Attempt.objects.filter(quiz=quiz).latest("started_at")
    questions = attempt.quiz.questions.order_by("position")
    for number, (question, (right, level)) in enumerate(zip(questions, answers, strict=True), 1):
        pick = correct_choice(question) if right else wrong_choice(question)
        client.post(
            f"/en/attempts/{attempt.pk}/questions/{number}/",
            {"question": question.pk, "choice": pick.pk, "confidence": level},
        )
    attempt.refresh_from_db()
    return attempt


def test_a_quiz_marked_by_certainty_sends_the_cbm_grade_out_of_its_marks(
    registered, django_capture_on_commit_callbacks
):
    quiz = make_quiz(questions=3, confidence="marking")
    client = launched_learner(registered, quiz)

    with django_capture_on_commit_callbacks(execute=True):
        # 3 + 1 + 0 = 4 over 3 questions: an average of 4/3, 4/9 of the 3 marks.
        attempt = take(client, quiz, [(True, 3), (True, 1), (False, 1)])

    assert attempt.score == 2 and attempt.cbm_score == 4
    (score,) = registered.received.scores
    assert score["scoreGiven"] == pytest.approx(float(Decimal("1.3333")))
    assert score["scoreMaximum"] == 3


@pytest.mark.parametrize(("mode", "given"), [("ask", 2), ("marking", 0)])
def test_confident_errors_cost_the_grade_only_when_the_quiz_marks_by_certainty(
    registered, django_capture_on_commit_callbacks, mode, given
):
    quiz = make_quiz(questions=3, confidence=mode)
    client = launched_learner(registered, quiz)
    with django_capture_on_commit_callbacks(execute=True):
        # Marked: 3 + 3 − 6 = 0, nothing; asked only: 2 right of 3.
        take(client, quiz, [(True, 3), (True, 3), (False, 3)])
    (score,) = registered.received.scores
    assert (score["scoreGiven"], score["scoreMaximum"]) == (given, 3)


def test_the_best_attempt_for_the_lms_is_the_best_cbm_grade_not_the_best_accuracy(
    registered, django_capture_on_commit_callbacks
):
    quiz = make_quiz(questions=2, confidence="marking")
    QuizGrading.objects.create(quiz=quiz, counts="best")
    client = launched_learner(registered, quiz)
    with django_capture_on_commit_callbacks(execute=True):
        take(client, quiz, [(True, 3), (False, 1)])  # accuracy 1/2, CBM 3: grade 1 of 2
    with django_capture_on_commit_callbacks(execute=True):
        take(client, quiz, [(True, 1), (True, 1)])  # accuracy 2/2, CBM 2: grade 0.67 of 2
    assert [s["scoreGiven"] for s in registered.received.scores] == [1]
