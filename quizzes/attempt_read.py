"""An attempt as the rules and pages read it: plain data (`AttemptRow`, `RecordedAnswer`) over
its quiz's content version (quizzes/content.py), in one statement.

`attempt_read` is the step's read: one literal SQL statement joins the learner's attempt to
its quiz's version and its answers (and, when an answer is posted, the learner's review card
for that question, which the answer may move). It is written out below as text to be read,
and `tests/quizzes/test_attempt_read.py` checks it against the ORM's reading of the same rows
on SQLite and PostgreSQL. Everything else reads attempts through the ORM (`attempt_state`).
"""

from __future__ import annotations

import dataclasses
import decimal
import functools
import json
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from django.db import connection
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from .content import (
    ChoiceData,
    ItemData,
    PairData,
    QuestionData,
    QuizContent,
    QuizData,
    quiz_content_of,
)
from .models import Answer, Attempt, ReviewCard, attempt_shows_feedback, past_deadline
from .models import Question as QuizModelQuestion
from .models import Quiz as QuizModel
from .responses import ChoiceVerdict, RecordedAnswer, unanswered_verdicts


@dataclass(frozen=True, slots=True)
class AttemptRow:
    """An attempt's row as the rules read it (writes go through the `Attempt` model)."""

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

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None

    @property
    def is_deferred(self) -> bool:
        return self.feedback == QuizModel.Feedback.DEFERRED

    @property
    def shows_feedback(self) -> bool:
        return attempt_shows_feedback(feedback=self.feedback, finished_at=self.finished_at)

    @property
    def percent(self) -> int:
        return round(100 * self.score / self.total) if self.total else 0

    def get_absolute_url(self) -> str:
        return reverse("quizzes:attempt", args=[self.pk])


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
    def current_question(self) -> QuestionData | None:
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

    def is_completed_by(self, question: QuestionData) -> bool:
        """Whether an answer to `question` would make the attempt complete (`is_complete`)."""
        return bool(self.count) and all(
            known.pk in self.answers or known.pk == question.pk for known in self.questions
        )

    def answer_for(self, question: QuestionData) -> RecordedAnswer | None:
        return self.answers.get(question.pk)

    def is_open(self, question: QuestionData) -> bool:
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

    def step(self, number: int) -> QuestionData | None:
        """The question the learner may see at step `number`, or None (send them on)."""
        question = self.at(number)
        if question is None or not self.is_open(question):
            return None
        return question

    @property
    def shows_feedback(self) -> bool:
        """Whether verdicts, right answers and explanations may be shown (Attempt's rule)."""
        return self.attempt.shows_feedback

    def is_overdue(self, now: datetime) -> bool:
        """Past the deadline and its grace: no answer is taken any more."""
        return past_deadline(self.attempt.deadline, now)

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
        if question.kind in (QuizModelQuestion.Kind.MATCHING, QuizModelQuestion.Kind.ORDERING):
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
    parts: tuple[PairData | ItemData, ...] = (
        question.pairs if question.kind == QuizModelQuestion.Kind.MATCHING else question.items
    )
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


def attempt_state(attempt: Attempt | AttemptRow) -> AttemptState:
    """Read the attempt's content and answers through the ORM (pages other than the step's,
    the admin, scripts). Writes nothing."""
    row = attempt if isinstance(attempt, AttemptRow) else AttemptRow.of(attempt)
    version = QuizModel.objects.filter(pk=row.quiz_id).values_list("updated_at", flat=True).get()
    content = quiz_content_of(quiz_id=row.quiz_id, version=version)
    return state_of(row, content, Answer.objects.filter(attempt_id=row.pk).order_by())


# The step's read: a row per answer (one with empty answer columns before the first), each
# with the attempt and its quiz's content version.
_READ = """
SELECT a.id, a.user_id, a.quiz_id, a.started_at, a.finished_at, a.score, a.total,
       a.feedback, a.deadline, a.choice_order, a.question_order,
       q.updated_at,
       r.id, r.question_id, r.choice_id, r.correct_choice_id, r.choice_ids, r."key",
       r.number, r.fraction, r.is_correct, r.answered_at, r.text, r.arrangement
  FROM quizzes_attempt a
  JOIN quizzes_quiz q ON q.id = a.quiz_id
  LEFT JOIN quizzes_answer r ON r.attempt_id = a.id
 WHERE a.id = %s AND a.user_id = %s
"""

# The same when an answer is posted, with what the answer may write: the learner's review
# card for the question posted (`%s`, none when no id was posted: an older page), and whether
# they have a card for any question of the quiz (if not, a right answer moves none).
_READ_ANSWERING = """
SELECT a.id, a.user_id, a.quiz_id, a.started_at, a.finished_at, a.score, a.total,
       a.feedback, a.deadline, a.choice_order, a.question_order,
       q.updated_at,
       r.id, r.question_id, r.choice_id, r.correct_choice_id, r.choice_ids, r."key",
       r.number, r.fraction, r.is_correct, r.answered_at, r.text, r.arrangement,
       c.id, c.due, c.state, c.step, c.stability, c.difficulty, c.last_review, c.reviews,
       c.created_at,
       EXISTS (SELECT 1
                 FROM quizzes_reviewcard k
                 JOIN quizzes_question kq ON kq.id = k.question_id
                WHERE k.user_id = a.user_id AND kq.quiz_id = a.quiz_id)
  FROM quizzes_attempt a
  JOIN quizzes_quiz q ON q.id = a.quiz_id
  LEFT JOIN quizzes_answer r ON r.attempt_id = a.id
  LEFT JOIN quizzes_reviewcard c ON c.user_id = a.user_id AND c.question_id = %s
 WHERE a.id = %s AND a.user_id = %s
"""

