"""The rules of an attempt: start or resume, answer the current question once, finish, score.

Views (htmx and plain forms alike) call these and render what they return; nothing else
writes attempts or answers. Reading an attempt (`attempt_state`) never writes; the one place
that may finish an attempt on reading is `attempt_settle`, which views call explicitly.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import logging
import random
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction
from django.db.models import F, Max, Model, QuerySet
from django.tasks import task
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from . import grading
from .availability import DEADLINE_GRACE, quiz_availability
from .content import QuizContent, quiz_content, quiz_content_of
from .grading import Response
from .models import Answer, Attempt, Choice, ChoiceVerdict, Question, Quiz, past_deadline
from .review import (
    CARD_NOT_READ,
    card_columns,
    card_in_row,
    card_of_question,
    card_record_quiz_answer,
    card_record_writes,
    cards_of_quiz_exist,
    cards_record_answers,
)
from .signals import attempt_finished

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class AttemptError(Exception):
    """An answer the rules refuse; `message` is for the learner, nothing was written."""

    def __init__(self, message: str | Promise) -> None:
        super().__init__(message)
        self.message = message


@dataclass
class AttemptState:
    """An attempt with its quiz content and its answers so far, keyed by question id."""

    attempt: Attempt
    content: QuizContent
    answers: dict[int, Answer]

    @functools.cached_property
    def questions(self) -> list[Question]:
        """The attempt's questions in its order: those it drew at its start that the quiz
        still has, or, for an attempt that drew none, every question the quiz has now."""
        order = self.attempt.question_order
        if not order:
            return self.content.questions
        drawn = (self.content.question(pk) for pk in order)
        return [question for question in drawn if question is not None]

    @functools.cached_property
    def _numbers(self) -> dict[int, int]:
        return {question.pk: number for number, question in enumerate(self.questions, start=1)}

    @property
    def count(self) -> int:
        """How many questions the attempt has: what it is scored out of."""
        return len(self.questions)

    def at(self, number: int) -> Question | None:
        """The attempt's question at 1-based `number`, or None."""
        if 1 <= number <= len(self.questions):
            return self.questions[number - 1]
        return None

    def question(self, question_id: int) -> Question | None:
        """The question with this id if it is one of the attempt's (drawn, still there)."""
        if question_id in self._numbers:
            return self.content.question(question_id)
        return None

    def number_of(self, question: Question) -> int:
        return self._numbers[question.pk]

    @property
    def answered_count(self) -> int:
        return sum(1 for question in self.questions if question.pk in self.answers)

    @property
    def current_question(self) -> Question | None:
        """The first question in the attempt's order that has no answer yet; None when all
        have."""
        for question in self.questions:
            if question.pk not in self.answers:
                return question
        return None

    @property
    def current_number(self) -> int:
        """1-based number of the step the learner is on (the last one once all are answered)."""
        current = self.current_question
        if current is None:
            return self.count
        return self.number_of(current)

    @property
    def score(self) -> Decimal:
        return sum((answer.fraction for answer in self.answers.values()), Decimal(0))

    @property
    def is_complete(self) -> bool:
        """Every question of the attempt is answered (and it has some)."""
        return bool(self.count) and self.current_question is None

    def is_completed_by(self, question: Question) -> bool:
        """Whether an answer to `question` would make the attempt complete (`is_complete`)."""
        return bool(self.count) and all(
            known.pk in self.answers or known.pk == question.pk for known in self.questions
        )

    def answer_for(self, question: Question) -> Answer | None:
        return self.answers.get(question.pk)

    def is_open(self, question: Question) -> bool:
        """Whether the learner may see this step: answered already, or one to answer now.

        With feedback after each question, questions open in order, so a later one is not
        reachable before the current one; with feedback at the end, every question of an
        unfinished attempt is open, in any order.
        """
        if question.pk in self.answers:
            return True
        if self.attempt.is_finished:
            return False
        if self.attempt.is_deferred:
            return self.question(question.pk) is not None
        current = self.current_question
        return current is not None and current.pk == question.pk

    @property
    def shows_feedback(self) -> bool:
        """Whether verdicts, right answers and explanations may be shown (Attempt's rule)."""
        return self.attempt.shows_feedback

    def is_overdue(self, now: datetime) -> bool:
        """Past the deadline and its grace: no answer is taken any more."""
        return past_deadline(self.attempt.deadline, now)

    @property
    def unanswered(self) -> list[tuple[int, Question]]:
        """(number, question) of the questions not answered yet, in the attempt's order."""
        return [
            (number, question)
            for number, question in enumerate(self.questions, start=1)
            if question.pk not in self.answers
        ]

    def choices_of(self, question: Question) -> list[Choice]:
        """The question's choices in this attempt's own order (drawn at its start when the
        quiz shuffles them; choices added since come last, in the quiz's order)."""
        choices = list(question.choices.all())
        order = self.attempt.choice_order.get(str(question.pk))
        if not order:
            return choices
        rank = {choice_id: index for index, choice_id in enumerate(order)}
        return sorted(choices, key=lambda choice: rank.get(choice.pk, len(rank)))

    def step(self, number: int) -> Question | None:
        """The question the learner may see at step `number`, or None (send them on)."""
        question = self.at(number)
        if question is None or not self.is_open(question):
            return None
        return question

    def review(self) -> list[tuple[Question, Answer | None, list[ChoiceVerdict]]]:
        """Per question in the attempt's order: the answer (None if not answered, or added
        since) and every choice's verdict as the answer recorded it (not answered: as the key
        stands now), in this attempt's order of the choices."""
        rows = []
        for question in self.questions:
            answer = self.answers.get(question.pk)
            if answer is not None:
                verdicts = answer.choice_verdicts(self.choices_of(question))
            else:
                # Not answered: the right choices as the question's key stands now.
                verdicts = [
                    ChoiceVerdict(choice, False, choice.is_correct or choice.fraction > 0)
                    for choice in self.choices_of(question)
                ]
            rows.append((question, answer, verdicts))
        return rows


