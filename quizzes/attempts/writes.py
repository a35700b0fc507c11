"""What the rules of an attempt decide, written (`services.py` calls these, nothing else):
an answer's row with the review card it moves, an exam's saves under the attempt's lock, and
finishing an attempt with its score (an exam's review cards then).
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import Profile

from .. import grading
from ..confidence import cbm_sum
from ..content import QuestionData
from ..grading import Key, Response, recorded_response, regrade_fields
from ..models import Answer, Attempt
from ..review.scheduler import card_of, card_record_quiz_answer, cards_record_answers
from ..signals import attempt_finished
from . import rules
from .responses import RecordedAnswer
from .rules import AttemptError
from .state import AttemptRow, AttemptState, CardRead, attempt_state, finished, state_of


def grade(question: QuestionData, response: Response) -> dict[str, Any]:
    """The Answer's fields for `response` (quizzes.grading); AttemptError, writing nothing,
    when it does not fit the question."""
    try:
        return grading.grade_response(question, response)
    except grading.Unanswerable as refusal:
        raise AttemptError(refusal.message) from None


def review_asks_once_used(user_id: int, level: int | None) -> None:
    """A learner who gave a level with a quiz answer is asked in review too, unless they chose
    otherwise (`Profile.review_confidence`): recorded once, so that review reads one field."""
    if level is not None:
        Profile.objects.filter(user_id=user_id, review_confidence__isnull=True).update(
            review_confidence=True
        )


def record(
    state: AttemptState,
    question: QuestionData,
    response: Response,
    *,
    level: int | None = None,
    card: CardRead | None = None,
) -> tuple[RecordedAnswer, bool, AttemptState]:
    """Feedback after each question: write the answer to `question` (open and unanswered in
    `state`), move the learner's review card for it, and finish the attempt after the last
    answer, in one transaction. Returns the answer that stands, whether this call wrote it,
    and the state with it. `card`: the learner's card as the step's read found it (None: not
    read, the posted form named no question; it is read here).

    No lock: the one-answer-per-question constraint settles races. Answers are only ever
    added, in order, so a state read a moment ago can lack at most an answer to the current
    question, and recording that question again then violates the constraint: the first
    answer to commit stands, and only the request that records the last answer finishes.
    """
    attempt = state.attempt
    fields = {**grade(question, response), "confidence": level}
    try:
        with transaction.atomic():
            row = Answer.objects.create(attempt_id=attempt.pk, question_id=question.pk, **fields)
            review_asks_once_used(attempt.user_id, level)
            if rules.moves_cards_per_answer(state):
                if card is None or card.question_id != question.pk:
                    card = CardRead(question.pk, card_of(attempt.user_id, question.pk))
                card_record_quiz_answer(
                    card.card,
                    user_id=attempt.user_id,
                    question_id=question.pk,
                    is_correct=row.is_correct,
                    at=row.answered_at,
                    level=level,
                )
            answer = RecordedAnswer.of(row, question)
            state.answers[question.pk] = answer
            if rules.is_complete(state):
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
    state: AttemptState,
    question: QuestionData,
    response: Response,
    *,
    level: int | None = None,
    now: datetime | None = None,
) -> RecordedAnswer:
    """Exam mode: save the learner's response to `question` (as sure as `level`), or change
    the one saved, under the attempt's lock (`locked_state`): refused once the attempt is
    finished."""
    fields = {**grade(question, response), "confidence": level}
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
            review_asks_once_used(state.attempt.user_id, level)
            recorded = RecordedAnswer.of(row, question)
        elif (
            not response.same_as(recorded) or recorded.confidence != level
        ) and recorded.pk is not None:
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
        state.answers = remarked(locked.answers)
        finish(state, now=now)
    return True


def remarked(answers: dict[int, RecordedAnswer]) -> dict[int, RecordedAnswer]:
    """An exam's saved answers marked again under their questions' keys as they stand now
    (the content the finishing request read), written where the mark or the key changed since
    they were saved: a key fixed while the exam ran counts for everyone who finishes after."""
    now_marked = dict(answers)
    rows = []
    for question_id, answer in answers.items():
        question = answer.question
        fields = regrade_fields(question, recorded_response(question, answer))
        if fields is None or answer.pk is None:
            continue
        key = Key.read(question.kind, fields["key"])
        if (fields["fraction"], key, fields["correct_choice_id"]) == (
            answer.fraction,
            answer.key,
            answer.correct_choice_id,
        ):
            continue
        rows.append(Answer(pk=answer.pk, **fields))
        now_marked[question_id] = dataclasses.replace(
            answer,
            fraction=fields["fraction"],
            is_correct=fields["is_correct"],
            key=key,
            correct_choice_id=fields["correct_choice_id"],
        )
    if rows:
        Answer.objects.bulk_update(rows, ["fraction", "is_correct", "key", "correct_choice_id"])
    return now_marked


def finish(state: AttemptState, *, now: datetime | None = None) -> None:
    """Finish the attempt, scored on its answers in `state` out of its questions; an exam's
    review cards move now, by all its answers (`rules.moves_cards_per_answer`)."""
    attempt = state.attempt
    now = now or timezone.now()
    # An attempt closed after its deadline ended at the deadline, not when it was noticed.
    at = min(now, attempt.deadline) if attempt.deadline else now
    score, total = state.score, state.count
    cbm = None
    if rules.marks_by_certainty(state):
        cbm = cbm_sum((answer.fraction, answer.confidence) for answer in state.answers.values())
    Attempt.objects.filter(pk=attempt.pk).update(
        finished_at=at, score=score, total=total, cbm_score=cbm
    )
    state.attempt = finished(state, at=at, score=score, total=total, cbm_score=cbm).attempt
    attempt_finished.send(sender=Attempt, attempt=state.attempt)
    if not rules.moves_cards_per_answer(state):
        cards_record_answers(
            user_id=attempt.user_id,
            answers=[
                (answer.question_id, answer.is_correct, answer.answered_at, answer.confidence)
                for answer in state.answers.values()
                if answer.answered_at is not None
            ],
        )
