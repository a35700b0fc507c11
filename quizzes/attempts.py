"""The rules of an attempt: start or resume, answer the current question once, finish, score.

Views (htmx and plain forms alike) call these and render what they return; nothing else
writes attempts or answers. Reading an attempt (`attempt_state`) never writes; the one place
that may finish an attempt on reading is `attempt_settle`, which views call explicitly.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from . import grading
from .content import QuizContent, quiz_content

if TYPE_CHECKING:
    from django.contrib.auth.models import User
from .models import Answer, Attempt, Question, Quiz
from .review import REVIEWABLE_KINDS, card_record_quiz_answer


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

    @property
    def answered_count(self) -> int:
        return len(self.answers)

    @property
    def current_question(self) -> Question | None:
        """The first question in quiz order that has no answer yet; None when all have."""
        for question in self.content.questions:
            if question.pk not in self.answers:
                return question
        return None

    @property
    def current_number(self) -> int:
        """1-based number of the step the learner is on (the last one once all are answered)."""
        current = self.current_question
        if current is None:
            return self.content.count
        return self.content.number_of(current)

    @property
    def score(self) -> Decimal:
        return sum((answer.fraction for answer in self.answers.values()), Decimal(0))

    @property
    def is_complete(self) -> bool:
        """Every question the quiz has now is answered (and it has some)."""
        return bool(self.content.count) and self.current_question is None

    def answer_for(self, question: Question) -> Answer | None:
        return self.answers.get(question.pk)

    def is_open(self, question: Question) -> bool:
        """Whether the learner may see this step: answered already, or the one to answer now.

        Questions open in order, so a later one is not reachable before the current one.
        """
        if question.pk in self.answers:
            return True
        current = self.current_question
        return not self.attempt.is_finished and current is not None and current.pk == question.pk

    def step(self, number: int) -> Question | None:
        """The question the learner may see at step `number`, or None (send them on)."""
        question = self.content.at(number)
        if question is None or not self.is_open(question):
            return None
        return question

    def review(self) -> list[tuple[Question, Answer | None]]:
        return [(question, self.answers.get(question.pk)) for question in self.content.questions]


def attempt_state(attempt: Attempt) -> AttemptState:
    """Read the attempt's content and answers. Writes nothing."""
    content = quiz_content(attempt.quiz)
    # No ordering: the model's default would join the questions for nothing.
    answers = {answer.question_id: answer for answer in attempt.answers.order_by()}
    for answer in answers.values():
        question = content.question(answer.question_id)
        if question is not None:
            # Resolve the answer's choices from the cached content: no query per answer.
            answer.question = question
            if answer.choice_id is not None:
                answer.choice = content.choice(question, answer.choice_id) or answer.choice
            if answer.correct_choice_id is not None:
                answer.correct_choice = (
                    content.choice(question, answer.correct_choice_id) or answer.correct_choice
                )
    return AttemptState(attempt=attempt, content=content, answers=answers)


def attempt_settle(*, state: AttemptState) -> bool:
    """Finish an attempt in progress that has nothing left to answer; True if it did.

    Answering the last question finishes an attempt; this covers the other way to get there:
    an instructor deleted the questions the learner had not answered yet.
    """
    if state.attempt.is_finished or not state.is_complete:
        return False
    _finish(state)
    return True


def attempt_start(*, user: User, quiz: Quiz) -> Attempt:
    """Return the learner's attempt in progress on `quiz`, or start one.

    Safe against a double click or two tabs: the database allows one attempt in progress per
    learner and quiz, and the loser of a race gets the winner's attempt.
    """
    existing = Attempt.objects.in_progress().filter(user=user, quiz=quiz).first()
    if existing is not None:
        existing.quiz = quiz  # the caller's instance: not loaded again
        return existing
    try:
        with transaction.atomic():
            return Attempt.objects.create(user=user, quiz=quiz)
    except IntegrityError:
        return Attempt.objects.in_progress().get(user=user, quiz=quiz)