def _concrete_attnames(model: type[Model]) -> tuple[str, ...]:
    """The columns of `model`'s rows, in model order, as `Model.from_db` takes them."""
    return tuple(field.attname for field in model._meta.get_fields() if field.concrete)


_ATTEMPT_COLUMNS = _concrete_attnames(Attempt)
_ANSWER_COLUMNS = _concrete_attnames(Answer)
_ANSWER_LOOKUPS = tuple(f"answers__{name}" for name in _ANSWER_COLUMNS)


def _attempt_rows(
    *, answering: bool = False, card_question: int | None = None
) -> QuerySet[Attempt, dict[str, Any]]:
    """An attempt joined to its answers, a row per answer (one with empty answer columns
    when there is none yet), with its quiz's content version. `answering`: with whether the
    learner has review cards for the quiz; `card_question`: with their card for that
    question."""
    rows = Attempt.objects.order_by()
    lookups = [*_ATTEMPT_COLUMNS, *_ANSWER_LOOKUPS]
    columns: dict[str, Any] = {"content_version": F("quiz__updated_at")}
    if answering:
        columns["has_review_cards"] = cards_of_quiz_exist()
    if card_question is not None:
        rows = rows.annotate(posted_card=card_of_question(card_question))
        lookups += card_columns("posted_card")
    values: QuerySet[Attempt, dict[str, Any]] = rows.values(*lookups, **columns)
    return values


def attempt_with_answers(
    *, user: User, pk: int, answering: bool = False, question_id: int | None = None
) -> AttemptState | None:
    """The learner's own attempt `pk` as it stands, or None (another learner's attempts do
    not exist for them). Writes nothing.

    One statement: the attempt's row joined to its answers' rows, with its quiz's content
    version. The quiz, its guide and its questions come from the cached content of that
    version, so no quiz or guide row is read per step. `answering`: the step will record an
    answer, so the row also says whether the learner has review cards for this quiz (a right
    answer then costs no statement for a card), and with the posted question's id
    (`question_id`) it carries the learner's card for that question (none to read later).
    """
    posted = question_id if answering else None
    rows = list(
        _attempt_rows(answering=answering, card_question=posted).filter(pk=pk, user_id=user.pk)
    )
    if not rows:
        return None
    first = rows[0]
    attempt = Attempt.from_db(
        Attempt.objects.db, _ATTEMPT_COLUMNS, [first[name] for name in _ATTEMPT_COLUMNS]
    )
    if answering:
        # Read by _record, as QuerySet.annotate would set them.
        attempt.has_review_cards = first["has_review_cards"]  # type: ignore[attr-defined]
        if posted is not None:
            attempt.posted_card = (posted, card_in_row(first, "posted_card"))  # type: ignore[attr-defined]
    content = quiz_content_of(quiz_id=attempt.quiz_id, version=first["content_version"])
    attempt.quiz = content.quiz  # shared, read-only: see quiz_content_of
    return _state_of(attempt, content, _answers_of(attempt, rows))


