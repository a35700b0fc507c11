"""The FSRS scheduler (the `fsrs` package) over the learners' review cards: a card per
question a learner missed, moved by every later answer to it (wrong is `Rating.Again`, right
`Rating.Good`; right is the whole mark), in an attempt or a review.

A miss brings the question back the same session: FSRS's learning steps (a first miss) and
relearning steps (a miss of a card in review), in minutes (`REVIEW_LEARNING_STEPS_MINUTES`,
`REVIEW_RELEARNING_STEPS_MINUTES`), before whole-day intervals.

Where a quiz asks how sure the learner is (quizzes/confidence.py), the level changes the move
(`rating_for`): a right answer given "Not sure" is a guess, not yet knowledge: it moves the
card as Hard, and creates one when there is none; a wrong answer given "Very sure" is a
misconception: the card is marked (`sure_miss`: the review page offers it first and says so)
and comes back no later than the shortest relearning step.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import cache as memoize

from django.conf import settings
from django.utils import timezone
from fsrs import Card, Rating, Scheduler, State

from ..confidence import NOT_SURE, VERY_SURE
from ..models import ReviewCard
from .badge import badge_forget_if_due_soon


@memoize
def scheduler() -> Scheduler:
    return Scheduler(
        learning_steps=[timedelta(minutes=m) for m in settings.REVIEW_LEARNING_STEPS_MINUTES],
        relearning_steps=[timedelta(minutes=m) for m in settings.REVIEW_RELEARNING_STEPS_MINUTES],
        enable_fuzzing=settings.REVIEW_FUZZING,
    )


def to_fsrs(card: ReviewCard) -> Card:
    return Card(
        # fsrs makes an id of a card that has none by sleeping a millisecond (fsrs/card.py):
        # a new card, not saved yet, is given 0.
        card_id=card.pk or 0,
        state=State(card.state),
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=card.due,
        last_review=card.last_review,
    )


def moved(
    card: ReviewCard, *, right: bool, at: datetime, rating: Rating | None = None
) -> ReviewCard:
    """`card` with the scheduler's state after an answer at `at` (not saved): rated `rating`,
    or by default Good when right and Again when wrong."""
    if rating is None:
        rating = Rating.Good if right else Rating.Again
    scheduled, _log = scheduler().review_card(to_fsrs(card), rating, at)
    card.state = scheduled.state.value
    card.step = scheduled.step
    card.stability = scheduled.stability
    card.difficulty = scheduled.difficulty
    card.due = scheduled.due
    card.last_review = scheduled.last_review
    card.reviews += 1
    return card


SCHEDULED_FIELDS = [
    "state",
    "step",
    "stability",
    "difficulty",
    "due",
    "last_review",
    "reviews",
    "sure_miss",
]


def rating_for(*, right: bool, level: int | None) -> Rating:
    """How an answer rates its card: Again when wrong; right, Hard when the learner was not
    sure (a guess), else Good."""
    if not right:
        return Rating.Again
    return Rating.Hard if level == NOT_SURE else Rating.Good


def moved_by_answer(
    card: ReviewCard, *, right: bool, level: int | None, at: datetime
) -> ReviewCard:
    """`card` moved by an answer (in a quiz or a review) given as sure as `level` (None: not
    asked): rated by `rating_for`; a miss given "Very sure" marks it a misconception, due no
    later than the shortest relearning step; the mark stays until it is answered right."""
    moved(card, right=right, at=at, rating=rating_for(right=right, level=level))
    card.sure_miss = not right and (level == VERY_SURE or card.sure_miss)
    if card.sure_miss:
        soonest = at + timedelta(minutes=min(settings.REVIEW_RELEARNING_STEPS_MINUTES))
        card.due = min(card.due, soonest)
    return card


def creates_card(*, right: bool, level: int | None) -> bool:
    """Whether an answer to a question the learner has no card for creates one: a miss, or
    a right answer they were not sure of."""
    return not right or level == NOT_SURE


def missed_first(
    *, user_id: int, question_id: int, at: datetime, right: bool = False, level: int | None = None
) -> ReviewCard:
    """A new card for a question first missed at `at` (or answered right but unsure:
    `creates_card`), scheduled by that answer (not saved)."""
    card = ReviewCard(
        user_id=user_id,
        question_id=question_id,
        due=at,
        state=State.Learning.value,
        created_at=at,
    )
    return moved_by_answer(card, right=right, level=level, at=at)


def card_of(user_id: int, question_id: int) -> ReviewCard | None:
    """The learner's card for the question, or None (at most one: a unique constraint)."""
    return ReviewCard.objects.filter(user_id=user_id, question_id=question_id).first()


def card_record_quiz_answer(
    card: ReviewCard | None,
    *,
    user_id: int,
    question_id: int,
    is_correct: bool,
    at: datetime | None = None,
    level: int | None = None,
) -> None:
    """Move the learner's `card` for a question answered in a quiz attempt (as read with the
    attempt, or by `card_of`; None: they have none): a wrong answer creates the card when
    there is none, a right one then writes nothing. Call inside the transaction that records
    the answer."""
    at = at or timezone.now()
    if card is not None:
        was_due = card.due
        moved_by_answer(card, right=is_correct, level=level, at=at).save(
            update_fields=SCHEDULED_FIELDS
        )
        badge_forget_if_due_soon(user_id, was_due, card.due)
        return
    if not creates_card(right=is_correct, level=level):
        return
    # If another tab's wrong answer created the card a moment ago, that one answer moved it:
    # skipped by the database (ON CONFLICT DO NOTHING), without a savepoint around it.
    new = missed_first(
        user_id=user_id, question_id=question_id, at=at, right=is_correct, level=level
    )
    ReviewCard.objects.bulk_create([new], ignore_conflicts=True)
    badge_forget_if_due_soon(user_id, new.due)


def cards_record_answers(
    *, user_id: int, answers: list[tuple[int, bool, datetime, int | None]]
) -> None:
    """Move the learner's cards for many answers at once (question id, right, when, level),
    as `card_record_quiz_answer` would one by one: an exam's answers when it is finished. At
    most three statements, however many answers: read the cards, create the new ones, update
    the moved ones."""
    cards = {
        card.question_id: card
        for card in ReviewCard.objects.filter(
            user_id=user_id, question_id__in=[answer[0] for answer in answers]
        )
    }
    new, changed, dues = [], [], []
    for question_id, is_correct, at, level in sorted(answers, key=lambda answer: answer[2]):
        card = cards.get(question_id)
        if card is not None:
            dues.append(card.due)
            changed.append(moved_by_answer(card, right=is_correct, level=level, at=at))
        elif creates_card(right=is_correct, level=level):
            new.append(
                missed_first(
                    user_id=user_id, question_id=question_id, at=at, right=is_correct, level=level
                )
            )
    if new:
        ReviewCard.objects.bulk_create(new, ignore_conflicts=True)
    if changed:
        ReviewCard.objects.bulk_update(changed, SCHEDULED_FIELDS)
    if answers:
        dues += [card.due for card in [*new, *changed]]
        badge_forget_if_due_soon(user_id, *dues)
