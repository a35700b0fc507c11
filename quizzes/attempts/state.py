"""An attempt as the rules read it, and its reading: plain data (`AttemptRow`, its answers as
`RecordedAnswer`s) over its quiz's content version (quizzes/content.py); where each question
stands in the attempt's order, and each one's choices, matches or items in the attempt's own
order (what the rules make of it is `rules.py`'s).

Read three ways: the step's attempt in one statement (`attempt_read`), any attempt through the
ORM (`attempt_state`), and a quiz's start rules for a learner (`quiz_availability`).

The step's read is one literal SQL statement: the learner's attempt joined to its quiz's
version, its answers and, when an answer is posted with its question's id, the learner's review
card for that question (which the answer may move). Measured against the same read through the
ORM (two statements, three with the card: bench/ab.py), the ORM's costs 55-60 % more CPU on a
question step and 43-63 % more on an answer. Its columns are listed once (`_ATTEMPT`,
`_ANSWER`, `_CARD`) and read by name; `tests/quizzes/test_attempt_read.py` checks it against
the ORM's reading of the same rows, every kind of answer, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import dataclasses
import decimal
import functools
import json
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from django.db import connection
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from .. import confidence as confidence_rules
from ..content import (
    ChoiceData,
    ItemData,
    PairData,
    QuestionData,
    QuizContent,
    QuizData,
    quiz_content_of,
)
from ..models import Answer, Attempt, QuizOverride, ReviewCard
from ..models import Quiz as QuizModel
from . import rules
from .responses import ChoiceVerdict, RecordedAnswer, unanswered_verdicts
from .rules import Availability

if TYPE_CHECKING:
    from django.contrib.auth.models import User


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
    # Confidence asked with each answer, and marked by (quizzes/confidence.py); the CBM sum
    # once finished under marking.
    confidence: str = confidence_rules.OFF
    cbm_score: Decimal | None = None
    # A regrade's change of the score (`AttemptFacts.shows_regrade`).
    regraded_at: datetime | None = None
    score_before_regrade: Decimal | None = None

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
            confidence=attempt.confidence,
            cbm_score=attempt.cbm_score,
            regraded_at=attempt.regraded_at,
            score_before_regrade=attempt.score_before_regrade,
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

    def confidence_summary(self) -> confidence_rules.Summary | None:
        """How the learner's levels went (per level, answers and right ones; the CBM average
        under marking), once feedback may show; None where the attempt did not ask."""
        if self.attempt.confidence == confidence_rules.OFF or not self.shows_feedback:
            return None
        return confidence_rules.summary(
            ((answer.is_correct, answer.confidence) for answer in self.answers.values()),
            cbm=self.attempt.cbm_score,
            total=self.attempt.total,
        )

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


def finished(
    state: AttemptState,
    *,
    at: datetime,
    score: Decimal,
    total: int,
    cbm_score: Decimal | None = None,
) -> AttemptState:
    """`state` with its attempt finished (as written)."""
    attempt = dataclasses.replace(
        state.attempt, finished_at=at, score=score, total=total, cbm_score=cbm_score
    )
    return dataclasses.replace(state, attempt=attempt)


# --- Reading an attempt -------------------------------------------------------------------


def attempt_state(attempt: Attempt | AttemptRow) -> AttemptState:
    """Read the attempt's content and answers through the ORM (pages other than the step's,
    the admin, scripts). Writes nothing."""
    row = attempt if isinstance(attempt, AttemptRow) else AttemptRow.of(attempt)
    version = QuizModel.objects.filter(pk=row.quiz_id).values_list("updated_at", flat=True).get()
    content = quiz_content_of(quiz_id=row.quiz_id, version=version)
    return state_of(row, content, Answer.objects.filter(attempt_id=row.pk).order_by())


def quiz_availability(
    *, quiz: QuizModel | QuizData, user: User, now: datetime | None = None
) -> Availability:
    """The quiz's start rules for this learner now. One statement for a quiz without limits
    (the attempt in progress); with a time or attempt limit, two more (the override, the
    count)."""
    now = now or timezone.now()
    attempts = Attempt.objects.filter(user_id=user.pk, quiz_id=quiz.pk)
    in_progress = attempts.in_progress().first()
    time_limit, allowed, used = quiz.time_limit, quiz.max_attempts, 0
    if time_limit is not None or allowed is not None:
        override = QuizOverride.objects.filter(user_id=user.pk, quiz_id=quiz.pk).first()
        if override is not None:
            if time_limit is not None and override.extra_time:
                time_limit += override.extra_time
            if allowed is not None:
                allowed += override.extra_attempts
    if allowed is not None:
        used = attempts.count()
    return Availability(
        quiz=quiz,
        now=now,
        time_limit=time_limit,
        attempts_allowed=allowed,
        attempts_used=used,
        in_progress=in_progress,
    )


# --- The step's statement -------------------------------------------------------------------

# What the drivers return, made what the ORM gives: SQLite keeps datetimes as UTC without a
# zone (Django's converters give naive datetimes), decimals as floats where Django's
# converter does not read them (15 significant digits, as Django reads them), JSON as text;
# psycopg gives aware datetimes, Decimals, booleans, and JSON as text (Django registers
# jsonb's loader so).
_FIFTEEN_DIGITS = decimal.Context(prec=15)


def read_when(value: Any) -> datetime | None:
    """A datetime column's value as either driver gives it, aware (shared with
    `mastery.attempts_and_levels`, the other literal statement)."""
    if value is None:
        return None
    parsed = value if isinstance(value, datetime) else parse_datetime(value)
    if parsed is None:
        raise ValueError(f"not a datetime: {value!r}")
    return parsed if timezone.is_aware(parsed) else parsed.replace(tzinfo=UTC)


def read_decimal(places: int) -> Callable[[Any], Decimal | None]:
    """A reader of a decimal column with `places` places, as either driver gives it."""
    exponent = Decimal(1).scaleb(-places)

    def read(value: Any) -> Decimal | None:
        if value is None:
            return None
        if isinstance(value, float):
            value = _FIFTEEN_DIGITS.create_decimal_from_float(value)
        return Decimal(value).quantize(exponent)

    return read


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str | bytes) else value


def _as_is(value: Any) -> Any:
    return value


# Every column of the statement, once: (its SQL, the name it is read by, how a value of the
# driver's becomes the ORM's). Answer.number has 10 decimal places, fractions and scores 4.
_ATTEMPT = [
    ("a.id", "pk", _as_is),
    ("a.user_id", "user_id", _as_is),
    ("a.quiz_id", "quiz_id", _as_is),
    ("a.started_at", "started_at", read_when),
    ("a.finished_at", "finished_at", read_when),
    ("a.score", "score", read_decimal(4)),
    ("a.total", "total", _as_is),
    ("a.feedback", "feedback", _as_is),
    ("a.deadline", "deadline", read_when),
    ("a.choice_order", "choice_order", _json),
    ("a.question_order", "question_order", _json),
    ("a.confidence", "confidence", _as_is),
    ("a.cbm_score", "cbm_score", read_decimal(4)),
    ("a.regraded_at", "regraded_at", read_when),
    ("a.score_before_regrade", "score_before_regrade", read_decimal(4)),
    ("q.updated_at", "version", read_when),
]
_ANSWER = [
    ("r.id", "answer_pk", _as_is),
    ("r.question_id", "question_id", _as_is),
    ("r.choice_id", "choice_id", _as_is),
    ("r.correct_choice_id", "correct_choice_id", _as_is),
    ("r.choice_ids", "choice_ids", _json),
    ('r."key"', "key", _json),
    ("r.number", "number", read_decimal(10)),
    ("r.fraction", "fraction", read_decimal(4)),
    ("r.is_correct", "is_correct", bool),
    ("r.answered_at", "answered_at", read_when),
    ("r.text", "text", _as_is),
    ("r.arrangement", "arrangement", _json),
    ("r.confidence", "answer_confidence", _as_is),
]
_CARD = [
    ("c.id", "card_pk", _as_is),
    ("c.due", "due", read_when),
    ("c.state", "state", _as_is),
    ("c.step", "step", _as_is),
    ("c.stability", "stability", _as_is),
    ("c.difficulty", "difficulty", _as_is),
    ("c.last_review", "last_review", read_when),
    ("c.reviews", "reviews", _as_is),
    ("c.created_at", "created_at", read_when),
    ("c.sure_miss", "sure_miss", bool),
]


def _read(
    row: tuple[Any, ...], at: dict[str, int], columns: list[tuple[str, str, Any]]
) -> dict[str, Any]:
    """`row`'s values of `columns`, by name (`at`: each name's index in the row)."""
    return {name: convert(row[at[name]]) for _sql, name, convert in columns}


def _select(columns: list[tuple[str, str, Any]]) -> str:
    return ",\n       ".join(f'{sql} AS "{name}"' for sql, name, _convert in columns)


# A row per answer (one with empty answer columns before the first), each with the attempt and
# its quiz's content version; when an answer is posted, with the learner's card for the
# question posted (the first %s; none when no id was posted: an older page).
_READ = f"""
SELECT {_select(_ATTEMPT + _ANSWER)}
  FROM quizzes_attempt a
  JOIN quizzes_quiz q ON q.id = a.quiz_id
  LEFT JOIN quizzes_answer r ON r.attempt_id = a.id
 WHERE a.id = %s AND a.user_id = %s