def _answers_of(attempt: Attempt, rows: list[dict[str, Any]]) -> list[Answer]:
    """The answers in rows of `_attempt_rows`."""
    answers = []
    for row in rows:
        if row["answers__id"] is not None:
            answer = Answer.from_db(
                Answer.objects.db, _ANSWER_COLUMNS, [row[name] for name in _ANSWER_LOOKUPS]
            )
            answer.attempt = attempt
            answers.append(answer)
    return answers


def _locked(state: AttemptState) -> AttemptState | None:
    """The attempt of `state` with its answers as they are now, its row locked until the
    transaction ends; None if it is finished (by another tab, or its deadline). One statement.

    "Submit all", the deadline and exam-mode saves take this lock, so that a save and a submit
    sent from two tabs happen one after the other: the score counts every answer saved before
    the submit, and nothing is saved after it. (SQLite has no row locks: its transactions take
    the database's write lock when they begin (config/settings.py), which orders them alike.)
    """
    unfinished = _attempt_rows().select_for_update(of=("self",))
    rows = list(unfinished.filter(pk=state.attempt.pk, finished_at=None))
    if not rows:
        return None
    return _state_of(state.attempt, state.content, _answers_of(state.attempt, rows))


def attempt_state(attempt: Attempt) -> AttemptState:
    """Read the attempt's content and answers. Writes nothing."""
    # No ordering: the model's default would join the questions for nothing.
    return _state_of(attempt, quiz_content(attempt.quiz), attempt.answers.order_by())


def _state_of(attempt: Attempt, content: QuizContent, answers: Iterable[Answer]) -> AttemptState:
    by_question = {answer.question_id: answer for answer in answers}
    for answer in by_question.values():
        question = content.question(answer.question_id)
        if question is not None:
            answer.resolve(question)
    return AttemptState(attempt=attempt, content=content, answers=by_question)


def attempt_settle(*, state: AttemptState, now: datetime | None = None) -> bool:
    """Finish an attempt in progress that can take no more answers; True if it did.

    Answering the last question finishes an attempt; this covers the other ways to get there:
    an instructor deleted the questions the learner had not answered yet (with feedback after
    each question), or the deadline passed: the attempt is scored on what was saved in time.
    """
    if state.attempt.is_finished:
        return False
    overdue = state.is_overdue(now or timezone.now())
    if not overdue and (state.attempt.is_deferred or not state.is_complete):
        return False
    if state.attempt.is_deferred:
        return _finish_exam(state, now=now)
    _finish(state, now=now)
    return True


def attempt_submit_all(*, state: AttemptState) -> bool:
    """Finish an attempt with feedback at the end, on the learner's "Submit all and finish":
    scored on its saved answers, unanswered questions counting as wrong. True if it did (an
    attempt finished already, by a second tab or its deadline, stays as it was)."""
    if state.attempt.is_finished:
        return False
    return _finish_exam(state)


def attempts_close_overdue(
    *, now: datetime | None = None, user: User | None = None, pk: int | None = None
) -> int:
    """Finish every attempt in progress past its deadline (`close_overdue_attempts`, the
    worker's hourly task), or every one of `user`'s (their history, before it shows them), or
    the one `pk` (its own task, at its deadline); returns how many. Each is scored on what
    was saved in time."""
    now = now or timezone.now()
    closed = 0
    overdue = Attempt.objects.in_progress().filter(deadline__lt=now - DEADLINE_GRACE)
    if user is not None:
        overdue = overdue.filter(user=user)
    if pk is not None:
        overdue = overdue.filter(pk=pk)
    for attempt in overdue.select_related("quiz").iterator():
        with transaction.atomic():
            locked = Attempt.objects.select_for_update().get(pk=attempt.pk)
            if locked.is_finished:
                continue  # finished meanwhile by the learner's own request
            locked.quiz = attempt.quiz
            closed += attempt_settle(state=attempt_state(locked), now=now)
    return closed


