"""The rules of an attempt, each once, in the order a learner meets them:

- **Start**: `Availability.refusal` (not open yet, closed, every attempt used) and
  `Availability.deadline_from` (the time limit, capped by the closing time).
- **Deadline**: `past_deadline` (the deadline and `DEADLINE_GRACE`, the network's grace).
- **Which step is open**: `current_question`, `is_open`, `open_step`.
- **Feedback**: `shows_feedback` (when correctness may reach the learner).
- **Confidence**: `level_asked` (each answer says how sure), `marks_by_certainty`.
- **Exam mode**: `saves_until_submitted` (a pick saved, changeable until "Submit all"),
  `moves_cards_per_answer` (review cards move at the end, not per answer).
- **Finishing**: `is_complete` (the last answer finishes the attempt), `must_finish` (an
  attempt that can take no more answers is finished when it is next read).

Plain functions over plain data (an attempt's row or model, its state): no database, no
request. `services.py` applies them and `writes.py` records what they decide. Nothing here
imports a model, so that the models can use these rules too (`Attempt.shows_feedback`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol

from django.urls import reverse
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from .. import confidence

if TYPE_CHECKING:
    from ..content import QuestionData, QuizData
    from ..models import Attempt, Quiz
    from .state import AttemptState

# The feedback modes (Quiz.Feedback's values): after each answer, or at the end (exam mode).
IMMEDIATE, DEFERRED = "immediate", "deferred"

# Answers may arrive this late after an attempt's deadline: the time a submit takes to cross
# the network. Documented in the README.
DEADLINE_GRACE = timedelta(seconds=10)


class AttemptError(Exception):
    """What the learner asked for, refused by the rules (a start, an answer); `message` is
    for the learner, nothing was written."""

    def __init__(self, message: str | Promise) -> None:
        super().__init__(message)
        self.message = message


# --- Start ---------------------------------------------------------------------------------


@dataclass
class Availability:
    """A quiz's start rules for one learner now (`services.quiz_availability` reads them)."""

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


# --- Deadline ------------------------------------------------------------------------------


def past_deadline(deadline: datetime | None, now: datetime) -> bool:
    """Whether an attempt with this deadline is past it and its grace at `now`: it takes no
    answer, and is finished as soon as something reads it (`AttemptQuerySet.running` says it
    in SQL)."""
    return deadline is not None and now > deadline + DEADLINE_GRACE


# --- Feedback ------------------------------------------------------------------------------


def shows_feedback(*, feedback: str, finished: bool) -> bool:
    """Whether an attempt's verdicts, marks, right answers and score may reach its learner:
    after each answer in practice mode, only once the attempt is finished in exam mode."""
    return feedback != DEFERRED or finished


class _AttemptColumns(Protocol):
    """The columns `AttemptFacts` reads, read-only (a frozen row's or a model's)."""

    @property
    def pk(self) -> int: ...
    @property
    def feedback(self) -> str: ...
    @property
    def finished_at(self) -> datetime | None: ...
    @property
    def deadline(self) -> datetime | None: ...
    @property
    def score(self) -> Decimal: ...
    @property
    def total(self) -> int: ...
    @property
    def cbm_score(self) -> Decimal | None: ...
    @property
    def regraded_at(self) -> datetime | None: ...
    @property
    def score_before_regrade(self) -> Decimal | None: ...


