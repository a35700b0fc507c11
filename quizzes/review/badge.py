"""What is due: the one count the navigation's badge, the review page and the statistics
all say (`DueCounts`), from a small summary of each learner's cards (`DueSummary`) kept a
minute in the cache and read in one aggregate statement."""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.core.cache import cache
from django.db import transaction
from django.db.models import (
    Case,
    Count,
    DateTimeField,
    Exists,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    When,
)
from django.utils import timezone

from ..models import Question, ReviewCard


def offered(user_id: int) -> QuerySet[ReviewCard]:
    """The learner's cards that the review may offer: their question's quiz is published.
    Said as "not in a quiz that is not published" (an anti-join on the few drafts), so that a
    count of a learner's cards reads their index alone and never all the questions."""
    unpublished = Question.objects.filter(pk=OuterRef("question_id"), quiz__is_published=False)
    return ReviewCard.objects.filter(~Exists(unpublished), user_id=user_id)


def review_due_count(*, user_id: int, now: datetime | None = None) -> int:
    return offered(user_id).filter(due__lte=now or timezone.now()).count()


# The navigation shows on every whole page how many review questions are due. Rather than
# count them per page, each learner's `DueSummary` is kept in the cache: what was due when it
# was read, and the few cards falling due in the minute after, so that the count stays exact
# as time goes by, with no write. A write that changes a card due within the summary's
# lifetime forgets it (a review answer; a quiz answer that moves a card due soon); a card due
# later is counted by then from a fresh read. What changes which cards are offered without
# moving one (a quiz unpublished, a question deleted) shows within BADGE_SECONDS.
BADGE_SECONDS = 60


def _badge_key(user_id: int) -> str:
    return f"review-due:{user_id}"


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


def midnight_before(day: date) -> datetime:
    """The learner's midnight that begins `day` (the active time zone is theirs:
    accounts.middleware); where a clock jumps over midnight, the instant it jumps."""
    return datetime.combine(day, time.min, tzinfo=timezone.get_current_timezone())


def next_midnight(now: datetime) -> datetime:
    """The learner's next midnight: the end of their today."""
    return midnight_before(timezone.localdate(now) + timedelta(days=1))


@dataclass(frozen=True)
class DueSummary:
    """What is due for a learner as read `at` (POSIX seconds), enough to say `DueCounts`
    exactly at any moment until BADGE_SECONDS later or their midnight, whichever comes first:
    how many were due then and before their midnight, the due times of the cards falling due
    in the minute after (sorted, repeated as often as cards share one), and the first due time
    after that minute."""

    at: float
    midnight: float
    due_now: int
    due_today: int
    soon: tuple[float, ...]
    after: float | None

    def counts(self, now: datetime) -> DueCounts | None:
        """`DueCounts` at `now`, or None when this summary cannot say (before it was read,
        after its minute, or another day for the learner)."""
        moment = now.timestamp()
        if not self.at <= moment <= self.at + BADGE_SECONDS:
            return None
        if next_midnight(now).timestamp() != self.midnight:
            return None
        return self.counts_at(moment)

    def counts_due(self, dues: Iterable[datetime]) -> bool:
        """Whether a card due at one of `dues` is counted as due now at some moment of this
        summary's lifetime (due when it was read, or falling due within the minute after)."""
        end = self.at + BADGE_SECONDS
        return any(due.timestamp() <= end for due in dues)

    def counts_at(self, moment: float) -> DueCounts:
        """`DueCounts` at `moment` (POSIX seconds) within this summary's lifetime."""
        fallen = bisect.bisect_right(self.soon, moment)
        due_now = self.due_now + fallen
        following = self.soon[fallen] if fallen < len(self.soon) else self.after
        return DueCounts(
            now=due_now,
            later_today=max(self.due_today - due_now, 0),
            next_due=None if following is None else datetime.fromtimestamp(following, tz=UTC),
        )


