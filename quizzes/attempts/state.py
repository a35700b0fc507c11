"""An attempt as the rules and pages read it: plain data (`AttemptRow`, its answers as
`RecordedAnswer`s) over its quiz's content version (quizzes/content.py), read by `read.py`.

Where each question stands in the attempt's order, and each one's choices, matches or items
in the attempt's own order; what the rules make of it is theirs (`rules.py`).
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from ..content import ChoiceData, ItemData, PairData, QuestionData, QuizContent, QuizData
from ..models import Attempt
from . import rules
from .responses import ChoiceVerdict, RecordedAnswer, unanswered_verdicts


@dataclass(frozen=True, slots=True)
class AttemptRow(rules.AttemptFacts):
    """An attempt's row as the rules read it (writes go through the `Attempt` model); what
    its columns say under the rules (finished, exam mode, feedback shown, overdue) is
    `AttemptFacts`', shared with the model."""

    pk: int
    user_id: int
    quiz_id: int
    started_at: datetime
    finished_at: datetime | None
    score: Decimal
    total: int
    # The quiz's settings at the start: feedback mode, deadline, order of choices/questions.
    feedback: str
    deadline: datetime | None
    choice_order: Mapping[str, list[int]]
    question_order: tuple[int, ...]

    @classmethod
    def of(cls, attempt: Attempt) -> AttemptRow:
        return cls(
            pk=attempt.pk,
            user_id=attempt.user_id,
            quiz_id=attempt.quiz_id,
            started_at=attempt.started_at,
            finished_at=attempt.finished_at,
            score=attempt.score,
            total=attempt.total,
            feedback=attempt.feedback,
            deadline=attempt.deadline,
            choice_order=MappingProxyType(dict(attempt.choice_order or {})),
            question_order=tuple(attempt.question_order or ()),
        )

    @property
    def id(self) -> int:
        return self.pk


