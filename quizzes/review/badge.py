"""What is due: the one count the navigation's badge, the review page and the statistics
all say (`DueCounts`), from each learner's due times kept a minute in the cache."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.core.cache import cache
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from ..models import ReviewCard


def offered(user_id: int) -> QuerySet[ReviewCard]:
    """The learner's cards that the review may offer: their question's quiz is published."""
    return ReviewCard.objects.filter(user_id=user_id, question__quiz__is_published=True)


def review_due_count(*, user_id: int, now: datetime | None = None) -> int:
    return offered(user_id).filter(due__lte=now or timezone.now()).count()


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
            user_id, [due.timestamp() for due in offered(user_id).values_list("due", flat=True)]
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


def badge_forget_if_due_soon(user_id: int, *dues: datetime) -> None:
    """After a write of the learner's cards (was and is due at `dues`): forget their kept due
    times if one of those falls within their lifetime (from now, whenever the answers were
    given), at once and again once the write is committed (a page read between the two would
    have kept the times before it)."""
    if any(due <= timezone.now() + timedelta(seconds=BADGE_SECONDS) for due in dues):
        key = _badge_key(user_id)
        cache.delete(key)
        transaction.on_commit(lambda: cache.delete(key))
