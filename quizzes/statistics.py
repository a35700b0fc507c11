"""A learner's review statistics: cards due today and on each of the next 30 days (in the
learner's time zone), reviews done, retention, and cards by state. Two statements: the
learner's cards (due time, state, answers) and one aggregate of their review answers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.db.models import Count, Q
from django.utils import timezone

from .models import ReviewAnswer, ReviewCard
from .review.badge import DueCounts, due_counts_of, due_times_keep, offered

DAYS_AHEAD = 30
RETENTION_DAYS = 30


@dataclass
class DayDue:
    day: date
    count: int


@dataclass
class ReviewStatistics:
    days: list[DayDue]  # today (overdue included) and the next DAYS_AHEAD days
    later: int  # due after those
    reviews: int  # review answers ever
    reviews_recent: int  # in the last RETENTION_DAYS
    right_recent: int
    states: dict[str, int]  # new, learning, review, relearning
    due: DueCounts  # due now and later today, as the review page and the badge say

    @property
    def retention(self) -> int | None:
        """The percentage right of the review answers of the last RETENTION_DAYS days."""
        if not self.reviews_recent:
            return None
        return round(100 * self.right_recent / self.reviews_recent)

    @property
    def most(self) -> int:
        return max((day.count for day in self.days), default=0)

    @property
    def cards(self) -> int:
        return sum(self.states.values())


def _state(state: int, reviews: int) -> str:
    # A card is made by the miss that found the question (its first answer); until it is
    # answered again it is new.
    if state == ReviewCard.State.LEARNING:
        return "new" if reviews <= 1 else "learning"
    if state == ReviewCard.State.RELEARNING:
        return "relearning"
    return "review"


def review_statistics(*, user_id: int, now: datetime | None = None) -> ReviewStatistics:
    now = now or timezone.now()
    today = timezone.localdate(now)
    counts = [0] * (DAYS_AHEAD + 1)
    later = 0
    states = dict.fromkeys(("new", "learning", "review", "relearning"), 0)
    due_times = []
    for due, state, reviews in offered(user_id).values_list("due", "state", "reviews"):
        due_times.append(due.timestamp())
        states[_state(state, reviews)] += 1
        offset = max((timezone.localdate(due) - today).days, 0)
        if offset <= DAYS_AHEAD:
            counts[offset] += 1
        else:
            later += 1
    since = now - timedelta(days=RETENTION_DAYS)
    answers = ReviewAnswer.objects.filter(user_id=user_id).aggregate(
        reviews=Count("pk"),
        recent=Count("pk", filter=Q(answered_at__gte=since)),
        right=Count("pk", filter=Q(answered_at__gte=since, is_correct=True)),
    )
    return ReviewStatistics(
        days=[DayDue(today + timedelta(days=n), count) for n, count in enumerate(counts)],
        later=later,
        reviews=answers["reviews"],
        reviews_recent=answers["recent"],
        right_recent=answers["right"],
        states=states,
        # The same read as the badge's: kept for it, so that the page and it agree.
        due=due_counts_of(due_times_keep(user_id, due_times), now=now),
    )


@dataclass
class Bar:
    day: DayDue
    x: float
    y: float
    height: float
    middle: float  # where its label is centred
    label: bool  # a date under it (today, then every week)


CHART_WIDTH, CHART_HEIGHT, BAR_GAP = 620, 160, 4
# Drawn either side of the bars: "Today" and a date are wider than the bar they name.
CHART_MARGIN = 32


def chart_bars(stats: ReviewStatistics, *, right_to_left: bool) -> list[Bar]:
    """The chart's bars, today first: at the left in English, at the right in Arabic."""
    slot = CHART_WIDTH / len(stats.days)
    width = slot - BAR_GAP
    most = stats.most or 1
    bars = []
    for index, day in enumerate(stats.days):
        height = CHART_HEIGHT * day.count / most
        position = len(stats.days) - 1 - index if right_to_left else index
        bars.append(
            Bar(
                day=day,
                x=round(position * slot + BAR_GAP / 2, 2),
                y=round(CHART_HEIGHT - height, 2),
                height=round(height, 2),
                middle=round(position * slot + BAR_GAP / 2 + width / 2, 2),
                label=index % 7 == 0,
            )
        )
    return bars