@dataclass
class AttemptState:
    """An attempt with its quiz content and its answers so far, keyed by question id: what one
    request knows of it (`attempt` is replaced when the request finishes it)."""

    attempt: AttemptRow
    content: QuizContent
    answers: dict[int, RecordedAnswer]

    @property
    def quiz(self) -> QuizData:
        return self.content.quiz

    @functools.cached_property
    def questions(self) -> tuple[QuestionData, ...]:
        """The attempt's questions in its order: those it drew at its start that the quiz
        still has, or, for an attempt that drew none, every question the quiz has now."""
        order = self.attempt.question_order
        if not order:
            return self.content.questions
        drawn = (self.content.question(pk) for pk in order)
        return tuple(question for question in drawn if question is not None)

    @functools.cached_property
    def _numbers(self) -> dict[int, int]:
        return {question.pk: number for number, question in enumerate(self.questions, start=1)}

    @property
    def count(self) -> int:
        """How many questions the attempt has: what it is scored out of."""
        return len(self.questions)

    def at(self, number: int) -> QuestionData | None:
        """The attempt's question at 1-based `number`, or None."""
        if 1 <= number <= len(self.questions):
            return self.questions[number - 1]
        return None

    def question(self, question_id: int) -> QuestionData | None:
        """The question with this id if it is one of the attempt's (drawn, still there)."""
        if question_id in self._numbers:
            return self.content.question(question_id)
        return None

    def number_of(self, question: QuestionData) -> int:
        return self._numbers[question.pk]

    @property
    def answered_count(self) -> int:
        return sum(1 for question in self.questions if question.pk in self.answers)

    @property
    def current_number(self) -> int:
        """1-based number of the step the learner is on (`rules.current_question`; the last
        one once all are answered)."""
        current = rules.current_question(self)
        if current is None:
            return self.count
        return self.number_of(current)

    @property
    def score(self) -> Decimal:
        return sum((answer.fraction for answer in self.answers.values()), Decimal(0))

    def answer_for(self, question: QuestionData) -> RecordedAnswer | None:
        return self.answers.get(question.pk)

    @property
    def shows_feedback(self) -> bool:
        """Whether verdicts, right answers and explanations may be shown (`rules`)."""
        return self.attempt.shows_feedback

    @property
    def unanswered(self) -> list[tuple[int, QuestionData]]:
        """(number, question) of the questions not answered yet, in the attempt's order."""
        return [
            (number, question)
            for number, question in enumerate(self.questions, start=1)
            if question.pk not in self.answers
        ]

    def choices_of(self, question: QuestionData) -> tuple[ChoiceData, ...]:
        """The question's choices in this attempt's own order (drawn at its start when the
        quiz shuffles them; choices added since come last, in the quiz's order)."""
        order = self.attempt.choice_order.get(str(question.pk))
        if not order:
            return question.choices
        rank = {choice_id: index for index, choice_id in enumerate(order)}
        return tuple(sorted(question.choices, key=lambda c: rank.get(c.pk, len(rank))))

    def parts_of(self, question: QuestionData) -> tuple[PairData | ItemData, ...]:
        """A matching question's matches (every pair's, distractors included) or an ordering
        question's items, in this attempt's own order: drawn at its start, or for a question
        added since, drawn from the attempt and the question alone (the same at each reload)."""
        order = self.attempt.choice_order.get(str(question.pk))
        return parts_in_order(question, order, seed=f"{self.attempt.pk}:{question.pk}")

    def shown(
        self, question: QuestionData
    ) -> tuple[ChoiceData, ...] | tuple[PairData | ItemData, ...] | None:
        """What `question`'s step numbers 1, 2, … for the learner to pick: its choices when
        this attempt shuffled them, a matching question's matches, an ordering question's
        items (None: choices sent by their ids)."""
        if question.has_parts:
            return self.parts_of(question)
        return self.numbered_choices(question)

    def numbered_choices(self, question: QuestionData | None) -> tuple[ChoiceData, ...] | None:
        """The question's choices as its step numbered them 1, 2, …, when it did (an attempt
        that shuffled them: their ids would tell the order they were written in)."""
        if question is None or str(question.pk) not in self.attempt.choice_order:
            return None
        return self.choices_of(question)

    def review(self) -> list[tuple[QuestionData, RecordedAnswer | None, list[ChoiceVerdict]]]:
        """Per question in the attempt's order: the answer (None if not answered, or added
        since) and every choice's verdict as the answer recorded it (not answered: as the key
        stands now), in this attempt's order of the choices."""
        rows = []
        for question in self.questions:
            answer = self.answers.get(question.pk)
            choices = self.choices_of(question)
            if answer is not None:
                verdicts = answer.choice_verdicts(choices)
            else:
                verdicts = unanswered_verdicts(choices)
            rows.append((question, answer, verdicts))
        return rows


def parts_in_order(
    question: QuestionData, order: list[int] | None, *, seed: str
) -> tuple[PairData | ItemData, ...]:
    """A matching question's matches or an ordering question's items in `order` (their ids),
    or, without one, shuffled by `seed` (the same every time: a review card's, a preview's)."""
    parts = question.parts
    if not order:
        order = arranged([part.pk for part in parts], random.Random(seed))
    rank = {part_id: index for index, part_id in enumerate(order)}
    return tuple(sorted(parts, key=lambda part: rank.get(part.pk, len(rank))))


def arranged(ids: list[int], shuffler: random.Random) -> list[int]:
    """`ids` shuffled for a learner to arrange: never left as they are when they can move
    (an ordering question's items would be shown in the right order)."""
    shuffled = list(ids)
    shuffler.shuffle(shuffled)
    if len(shuffled) > 1 and shuffled == ids:
        shuffled = shuffled[1:] + shuffled[:1]
    return shuffled


def state_of(attempt: AttemptRow, content: QuizContent, answers: Iterable[Any]) -> AttemptState:
    """The state of `attempt` with its `answers` (rows, or anything with their fields) read
    against `content`; answers to questions gone from the quiz are left out."""
    recorded = {}
    for answer in answers:
        question = content.question(answer.question_id)
        if question is not None:
            recorded[question.pk] = RecordedAnswer.of(answer, question)
    return AttemptState(attempt=attempt, content=content, answers=recorded)


def finished(state: AttemptState, *, at: datetime, score: Decimal, total: int) -> AttemptState:
    """`state` with its attempt finished (as written)."""
    attempt = dataclasses.replace(state.attempt, finished_at=at, score=score, total=total)
    return dataclasses.replace(state, attempt=attempt)