def attempt_start(*, user: User, quiz: Quiz, now: datetime | None = None) -> Attempt:
    """Return the learner's attempt in progress on `quiz`, or start one.

    A new attempt follows the quiz's settings and the learner's override: refused (AttemptError)
    before the quiz opens, after it closes or once the attempts allowed are used; its
    deadline, feedback mode and order of choices are fixed now, so a change of the settings
    applies from the next start. Safe against a double click or two tabs: the database allows
    one attempt in progress per learner and quiz, and the loser of a race gets the winner's.
    """
    now = now or timezone.now()
    availability = quiz_availability(quiz=quiz, user=user, now=now)
    existing = availability.in_progress
    if existing is not None:
        existing.quiz = quiz  # the caller's instance: not loaded again
        return existing
    refusal = availability.refusal
    if refusal is not None:
        raise AttemptError(refusal)
    shuffler = random.SystemRandom()
    questions = _draw(user=user, quiz=quiz, shuffler=shuffler)
    order: dict[str, list[int]] = {}
    if quiz.shuffle_choices:
        for question in questions:
            ids = [choice.pk for choice in question.choices.all()]
            shuffler.shuffle(ids)
            order[str(question.pk)] = ids
    drew = quiz.questions_per_attempt is not None or quiz.shuffle_questions
    try:
        with transaction.atomic():
            attempt = Attempt.objects.create(
                user=user,
                quiz=quiz,
                started_at=now,
                feedback=quiz.feedback,
                deadline=availability.deadline_from(now),
                choice_order=order,
                question_order=[question.pk for question in questions] if drew else [],
            )
            if attempt.deadline is not None:
                transaction.on_commit(lambda: _close_at_deadline(attempt))
            return attempt
    except IntegrityError:
        return Attempt.objects.in_progress().get(user=user, quiz=quiz)


@task
def attempt_close(*, attempt_id: int) -> int:
    """The worker finishes a timed attempt at its deadline (and grace) if it is still open;
    nothing if the learner finished it, or it was closed already (1 if it closed it)."""
    return attempts_close_overdue(pk=attempt_id)


def _close_at_deadline(attempt: Attempt) -> None:
    """Queue `attempt_close` for just past the attempt's deadline and grace, when the task
    backend can run a task later (the database one can; the in-process one of tests cannot:
    there `close_overdue_attempts`, the hourly task and the learner's own requests close it).
    A queue that cannot take it loses nothing else: those still close the attempt."""
    if attempt.deadline is None or not attempt_close.get_backend().supports_defer:
        return
    try:
        attempt_close.using(
            run_after=attempt.deadline + DEADLINE_GRACE + timedelta(seconds=1)
        ).enqueue(attempt_id=attempt.pk)
    except Exception:
        logger.warning("Could not queue the closing of attempt %s", attempt.pk, exc_info=True)


def _draw(*, user: User, quiz: Quiz, shuffler: random.Random) -> list[Question]:
    """The questions a new attempt of `user` takes, in its order: every question, or
    `quiz.questions_per_attempt` of them, those the learner never answered in this quiz first,
    then those answered longest ago (ties drawn at random); in the quiz's order, or shuffled
    with `quiz.shuffle_questions`."""
    questions = list(quiz_content(quiz).questions)
    size = quiz.questions_per_attempt
    if size is not None and size < len(questions):
        last_seen = dict(
            Answer.objects.filter(attempt__user=user, attempt__quiz=quiz)
            .order_by()
            .values_list("question_id")
            .annotate(last=Max("answered_at"))
        )
        shuffler.shuffle(questions)  # the ties' order
        never = [q for q in questions if q.pk not in last_seen]
        seen = sorted((q for q in questions if q.pk in last_seen), key=lambda q: last_seen[q.pk])
        chosen = {q.pk for q in (never + seen)[:size]}
        questions = [q for q in quiz_content(quiz).questions if q.pk in chosen]
    if quiz.shuffle_questions:
        shuffler.shuffle(questions)
    return questions


class Step(enum.Enum):
    """What became of a posted step; the view maps each to a response."""

    # The answer was recorded now: show its feedback.
    ANSWERED = "answered"
    # The question had been answered already with this pick (a double click, a replay).
    REPEATED = "repeated"
    # Answered already with another pick (a second tab, the back button): the first counts.
    ANSWERED_BEFORE = "answered-before"
    # Not the learner's to answer now (a later step, a finished attempt): show where it stands.
    NOT_OPEN = "not-open"
    # The quiz changed under the learner and the question they saw is gone or not theirs.
    QUIZ_CHANGED = "quiz-changed"
    # Refused by the rules, nothing written: `message` says why.
    REFUSED = "refused"
    # Exam mode: the pick is saved (or changed), nothing said about correctness.
    SAVED = "saved"
    # Past the deadline: nothing written, and the attempt is finished with what was saved.
    TIME_UP = "time-up"


