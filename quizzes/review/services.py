"""Spaced review of missed questions: the review page offers the cards that are due, and its
answers move them (the scheduler: `scheduler.py`; what is due: `badge.py`).

The rules:
- a wrong answer in a quiz attempt creates the question's card, if the learner has none;
- every later answer to that question, in an attempt or in a review, moves the card once
  (wrong is `Rating.Again`, right `Rating.Good`; right is the whole mark, so a partly right
  answer of several choices counts as wrong); a right answer to a question without a card
  creates none; every kind of question is reviewed as it is asked in a quiz;
- after a right review answer the learner may say how hard it was (Hard, Good, Easy): the
  answer is recorded as Good, and a later choice amends that same review (`review_rate`),
  scheduled again from the card as it was before the answer, while nothing else moved it;
- review answers are recorded for statistics and mastery, and never touch an attempt;
- a review answer carries the card's `reviews` count as it was shown, so a double click, a
  second tab or a replayed POST moves the card once;
- practice (cards not due yet) records nothing and moves no card (`practice_grade`);
- where the learner's profile asks (`review_asks_confidence`), each review answer says how
  sure they were (quizzes/confidence.py): a right answer "Not sure" moves the card as Hard, a
  miss "Very sure" marks it a misconception (`sure_miss`, offered first, due on the shortest
  relearning step) until it is answered right.

A miss brings the question back the same session: FSRS's learning steps (a first miss) and
relearning steps (a miss of a card in review), in minutes (`REVIEW_LEARNING_STEPS_MINUTES`,
`REVIEW_RELEARNING_STEPS_MINUTES`), before whole-day intervals.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import Q, Subquery
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from fsrs import Card, Rating

from accounts.models import Profile

from ..attempts.responses import RecordedAnswer
from ..attempts.state import parts_in_order
from ..confidence import ASK_CONFIDENCE
from ..content import ChoiceData, ItemData, PairData, QuestionData, quiz_content
from ..grading import Posted, Response, Unanswerable, Unreadable, grade_response, read_response
from ..models import ReviewAnswer, ReviewCard
from .badge import DueCounts, badge_forget_if_due_soon, offered, review_due_counts
from .scheduler import SCHEDULED_FIELDS, moved_by_answer, rating_for, scheduler, to_fsrs

PRACTICE_SIZE = 10


def review_asks_confidence(*, user_id: int) -> bool:
    """Whether review asks this learner how sure they are with each answer: as they chose
    (`Profile.review_confidence`), set on by their first quiz answer given with a level
    (quizzes.attempts.writes.review_asks_once_used); not asked before either."""
    chosen = Profile.objects.filter(user_id=user_id).values_list("review_confidence", flat=True)
    return bool(chosen.first())


@dataclass
class ReviewStep:
    """A card shown for review, with its question as the quiz shows it (its content version,
    quizzes/content.py), and what is due as the step is shown (None for a card shown again by
    its address)."""

    card: ReviewCard
    question: QuestionData
    due: DueCounts | None = None
    # Each answer says how sure the learner is (`review_asks_confidence`).
    asks_confidence: bool = False

    @property
    def due_count(self) -> int:
        return self.due.now if self.due else 0

    @property
    def choices(self) -> tuple[ChoiceData, ...]:
        return self.question.choices

    @property
    def parts(self) -> tuple[PairData | ItemData, ...]:
        """A matching question's matches or an ordering question's items, in an order of the
        card's own (the same at each showing of it)."""
        if not self.question.has_parts:
            return ()
        return parts_in_order(self.question, None, seed=f"card:{self.card.pk}")


def _with_content(card: ReviewCard) -> QuestionData | None:
    """The card's question from its quiz's content version."""
    return quiz_content(card.question.quiz).question(card.question_id)


