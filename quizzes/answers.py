"""Recording what the rules of an attempt decided (quizzes/attempts.py): an answer's row, the
review card a miss moves, an exam's saves under the attempt's lock, and finishing an attempt
with its score. Only the rules call these.
"""

from __future__ import annotations

import contextlib
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from . import grading
from .attempt_read import AttemptRow, AttemptState, Cards, attempt_state, finished, state_of
from .content import QuestionData
from .grading import Response
from .models import Answer, Attempt, ReviewCard
from .responses import RecordedAnswer
from .review import (
    CARD_NOT_READ,
    _NotRead,
    card_record_quiz_answer,
    card_record_writes,
    cards_record_answers,
)
from .signals import attempt_finished


class AttemptError(Exception):
    """An answer the rules refuse; `message` is for the learner, nothing was written."""

    def __init__(self, message: str | Promise) -> None:
        super().__init__(message)
        self.message = message


def grade(question: QuestionData, response: Response) -> dict[str, Any]:
    """The Answer's fields for `response` (quizzes.grading); AttemptError, writing nothing,
    when it does not fit the question."""
    try:
        return grading.grade_response(question, response)
    except grading.Unanswerable as refusal:
        raise AttemptError(refusal.message) from None


def record(
    state: AttemptState,
    question: QuestionData,
    response: Response,
    *,
    cards: Cards | None = None,
) -> tuple[RecordedAnswer, bool, AttemptState]:
    """Write the answer to `question` (open and unanswered in `state`) and finish the attempt
    after the last one. Returns the answer that stands, whether this call wrote it, and the
    state with it. `cards`: what the step's read said of the learner's review cards (None:
    not read, as for scripts).

    No lock: the one-answer-per-question constraint settles races. Answers are only ever
    added, in order, so a state read a moment ago can lack at most an answer to the current
    question, and recording that question again then violates the constraint: the first
    answer to commit stands, and only the request that records the last answer finishes.
    """
    attempt = state.attempt
    fields = grade(question, response)
    quiz_has_cards = cards.quiz_has_cards if cards is not None else True
    card: ReviewCard | None | _NotRead = CARD_NOT_READ
    if cards is not None and cards.question_id == question.pk:
        card = cards.card
    # The answer's row alone (a right answer with no card to move, not the last): its INSERT
    # is atomic by itself, and a transaction would add two round trips (BEGIN, COMMIT).
    alone = (
        not state.is_completed_by(question)
        and (
            attempt.is_deferred
            or not card_record_writes(
                is_correct=fields["is_correct"], quiz_has_cards=quiz_has_cards, card=card
            )
        )
        # Inside a caller's transaction, a savepoint keeps a refused INSERT from ending it.
        and transaction.get_autocommit()
    )
    try:
        with contextlib.nullcontext() if alone else transaction.atomic():
            row = Answer.objects.create(attempt_id=attempt.pk, question_id=question.pk, **fields)
            if not attempt.is_deferred:
                card_record_quiz_answer(
                    user_id=attempt.user_id,
                    question_id=question.pk,
                    is_correct=row.is_correct,
                    at=row.answered_at,
                    quiz_has_cards=quiz_has_cards,
                    card=card,
                )
            answer = RecordedAnswer.of(row, question)
            state.answers[question.pk] = answer
            if state.is_complete:
                finish(state)
    except IntegrityError:
        # A concurrent request (a double click, a second tab) answered it first.
        state.answers.pop(question.pk, None)
        state = attempt_state(Attempt.objects.get(pk=attempt.pk))
        recorded = state.answer_for(question)
        if recorded is None:
            raise
        return recorded, False, state
    return answer, True, state


def locked_state(state: AttemptState) -> AttemptState | None:
    """The attempt of `state` with its answers as they are now, its row locked until the
    transaction ends; None if it is finished (by another tab, or its deadline).

    "Submit all", the deadline and exam-mode saves take this lock, so that a save and a submit
    sent from two tabs happen one after the other: the score counts every answer saved before
    the submit, and nothing is saved after it. (SQLite has no row locks: its transactions take
    the database's write lock when they begin (config/settings.py), which orders them alike.)
    """
    unfinished = Attempt.objects.select_for_update().filter(pk=state.attempt.pk, finished_at=None)
    if unfinished.values_list("pk", flat=True).first() is None:
        return None
    answers = Answer.objects.filter(attempt_id=state.attempt.pk).order_by()
    return state_of(state.attempt, state.content, answers)


def save(
    state: AttemptState, question: QuestionData, response: Response, *, now: datetime | None = None
) -> RecordedAnswer:
    """Exam mode: save the learner's response to `question`, or change the one saved, under
    the attempt's lock (`locked_state`): refused once the attempt is finished."""
    fields = grade(question, response)
    with transaction.atomic():
        locked = locked_state(state)
        if locked is None:
            raise AttemptError(_("This attempt is finished; it accepts no more answers."))
        # As saved now: another tab may have saved one since this state was read.
        recorded = locked.answer_for(question)
        if recorded is None:
            row = Answer.objects.create(
                attempt_id=state.attempt.pk, question_id=question.pk, **fields
            )
            recorded = RecordedAnswer.of(row, question)
        elif not response.same_as(recorded) and recorded.pk is not None:
            at = now or timezone.now()
            Answer.objects.filter(pk=recorded.pk).update(answered_at=at, **fields)
            recorded = RecordedAnswer.graded(
                {**fields, "answered_at": at}, question, pk=recorded.pk
            )
    state.answers = {**locked.answers, question.pk: recorded}
    return recorded


def finish_exam(state: AttemptState, *, now: datetime | None = None) -> bool:
    """Finish an exam attempt on its answers as saved now, under the attempt's lock
    (`locked_state`). False if it was finished meanwhile."""
    with transaction.atomic():
        locked = locked_state(state)
        if locked is None:
            row = Attempt.objects.get(pk=state.attempt.pk)
            state.attempt = AttemptRow.of(row)
            return False
        state.answers = locked.answers
        finish(state, now=now)
    return True


def finish(state: AttemptState, *, now: datetime | None = None) -> None:
    attempt = state.attempt
    now = now or timezone.now()
    # An attempt closed after its deadline ended at the deadline, not when it was noticed.
    at = min(now, attempt.deadline) if attempt.deadline else now
    score, total = state.score, state.count
    Attempt.objects.filter(pk=attempt.pk).update(finished_at=at, score=score, total=total)
    state.attempt = finished(state, at=at, score=score, total=total).attempt
    attempt_finished.send(sender=Attempt, attempt=state.attempt)
    if attempt.is_deferred:
        # Exam mode moved no review card while the attempt ran (the review page would have
        # told which answers were wrong): all of them now.
        cards_record_answers(
            user_id=attempt.user_id,
            answers=[
                (answer.question_id, answer.is_correct, answer.answered_at)
                for answer in state.answers.values()
                if answer.answered_at is not None
            ],
        )