@dataclass
class StepOutcome:
    step: Step
    # The attempt as it stands after the step, to render without reading it again.
    state: AttemptState
    # The step number to show (the question's number now), when there is one.
    number: int | None = None
    answer: Answer | None = None
    message: str | Promise = ""


def step_submit(
    *,
    state: AttemptState,
    number: int,
    question_id: int | None,
    response: Response | None = None,
    choice_id: int | None = None,
    now: datetime | None = None,
) -> StepOutcome:
    """Take a posted step: the learner, on step `number`, sent `response` (or picked
    `choice_id`) for the question with id `question_id` (the one they saw; None from an older
    page: step `number`'s).

    Steps are numbered by position, and an instructor's edit can renumber them while a
    learner reads: the answer goes to the question the learner saw, wherever it is now, as
    long as it is still theirs to answer. Each question is answered once: a replay returns
    the recorded answer unchanged. Writes at most one answer, and finishes the attempt with
    the last one.

    In exam mode (feedback at the end) a pick is saved and can be changed until the learner
    submits them all; the attempt is finished by `attempt_submit_all`. After the deadline
    (and its grace) nothing is written and the attempt is finished with what was saved.
    """
    now = now or timezone.now()
    if not state.attempt.is_finished and state.is_overdue(now):
        attempt_settle(state=state, now=now)
        return StepOutcome(
            Step.TIME_UP,
            state,
            message=_("Time is up: this answer came after the deadline and was not saved."),
        )
    question = state.at(number)
    if question_id is not None and (question is None or question.pk != question_id):
        # Renumbered since the page was shown: the question seen, if it is still theirs.
        question = state.question(question_id)
        if question is None or not state.is_open(question):
            return StepOutcome(
                Step.QUIZ_CHANGED,
                state,
                message=_("This quiz changed while you were answering; here is where you are."),
            )
    if question is None or not state.is_open(question):
        return StepOutcome(Step.NOT_OPEN, state)
    number = state.number_of(question)
    response = Response.of(response, choice_id)
    recorded = state.answer_for(question)
    if state.attempt.is_deferred and not state.attempt.is_finished:
        try:
            recorded = _save(state, question, response)
        except AttemptError as error:
            return StepOutcome(Step.REFUSED, state, number, message=error.message)
        return StepOutcome(Step.SAVED, state, number, recorded)
    created = False
    if recorded is None:
        try:
            recorded, created, state = _record(state, question, response)
        except AttemptError as error:
            return StepOutcome(Step.REFUSED, state, number, message=error.message)
    if created:
        return StepOutcome(Step.ANSWERED, state, number, recorded)
    if response.same_as(recorded):
        return StepOutcome(Step.REPEATED, state, number, recorded)
    if state.attempt.is_deferred:  # a finished exam: its last saved answer counts
        message = _("This attempt is finished; it accepts no more answers.")
    else:
        message = _("You had already answered this question; your first answer counts.")
    return StepOutcome(Step.ANSWERED_BEFORE, state, number, recorded, message=message)


@dataclass
class AnswerOutcome:
    answer: Answer
    # False when the question had been answered before: the recorded answer stands.
    created: bool
    state: AttemptState


def answer_record(
    *,
    attempt: Attempt,
    question: Question,
    response: Response | None = None,
    choice_id: int | None = None,
) -> AnswerOutcome:
    """Record the learner's choice for `question`, once, and finish the attempt after the last.

    For code outside a request (tests, scripts): the same rules as `step_submit`, by question
    rather than by step. A question answered before returns its recorded answer unchanged.
    Raises AttemptError, writing nothing, for a finished attempt, a question that is not the
    current one, or a choice that is not one of its choices.
    """
    # The caller's quiz may predate an edit: read the content version as it is now.
    attempt.quiz.refresh_from_db(fields=["updated_at"])
    state = attempt_state(attempt)
    recorded = state.answer_for(question)
    if recorded is not None:
        return AnswerOutcome(answer=recorded, created=False, state=state)
    question = state.question(question.pk) or question  # its choices are cached
    if state.is_overdue(timezone.now()):
        attempt_settle(state=state)
    if not state.is_open(question):
        if attempt.is_finished:
            raise AttemptError(_("This attempt is finished; it accepts no more answers."))
        raise AttemptError(_("Answer the questions in order: this one is not next yet."))
    response = Response.of(response, choice_id)
    if attempt.is_deferred:
        return AnswerOutcome(answer=_save(state, question, response), created=True, state=state)
    answer, created, state = _record(state, question, response)
    return AnswerOutcome(answer=answer, created=created, state=state)


