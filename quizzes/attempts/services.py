"""The calls views make on an attempt, one per request: start or resume, show a step, answer
it, submit all, the result; and closing attempts past their deadline.

Each reads the attempt (`state.py`), applies the rules (`rules.py`), writes what they decide
(`writes.py`) and returns plain data to render: a step is `attempt_step`, an answer
`attempt_answer` (read, checked, recorded, the review card moved, the attempt finished after
the last), both in one statement's read and returning a `StepOutcome`. Nothing else writes
attempts or answers.
"""

from __future__ import annotations

import enum
import logging
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.tasks import task
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from ..confidence import ASK_CONFIDENCE
from ..content import ChoiceData, ItemData, PairData, QuestionData, QuizData, quiz_content
from ..grading import Posted, Response, Unreadable, read_response
from ..models import Answer, Attempt, Quiz
from . import rules
from .responses import ChoiceVerdict, RecordedAnswer
from .rules import DEADLINE_GRACE, AttemptError, Availability
from .state import (
    AttemptRow,
    AttemptState,
    CardRead,
    arranged,
    attempt_read,
    attempt_state,
    quiz_availability,
)
from .writes import finish, finish_exam, record, save

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from django.contrib.auth.models import User as Learner


class AttemptNotFound(LookupError):
    """No such attempt for this learner: another learner's attempts do not exist for them."""


class Step(enum.Enum):
    """What became of a step asked for or posted; the view maps each to a response."""

    # A step the learner may see: show it (`page`).
    SHOWN = "shown"
    # The answer was recorded now: show its feedback.
    ANSWERED = "answered"
    # The question had been answered already with this pick (a double click, a replay).
    REPEATED = "repeated"
    # Answered already with another pick (a second tab, the back button): the first counts.
    ANSWERED_BEFORE = "answered-before"
    # Exam mode: the pick is saved (or changed), nothing said about correctness.
    SAVED = "saved"
    # Refused by the rules, nothing written: `message` says why.
    REFUSED = "refused"
    # What was sent cannot be read as an answer (`field`, `message`): nothing written.
    UNREADABLE = "unreadable"
    # Not the learner's to see or answer now (a later step, a finished attempt): show where it
    # stands.
    NOT_OPEN = "not-open"
    # The quiz changed under the learner and the question they saw is gone or not theirs.
    QUIZ_CHANGED = "quiz-changed"
    # Past the deadline: nothing written, and the attempt is finished with what was saved.
    TIME_UP = "time-up"


@dataclass(frozen=True)
class StepPage:
    """What a step shows: its question, the learner's answer (and, when the rules allow, its
    feedback), the choices in the attempt's order."""

    state: AttemptState
    number: int
    question: QuestionData
    answer: RecordedAnswer | None
    # The answer when verdicts, right answers and the explanation may be shown; else None.
    feedback: RecordedAnswer | None
    choices: tuple[ChoiceData, ...]
    # Choices posted by their number on the page (shuffled ones), not their id.
    numbered: bool
    verdicts: list[ChoiceVerdict]
    # A matching question's matches, an ordering question's items, in the attempt's order.
    parts: tuple[PairData | ItemData, ...] = ()

    @property
    def attempt(self) -> AttemptRow:
        return self.state.attempt

    @property
    def quiz(self) -> QuizData:
        return self.state.quiz

    @property
    def total(self) -> int:
        return self.state.count

    @property
    def asks_confidence(self) -> bool:
        """Whether each answer says how sure the learner is (`rules.level_asked`)."""
        return rules.level_asked(self.state)

    @property
    def is_last(self) -> bool:
        return self.number == self.state.count

    @property
    def has_next(self) -> bool:
        """Whether the step links to the next one (after feedback, or in exam mode)."""
        return not self.is_last and (self.feedback is not None or self.attempt.is_deferred)

    @property
    def progress_percent(self) -> int:
        return round(100 * self.state.answered_count / self.state.count)


