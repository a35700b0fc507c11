"""Practice goes through every card not due yet, cards due at the very same moment included."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from quizzes.models import ReviewCard
from quizzes.review.scheduler import card_of, card_record_quiz_answer
from quizzes.review.services import review_next

pytestmark = pytest.mark.django_db

MONDAY = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def test_practice_offers_each_of_three_cards_due_at_the_same_moment_once(learner, quiz):
    for question in quiz.questions.order_by("position")[:3]:
        card_record_quiz_answer(
            card_of(learner.pk, question.pk),
            user_id=learner.pk,
            question_id=question.pk,
            is_correct=False,
            at=MONDAY,
        )
    ReviewCard.objects.filter(user=learner).update(due=MONDAY + timedelta(days=2))
    now = MONDAY + timedelta(hours=1)

    offered = []
    step = review_next(user_id=learner.pk, practise=True, now=now)
    while step is not None and len(offered) < 10:
        offered.append(step.card.pk)
        step = review_next(user_id=learner.pk, practise=True, after=step.card.pk, now=now)

    assert sorted(offered) == sorted(
        ReviewCard.objects.filter(user=learner).values_list("pk", flat=True)
    )
    assert len(offered) == 3