def due_summary_read(user_id: int, *, now: datetime) -> DueSummary:
    """The learner's `DueSummary` at `now`, in one statement whose cost follows what is due
    today, not the learner's cards: it reads their cards due before their midnight (or the
    minute's end), and the one card due first after those, by the index on (learner, due).
    Grouped by the due time of a card falling due within the minute (None for the rest)."""
    midnight = next_midnight(now)
    end = now + timedelta(seconds=BADGE_SECONDS)
    horizon = max(midnight, end)
    first_after = offered(user_id).filter(due__gt=horizon).order_by("due").values("pk")[:1]
    rows = (
        offered(user_id)
        .filter(Q(due__lte=horizon) | Q(pk=Subquery(first_after)))
        .order_by()
        .values(falling=falling_due(now))
        .annotate(
            cards=Count("pk"),
            due_now=Count("pk", filter=Q(due__lte=now)),
            due_today=Count("pk", filter=Q(due__lt=midnight)),
            after=Min("due", filter=Q(due__gt=end)),
        )
        .values_list("falling", "cards", "due_now", "due_today", "after")
    )
    return summary_of(rows, at=now, midnight=midnight)


def falling_due(now: datetime) -> Case:
    """A card's due time if it falls due within the minute after `now`, else None: what a
    summary's statement groups cards by."""
    end = now + timedelta(seconds=BADGE_SECONDS)
    return Case(When(due__gt=now, due__lte=end, then="due"), output_field=DateTimeField())


def summary_of(
    groups: Iterable[tuple[datetime | None, int, int, int, datetime | None]],
    *,
    at: datetime,
    midnight: datetime,
) -> DueSummary:
    """The `DueSummary` at `at` of a learner's cards counted in groups: each group's due time
    if its cards fall due within the minute after `at` (else None), its cards, those due at
    `at`, those due before `midnight`, and its first due time after the minute."""
    soon: list[float] = []
    due_now = due_today = 0
    after = None
    for falling, cards, now_count, today_count, first in groups:
        if falling is not None:
            soon += [falling.timestamp()] * cards
        due_now += now_count
        due_today += today_count
        if first is not None and (after is None or first < after):
            after = first
    return DueSummary(
        at=at.timestamp(),
        midnight=midnight.timestamp(),
        due_now=due_now,
        due_today=due_today,
        soon=tuple(sorted(soon)),
        after=None if after is None else after.timestamp(),
    )


def due_summary_keep(user_id: int, summary: DueSummary) -> DueCounts:
    """Keep the learner's summary, just read, for the badge (BADGE_SECONDS): the page that
    read it and the next ones count the same. What it says as it was read."""
    cache.set(_badge_key(user_id), summary, BADGE_SECONDS)
    return summary.counts_at(summary.at)


def review_due_counts(
    *, user_id: int, now: datetime | None = None, fresh: bool = False
) -> DueCounts:
    """The one count of what is due (see `DueCounts`), from the learner's kept summary while
    it can say, else read again (one statement) and kept for BADGE_SECONDS; `fresh` reads it
    again whatever is kept, for the pages that show the count beside what they offer. A kept
    summary's count due now is exact (a write that changes it forgets the summary:
    `badge_forget_if_due_soon`); its count for later today and its next due time are as of
    its read, which the review page makes in the same request (`review_next`) or just after a
    write that forgot it."""
    now = now or timezone.now()
    key = _badge_key(user_id)
    if not fresh:
        kept = cache.get(key)
        counts = kept.counts(now) if isinstance(kept, DueSummary) else None
        if counts is not None:
            return counts
    return due_summary_keep(user_id, due_summary_read(user_id, now=now))


def review_due_badge(*, user_id: int, now: datetime | None = None) -> int:
    """The number of review questions due now, for the navigation: from the learner's kept
    summary (one cache read), read again at most every BADGE_SECONDS and at their midnight."""
    return review_due_counts(user_id=user_id, now=now).now


def badge_forget_if_due_soon(user_id: int, *dues: datetime) -> None:
    """After a write of the learner's cards (was and is due at `dues`): forget their kept
    summary if one of those falls within its minute (due when it was read, or falling due
    before it expires), the only times that change the badge's count while it is kept.
    Checked at once and again once the write is committed (a page read between the two kept
    a summary of the cards before it). A card moved from and to later times leaves the kept
    summary, and its count, as they are: a miss's card due in a minute costs the next page
    no statement."""
    key = _badge_key(user_id)

    def forget_if_counted() -> None:
        kept = cache.get(key)
        if isinstance(kept, DueSummary) and kept.counts_due(dues):
            cache.delete(key)

    forget_if_counted()
    transaction.on_commit(forget_if_counted)
