from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone

from quizzes.models import Answer, Attempt, Quiz
from tests import factories

DATA = Path(__file__).parent / "data"


@pytest.fixture
def representative_gift() -> str:
    return (DATA / "representative.gift").read_text(encoding="utf-8")


@pytest.fixture
def instructor_client(instructor) -> Client:
    client = Client()
    client.force_login(instructor)
    return client


@pytest.fixture
def bare_staff(db):
    """Staff (can open the admin) but in no group: no quiz permissions at all."""
    return factories.make_user("clerk", is_staff=True)


@pytest.fixture
def bare_staff_client(bare_staff) -> Client:
    client = Client()
    client.force_login(bare_staff)
    return client


def record_attempt(
    user,
    quiz: Quiz,
    picks: list[int],
    *,
    minutes_ago: int = 60,
    finished: bool = True,
) -> Attempt:
    """An attempt whose answer to the quiz's question n is the choice at position picks[n]."""
    started = timezone.now() - timedelta(minutes=minutes_ago)
    questions = list(quiz.questions.order_by("position").prefetch_related("choices"))
    attempt = Attempt.objects.create(user=user, quiz=quiz, started_at=started)
    score = 0
    for question, position in zip(questions, picks, strict=False):
        choices = {choice.position: choice for choice in question.choices.all()}
        correct = next(choice for choice in choices.values() if choice.is_correct)
        chosen = choices[position]
        score += chosen.is_correct
        Answer.objects.create(
            attempt=attempt,
            question=question,
            choice=chosen,
            correct_choice=correct,
            is_correct=chosen.is_correct,
            fraction=1 if chosen.is_correct else 0,
            answered_at=started + timedelta(minutes=1),
        )
    if finished:
        attempt.finished_at = started + timedelta(minutes=5)
        attempt.score = score
        attempt.total = len(questions)
        attempt.save()
    return attempt