def step_page(state: AttemptState, question: QuestionData) -> StepPage:
    answer = state.answer_for(question)
    choices = state.choices_of(question)
    feedback = answer if state.shows_feedback else None
    return StepPage(
        state=state,
        number=state.number_of(question),
        question=question,
        answer=answer,
        feedback=feedback,
        choices=choices,
        numbered=state.numbered_choices(question) is not None,
        verdicts=feedback.choice_verdicts(choices) if feedback else [],
        parts=state.parts_of(question) if question.has_parts else (),
    )


@dataclass(frozen=True)
class StepOutcome:
    step: Step
    # The attempt as it stands after the step, to render without reading it again.
    state: AttemptState
    # The step to show, when there is one.
    page: StepPage | None = None
    message: str | Promise = ""
    # Step.UNREADABLE: the form's field the message is about.
    field: str = ""

    @property
    def number(self) -> int | None:
        return self.page.number if self.page else None

    @property
    def answer(self) -> RecordedAnswer | None:
        return self.page.answer if self.page else None


def _read(
    user: Learner, attempt_id: int, *, answering: bool = False, question_id: int | None = None
) -> tuple[AttemptState, CardRead | None]:
    read = attempt_read(
        user_id=user.pk, attempt_id=attempt_id, answering=answering, question_id=question_id
    )
    if read is None:
        raise AttemptNotFound(attempt_id)
    return read


def attempt_as_it_stands(*, user: Learner, attempt_id: int) -> AttemptState:
    """The learner's own attempt as it stands, finished on the way if it can take no more
    answers (`attempt_finish_if_over`). AttemptNotFound for another learner's."""
    state, _card = _read(user, attempt_id)
    attempt_finish_if_over(state=state)
    return state


def attempt_step(*, user: Learner, attempt_id: int, number: int) -> StepOutcome:
    """Step `number` of the learner's attempt, if they may see it (SHOWN, with its page);
    else NOT_OPEN: the caller shows where the attempt stands."""
    state = attempt_as_it_stands(user=user, attempt_id=attempt_id)
    question = rules.open_step(state, number)
    if question is None:
        return StepOutcome(Step.NOT_OPEN, state)
    return StepOutcome(Step.SHOWN, state, step_page(state, question))


def attempt_answer(
    *, user: Learner, attempt_id: int, number: int, posted: Posted, now: datetime | None = None
) -> StepOutcome:
    """Take a posted step: the learner, on step `number`, sent `posted` for the question they
    saw (`posted.question_id`; None from an older page: step `number`'s).

    Steps are numbered by position, and an instructor's edit can renumber them while a
    learner reads: the answer goes to the question the learner saw, wherever it is now, as
    long as it is still theirs to answer. Each question is answered once: a replay returns
    the recorded answer unchanged. Writes at most one answer (and the review card a miss
    moves), and finishes the attempt with the last one.

    In exam mode (feedback at the end) a pick is saved and can be changed until the learner
    submits them all (`attempt_submit_all`). After the deadline (and its grace) nothing is
    written and the attempt is finished with what was saved. AttemptNotFound for another
    learner's attempt.
    """
    state, card = _read(user, attempt_id, answering=True, question_id=posted.question_id)
    return _answer(state, number, posted, card=card, now=now or timezone.now())


def _answer(
    state: AttemptState, number: int, posted: Posted, *, card: CardRead | None, now: datetime
) -> StepOutcome:
    if not state.attempt.is_finished and state.attempt.is_overdue(now):
        attempt_finish_if_over(state=state, now=now)
        return StepOutcome(
            Step.TIME_UP,
            state,
            message=_("Time is up: this answer came after the deadline and was not saved."),
        )
    attempt_finish_if_over(state=state, now=now)
    question = state.at(number)
    if posted.question_id is not None and (question is None or question.pk != posted.question_id):
        # Renumbered since the page was shown: the question seen, if it is still theirs.
        question = state.question(posted.question_id)
        if question is None or not rules.is_open(state, question):
            return StepOutcome(
                Step.QUIZ_CHANGED,
                state,
                message=_("This quiz changed while you were answering; here is where you are."),
            )
    if question is None or not rules.is_open(state, question):
        return StepOutcome(Step.NOT_OPEN, state)
    try:
        response = read_response(question, posted, shown=state.shown(question))
    except Unreadable as refusal:
        shown = rules.open_step(state, number)
        if shown is None:
            return StepOutcome(Step.NOT_OPEN, state)
        return StepOutcome(
            Step.UNREADABLE,
            state,
            step_page(state, shown),
            message=refusal.message,
            field=refusal.field,
        )
    level = posted.confidence if rules.level_asked(state) else None
    if rules.level_asked(state) and level is None:
        return StepOutcome(
            Step.UNREADABLE,
            state,
            step_page(state, question),
            message=ASK_CONFIDENCE,
            field="confidence",
        )
    return _take(state, question, response, level=level, card=card, now=now)


