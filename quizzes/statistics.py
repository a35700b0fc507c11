"""A learner's review statistics: cards due today and on each of the next 30 days (in the
learner's time zone), reviews done, retention, and cards by state. Two statements of
aggregates, whose results are a few dozen rows whatever the number of cards and answers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.db.models import Case, Count, Min, Q, Value, When
from django.db.models.functions import Greatest, Least, TruncDate
from django.utils import timezone

from .models import ReviewAnswer, ReviewCard
from .review.badge import (
    BADGE_SECONDS,
    DueCounts,
    due_summary_keep,
    falling_due,
    midnight_before,
    offered,
    summary_of,
)

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


def review_statistics(*, user_id: int, now: datetime | None = None) -> ReviewStatistics:
    """The learner's statistics at `now`, in two statements of aggregates, whatever the
    number of their cards and answers: their cards counted by day due (their days), state and
    whether falling due within the minute (for the badge's summary, kept as the review page
    keeps it), and their review answers counted."""
    now = now or timezone.now()
    today = timezone.localdate(now)
    # The day a card is due on, in the learner's time zone: overdue ones today, those after
    # the next DAYS_AHEAD days on the day after them (one group of "later").
    later_day = today + timedelta(days=DAYS_AHEAD + 1)
    day = Least(
        Greatest(TruncDate("due", tzinfo=timezone.get_current_timezone()), Value(today)),
        Value(later_day),
    )
    first = Case(When(reviews__lte=1, then=Value(True)), default=Value(False))
    end_of_minute = now + timedelta(seconds=BADGE_SECONDS)
    groups = (
        offered(user_id)
        .order_by()
        .values("state", day=day, first=first, falling=falling_due(now))
        .annotate(
            cards=Count("pk"),
            due_now=Count("pk", filter=Q(due__lte=now)),
            after=Min("due", filter=Q(due__gt=end_of_minute)),
        )
        .values_list("state", "day", "first", "falling", "cards", "due_now", "after")
    )
    counts = [0] * (DAYS_AHEAD + 2)
    states = dict.fromkeys(("new", "learning", "review", "relearning"), 0)
    summed = []
    for state, due_day, is_first, falling, cards, due_now, after in groups:
        offset = (due_day - today).days
        counts[offset] += cards
        states[_state(state, first=is_first)] += cards
        summed.append((falling, cards, due_now, cards if offset == 0 else 0, after))
    since = now - timedelta(days=RETENTION_DAYS)
    answers = ReviewAnswer.objects.filter(user_id=user_id).aggregate(
        reviews=Count("pk"),
        recent=Count("pk", filter=Q(answered_at__gte=since)),
        right=Count("pk", filter=Q(answered_at__gte=since, is_correct=True)),
    )
    summary = summary_of(summed, at=now, midnight=midnight_before(today + timedelta(days=1)))
    return ReviewStatistics(
        days=[DayDue(today + timedelta(days=n), count) for n, count in enumerate(counts[:-1])],
        later=counts[-1],
        reviews=answers["reviews"],
        reviews_recent=answers["recent"],
        right_recent=answers["right"],
        states=states,
        # The same summary as the badge's: kept for it, so that the page and it agree.
        due=due_summary_keep(user_id, summary),
    )


def _state(state: int, *, first: bool) -> str:
    # A card is made by the miss that found the question (its first answer); until it is
    # answered again it is new.
    if state == ReviewCard.State.LEARNING:
        return "new" if first else "learning"
    if state == ReviewCard.State.RELEARNING:
        return "relearning"
    return "review"


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
