"""The rules of an attempt: start or resume, answer the current question once, finish, score.

Views (htmx and plain forms alike) call these and render what they return; nothing else
writes attempts or answers.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from . import grading
from .content import QuizContent, quiz_content
from .models import Answer, Attempt, Question, Quiz


class AttemptError(Exception):
    """An answer the rules refuse; `message` is for the learner, nothing was written."""

    def __init__(self, message: str) -> None:
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

    def review(self) -> list[tuple[Question, Answer | None]]:
        return [(question, self.answers.get(question.pk)) for question in self.content.questions]


def attempt_state(attempt: Attempt) -> AttemptState:
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
    state = AttemptState(attempt=attempt, content=content, answers=answers)
    if not attempt.is_finished and content.count and state.current_question is None:
        # Every question left is answered: an instructor deleted the ones that were not.
        _finish(attempt, state)
    return state


def attempt_start(*, user, quiz: Quiz) -> Attempt:
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


@dataclass
class AnswerOutcome:
    answer: Answer
    # False when the question had been answered before: the recorded answer stands.
    created: bool
    # The attempt with this answer, to render the feedback without reading it again.
    state: AttemptState


@dataclass(frozen=True)
class Response:
    """What the learner sent for one question: the choices ticked (one for a single-answer or
    true/false question), or the number typed (already read by `grading.parse_number`)."""

    choice_ids: tuple[int, ...] = ()
    number: Decimal | None = None

    def same_as(self, answer: Answer) -> bool:
        """Whether `answer` records this very response (a double click, not a change)."""
        if self.number is not None:
            return answer.number == self.number
        recorded = [answer.choice_id] if answer.choice_id is not None else answer.choice_ids
        return set(recorded) == set(self.choice_ids)


def _grade(question: Question, response: Response, state: AttemptState) -> dict:
    """The Answer's fields for `response`; AttemptError when it does not fit the question."""
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
    if response.number is not None or not ids:
        raise AttemptError(_("Choose an answer before submitting."))
    chosen = [state.content.choice(question, pk) for pk in ids]
    if any(choice is None for choice in chosen):
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


def answer_record(
    *,
    attempt: Attempt,
    question: Question,
    response: Response | None = None,
    choice_id: int | None = None,
    state: AttemptState | None = None,
) -> AnswerOutcome:
    """Record the learner's `response` to `question`, once, and finish the attempt after the
    last (`choice_id` alone is the response of a single-answer question).

    A question already answered returns its recorded answer unchanged (a replay, a double
    click, a stale tab). Raises AttemptError, writing nothing, for a finished attempt, a
    question that is not the current one, or a response that does not fit the question (a
    choice not its own, two choices for a single-answer question, a number for a choice).
    `state` is the attempt's state if the caller has just read it; otherwise it is read here.

    No lock: the one-answer-per-question constraint settles races. Answers are only ever
    added, in order, so a state read a moment ago can lack at most an answer to the current
    question, and recording that question again then violates the constraint: the first
    answer to commit stands, and only the request that records the last answer finishes.
    """
    if response is None:
        response = Response(choice_ids=(choice_id,) if choice_id is not None else ())
    if state is None:
        state = attempt_state(attempt)
    recorded = state.answer_for(question)
    if recorded is not None:
        return AnswerOutcome(answer=recorded, created=False, state=state)
    if attempt.is_finished:
        raise AttemptError(_("This attempt is finished; it accepts no more answers."))
    current = state.current_question
    if current is None or current.pk != question.pk:
        raise AttemptError(_("Answer the questions in order: this one is not next yet."))
    fields = _grade(question, response, state)
    try:
        with transaction.atomic():
            answer = Answer.objects.create(
                attempt=attempt,
                question=question,
                is_correct=fields["fraction"] == 1,
                **fields,
            )
            state.answers[question.pk] = answer
            if state.current_question is None:
                _finish(attempt, state)
    except IntegrityError:
        # A concurrent request (a double click, a second tab) answered it first.
        attempt.refresh_from_db(fields=["finished_at", "score", "total"])
        state = attempt_state(attempt)
        recorded = state.answer_for(question)
        if recorded is None:
            raise
        return AnswerOutcome(answer=recorded, created=False, state=state)
    return AnswerOutcome(answer=answer, created=True, state=state)


def _finish(attempt: Attempt, state: AttemptState) -> None:
    attempt.finished_at = timezone.now()
    attempt.score = state.score
    attempt.total = state.content.count
    attempt.save(update_fields=["finished_at", "score", "total"])