def _take(
    state: AttemptState,
    question: QuestionData,
    response: Response,
    *,
    level: int | None,
    card: CardRead | None,
    now: datetime,
) -> StepOutcome:
    """The rules for a response to `question`, open to the learner in `state`, given as sure
    as `level` says (None: not asked)."""
    recorded = state.answer_for(question)
    if rules.saves_until_submitted(state):
        try:
            recorded = save(state, question, response, level=level, now=now)
        except AttemptError as error:
            return StepOutcome(Step.REFUSED, state, step_page(state, question), error.message)
        return StepOutcome(Step.SAVED, state, step_page(state, question))
    created = False
    if recorded is None:
        try:
            recorded, created, state = record(state, question, response, level=level, card=card)
        except AttemptError as error:
            return StepOutcome(Step.REFUSED, state, step_page(state, question), error.message)
    page = step_page(state, question)
    if created:
        return StepOutcome(Step.ANSWERED, state, page)
    if response.same_as(recorded) and recorded.confidence == level:
        return StepOutcome(Step.REPEATED, state, page)
    if state.attempt.is_deferred:  # a finished exam: its last saved answer counts
        message = _("This attempt is finished; it accepts no more answers.")
    else:
        message = _("You had already answered this question; your first answer counts.")
    return StepOutcome(Step.ANSWERED_BEFORE, state, page, message)


def attempt_finish_if_over(*, state: AttemptState, now: datetime | None = None) -> bool:
    """Finish an attempt in progress that can take no more answers (`rules.must_finish`);
    True if it did. An exam is scored on its answers as saved now, under its lock."""
    if not rules.must_finish(state, now or timezone.now()):
        return False
    if state.attempt.is_deferred:
        return finish_exam(state, now=now)
    finish(state, now=now)
    return True


@dataclass(frozen=True)
class Submitted:
    """What "Submit all and finish" left: the attempt as it stands, and whether this call
    finished it."""

    state: AttemptState
    finished: bool


def attempt_submit_all(*, user: Learner, attempt_id: int) -> Submitted:
    """Finish the learner's attempt with feedback at the end, on their "Submit all and
    finish": scored on its answers as saved now, unanswered questions counting as wrong. An
    attempt finished already (by a second tab or its deadline), or one with feedback after
    each question, stays as it was. AttemptNotFound for another learner's."""
    state = attempt_as_it_stands(user=user, attempt_id=attempt_id)
    if not rules.saves_until_submitted(state):
        return Submitted(state, finished=False)
    return Submitted(state, finished=finish_exam(state))


@dataclass(frozen=True)
class AttemptResult:
    """A finished attempt's result page: the attempt, and whether the learner may take the
    quiz again (`retake_refusal` says why not, when its rules refuse)."""

    state: AttemptState
    can_retake: bool = False
    retake_refusal: str | Promise | None = None