@dataclass(frozen=True)
class Response:
    """What the learner sent for one question: the choices ticked (one for a single-answer or
    true/false question), or the number typed (already read by `grading.parse_number`)."""

    choice_ids: tuple[int, ...] = ()
    number: Decimal | None = None

    @classmethod
    def of(cls, response: Response | None, choice_id: int | None) -> Response:
        if response is not None:
            return response
        return cls(choice_ids=(choice_id,) if choice_id is not None else ())

    def same_as(self, answer: Answer) -> bool:
        """Whether `answer` records this very response (a double click, not a change)."""
        if self.number is not None:
            return answer.number == self.number
        recorded = [answer.choice_id] if answer.choice_id is not None else answer.choice_ids
        return set(recorded) == set(self.choice_ids)


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
) -> StepOutcome:
    """Take a posted step: the learner, on step `number`, sent `response` (or picked
    `choice_id`) for the question with id `question_id` (the one they saw; None from an older
    page: step `number`'s).

    Steps are numbered by position, and an instructor's edit can renumber them while a
    learner reads: the answer goes to the question the learner saw, wherever it is now, as
    long as it is still theirs to answer. Each question is answered once: a replay returns
    the recorded answer unchanged. Writes at most one answer, and finishes the attempt with
    the last one.
    """
    question = state.content.at(number)
    if question_id is not None and (question is None or question.pk != question_id):
        # Renumbered since the page was shown: the question seen, if it is still theirs.
        question = state.content.question(question_id)
        if question is None or not state.is_open(question):
            return StepOutcome(
                Step.QUIZ_CHANGED,
                state,
                message=_("This quiz changed while you were answering; here is where you are."),
            )
    if question is None or not state.is_open(question):
        return StepOutcome(Step.NOT_OPEN, state)
    number = state.content.number_of(question)
    response = Response.of(response, choice_id)
    recorded = state.answer_for(question)
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
    return StepOutcome(
        Step.ANSWERED_BEFORE,
        state,
        number,
        recorded,
        message=_("You had already answered this question; your first answer counts."),
    )


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
    """Record the learner's `response` (or choice) for `question`, once, and finish the
    attempt after the last.

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
    question = state.content.question(question.pk) or question  # its choices are cached
    if not state.is_open(question):
        if attempt.is_finished:
            raise AttemptError(_("This attempt is finished; it accepts no more answers."))
        raise AttemptError(_("Answer the questions in order: this one is not next yet."))
    answer, created, state = _record(state, question, Response.of(response, choice_id))
    return AnswerOutcome(answer=answer, created=created, state=state)


def _grade(question: Question, response: Response, state: AttemptState) -> dict[str, Any]:
    """The Answer's fields for `response`; AttemptError when it does not fit the question
    (a choice not its own, two choices for one answer, a number for a choice)."""
    kind = question.kind
    if kind == Question.Kind.NUMERICAL:
        if response.number is None or response.choice_ids:
            raise AttemptError(_("Type a number."))
        if not question.numerical_answers.all():
            # Only reachable if content was written around the admin's validation.
            raise AttemptError(_("This question is being revised; please try again later."))
        grade = grading.grade_number(question, response.number)
        return {"number": response.number, "key": grade.key, "fraction": grade.fraction}
    ids = list(dict.fromkeys(response.choice_ids))
    found = [state.content.choice(question, pk) for pk in ids]
    chosen = [choice for choice in found if choice is not None]
    if response.number is not None or not chosen or len(chosen) != len(found):
        raise AttemptError(_("Choose one of this question's answers."))
    if kind != Question.Kind.MULTIPLE and len(chosen) != 1:
        raise AttemptError(_("Choose one of this question's answers."))
    grade = grading.grade_choices(question, chosen)
    if kind == Question.Kind.MULTIPLE:
        if not any(choice.fraction > 0 for choice in question.choices.all()):
            raise AttemptError(_("This question is being revised; please try again later."))
        order = [c.pk for c in question.choices.all() if c.pk in set(ids)]
        return {"choice_ids": order, "key": grade.key, "fraction": grade.fraction}
    if grade.correct_choice is None:
        # Only reachable if content was written around the admin's validation.
        raise AttemptError(_("This question is being revised; please try again later."))
    return {"choice": chosen[0], "correct_choice": grade.correct_choice, "fraction": grade.fraction}


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
    fields = _grade(question, response, state)
    try:
        with transaction.atomic():
            answer = Answer.objects.create(
                attempt=attempt, question=question, is_correct=fields["fraction"] == 1, **fields
            )
            if question.kind in REVIEWABLE_KINDS:
                card_record_quiz_answer(
                    user_id=attempt.user_id,
                    question_id=question.pk,
                    is_correct=answer.is_correct,
                    at=answer.answered_at,
                    # Read with the attempt by the step views; unknown elsewhere (scripts, tests).
                    quiz_has_cards=getattr(attempt, "has_review_cards", True),
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


def _finish(state: AttemptState) -> None:
    attempt = state.attempt
    attempt.finished_at = timezone.now()
    attempt.score = state.score
    attempt.total = state.content.count
    attempt.save(update_fields=["finished_at", "score", "total"])