def _grade(question: Question, response: Response) -> dict[str, Any]:
    """The Answer's fields for `response` (quizzes.grading); AttemptError, writing nothing,
    when it does not fit the question."""
    try:
        return grading.grade_response(question, response)
    except grading.Unanswerable as refusal:
        raise AttemptError(refusal.message) from None


def _record(
    state: AttemptState, question: Question, response: Response
) -> tuple[Answer, bool, AttemptState]:
    """Write the answer to `question` (open and unanswered in `state`) and finish the attempt
    after the last one. Returns the answer that stands, whether this call wrote it, and the
    state with it.

    No lock: the one-answer-per-question constraint settles races. Answers are only ever
    added, in order, so a state read a moment ago can lack at most an answer to the current
    question, and recording that question again then violates the constraint: the first
    answer to commit stands, and only the request that records the last answer finishes.
    """
    attempt = state.attempt
    fields = _grade(question, response)
    # Read with the attempt by the step views; unknown elsewhere (scripts).
    quiz_has_cards = getattr(attempt, "has_review_cards", True)
    posted_question, posted_card = getattr(attempt, "posted_card", (None, None))
    card = posted_card if posted_question == question.pk else CARD_NOT_READ
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
            answer = Answer.objects.create(attempt=attempt, question=question, **fields)
            if not attempt.is_deferred:
                card_record_quiz_answer(
                    user_id=attempt.user_id,
                    question_id=question.pk,
                    is_correct=answer.is_correct,
                    at=answer.answered_at,
                    quiz_has_cards=quiz_has_cards,
                    card=card,
                )
            state.answers[question.pk] = answer
            if state.is_complete:
                _finish(state)
    except IntegrityError:
        # A concurrent request (a double click, a second tab) answered it first.
        state.answers.pop(question.pk, None)
        attempt.refresh_from_db(fields=["finished_at", "score", "total"])
        state = attempt_state(attempt)
        recorded = state.answer_for(question)
        if recorded is None:
            raise
        return recorded, False, state
    return answer, True, state


def _save(state: AttemptState, question: Question, response: Response) -> Answer:
    """Exam mode: save the learner's response to `question`, or change the one saved, under
    the attempt's lock (`_locked`): refused once the attempt is finished."""
    fields = _grade(question, response)
    with transaction.atomic():
        locked = _locked(state)
        if locked is None:
            raise AttemptError(_("This attempt is finished; it accepts no more answers."))
        # As saved now: another tab may have saved one since this state was read.
        recorded = locked.answer_for(question)
        if recorded is None:
            recorded = Answer.objects.create(attempt=state.attempt, question=question, **fields)
        elif not response.same_as(recorded):
            Answer.objects.filter(pk=recorded.pk).update(answered_at=timezone.now(), **fields)
            for name, value in fields.items():
                setattr(recorded, name, value)
    recorded.resolve(question)
    state.answers = {**locked.answers, question.pk: recorded}
    return recorded


def _finish_exam(state: AttemptState, *, now: datetime | None = None) -> bool:
    """Finish an exam attempt on its answers as saved now, under the attempt's lock
    (`_locked`). False if it was finished meanwhile."""
    attempt = state.attempt
    with transaction.atomic():
        locked = _locked(state)
        if locked is None:
            attempt.refresh_from_db(fields=["finished_at", "score", "total"])
            return False
        state.answers = locked.answers
        _finish(state, now=now)
    return True


def _finish(state: AttemptState, *, now: datetime | None = None) -> None:
    attempt = state.attempt
    now = now or timezone.now()
    # An attempt closed after its deadline ended at the deadline, not when it was noticed.
    attempt.finished_at = min(now, attempt.deadline) if attempt.deadline else now
    attempt.score = state.score
    attempt.total = state.count
    attempt.save(update_fields=["finished_at", "score", "total"])
    attempt_finished.send(sender=Attempt, attempt=attempt)
    if attempt.is_deferred:
        # Exam mode moved no review card while the attempt ran (the review page would have
        # told which answers were wrong): all of them now.
        cards_record_answers(
            user_id=attempt.user_id,
            answers=[
                (answer.question_id, answer.is_correct, answer.answered_at)
                for answer in state.answers.values()
            ],
        )
