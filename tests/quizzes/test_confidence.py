"""Confidence with each answer (issue 56): the setting, the radio group `confidence`, the
certainty-based marks and what a level does to review. Written at the end of a stop and not yet
run: run it first (`pytest tests/quizzes/test_confidence.py`)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from quizzes.attempts.services import attempt_start
from quizzes.confidence import cbm_grade, cbm_mark
from quizzes.models import Answer, ReviewCard
from tests.factories import correct_choice, make_quiz, wrong_choice
from tests.steps import post_answer


@pytest.mark.parametrize(
    ("fraction", "level", "mark"),
    [
        (Decimal(1), 1, Decimal(1)),
        (Decimal(0), 1, Decimal(0)),
        (Decimal(1), 2, Decimal(2)),
        (Decimal(0), 2, Decimal(-2)),
        (Decimal(1), 3, Decimal(3)),
        (Decimal(0), 3, Decimal(-6)),
        (Decimal("0.5"), 3, Decimal("1.5")),
        (Decimal("0.5"), 2, Decimal(1)),
    ],
)
def test_certainty_based_marks_follow_moodles_table_and_scale_a_partial_answer(
    fraction, level, mark
):
    assert cbm_mark(fraction, level) == mark


def test_the_grade_is_the_averages_share_of_three_and_nothing_at_or_below_zero():
    assert cbm_grade(Decimal(9), 3) == 1
    assert cbm_grade(Decimal(3), 3) == Decimal(1) / 3
    assert cbm_grade(Decimal(-2), 3) == 0


def test_a_quiz_that_does_not_ask_shows_no_levels_and_records_none_sent(
    db, learner, learner_client
):
    quiz = make_quiz(questions=2)
    attempt = attempt_start(user=learner, quiz=quiz)
    page = learner_client.get(f"/en/attempts/{attempt.pk}/questions/1/").content.decode()
    assert 'name="confidence"' not in page

    post_answer(
        attempt,
        quiz.questions.get(position=1),
        choice=correct_choice(quiz.questions.get(position=1)),
        confidence=3,
    )

    assert Answer.objects.get(attempt=attempt).confidence is None


def test_a_quiz_that_asks_shows_three_levels_and_refuses_an_answer_without_one(
    db, learner, learner_client
):
    quiz = make_quiz(questions=2, confidence="ask")
    attempt = attempt_start(user=learner, quiz=quiz)
    first = quiz.questions.get(position=1)
    page = learner_client.get(f"/en/attempts/{attempt.pk}/questions/1/").content.decode()
    for value, name in (("1", "Not sure"), ("2", "Fairly sure"), ("3", "Very sure")):
        assert f'name="confidence" value="{value}"' in page and name in page

    for level in ("", "0", "4", "x", "٣"):
        data = {"question": first.pk, "choice": correct_choice(first).pk}
        if level:
            data["confidence"] = level
        response = learner_client.post(f"/en/attempts/{attempt.pk}/questions/1/", data)
        assert response.status_code == 422
    assert not Answer.objects.filter(attempt=attempt).exists()

    learner_client.post(
        f"/en/attempts/{attempt.pk}/questions/1/",
        {"question": first.pk, "choice": correct_choice(first).pk, "confidence": "2"},
    )
    assert Answer.objects.get(attempt=attempt).confidence == 2


def test_asking_leaves_the_score_as_it_was_and_marking_keeps_the_cbm_sum(db, learner):
    for mode, expected_cbm in (("ask", None), ("marking", Decimal(-2))):
        quiz = make_quiz(questions=3, confidence=mode)
        attempt = attempt_start(user=learner, quiz=quiz)
        one, two, three = quiz.questions.order_by("position")
        post_answer(attempt, one, choice=correct_choice(one), confidence=3)
        post_answer(attempt, two, choice=wrong_choice(two), confidence=3)
        post_answer(attempt, three, choice=correct_choice(three), confidence=1)
        attempt.refresh_from_db()
        assert attempt.score == 2 and attempt.total == 3
        assert attempt.cbm_score == expected_cbm
        assert attempt.grade_score == (2 if mode == "ask" else 0)


def test_a_right_guess_creates_a_card_and_a_sure_miss_is_offered_first_and_said_so(
    db, learner, learner_client
):
    quiz = make_quiz(questions=3, confidence="ask")
    attempt = attempt_start(user=learner, quiz=quiz)
    one, two, three = quiz.questions.order_by("position")
    post_answer(attempt, one, choice=wrong_choice(one), confidence=1)
    post_answer(attempt, two, choice=correct_choice(two), confidence=1)
    post_answer(attempt, three, choice=wrong_choice(three), confidence=3)

    guess = ReviewCard.objects.get(user=learner, question=two)
    sure = ReviewCard.objects.get(user=learner, question=three)
    assert not guess.sure_miss and sure.sure_miss
    assert sure.due <= timezone.now() + timedelta(minutes=10)

    ReviewCard.objects.filter(user=learner).update(due=timezone.now() - timedelta(days=1))
    ReviewCard.objects.filter(pk=sure.pk).update(due=timezone.now() - timedelta(hours=1))
    page = learner_client.get("/en/review/").content.decode()
    assert "You were sure of this" in page
    assert f'name="question" value="{three.pk}"' in page
