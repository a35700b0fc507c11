"""Whether a learner may start a quiz now, under its settings and their own override.

The quiz page states these rules before Start; `attempts.attempt_start` enforces them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from .models import DEADLINE_GRACE, Attempt, Quiz, QuizOverride

if TYPE_CHECKING:
    from .content import QuizData

__all__ = ["DEADLINE_GRACE", "Availability", "quiz_availability"]

if TYPE_CHECKING:
    from django.contrib.auth.models import User


@dataclass
class Availability:
    quiz: Quiz | QuizData
    now: datetime
    # With the learner's override applied; None: no limit.
    time_limit: timedelta | None
    attempts_allowed: int | None
    attempts_used: int
    in_progress: Attempt | None

    @property
    def not_open_yet(self) -> bool:
        return self.quiz.opens_at is not None and self.now < self.quiz.opens_at

    @property
    def closed(self) -> bool:
        return self.quiz.closes_at is not None and self.now >= self.quiz.closes_at

    @property
    def attempts_left(self) -> int | None:
        if self.attempts_allowed is None:
            return None
        return max(self.attempts_allowed - self.attempts_used, 0)

    @property
    def refusal(self) -> str | Promise | None:
        """Why a new attempt cannot start now, or None when it can. Resuming is never refused
        here (an attempt past its deadline is finished when it is next read)."""
        if self.not_open_yet:
            return _("This quiz is not open yet.")
        if self.closed:
            return _("This quiz has closed.")
        if self.attempts_left == 0:
            return _("You have used every attempt this quiz allows.")
        return None

    def deadline_from(self, start: datetime) -> datetime | None:
        """The deadline of an attempt started at `start`: its time limit, capped by the
        quiz's closing time."""
        deadline = start + self.time_limit if self.time_limit is not None else None
        closes = self.quiz.closes_at
        if closes is not None and (deadline is None or closes < deadline):
            return closes
        return deadline


def quiz_availability(
    *, quiz: Quiz | QuizData, user: User, now: datetime | None = None
) -> Availability:
    """The quiz's rules for this learner now. One statement for a quiz without limits (the
    attempt in progress); with a time or attempt limit, two more (the override, the count)."""
    now = now or timezone.now()
    attempts = Attempt.objects.filter(user_id=user.pk, quiz_id=quiz.pk)
    in_progress = attempts.in_progress().first()
    time_limit, allowed, used = quiz.time_limit, quiz.max_attempts, 0
    if time_limit is not None or allowed is not None:
        override = QuizOverride.objects.filter(user_id=user.pk, quiz_id=quiz.pk).first()
        if override is not None:
            if time_limit is not None and override.extra_time:
                time_limit += override.extra_time
            if allowed is not None:
                allowed += override.extra_attempts
    if allowed is not None:
        used = attempts.count()
    return Availability(
        quiz=quiz,
        now=now,
        time_limit=time_limit,
        attempts_allowed=allowed,
        attempts_used=used,
        in_progress=in_progress,
    )
