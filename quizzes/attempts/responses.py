"""A recorded response as pages show it: an attempt's answer or a review answer, with its
question from the content read model (quizzes/content.py).

Plain immutable data: the step, the result page, the review page and the admin's preview
read it; the rows (`Answer`, `ReviewAnswer`) are for writes. Everything it says of
correctness (the verdict, each choice's, the accepted numbers) is as it stood when the
response was recorded: a later change of the key changes none of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from ..confidence import LEVEL_NAMES, cbm_mark
from ..content import (
    AcceptedNumber,
    AcceptedTextData,
    ChoiceData,
    ItemData,
    PairData,
    QuestionData,
)
from ..grading import Key, longest_in_order
from ..languages import right_answers_in_language
from ..models import Question
from ..short_answers import matches

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
    # Several answers: the ids ticked.
    choice_ids: tuple[int, ...]
    # The key when answered (several answers, numbers, short answer, matching, ordering).
    key: Key
    number: Decimal | None
    fraction: Decimal
    is_correct: bool
    answered_at: datetime | None
    # A short answer as typed; matching's {prompt's pair id: match's pair id} or ordering's
    # item ids in the learner's order.
    text: str = ""
    arrangement: Any = None
    # How sure the learner said they were (quizzes/confidence.py); None where not asked.
    confidence: int | None = None

    @classmethod
    def of(cls, row: Any, question: QuestionData) -> RecordedAnswer:
        """From a row (an Answer, a ReviewAnswer, or anything with their fields)."""
        return cls(
            pk=row.pk,
            question=question,
            choice_id=row.choice_id,
            correct_choice_id=row.correct_choice_id,
            choice_ids=tuple(row.choice_ids or ()),
            key=Key.read(question.kind, row.key),
            number=row.number,
            fraction=row.fraction,
            is_correct=row.is_correct,
            answered_at=row.answered_at,
            text=row.text or "",
            arrangement=row.arrangement,
            confidence=row.confidence,
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
            key=Key.read(question.kind, fields["key"]),
            number=fields["number"],
            fraction=fields["fraction"],
            is_correct=fields["is_correct"],
            answered_at=fields.get("answered_at"),
            text=fields.get("text", ""),
            arrangement=fields.get("arrangement"),
            confidence=fields.get("confidence"),
        )

    @property
    def question_id(self) -> int:
        return self.question.pk

    @property
    def confidence_name(self) -> Any:
        """How sure the learner said they were, in words ("Very sure"); None if not asked."""
        return LEVEL_NAMES.get(self.confidence) if self.confidence else None

    @property
    def cbm_mark(self) -> Decimal | None:
        """The answer's certainty-based mark (quizzes/confidence.py); None without a level."""
        return cbm_mark(self.fraction, self.confidence) if self.confidence else None

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
            weights = self.key.weights
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
            f"{number.value:f} ± {number.tolerance:f}" if number.tolerance else f"{number.value:f}"
            for number in self.key.numbers
            if number.fraction == FULL_MARK
        ]

    def number_feedback(self) -> AcceptedNumber | None:
        """The accepted number the response fell in when the learner answered, for its
        feedback (None if it fell in none, or that number has been deleted since)."""
        if self.number is None:
            return None
        held = [n for n in self.key.numbers if abs(self.number - n.value) <= n.tolerance]
        best = max(held, key=lambda n: n.fraction, default=None)
        if best is None:
            return None
        return next((a for a in self.question.numbers if a.pk == best.pk), None)

    # --- Short answer, matching, ordering, as they stood when answered -----------------

    @property
    def accepted_texts(self) -> list[str]:
        """A short-answer question's accepted answers worth the whole mark when the learner
        answered, in the page's language (languages.right_answers_in_language)."""
        return right_answers_in_language(self.key.texts)

    def text_matched(self) -> AcceptedTextData | None:
        """The accepted answer a short answer matched best when it was answered (for its
        feedback; None if none, or it has been deleted since)."""
        matched = [
            accepted
            for accepted in self.key.texts
            if any(
                t and matches(self.text, t, exact=accepted.exact)
                for t in (accepted.text_en, accepted.text_ar)
            )
        ]
        best = max(matched, key=lambda accepted: accepted.fraction, default=None)
        if best is None:
            return None
        return next((text for text in self.question.texts if text.pk == best.pk), None)

    @property
    def match_rows(self) -> list[MatchRow]:
        """A matching answer, prompt by prompt as the question has them: the match picked and
        the right one (as the key stood when it was answered)."""
        return match_rows(self.question, self.arrangement or {}, self.key.matches)

    @property
    def order_rows(self) -> list[OrderRow]:
        """An ordering answer, item by item in the learner's order: each item's place in the
        right order, and whether it is one of the longest run already in order."""
        return order_rows(self.question, list(self.arrangement or []), list(self.key.order))

    @property
    def right_order(self) -> list[ItemData]:
        """The items in the right order when the learner answered."""
        items = {item.pk: item for item in self.question.items}
        return [items[pk] for pk in self.key.order if pk in items]


@dataclass(frozen=True, slots=True)
class MatchRow:
    prompt: PairData
    picked: PairData | None
    right: PairData | None

    @property
    def is_right(self) -> bool:
        return self.picked is not None and self.right is not None and self.picked == self.right


def match_rows(
    question: QuestionData, picked: Mapping[str, int], key: Mapping[int, int]
) -> list[MatchRow]:
    """Each prompt of a matching question with the match picked (`picked`, None when none)
    and the right one (`key`, as it stood; the question's own pair when there is no key)."""
    pairs = {pair.pk: pair for pair in question.pairs}
    return [
        MatchRow(
            prompt=prompt,
            picked=pairs.get(picked.get(str(prompt.pk), 0)),
            right=pairs.get(key.get(prompt.pk, prompt.pk)),
        )
        for prompt in question.prompts
    ]


@dataclass(frozen=True, slots=True)
class OrderRow:
    item: ItemData
    # Its place in the right order, from 1.
    place: int
    # Part of the longest run of items already in the right order (what the mark counts).
    in_order: bool


def order_rows(question: QuestionData, order: list[int], key: list[int]) -> list[OrderRow]:
    """The items as the learner ordered them, each with its right place (from `key`, the
    right order when answered) and whether the mark counts it (`grading.longest_in_order`)."""
    items = {item.pk: item for item in question.items}
    place = {pk: index for index, pk in enumerate(key or [item.pk for item in question.items])}
    shown = [pk for pk in order if pk in items and pk in place]
    counted = set(longest_in_order([place[pk] for pk in shown]))
    return [
        OrderRow(item=items[pk], place=place[pk] + 1, in_order=index in counted)
        for index, pk in enumerate(shown)
    ]


def unanswered_verdicts(choices: tuple[ChoiceData, ...] | list[ChoiceData]) -> list[ChoiceVerdict]:
    """A question left unanswered: the right choices as its key stands now."""
    return [
        ChoiceVerdict(choice, False, choice.is_correct or choice.fraction > 0) for choice in choices
    ]
