"""What is due, said alike by the navigation's badge, the review page and the statistics
(quizzes.review.badge): exact as cards fall due and at the learner's midnight, far from UTC
too, without the cards of quizzes that are not published; and the statistics' numbers as a
plain reading of every card and answer gives them."""

from __future__ import annotations

import random
import zoneinfo
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.utils import timezone

from quizzes.models import ReviewAnswer, ReviewCard
from quizzes.review.badge import review_due_badge, review_due_counts
from quizzes.review.scheduler import card_of, card_record_quiz_answer
from quizzes.statistics import DAYS_AHEAD, RETENTION_DAYS, review_statistics
from tests.factories import make_quiz

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)
KIRITIMATI = zoneinfo.ZoneInfo("Pacific/Kiritimati")  # UTC+14


def cards_due(learner, *dues: datetime, published: bool = True) -> list[ReviewCard]:
    """A card of the learner for each due time, in a quiz of their own."""
    quiz = make_quiz(questions=len(dues), is_published=published)
    questions = quiz.questions.order_by("position")
    return [
        ReviewCard.objects.create(user=learner, question=question, due=due, state=1, reviews=1)
        for question, due in zip(questions, dues, strict=True)
    ]


@time_machine.travel(NOW, tick=False)
def test_the_badge_counts_each_card_as_it_falls_due_within_its_minute_without_a_read(
    learner, django_assert_num_queries
):
    cards_due(
        learner,
        NOW - timedelta(hours=1),
        NOW + timedelta(seconds=10),
        NOW + timedelta(seconds=10),
        NOW + timedelta(seconds=45),
        NOW + timedelta(hours=2),
    )
    first = review_due_counts(user_id=learner.pk)
    assert (first.now, first.later_today, first.next_due) == (1, 4, NOW + timedelta(seconds=10))

    said = []
    with django_assert_num_queries(0):
        for seconds in (9, 10, 44, 45, 60):
            due = review_due_counts(user_id=learner.pk, now=NOW + timedelta(seconds=seconds))
            said.append((seconds, due.now, due.later_today, due.next_due - NOW))
    assert said == [
        (9, 1, 4, timedelta(seconds=10)),
        (10, 3, 2, timedelta(seconds=45)),
        (44, 3, 2, timedelta(seconds=45)),
        (45, 4, 1, timedelta(hours=2)),
        (60, 4, 1, timedelta(hours=2)),
    ]
    # After its minute the summary is read again, once.
    with django_assert_num_queries(1):
        assert review_due_badge(user_id=learner.pk, now=NOW + timedelta(seconds=61)) == 4
        assert review_due_badge(user_id=learner.pk, now=NOW + timedelta(seconds=62)) == 4


def test_at_the_learners_midnight_far_east_of_utc_tomorrows_cards_become_today(
    learner, django_assert_num_queries
):
    # 23:59:30 on the 2nd in Kiritimati (UTC+14) is 09:59:30 UTC, the same day.
    before = datetime(2026, 11, 2, 23, 59, 30, tzinfo=KIRITIMATI)
    midnight = datetime(2026, 11, 3, 0, 0, tzinfo=KIRITIMATI)
    cards_due(
        learner,
        before - timedelta(minutes=5),
        midnight + timedelta(seconds=10),  # falls due within the minute, after midnight
        midnight + timedelta(hours=20),  # tomorrow at 23:59:30, today after midnight
        midnight + timedelta(days=1, hours=1),  # the day after, still
    )
    with timezone.override(KIRITIMATI):
        before_midnight = review_due_counts(user_id=learner.pk, now=before)
        with django_assert_num_queries(0):
            still = review_due_counts(user_id=learner.pk, now=before + timedelta(seconds=29))
        with django_assert_num_queries(1):  # the learner's new day: read again
            after = review_due_counts(user_id=learner.pk, now=midnight + timedelta(seconds=15))

    assert (before_midnight.now, before_midnight.later_today) == (1, 0)
    assert before_midnight.next_due == midnight + timedelta(seconds=10)
    assert (still.now, still.later_today) == (1, 0)
    assert (after.now, after.later_today) == (2, 1)
    assert after.next_due == midnight + timedelta(hours=20)


