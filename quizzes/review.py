"""Spaced review of missed questions: the FSRS scheduler (the `fsrs` package) moves a card per
question a learner missed, and the review page offers the cards that are due.

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
- practice (cards not due yet) records nothing and moves no card (`practice_grade`).

A miss brings the question back the same session: FSRS's learning steps (a first miss) and
relearning steps (a miss of a card in review), in minutes (`REVIEW_LEARNING_STEPS_MINUTES`,
`REVIEW_RELEARNING_STEPS_MINUTES`), before whole-day intervals.
"""

from __future__ import annotations

import bisect
import enum
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache as memoize

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Q, Subquery
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from fsrs import Card, Rating, Scheduler, State

from .attempt_read import parts_in_order
from .content import ChoiceData, ItemData, PairData, QuestionData, quiz_content
from .grading import Response, Unanswerable, grade_response
from .models import Question, ReviewAnswer, ReviewCard
from .responses import RecordedAnswer

PRACTICE_SIZE = 10


@memoize
def scheduler() -> Scheduler:
    return Scheduler(
        learning_steps=[timedelta(minutes=m) for m in settings.REVIEW_LEARNING_STEPS_MINUTES],
        relearning_steps=[timedelta(minutes=m) for m in settings.REVIEW_RELEARNING_STEPS_MINUTES],
        enable_fuzzing=settings.REVIEW_FUZZING,
    )


def _to_fsrs(card: ReviewCard) -> Card:
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


def _moved(
    card: ReviewCard, *, right: bool, at: datetime, rating: Rating | None = None
) -> ReviewCard:
    """`card` with the scheduler's state after an answer at `at` (not saved): rated `rating`,
    or by default Good when right and Again when wrong."""
    if rating is None:
        rating = Rating.Good if right else Rating.Again
    scheduled, _log = scheduler().review_card(_to_fsrs(card), rating, at)
    card.state = scheduled.state.value
    card.step = scheduled.step
    card.stability = scheduled.stability
    card.difficulty = scheduled.difficulty
    card.due = scheduled.due
    card.last_review = scheduled.last_review
    card.reviews += 1
    return card


_SCHEDULED_FIELDS = ["state", "step", "stability", "difficulty", "due", "last_review", "reviews"]


def _missed_first(*, user_id: int, question_id: int, at: datetime) -> ReviewCard:
    """A new card for a question first missed at `at`, scheduled by that miss (not saved)."""
    card = ReviewCard(
        user_id=user_id,
        question_id=question_id,
        due=at,
        state=State.Learning.value,
        created_at=at,
    )
    return _moved(card, right=False, at=at)


class _NotRead:
    def __repr__(self) -> str:
        return "CARD_NOT_READ"


# The learner's card for the question has not been read: card_record_quiz_answer reads it.
CARD_NOT_READ = _NotRead()


def card_record_quiz_answer(
    *,
    user_id: int,
    question_id: int,
    is_correct: bool,
    at: datetime | None = None,
    quiz_has_cards: bool = True,
    card: ReviewCard | None | _NotRead = CARD_NOT_READ,
) -> None:
    """Move the learner's card for a question answered in a quiz attempt; a wrong answer
    creates the card when there is none. Call inside the transaction that records the answer.

    Two statements (read the card, write it) when a card is created or moved. A caller that
    read with the attempt (quizzes/attempt_read.py) that the learner has no card for this
    quiz's questions (`quiz_has_cards=False`) makes a right answer cost nothing; one that read
    the card itself (`card`, None for none) saves the read.
    """
    at = at or timezone.now()
    if not card_record_writes(is_correct=is_correct, quiz_has_cards=quiz_has_cards, card=card):
        return
    if isinstance(card, _NotRead):
        card = _card_of(user_id=user_id, question_id=question_id)
    if card is not None:
        was_due = card.due
        _moved(card, right=is_correct, at=at).save(update_fields=_SCHEDULED_FIELDS)
        _badge_forget_if_due_soon(user_id, was_due, card.due)
        return
    if is_correct:
        return  # the card was deleted with its question meanwhile
    # If another tab's wrong answer created the card a moment ago, that one answer moved it:
    # skipped by the database (ON CONFLICT DO NOTHING), without a savepoint around it.
    new = _missed_first(user_id=user_id, question_id=question_id, at=at)
    ReviewCard.objects.bulk_create([new], ignore_conflicts=True)
    _badge_forget_if_due_soon(user_id, new.due)


def card_record_writes(
    *, is_correct: bool, quiz_has_cards: bool, card: ReviewCard | None | _NotRead
) -> bool:
    """Whether `card_record_quiz_answer` may write (create or move a card) for these values:
    if not, an answer's own row is all its step writes."""
    if isinstance(card, _NotRead):
        return not is_correct or quiz_has_cards
    return card is not None or not is_correct


