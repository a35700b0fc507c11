"""A recorded response as pages show it: an attempt's answer or a review answer, with its
question from the content read model (quizzes/content.py).

Plain immutable data: the step, the result page, the review page and the admin's preview
read it; the rows (`Answer`, `ReviewAnswer`) are for writes. Everything it says of
correctness (the verdict, each choice's, the accepted numbers) is as it stood when the
response was recorded: a later change of the key changes none of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from .content import AcceptedNumber, ChoiceData, QuestionData
from .models import Question

FULL_MARK = Decimal(1)


@dataclass(frozen=True, slots=True)
class ChoiceVerdict:
    choice: ChoiceData
    ticked: bool
    right: bool


@dataclass(frozen=True, slots=True)
class RecordedAnswer:
    pk: int | None
    question: QuestionData
    # One answer, true or false: the choice picked and the one worth the whole mark then.
    choice_id: int | None
    correct_choice_id: int | None
    # Several answers: the ids ticked; several answers and numbers: the key when answered.
    choice_ids: tuple[int, ...]
    key: Any
    number: Decimal | None
    fraction: Decimal
    is_correct: bool
    answered_at: datetime | None

    @classmethod
    def of(cls, row: Any, question: QuestionData) -> RecordedAnswer:
        """From a row (an Answer, a ReviewAnswer, or anything with their fields)."""
        return cls(
            pk=row.pk,
            question=question,
            choice_id=row.choice_id,
            correct_choice_id=row.correct_choice_id,
            choice_ids=tuple(row.choice_ids or ()),
            key=row.key,
            number=row.number,
            fraction=row.fraction,
            is_correct=row.is_correct,
            answered_at=row.answered_at,
        )

    @classmethod
    def graded(
        cls, fields: dict[str, Any], question: QuestionData, *, pk: int | None = None
    ) -> RecordedAnswer:
        """From `grading.grade_response`'s fields, recorded as `pk` (None: not recorded)."""
        return cls(
            pk=pk,
            question=question,
            choice_id=fields["choice_id"],
            correct_choice_id=fields["correct_choice_id"],
            choice_ids=tuple(fields["choice_ids"]),
            key=fields["key"],
            number=fields["number"],
            fraction=fields["fraction"],
            is_correct=fields["is_correct"],
            answered_at=fields.get("answered_at"),
        )

    @property
    def question_id(self) -> int:
        return self.question.pk

    @property
    def choice(self) -> ChoiceData | None:
        return self.question.choice(self.choice_id)

    @property
    def correct_choice(self) -> ChoiceData | None:
        return self.question.choice(self.correct_choice_id)

    @property
    def is_partly_correct(self) -> bool:
        return 0 < self.fraction < 1

    @property
    def verdict(self) -> str:
        """ "right", "partly" or "wrong": the whole mark, some of it, or none."""
        if self.is_correct:
            return "right"
        return "partly" if self.fraction > 0 else "wrong"

    def choice_verdicts(
        self, choices: tuple[ChoiceData, ...] | list[ChoiceData]
    ) -> list[ChoiceVerdict]:
        """Every choice of the question with whether the learner ticked it and whether it was
        right when they answered (a later change of the key changes neither)."""
        if self.question.kind == Question.Kind.MULTIPLE:
            ticked = set(self.choice_ids)
            weights = {int(pk): Decimal(weight) for pk, weight in (self.key or {}).items()}
            return [
                ChoiceVerdict(c, c.pk in ticked, weights.get(c.pk, c.fraction) > 0) for c in choices
            ]
        return [
            ChoiceVerdict(c, c.pk == self.choice_id, c.pk == self.correct_choice_id)
            for c in choices
        ]

    @property
    def accepted_numbers(self) -> list[str]:
        """A numerical question's numbers worth the whole mark when the learner answered."""
        return [
            f"{value} ± {tolerance}" if Decimal(tolerance) else value
            for value, tolerance, fraction, _pk in self.key or []
            if Decimal(fraction) == FULL_MARK
        ]

    def number_feedback(self) -> AcceptedNumber | None:
        """The accepted number the response fell in when the learner answered, for its
        feedback (None if it fell in none, or that number has been deleted since)."""
        if self.number is None:
            return None
        best = None
        for value, tolerance, fraction, pk in self.key or []:
            if abs(self.number - Decimal(value)) <= Decimal(tolerance) and (
                best is None or Decimal(fraction) > best[0]
            ):
                best = (Decimal(fraction), pk)
        if best is None:
            return None
        return next((a for a in self.question.numbers if a.pk == best[1]), None)


def unanswered_verdicts(choices: tuple[ChoiceData, ...] | list[ChoiceData]) -> list[ChoiceVerdict]:
    """A question left unanswered: the right choices as its key stands now."""
    return [
        ChoiceVerdict(choice, False, choice.is_correct or choice.fraction > 0) for choice in choices
    ]