@pytest.mark.site_time_zone("UTC")
@time_machine.travel(NOW, tick=False)
def test_a_learner_in_another_zone_is_counted_by_their_own_midnight_not_a_kept_one(learner):
    """A summary read in UTC's day is not the day of a learner whose zone says otherwise."""
    cards_due(learner, NOW + timedelta(hours=15))  # 01:00 UTC tomorrow
    assert review_due_counts(user_id=learner.pk).later_today == 0
    with timezone.override(KIRITIMATI):
        # Midnight has just passed there (UTC+14): the card is due at 15:00 today.
        assert review_due_counts(user_id=learner.pk).later_today == 1
    with timezone.override(zoneinfo.ZoneInfo("America/Los_Angeles")):
        # 02:00 in Los Angeles; the card at 17:00 there: later today.
        assert review_due_counts(user_id=learner.pk).later_today == 1
    assert review_due_counts(user_id=learner.pk).later_today == 0


@time_machine.travel(NOW, tick=False)
def test_cards_of_an_unpublished_quiz_are_counted_nowhere(learner, learner_client):
    cards_due(learner, NOW - timedelta(hours=1), NOW + timedelta(minutes=30))
    cards_due(learner, NOW - timedelta(hours=2), NOW + timedelta(hours=1), published=False)

    due = review_due_counts(user_id=learner.pk, fresh=True)
    stats = review_statistics(user_id=learner.pk)
    page = " ".join(learner_client.get("/en/review/statistics/").content.decode().split())

    assert (due.now, due.later_today, due.next_due) == (1, 1, NOW + timedelta(minutes=30))
    assert stats.due == due and stats.cards == 2 and stats.days[0].count == 2
    assert '<span class="count-badge" aria-hidden="true">1</span>' in page
    assert "1 question is due now. 1 more comes back later today." in page


@time_machine.travel(NOW, tick=False)
def test_a_card_moved_away_just_before_it_falls_due_leaves_the_kept_count(learner):
    (card,) = cards_due(learner, NOW + timedelta(seconds=30))
    assert review_due_badge(user_id=learner.pk) == 0

    # Answered right in a quiz: the card goes past the minute, and the kept summary is forgotten.
    card_record_quiz_answer(
        card_of(learner.pk, card.question_id),
        user_id=learner.pk,
        question_id=card.question_id,
        is_correct=True,
    )

    assert ReviewCard.objects.get(pk=card.pk).due > NOW + timedelta(minutes=1)
    assert review_due_badge(user_id=learner.pk, now=NOW + timedelta(seconds=40)) == 0


@time_machine.travel(NOW, tick=False)
def test_a_miss_whose_card_falls_due_after_the_kept_minute_costs_the_badge_no_read(
    learner, django_assert_num_queries
):
    (question,) = make_quiz(questions=1).questions.all()
    assert review_due_badge(user_id=learner.pk) == 0  # read at NOW and kept

    # Missed in a quiz twenty seconds later: a card due a learning step after the miss, past
    # the kept summary's minute, which therefore still says the count.
    missed_at = NOW + timedelta(seconds=20)
    with time_machine.travel(missed_at, tick=False):
        card_record_quiz_answer(
            None, user_id=learner.pk, question_id=question.pk, is_correct=False, at=missed_at
        )
    due = ReviewCard.objects.get(user=learner).due
    assert due > NOW + timedelta(seconds=60)

    with django_assert_num_queries(0):
        assert review_due_badge(user_id=learner.pk, now=NOW + timedelta(seconds=50)) == 0
    # The next minute's read sees it coming, and counts it as it falls due, without a read.
    with django_assert_num_queries(1):
        assert review_due_badge(user_id=learner.pk, now=NOW + timedelta(seconds=61)) == 0
    with django_assert_num_queries(0):
        assert review_due_badge(user_id=learner.pk, now=due - timedelta(seconds=1)) == 0
        assert review_due_badge(user_id=learner.pk, now=due) == 1