def _card_of(*, user_id: int, question_id: int) -> ReviewCard | None:
    """The learner's card for the question, or None (at most one: a unique constraint)."""
    return ReviewCard.objects.filter(user_id=user_id, question_id=question_id).first()


def cards_record_answers(*, user_id: int, answers: list[tuple[int, bool, datetime]]) -> None:
    """Move the learner's cards for many answers at once, as `card_record_quiz_answer` would
    one by one: an exam's answers when it is finished. At most three statements, however many
    answers: read the cards, create the new ones, update the moved ones."""
    cards = {
        card.question_id: card
        for card in ReviewCard.objects.filter(
            user_id=user_id, question_id__in=[question_id for question_id, _right, _at in answers]
        )
    }
    new, moved, dues = [], [], []
    for question_id, is_correct, at in sorted(answers, key=lambda answer: answer[2]):
        card = cards.get(question_id)
        if card is not None:
            dues.append(card.due)
            moved.append(_moved(card, right=is_correct, at=at))
        elif not is_correct:
            new.append(_missed_first(user_id=user_id, question_id=question_id, at=at))
    if new:
        ReviewCard.objects.bulk_create(new, ignore_conflicts=True)
    if moved:
        ReviewCard.objects.bulk_update(moved, _SCHEDULED_FIELDS)
    if answers:
        dues += [card.due for card in [*new, *moved]]
        _badge_forget_if_due_soon(user_id, *dues)


def _offered(user_id: int):
    """The learner's cards whose question learners can see now (its quiz published)."""
    return ReviewCard.objects.filter(user_id=user_id, question__quiz__is_published=True)


def cards_offered(user_id: int):
    """The learner's cards that the review may offer (their quiz published)."""
    return _offered(user_id)


def review_due_count(*, user_id: int, now: datetime | None = None) -> int:
    return _offered(user_id).filter(due__lte=now or timezone.now()).count()


# The navigation shows on every whole page how many review questions are due. Rather than
# count them per page, each learner's due times are kept in the cache and the count is how
# many are past: exact as time goes by, with no write. A write that changes a card due within
# the kept times' lifetime forgets them (a review answer; a quiz answer that moves a card due
# soon); a card due later is counted by then from a fresh read. What changes which cards are
# offered without moving one (a quiz unpublished, a question deleted) shows within
# BADGE_SECONDS.
BADGE_SECONDS = 60


def _badge_key(user_id: int) -> str:
    return f"review-due-times:{user_id}"


@dataclass(frozen=True)
class DueCounts:
    """What is due, as the navigation's badge, the review page and the statistics all say it:
    due now, and due later today (the learner's day, in their time zone), which a miss's
    same-day relearning steps fill; `next_due` is when the soonest of the rest comes back."""

    now: int
    later_today: int
    next_due: datetime | None

    @property
    def today(self) -> int:
        return self.now + self.later_today


def due_times_keep(user_id: int, due_times: list[float]) -> list[float]:
    """Keep the learner's due times, just read, for the badge (BADGE_SECONDS): the page that
    read them and the next ones count the same."""
    due_times = sorted(due_times)
    cache.set(_badge_key(user_id), due_times, BADGE_SECONDS)
    return due_times


def _due_times(user_id: int, *, fresh: bool = False) -> list[float]:
    """The learner's due times, sorted: kept BADGE_SECONDS in the cache; `fresh` reads them
    again (one statement) and keeps that."""
    due_times = None if fresh else cache.get(_badge_key(user_id))
    if due_times is None:
        due_times = due_times_keep(
            user_id, [due.timestamp() for due in _offered(user_id).values_list("due", flat=True)]
        )
    return due_times


def review_due_counts(
    *, user_id: int, now: datetime | None = None, fresh: bool = False
) -> DueCounts:
    """The one count of what is due (see `DueCounts`), from the learner's kept due times, or
    read afresh (`fresh`) by the pages that show the count beside what they offer."""
    return due_counts_of(_due_times(user_id, fresh=fresh), now=now)


