"""Calibration for the learner (issue 56): how often they were right at each level of
confidence they gave, in quizzes and in review, for the history and the review statistics.

One statement, whatever the number of answers: the quiz answers by level (only of attempts
whose feedback may show: an exam still running tells nothing about its marks) and the review
answers by level, the two aggregates joined by UNION ALL."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Exists, Q
from django.utils.translation import gettext as _

from accounts.models import Profile

from .confidence import FAIRLY_SURE, LEVELS, VERY_SURE, LevelCount
from .models import Answer, Quiz, ReviewAnswer


@dataclass(frozen=True, slots=True)
class Calibration:
    """Per level (not sure, fairly sure, very sure), the answers given so and how many were
    right."""

    levels: tuple[LevelCount, ...]

    @property
    def answered(self) -> int:
        return sum(level.answers for level in self.levels)

    @property
    def sentence(self) -> str:
        """The surest level the learner used, in one plain sentence."""
        for level in reversed(self.levels):
            if level.answers:
                return _sentence(level.level) % {"percent": level.percent_right}
        return ""


def _sentence(level: int) -> str:
    # Spelled out for makemessages: each level its own sentence (the words agree in Arabic).
    if level == VERY_SURE:
        return _("When very sure, you were right %(percent)s %% of the time.")
    if level == FAIRLY_SURE:
        return _("When fairly sure, you were right %(percent)s %% of the time.")
    return _("When not sure, you were right %(percent)s %% of the time.")


def calibration(*, user_id: int) -> Calibration:
    """The learner's answers with a level, in quizzes (whose feedback shows) and reviews."""
    counts = {level: [0, 0] for level in LEVELS}
    shown = Q(attempt__finished_at__isnull=False) | ~Q(attempt__feedback=Quiz.Feedback.DEFERRED)
    # A learner's first answer with a level sets their profile's choice (attempts/writes.py:
    # review_asks_once_used): unset, they have none, and the database reads no answer (a
    # condition it checks once) rather than all of a learner's thousands.
    used = Exists(Profile.objects.filter(user_id=user_id, review_confidence__isnull=False))
    quiz_answers = Answer.objects.filter(used, shown, attempt__user_id=user_id)
    review_answers = ReviewAnswer.objects.filter(used, user_id=user_id)
    rows = [
        answers.filter(confidence__in=LEVELS)
        .order_by()
        .values("confidence")
        .annotate(given=Count("pk"), right=Count("pk", filter=Q(is_correct=True)))
        .values_list("confidence", "given", "right")
        for answers in (quiz_answers, review_answers)
    ]
    for level, given, right in rows[0].union(rows[1], all=True).order_by():
        counts[level][0] += given
        counts[level][1] += right
    return Calibration(levels=tuple(LevelCount(level, *counts[level]) for level in LEVELS))