# What the drivers return, made what the ORM gives: SQLite keeps datetimes as UTC without a
# zone (Django's converters give naive datetimes), decimals as floats where Django's
# converter does not read them (15 significant digits, as Django reads them), JSON as text;
# psycopg gives aware datetimes, Decimals, booleans, and JSON as text (Django registers
# jsonb's loader so).
_FIFTEEN_DIGITS = decimal.Context(prec=15)


def _when(value: Any) -> datetime | None:
    if value is None:
        return None
    parsed = value if isinstance(value, datetime) else parse_datetime(value)
    if parsed is None:
        raise ValueError(f"not a datetime: {value!r}")
    return parsed if timezone.is_aware(parsed) else parsed.replace(tzinfo=UTC)


def _at(value: Any) -> datetime:
    """A datetime column that is never NULL."""
    when = _when(value)
    if when is None:
        raise ValueError("a NULL where a time must be")
    return when


def _number(value: Any, places: int) -> Decimal:
    """A decimal column that is never NULL."""
    number = _decimal(value, places)
    if number is None:
        raise ValueError("a NULL where a number must be")
    return number


def _decimal(value: Any, places: int) -> Decimal | None:
    if value is None:
        return None
    if isinstance(value, float):
        value = _FIFTEEN_DIGITS.create_decimal_from_float(value)
    return Decimal(value).quantize(Decimal(1).scaleb(-places))


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


@dataclass(frozen=True, slots=True)
class _AnswerColumns:
    pk: int
    question_id: int
    choice_id: int | None
    correct_choice_id: int | None
    choice_ids: list[int]
    key: Any
    number: Decimal | None
    fraction: Decimal
    is_correct: bool
    answered_at: datetime
    text: str
    arrangement: Any


# The largest id a row can have (a 64-bit column); the drivers refuse larger numbers.
_LARGEST_ID = 2**63 - 1
# Answer.number and Answer.fraction's decimal places, score's: as the ORM quantizes them.
_NUMBER_PLACES, _FRACTION_PLACES, _SCORE_PLACES = 10, 4, 4


@dataclass(frozen=True, slots=True)
class Cards:
    """What the step's read says of the learner's review cards, when an answer is posted:
    their card for the question posted (`question_id`; `card` None: they have none), and
    whether they have one for any question of the quiz."""

    question_id: int | None
    card: ReviewCard | None
    quiz_has_cards: bool


def attempt_read(
    *, user_id: int, attempt_id: int, answering: bool = False, question_id: int | None = None
) -> tuple[AttemptState, Cards | None] | None:
    """The learner's own attempt `attempt_id` as it stands; with `answering`, also what the
    answer to `question_id` may write of their review cards (`Cards`). None when the learner
    has no such attempt (another learner's attempts do not exist for them). One statement;
    writes nothing."""
    if not 0 < attempt_id <= _LARGEST_ID:
        return None  # no row has it (a URL's number can be any size)
    if question_id is not None and not 0 < question_id <= _LARGEST_ID:
        question_id = None
    with connection.cursor() as cursor:
        if answering:
            cursor.execute(_READ_ANSWERING, [question_id, attempt_id, user_id])
        else:
            cursor.execute(_READ, [attempt_id, user_id])
        rows = cursor.fetchall()
    if not rows:
        return None
    first = rows[0]
    attempt = AttemptRow(
        pk=first[0],
        user_id=first[1],
        quiz_id=first[2],
        started_at=_at(first[3]),
        finished_at=_when(first[4]),
        score=_number(first[5], _SCORE_PLACES),
        total=first[6],
        feedback=first[7],
        deadline=_when(first[8]),
        choice_order=MappingProxyType(_json(first[9]) or {}),
        question_order=tuple(_json(first[10]) or ()),
    )
    content = quiz_content_of(quiz_id=attempt.quiz_id, version=_at(first[11]))
    answers = [
        _AnswerColumns(
            pk=row[12],
            question_id=row[13],
            choice_id=row[14],
            correct_choice_id=row[15],
            choice_ids=_json(row[16]) or [],
            key=_json(row[17]),
            number=_decimal(row[18], _NUMBER_PLACES),
            fraction=_number(row[19], _FRACTION_PLACES),
            is_correct=bool(row[20]),
            answered_at=_at(row[21]),
            text=row[22],
            arrangement=_json(row[23]),
        )
        for row in rows
        if row[12] is not None
    ]
    state = state_of(attempt, content, answers)
    if not answering:
        return state, None
    card = None
    if first[24] is not None and question_id is not None:
        card = ReviewCard(
            pk=first[24],
            user_id=user_id,
            question_id=question_id,
            due=_at(first[25]),
            state=first[26],
            step=first[27],
            stability=first[28],
            difficulty=first[29],
            last_review=_when(first[30]),
            reviews=first[31],
            created_at=_at(first[32]),
        )
    return state, Cards(question_id=question_id, card=card, quiz_has_cards=bool(first[33]))


def finished(state: AttemptState, *, at: datetime, score: Decimal, total: int) -> AttemptState:
    """`state` with its attempt finished (as written)."""
    attempt = dataclasses.replace(state.attempt, finished_at=at, score=score, total=total)
    return dataclasses.replace(state, attempt=attempt)