def due_counts_of(due_times: list[float], *, now: datetime | None = None) -> DueCounts:
    """`DueCounts` of these sorted due times (POSIX seconds) at `now`."""
    now = now or timezone.now()
    due_now = bisect.bisect_right(due_times, now.timestamp())
    # The learner's next midnight (the active time zone is theirs: accounts.middleware).
    local = timezone.localtime(now)
    midnight = (local + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    due_today = bisect.bisect_left(due_times, midnight.timestamp())
    next_due = None
    if due_now < len(due_times):
        next_due = datetime.fromtimestamp(due_times[due_now], tz=UTC)
    return DueCounts(now=due_now, later_today=max(due_today - due_now, 0), next_due=next_due)


def review_due_badge(*, user_id: int, now: datetime | None = None) -> int:
    """The number of review questions due now, for the navigation: from the learner's kept due
    times (one cache read), read again at most every BADGE_SECONDS."""
    return review_due_counts(user_id=user_id, now=now).now


def _badge_forget_if_due_soon(user_id: int, *dues: datetime) -> None:
    """After a write of the learner's cards (was and is due at `dues`): forget their kept due
    times if one of those falls within their lifetime (from now, whenever the answers were
    given), at once and again once the write is committed (a page read between the two would
    have kept the times before it)."""
    if any(due <= timezone.now() + timedelta(seconds=BADGE_SECONDS) for due in dues):
        key = _badge_key(user_id)
        cache.delete(key)
        transaction.on_commit(lambda: cache.delete(key))


@dataclass
class ReviewStep:
    """A card shown for review, with its question as the quiz shows it (its content version,
    quizzes/content.py), and what is due as the step is shown (None for a card shown again by
    its address)."""

    card: ReviewCard
    question: QuestionData
    due: DueCounts | None = None

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
        if self.question.kind not in (Question.Kind.MATCHING, Question.Kind.ORDERING):
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
    """The card to review now: the one due longest ago; with `practise`, the one not due yet
    that is due soonest, after the card `after` (the one practised last) in that order, so
    that practice goes through every card once. None when there is none."""
    now = now or timezone.now()
    cards = _offered(user_id).select_related("question__quiz").order_by("due", "pk")
    # Read afresh: the page says how many are due beside the card it offers, and the
    # navigation's badge shows the same number.
    due = review_due_counts(user_id=user_id, now=now, fresh=True)
    if not practise:
        cards = cards.filter(due__lte=now)
    else:
        cards = cards.filter(due__gt=now)
        if after is not None:
            # Practice moves no card, so the order is the same from one card to the next.
            last_due = Subquery(
                ReviewCard.objects.filter(user_id=user_id, pk=after).values("due")[:1]
            )
            cards = cards.filter(Q(due__gt=last_due) | Q(due=last_due, pk__gt=after))
    for card in cards[:PRACTICE_SIZE]:
        question = _with_content(card)
        if question is not None:
            return ReviewStep(card=card, question=question, due=due)
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


# The ratings a learner may give a right review answer (a wrong one is Again).
SELF_RATINGS = (Rating.Hard, Rating.Good, Rating.Easy)


@dataclass
class ReviewOutcome:
    kind: Review
    answer: RecordedAnswer | None = None
    step: ReviewStep | None = None
    message: str | Promise = ""
    # The self-ratings the learner may give this answer now (`review_rate`): after a right
    # review answer recorded with the card's state before it; none for a wrong one or practice.
    ratings: tuple[Rating, ...] = ()


def _ratings_of(answer: ReviewAnswer) -> tuple[Rating, ...]:
    return SELF_RATINGS if answer.is_correct and answer.card_before is not None else ()


class ReviewNotFound(Exception):
    """No such card for this learner (another learner's, deleted, or unpublished)."""


def review_card_for(*, user_id: int, card_id: int) -> ReviewStep:
    card = _offered(user_id).select_related("question__quiz").filter(pk=card_id).first()
    question = _with_content(card) if card is not None else None
    if card is None or question is None:
        raise ReviewNotFound
    return ReviewStep(card=card, question=question)


def review_submit(
    *,
    user_id: int,
    step: ReviewStep,
    revision: int,
    response: Response | None = None,
    choice_id: int | None = None,
    now: datetime | None = None,
) -> ReviewOutcome:
    """Record the learner's response (or pick) for the card of `step` (as `review_card_for`
    read it for this learner: the caller needed its question to read the response) shown at
    `revision`, marked as a quiz marks it, and move the card once (right: the whole mark)."""
    now = now or timezone.now()
    response = Response.of(response, choice_id)
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
        card_before=_to_fsrs(card).to_dict(),
        **fields,
    )
    answer.rating = ReviewAnswer.Rating.GOOD if answer.is_correct else ReviewAnswer.Rating.AGAIN
    try:
        with transaction.atomic():
            answer.save(force_insert=True)
            was_due = card.due
            scheduled = _moved(card, right=answer.is_correct, at=now)
            moved = ReviewCard.objects.filter(pk=card.pk, reviews=revision).update(
                **{name: getattr(scheduled, name) for name in _SCHEDULED_FIELDS}
            )
            if not moved:
                # A quiz answer moved the card between our read and this write.
                raise IntegrityError("card moved meanwhile")
            _badge_forget_if_due_soon(user_id, was_due, scheduled.due)
    except IntegrityError:
        # Read the card again: as it is now, or gone (ReviewNotFound).
        again = review_card_for(user_id=user_id, card_id=card.pk)
        return review_submit(
            user_id=user_id, step=again, revision=revision, response=response, now=now
        )
    return ReviewOutcome(
        Review.ANSWERED,
        answer=RecordedAnswer.of(answer, question),
        step=step,
        ratings=_ratings_of(answer),
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
        _badge_forget_if_due_soon(user_id, scheduled.due, now or timezone.now())
    return True