def review_next(
    *,
    user_id: int,
    practise: bool = False,
    after: int | None = None,
    now: datetime | None = None,
) -> ReviewStep | None:
    """The card to review now: a misconception due first (a question missed when the learner
    was very sure), then the one due longest ago; with `practise`, the one not due yet that is
    due soonest, after the card `after` (the one practised last) in that order, so
    that practice goes through every card once. None when there is none."""
    now = now or timezone.now()
    # Read afresh: the page says how many are due beside the card it offers, and the
    # navigation's badge shows the same number.
    due = review_due_counts(user_id=user_id, now=now, fresh=True)
    order: tuple[str, ...] = ("due", "pk")
    if not practise:
        order = ("-sure_miss", "due", "pk")
        cards = offered(user_id).filter(due__lte=now)
    else:
        cards = offered(user_id).filter(due__gt=now)
        if after is not None:
            # Practice moves no card, so the order is the same from one card to the next.
            last_due = Subquery(
                ReviewCard.objects.filter(user_id=user_id, pk=after).values("due")[:1]
            )
            cards = cards.filter(Q(due__gt=last_due) | Q(due=last_due, pk__gt=after))
    # The first few chosen from the learner's cards alone, then read with their questions:
    # joined before the choice, the questions of every due card would be read to sort them.
    first = cards.order_by(*order).values("pk")[:PRACTICE_SIZE]
    chosen = ReviewCard.objects.filter(pk__in=first).select_related("question__quiz")
    for card in chosen.order_by(*order):
        question = _with_content(card)
        if question is not None:
            return ReviewStep(
                card=card,
                question=question,
                due=due,
                asks_confidence=not practise and review_asks_confidence(user_id=user_id),
            )
    return None


class Review(enum.Enum):
    # Recorded now: the card moved.
    ANSWERED = "answered"
    # This showing was answered already (a double click, a replay): the recorded answer.
    REPEATED = "repeated"
    # The card moved since it was shown (answered in a quiz or another tab): show it anew.
    MOVED_ON = "moved-on"
    # Refused by the rules, nothing written.
    REFUSED = "refused"
    # What was sent cannot be read as an answer (`field`, `message`): nothing written.
    UNREADABLE = "unreadable"


# The ratings a learner may give a right review answer (a wrong one is Again).
SELF_RATINGS = (Rating.Hard, Rating.Good, Rating.Easy)


@dataclass
class ReviewOutcome:
    kind: Review
    answer: RecordedAnswer | None = None
    step: ReviewStep | None = None
    message: str | Promise = ""
    # Review.UNREADABLE: the form's field the message is about.
    field: str = ""
    # The self-ratings the learner may give this answer now (`review_rate`): after a right
    # review answer recorded with the card's state before it; none for a wrong one or practice.
    ratings: tuple[Rating, ...] = ()


def _ratings_of(answer: ReviewAnswer) -> tuple[Rating, ...]:
    return SELF_RATINGS if answer.is_correct and answer.card_before is not None else ()


class ReviewNotFound(Exception):
    """No such card for this learner (another learner's, deleted, or unpublished)."""


def review_card_for(*, user_id: int, card_id: int) -> ReviewStep:
    card = offered(user_id).select_related("question__quiz").filter(pk=card_id).first()
    question = _with_content(card) if card is not None else None
    if card is None or question is None:
        raise ReviewNotFound
    return ReviewStep(
        card=card, question=question, asks_confidence=review_asks_confidence(user_id=user_id)
    )


def review_submit(
    *,
    user_id: int,
    step: ReviewStep,
    revision: int,
    response: Response,
    level: int | None = None,
    now: datetime | None = None,
) -> ReviewOutcome:
    """Record the learner's response for the card of `step` (as `review_card_for` read it for
    this learner) shown at `revision`, given as sure as `level` (None: not asked), marked as a
    quiz marks it, and move the card once (right: the whole mark; `moved_by_answer`).
    `review_answer_post` reads the response and calls this."""
    now = now or timezone.now()
    card, question = step.card, step.question
    if card.reviews != revision:
        recorded = ReviewAnswer.objects.filter(card=card, revision=revision).first()
        if recorded is not None:
            return ReviewOutcome(
                Review.REPEATED,
                answer=RecordedAnswer.of(recorded, question),
                step=step,
                ratings=_ratings_of(recorded),
            )
        return ReviewOutcome(
            Review.MOVED_ON,
            step=step,
            message=_("You answered this question elsewhere meanwhile; here it is again."),
        )
    try:
        fields = grade_response(question, response)
    except Unanswerable as refusal:
        return ReviewOutcome(Review.REFUSED, step=step, message=refusal.message)
    answer = ReviewAnswer(
        user_id=user_id,
        question_id=question.pk,
        card=card,
        revision=revision,
        answered_at=now,
        card_before=to_fsrs(card).to_dict(),
        confidence=level,
        **fields,
    )
    answer.rating = rating_for(right=answer.is_correct, level=level).value
    try:
        with transaction.atomic():
            answer.save(force_insert=True)
            was_due = card.due
            scheduled = moved_by_answer(card, right=answer.is_correct, level=level, at=now)
            written = ReviewCard.objects.filter(pk=card.pk, reviews=revision).update(
                **{name: getattr(scheduled, name) for name in SCHEDULED_FIELDS}
            )
            if not written:
                # A quiz answer moved the card between our read and this write.
                raise IntegrityError("card moved meanwhile")
            badge_forget_if_due_soon(user_id, was_due, scheduled.due)
    except IntegrityError:
        # Read the card again: as it is now, or gone (ReviewNotFound).
        again = review_card_for(user_id=user_id, card_id=card.pk)
        return review_submit(
            user_id=user_id, step=again, revision=revision, response=response, level=level, now=now
        )
    return ReviewOutcome(
        Review.ANSWERED,
        answer=RecordedAnswer.of(answer, question),
        step=step,
        ratings=_ratings_of(answer),
    )


