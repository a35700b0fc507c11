"""Confidence with each answer: the three levels a learner gives, certainty-based marking
(Gardner-Medwin's table, as Moodle's deferred CBM marks it) and what a level says to review.

Plain functions over plain values: the rules read the quiz's mode from the attempt
(`Attempt.confidence`, copied from `Quiz.confidence` at the start), the writes store the
level with the answer, the result and the reports read `summary`.

The CBM mark of one question, by level (1 "Not sure", 2 "Fairly sure", 3 "Very sure"):

    level       right   wrong
    1             1       0
    2             2      -2
    3             3      -6

A partly right answer earns the right mark times its fraction (Moodle's
`question_cbm::adjust_fraction`); an unanswered question 0. An attempt's CBM average is the
sum over its questions divided by their number: −6 to 3.

Where a quiz marks by certainty, its grade (the grades report, the CSV, the learner's history
and the LMS) is the CBM average mapped onto the quiz's marks: max(0, average) / 3 of them. A
learner right and very sure on every question gets every mark; one right on every question
but "Not sure" of each a third of them; an average at or below 0 (confident errors costing as
much as the right answers earned) none. The plain share right (the
accuracy) is shown beside it everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

# Quiz.confidence's values (contract).
OFF, ASK, MARKING = "off", "ask", "marking"


class Mode(models.TextChoices):
    """`Quiz.confidence`'s choices (and `Attempt.confidence`'s, copied at the start)."""

    OFF = "off", _("Not asked")
    ASK = "ask", _("Asked with each answer; the score unchanged")
    MARKING = "marking", _("Asked with each answer, and marked by certainty")


MODE_HELP = _(
    "Learners say with each answer how sure they are: not sure, fairly sure or very "
    "sure. A right answer given unsure and a wrong one given very sure come back "
    "sooner in review. Marked by certainty, a question earns 1, 2 or 3 when right "
    "and 0, −2 or −6 when wrong, by the level given; the grade is the average's "
    "share of 3 (none at or below 0), with the share right shown beside it."
)

# The levels' values as the radio group `confidence` sends them (contract), and their words.
LEVELS = (1, 2, 3)
NOT_SURE, FAIRLY_SURE, VERY_SURE = LEVELS
LEVEL_NAMES = {
    NOT_SURE: pgettext_lazy("confidence", "Not sure"),
    FAIRLY_SURE: pgettext_lazy("confidence", "Fairly sure"),
    VERY_SURE: pgettext_lazy("confidence", "Very sure"),
}

RIGHT_MARK = {NOT_SURE: Decimal(1), FAIRLY_SURE: Decimal(2), VERY_SURE: Decimal(3)}
WRONG_MARK = {NOT_SURE: Decimal(0), FAIRLY_SURE: Decimal(-2), VERY_SURE: Decimal(-6)}
BEST_MARK = Decimal(3)

ASK_CONFIDENCE = _("Say how sure you are before submitting.")


def asks(mode: str) -> bool:
    """Whether a quiz (or an attempt started under it) asks for a level with each answer."""
    return mode in (ASK, MARKING)


def cbm_mark(fraction: Decimal, level: int) -> Decimal:
    """One question's CBM mark: wrong (no share of the mark) at its level's penalty, else the
    level's right mark times the share earned."""
    if fraction <= 0:
        return WRONG_MARK[level]
    return RIGHT_MARK[level] * fraction


def cbm_sum(answers: Iterable[tuple[Decimal, int | None]]) -> Decimal:
    """The CBM marks of (fraction, level) answers added up; an answer without a level (given
    before the quiz asked) counts as "Not sure", the level that costs nothing."""
    return sum((cbm_mark(fraction, level or NOT_SURE) for fraction, level in answers), Decimal(0))


def cbm_grade(cbm: Decimal | None, total: int) -> Decimal:
    """The share of the quiz's marks a CBM sum out of `total` questions earns: max(0,
    average) / 3 (see the module's docstring)."""
    if not total or cbm is None:
        return Decimal(0)
    return max(Decimal(0), cbm / total) / BEST_MARK


def grade_marks(score: Decimal, cbm: Decimal | None, total: int) -> Decimal:
    """The marks out of `total` an attempt's grade is: the CBM grade's share of them where it
    was marked by certainty (`cbm` given), else the plain score (4 decimal places)."""
    if cbm is None:
        return score
    return (cbm_grade(cbm, total) * total).quantize(Decimal("0.0001"))


@dataclass(frozen=True, slots=True)
class LevelCount:
    level: int
    answers: int
    right: int

    @property
    def name(self):
        return LEVEL_NAMES[self.level]

    @property
    def percent_right(self) -> int | None:
        return round(100 * self.right / self.answers) if self.answers else None


@dataclass(frozen=True, slots=True)
class Summary:
    """How an attempt's (or a learner's) levels went: per level the answers and how many were
    right; with marking, the CBM average."""

    levels: tuple[LevelCount, ...]
    cbm_average: Decimal | None

    @property
    def answered(self) -> int:
        return sum(level.answers for level in self.levels)


def summary(
    answers: Iterable[tuple[bool, int | None]], *, cbm: Decimal | None = None, total: int = 0
) -> Summary:
    """Per level, of (right, level) answers, how many and how many right; the CBM average of
    `cbm` out of `total` questions when given."""
    counts = {level: [0, 0] for level in LEVELS}
    for right, level in answers:
        if level in counts:
            counts[level][0] += 1
            counts[level][1] += bool(right)
    average = None
    if cbm is not None and total:
        average = (cbm / total).quantize(Decimal("0.01"))
    return Summary(
        levels=tuple(LevelCount(level, *counts[level]) for level in LEVELS),
        cbm_average=average,
    )