class AttemptFacts:
    """What an attempt's own columns say under the rules: the model (`Attempt`) and the read
    model (`state.AttemptRow`) alike."""

    __slots__ = ()

    @property
    def is_finished(self: _AttemptColumns) -> bool:
        return self.finished_at is not None

    @property
    def is_deferred(self: _AttemptColumns) -> bool:
        """Exam mode: feedback at the end."""
        return self.feedback == DEFERRED

    @property
    def shows_feedback(self: _AttemptColumns) -> bool:
        return shows_feedback(feedback=self.feedback, finished=self.finished_at is not None)

    def is_overdue(self: _AttemptColumns, now: datetime) -> bool:
        """Past the deadline and its grace: no answer is taken any more."""
        return past_deadline(self.deadline, now)

    @property
    def shows_regrade(self: _AttemptColumns) -> bool:
        """Whether a regrade changed its score: "Regraded on DATE: 3 → 4"."""
        return (
            self.regraded_at is not None
            and self.score_before_regrade is not None
            and self.score_before_regrade != self.score
        )

    @property
    def percent(self: _AttemptColumns) -> int:
        return round(100 * self.score / self.total) if self.total else 0

    @property
    def cbm_percent(self: _AttemptColumns) -> int | None:
        """Marked by certainty: the grade's share of the marks (quizzes/confidence.py's
        mapping of the CBM average); None for an attempt not marked so."""
        if self.cbm_score is None:
            return None
        return round(100 * confidence.cbm_grade(self.cbm_score, self.total))

    @property
    def grade_percent(self: _AttemptColumns) -> int:
        """The grade as a percentage: the CBM grade's where the attempt was marked by
        certainty, else the share right (`percent`)."""
        if self.cbm_score is None:
            return round(100 * self.score / self.total) if self.total else 0
        return round(100 * confidence.cbm_grade(self.cbm_score, self.total))

    @property
    def grade_fraction(self: _AttemptColumns) -> Decimal:
        """The share of the quiz's marks the attempt earned, as grades, reports and the LMS
        take it: the CBM grade where it was marked by certainty, else the score's share."""
        if not self.total:
            return Decimal(0)
        if self.cbm_score is not None:
            return confidence.cbm_grade(self.cbm_score, self.total)
        return self.score / self.total

    @property
    def grade_score(self: _AttemptColumns) -> Decimal:
        """`grade_fraction` as marks out of `total` (4 decimal places, as scores are kept):
        the score itself where the attempt was not marked by certainty."""
        return confidence.grade_marks(self.score, self.cbm_score, self.total)

    def get_absolute_url(self: _AttemptColumns) -> str:
        return reverse("quizzes:attempt", args=[self.pk])


# --- Which step is open --------------------------------------------------------------------


def current_question(state: AttemptState) -> QuestionData | None:
    """The step to answer now: the first question in the attempt's order that has no answer
    yet; None when all have."""
    return next((q for q in state.questions if q.pk not in state.answers), None)


def is_open(state: AttemptState, question: QuestionData) -> bool:
    """Whether the learner may see this step: answered already, or one to answer now.

    With feedback after each question, questions open in order, so a later one is not
    reachable before the current one; with feedback at the end, every question of an
    unfinished attempt is open, in any order.
    """
    if question.pk in state.answers:
        return True
    if state.attempt.is_finished:
        return False
    if state.attempt.is_deferred:
        return state.question(question.pk) is not None
    current = current_question(state)
    return current is not None and current.pk == question.pk


def open_step(state: AttemptState, number: int) -> QuestionData | None:
    """The question the learner may see at step `number`, or None (send them on)."""
    question = state.at(number)
    if question is None or not is_open(state, question):
        return None
    return question


# --- Exam mode -----------------------------------------------------------------------------


def level_asked(state: AttemptState) -> bool:
    """Whether each answer must say how sure the learner is (the quiz asked at the start:
    quizzes/confidence.py); where it does not, a level sent is not recorded."""
    return state.attempt.confidence in (confidence.ASK, confidence.MARKING)


def marks_by_certainty(state: AttemptState) -> bool:
    """Certainty-based marking: the attempt's CBM sum is kept beside its score."""
    return state.attempt.confidence == confidence.MARKING


def saves_until_submitted(state: AttemptState) -> bool:
    """Exam mode, still running: an answer is saved, and can be changed until the learner
    submits them all (or the deadline passes)."""
    return state.attempt.is_deferred and not state.attempt.is_finished


def moves_cards_per_answer(state: AttemptState) -> bool:
    """Whether each answer moves its review card as it is recorded. Exam mode moves none while
    the attempt runs (the review page would tell which answers were wrong): all of them when
    it finishes."""
    return not state.attempt.is_deferred


# --- Finishing -----------------------------------------------------------------------------


def is_complete(state: AttemptState) -> bool:
    """Every question of the attempt is answered (and it has some)."""
    return bool(state.count) and current_question(state) is None


def must_finish(state: AttemptState, now: datetime) -> bool:
    """Whether an attempt in progress can take no more answers, to be finished when it is
    read: past its deadline (scored on what was saved in time), or, with feedback after each
    question, every question answered (an instructor deleted those the learner had not
    answered yet; answering the last one finishes it otherwise)."""
    if state.attempt.is_finished:
        return False
    if state.attempt.is_overdue(now):
        return True
    return not state.attempt.is_deferred and is_complete(state)