def attempt_result(*, user: Learner, attempt_id: int) -> AttemptResult:
    """The learner's attempt for its result page, finished on the way if it can take no
    more answers (an attempt still running has no result: the caller sends them to its
    step). AttemptNotFound for another learner's."""
    state = attempt_as_it_stands(user=user, attempt_id=attempt_id)
    quiz = state.quiz
    if not state.attempt.is_finished:
        return AttemptResult(state)
    if not quiz.is_published:
        return AttemptResult(state)
    refusal = None
    if quiz.max_attempts is not None or quiz.closes_at is not None or quiz.opens_at is not None:
        # Only a quiz with limits costs the reads of the learner's attempts and override.
        refusal = quiz_availability(quiz=quiz, user=user).refusal
    return AttemptResult(state, can_retake=refusal is None, retake_refusal=refusal)


def quiz_start_rules(*, user: Learner, quiz: Quiz) -> Availability:
    """The quiz's start rules for the learner, for its page: an attempt in progress past its
    deadline is finished on the way (the page offers its result, not "Resume")."""
    availability = quiz_availability(quiz=quiz, user=user)
    overdue = availability.in_progress
    if overdue is None or not overdue.is_overdue(timezone.now()):
        return availability
    attempt_finish_if_over(state=attempt_state(overdue))
    return quiz_availability(quiz=quiz, user=user)


def attempts_close_overdue(
    *, now: datetime | None = None, user: Learner | None = None, pk: int | None = None
) -> int:
    """Finish every attempt in progress past its deadline (`close_overdue_attempts`, the
    worker's hourly task), or every one of `user`'s (their history, before it shows them), or
    the one `pk` (its own task, at its deadline); returns how many. Each is scored on what
    was saved in time."""
    now = now or timezone.now()
    closed = 0
    overdue = Attempt.objects.in_progress().filter(deadline__lt=now - DEADLINE_GRACE)
    if user is not None:
        overdue = overdue.filter(user_id=user.pk)
    if pk is not None:
        overdue = overdue.filter(pk=pk)
    for attempt in overdue.iterator():
        with transaction.atomic():
            locked = Attempt.objects.select_for_update().get(pk=attempt.pk)
            if locked.is_finished:
                continue  # finished meanwhile by the learner's own request
            closed += attempt_finish_if_over(state=attempt_state(locked), now=now)
    return closed


def attempt_begin(*, user: Learner, quiz: Quiz) -> AttemptState:
    """Start `quiz` for the learner, or resume their attempt in progress, as it stands (an
    attempt in progress past its deadline is finished on the way). AttemptError when a new
    attempt may not start."""
    attempt = attempt_start(user=user, quiz=quiz)
    return attempt_as_it_stands(user=user, attempt_id=attempt.pk)


def attempt_start(*, user: Learner, quiz: Quiz, now: datetime | None = None) -> Attempt:
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
    for question in questions:
        if question.has_parts:  # matches always shuffled, items never in the right order
            order[str(question.pk)] = arranged([part.pk for part in question.parts], shuffler)
        elif quiz.shuffle_choices and question.choices:
            ids = [choice.pk for choice in question.choices]
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
                confidence=quiz.confidence,
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


def _draw(*, user: Learner, quiz: Quiz, shuffler: random.Random) -> list[QuestionData]:
    """The questions a new attempt of `user` takes, in its order: every question, or
    `quiz.questions_per_attempt` of them, those the learner never answered in this quiz first,
    then those answered longest ago (ties drawn at random); in the quiz's order, or shuffled
    with `quiz.shuffle_questions`."""
    content = quiz_content(quiz)
    questions = list(content.questions)
    size = quiz.questions_per_attempt
    if size is not None and size < len(questions):
        last_seen: dict[int, datetime] = dict(
            Answer.objects.filter(attempt__user_id=user.pk, attempt__quiz_id=quiz.pk)
            .order_by()
            .values_list("question_id")
            .annotate(last=Max("answered_at"))
        )
        shuffler.shuffle(questions)  # the ties' order
        never = [q for q in questions if q.pk not in last_seen]
        seen = sorted((q for q in questions if q.pk in last_seen), key=lambda q: last_seen[q.pk])
        chosen = {q.pk for q in (never + seen)[:size]}
        questions = [q for q in content.questions if q.pk in chosen]
    if quiz.shuffle_questions:
        shuffler.shuffle(questions)
    return questions