def review_answer_post(
    *,
    user_id: int,
    card_id: int,
    revision: int,
    posted: Posted,
    practise: bool = False,
    now: datetime | None = None,
) -> ReviewOutcome:
    """The review page's POST: the learner's response to their card `card_id` shown at
    `revision`, read against its question (UNREADABLE: nothing written), then recorded
    (`review_submit`), or with `practise` marked and not recorded (`practice_grade`).
    ReviewNotFound for a card that is not theirs to review."""
    step = review_card_for(user_id=user_id, card_id=card_id)
    try:
        response = read_response(step.question, posted, shown=step.parts or None)
    except Unreadable as refusal:
        return ReviewOutcome(
            Review.UNREADABLE, step=step, message=refusal.message, field=refusal.field
        )
    if practise:
        return practice_grade(user_id=user_id, step=step, response=response)
    level = posted.confidence if step.asks_confidence else None
    if step.asks_confidence and level is None:
        return ReviewOutcome(
            Review.UNREADABLE, step=step, message=ASK_CONFIDENCE, field="confidence"
        )
    return review_submit(
        user_id=user_id, step=step, revision=revision, response=response, level=level, now=now
    )


def practice_grade(*, user_id: int, step: ReviewStep, response: Response) -> ReviewOutcome:
    """Mark a practice answer to the card of `step` as a review would, recording nothing and
    moving no card: practice is not a review. The answer returned is not saved."""
    try:
        fields = grade_response(step.question, response)
    except Unanswerable as refusal:
        return ReviewOutcome(Review.REFUSED, step=step, message=refusal.message)
    answer = RecordedAnswer.graded(fields, step.question)
    return ReviewOutcome(Review.ANSWERED, answer=answer, step=step)


def review_answer_for(*, user_id: int, answer_id: int) -> ReviewOutcome:
    """A learner's own recorded review answer with its question, for its feedback page."""
    answer = (
        ReviewAnswer.objects.filter(user_id=user_id, pk=answer_id)
        .select_related("card__question__quiz")
        .first()
    )
    if answer is None or not answer.card.question.quiz.is_published:
        raise ReviewNotFound
    question = _with_content(answer.card)
    if question is None:
        raise ReviewNotFound
    return ReviewOutcome(
        Review.ANSWERED,
        answer=RecordedAnswer.of(answer, question),
        step=ReviewStep(card=answer.card, question=question),
        ratings=_ratings_of(answer),
    )


def review_rate(*, user_id: int, answer_id: int, rating: int, now: datetime | None = None) -> bool:
    """Amend the learner's right review answer to `rating` (Hard, Good or Easy): its card is
    scheduled again from its state before the answer, as if the answer had been rated so.
    False, with nothing written, when it can no longer be (the card moved since, by a later
    answer) or may not be (a wrong answer, an answer from before self-rating)."""
    rating = Rating(rating)
    if rating not in SELF_RATINGS:
        return False
    with transaction.atomic():
        answer = (
            ReviewAnswer.objects.select_for_update()
            .filter(user_id=user_id, pk=answer_id)
            .only("pk", "card_id", "revision", "is_correct", "rating", "card_before", "answered_at")
            .first()
        )
        if answer is None:
            raise ReviewNotFound
        if not answer.is_correct or answer.card_before is None:
            return False
        if answer.rating == rating.value:
            return True
        scheduled, _log = scheduler().review_card(
            Card.from_dict(answer.card_before), rating, answer.answered_at
        )
        moved = ReviewCard.objects.filter(pk=answer.card_id, reviews=answer.revision + 1).update(
            state=scheduled.state.value,
            step=scheduled.step,
            stability=scheduled.stability,
            difficulty=scheduled.difficulty,
            due=scheduled.due,
            last_review=scheduled.last_review,
        )
        if not moved:
            return False
        ReviewAnswer.objects.filter(pk=answer.pk).update(rating=rating.value)
        badge_forget_if_due_soon(user_id, scheduled.due, now or timezone.now())
    return True