"""
_READ_ANSWERING = f"""
SELECT {_select(_ATTEMPT + _ANSWER + _CARD)}
  FROM quizzes_attempt a
  JOIN quizzes_quiz q ON q.id = a.quiz_id
  LEFT JOIN quizzes_answer r ON r.attempt_id = a.id
  LEFT JOIN quizzes_reviewcard c ON c.user_id = a.user_id AND c.question_id = %s
 WHERE a.id = %s AND a.user_id = %s
"""

# The largest id a row can have (a 64-bit column); the drivers refuse larger numbers.
_LARGEST_ID = 2**63 - 1


@dataclass(frozen=True, slots=True)
class _AnswerRow:
    """An answer's columns as `RecordedAnswer.of` reads them."""

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
    confidence: int | None


@dataclass(frozen=True, slots=True)
class CardRead:
    """The learner's review card for the question posted (`question_id`), read with the
    attempt when an answer is posted: `card` None when they have none."""

    question_id: int
    card: ReviewCard | None


def attempt_read(
    *, user_id: int, attempt_id: int, answering: bool = False, question_id: int | None = None
) -> tuple[AttemptState, CardRead | None] | None:
    """The learner's own attempt `attempt_id` as it stands; `answering` a question posted by
    its id (`question_id`), also their review card for it. None when the learner has no such
    attempt (another learner's attempts do not exist for them). One statement; writes
    nothing."""
    if not 0 < attempt_id <= _LARGEST_ID:
        return None  # no row has it (a URL's number can be any size)
    if question_id is not None and not 0 < question_id <= _LARGEST_ID:
        question_id = None
    with_card = answering and question_id is not None
    with connection.cursor() as cursor:
        if with_card:
            cursor.execute(_READ_ANSWERING, [question_id, attempt_id, user_id])
        else:
            cursor.execute(_READ, [attempt_id, user_id])
        at = {column[0]: index for index, column in enumerate(cursor.description)}
        rows = cursor.fetchall()
    if not rows:
        return None
    first = _read(rows[0], at, _ATTEMPT)
    attempt = AttemptRow(
        pk=first["pk"],
        user_id=first["user_id"],
        quiz_id=first["quiz_id"],
        started_at=first["started_at"],
        finished_at=first["finished_at"],
        score=first["score"],
        total=first["total"],
        feedback=first["feedback"],
        deadline=first["deadline"],
        choice_order=MappingProxyType(first["choice_order"] or {}),
        question_order=tuple(first["question_order"] or ()),
        confidence=first["confidence"],
        cbm_score=first["cbm_score"],
        regraded_at=first["regraded_at"],
        score_before_regrade=first["score_before_regrade"],
    )
    content = quiz_content_of(quiz_id=attempt.quiz_id, version=first["version"])
    answers = []
    for row in rows:
        if row[at["answer_pk"]] is None:
            continue  # the attempt's row before its first answer
        answer = _read(row, at, _ANSWER)
        answers.append(
            _AnswerRow(
                pk=answer["answer_pk"],
                question_id=answer["question_id"],
                choice_id=answer["choice_id"],
                correct_choice_id=answer["correct_choice_id"],
                choice_ids=answer["choice_ids"] or [],
                key=answer["key"],
                number=answer["number"],
                fraction=answer["fraction"],
                is_correct=answer["is_correct"],
                answered_at=answer["answered_at"],
                text=answer["text"],
                arrangement=answer["arrangement"],
                confidence=answer["answer_confidence"],
            )
        )
    state = state_of(attempt, content, answers)
    if not with_card:
        return state, None
    assert question_id is not None
    columns = _read(rows[0], at, _CARD)
    card_pk = columns.pop("card_pk")
    card = None
    if card_pk is not None:
        card = ReviewCard(pk=card_pk, user_id=user_id, question_id=question_id, **columns)
    return state, CardRead(question_id=question_id, card=card)