@time_machine.travel(NOW, tick=False)
def test_a_card_moved_into_the_kept_minute_is_counted_when_it_falls_due(learner):
    (card,) = cards_due(learner, NOW + timedelta(days=3))
    assert review_due_badge(user_id=learner.pk) == 0

    # Missed in a quiz: the card comes back within the kept summary's minute, which is
    # forgotten, so the badge counts it as it falls due.
    card_record_quiz_answer(
        card_of(learner.pk, card.question_id),
        user_id=learner.pk,
        question_id=card.question_id,
        is_correct=False,
    )
    due = ReviewCard.objects.get(pk=card.pk).due
    assert due <= NOW + timedelta(seconds=60)
    assert review_due_badge(user_id=learner.pk, now=due) == 1


# --- The statistics against a plain reading of every row ------------------------------------


def _generated_learner(learner, rng: random.Random) -> None:
    """A few hundred cards due from ten days ago to fifty days ahead (some on the same
    instant, some within the minute), in every state, a few in an unpublished quiz; and
    review answers over the last sixty days."""
    dues = []
    for n in range(300):
        if n % 25 == 0:
            dues.append(NOW + timedelta(seconds=rng.choice((0, 20, 20, 59, 60))))
        else:
            dues.append(NOW + timedelta(minutes=rng.randint(-10 * 24 * 60, 50 * 24 * 60)))
    published = make_quiz(questions=280)
    draft = make_quiz(questions=20, is_published=False)
    questions = [*published.questions.order_by("position"), *draft.questions.order_by("position")]
    cards = ReviewCard.objects.bulk_create(
        ReviewCard(
            user=learner,
            question=question,
            due=due,
            state=rng.choice((1, 2, 3)),
            reviews=rng.randint(1, 4),
        )
        for question, due in zip(questions, dues, strict=True)
    )
    ReviewAnswer.objects.bulk_create(
        ReviewAnswer(
            user=learner,
            question_id=card.question_id,
            card=card,
            revision=revision,
            is_correct=rng.random() < 0.7,
            answered_at=NOW - timedelta(minutes=rng.randint(0, 60 * 24 * 60)),
        )
        for card in rng.sample(cards, 200)
        for revision in range(rng.randint(1, 3))
    )


def _recomputed(learner) -> dict[str, object]:
    """The statistics from every row, as a learner would count them by hand."""
    today = timezone.localdate(NOW)
    days, later = [0] * (DAYS_AHEAD + 1), 0
    states = dict.fromkeys(("new", "learning", "review", "relearning"), 0)
    due_now = due_today = 0
    future = []
    for card in ReviewCard.objects.filter(user=learner, question__quiz__is_published=True):
        offset = max((timezone.localdate(card.due) - today).days, 0)
        if offset <= DAYS_AHEAD:
            days[offset] += 1
        else:
            later += 1
        if card.state == 1:
            states["new" if card.reviews <= 1 else "learning"] += 1
        else:
            states["review" if card.state == 2 else "relearning"] += 1
        due_now += card.due <= NOW
        due_today += offset == 0
        if card.due > NOW:
            future.append(card.due)
    answers = list(ReviewAnswer.objects.filter(user=learner))
    recent = [a for a in answers if a.answered_at >= NOW - timedelta(days=RETENTION_DAYS)]
    return {
        "days": days,
        "later": later,
        "states": states,
        "reviews": (len(answers), len(recent), sum(a.is_correct for a in recent)),
        "due": (due_now, due_today - due_now, min(future, default=None)),
    }


@pytest.mark.parametrize(
    "zone", ["UTC", "Pacific/Kiritimati", "America/Los_Angeles", "Asia/Kathmandu"]
)
@time_machine.travel(NOW, tick=False)
def test_the_statistics_say_what_a_plain_reading_of_every_card_and_answer_says(learner, zone):
    _generated_learner(learner, random.Random(58))

    with timezone.override(zoneinfo.ZoneInfo(zone)):
        stats = review_statistics(user_id=learner.pk)
        expected = _recomputed(learner)
        badge = review_due_counts(user_id=learner.pk)

    assert [day.count for day in stats.days] == expected["days"]
    assert stats.later == expected["later"]
    assert stats.states == expected["states"]
    assert (stats.reviews, stats.reviews_recent, stats.right_recent) == expected["reviews"]
    assert (stats.due.now, stats.due.later_today, stats.due.next_due) == expected["due"]
    assert badge == stats.due  # the summary the statistics kept, as the badge says it
