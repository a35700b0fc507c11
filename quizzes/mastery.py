"""Mastery levels per quiz and per guide, from each question's latest answer.

The rule (also in the README), over the questions of a quiz (or of a guide's published
quizzes), reading every answer the learner gave — in quiz attempts and in reviews:
- Not started: no question answered yet.
- Attempted: fewer than 70 % of the questions have a right latest answer.
- Familiar: at least 70 %, not all.
- Proficient: every question's latest answer is right.
- Mastered: Proficient, and every question was answered right again at least a day after the
  learner first answered it right (in a review or a later attempt): it was remembered, not
  only worked out once.
A question never answered counts as not right.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, models
from django.db.models import Count, Max, Min, Q, QuerySet
from django.utils.translation import gettext_lazy as _

from .attempts.state import read_decimal, read_when
from .models import PROGRESS_COLUMNS, Answer, Question, Quiz, ReviewAnswer

FAMILIAR_SHARE = 0.7
RETAINED_AFTER = timedelta(days=1)


class Level(models.TextChoices):
    NOT_STARTED = "not-started", _("Not started")
    ATTEMPTED = "attempted", _("Attempted")
    FAMILIAR = "familiar", _("Familiar")
    PROFICIENT = "proficient", _("Proficient")
    MASTERED = "mastered", _("Mastered")


@dataclass
class QuestionRecord:
    """What the learner's answers to one question say, in time order."""

    answered: bool = False
    latest_right: bool = False
    latest_at: datetime | None = None
    first_right_at: datetime | None = None
    latest_right_at: datetime | None = None
    retained: bool = False

    def add(self, is_correct: bool, at: datetime) -> None:
        self.answered = True
        if self.latest_at is None or at >= self.latest_at:
            self.latest_at, self.latest_right = at, is_correct
        if is_correct:
            # In any order: right again at least a day after the first right answer.
            self.first_right_at = min(at, self.first_right_at or at)
            self.latest_right_at = max(at, self.latest_right_at or at)
            self.retained = self.latest_right_at - self.first_right_at >= RETAINED_AFTER


def level_of(records: Iterable[QuestionRecord], question_count: int) -> Level:
    """The level of `question_count` questions from the records of those answered."""
    records = list(records)
    if not records or not question_count:
        return Level.NOT_STARTED
    right = sum(1 for record in records if record.latest_right)
    if right < question_count * FAMILIAR_SHARE:
        return Level.ATTEMPTED
    if right < question_count:
        return Level.FAMILIAR
    if len(records) == question_count and all(record.retained for record in records):
        return Level.MASTERED
    return Level.PROFICIENT


_RECORD_COLUMNS = ("question_id", "question__quiz_id", "question__quiz__guide_id")


def _answers_in(user_id: int, scope: Q) -> QuerySet[Any, Any]:
    """Per question in `scope` (a filter on the answer's question) that the learner answered,
    in quiz attempts and in reviews (a UNION ALL of the two, a row per question from each):
    _RECORD_COLUMNS and the times of the latest answer, and of the first and the latest right
    one. Summed in the database: a row per question, however many answers."""
    right = Q(is_correct=True)
    times = {
        "latest_at": Max("answered_at"),
        "first_right_at": Min("answered_at", filter=right),
        "latest_right_at": Max("answered_at", filter=right),
    }
    # An exam's answers say nothing until it is finished (a level would tell which are right).
    answers = (
        Answer.objects.filter(scope, attempt__user_id=user_id)
        .exclude(attempt__feedback="deferred", attempt__finished_at__isnull=True)
        .order_by()
    )
    reviews = ReviewAnswer.objects.filter(scope, user_id=user_id).order_by()
    return (
        answers.values(*_RECORD_COLUMNS)
        .annotate(**times)
        .union(reviews.values(*_RECORD_COLUMNS).annotate(**times), all=True)
        .order_by()
    )


def _records(user_id: int, scope: Q) -> dict[int, tuple[int, int, QuestionRecord]]:
    """Per question answered in `scope`: its quiz, its guide and its record. One statement."""
    found: dict[int, tuple[int, int, QuestionRecord]] = {}
    for row in _answers_in(user_id, scope):
        _add(found, row)
    return found


def _add(found: dict[int, tuple[int, int, QuestionRecord]], row: Mapping[str, Any]) -> None:
    """A row of `_answers_in` added to the records of `found`."""
    question_id = row["question_id"]
    if question_id not in found:
        found[question_id] = (
            row["question__quiz_id"],
            row["question__quiz__guide_id"],
            QuestionRecord(),
        )
    record = found[question_id][2]
    record.answered = True
    # The latest answer: right when it is as late as the latest right one.
    if record.latest_at is None or row["latest_at"] > record.latest_at:
        record.latest_at, record.latest_right = row["latest_at"], False
    first, last = row["first_right_at"], row["latest_right_at"]
    if first is None:
        return
    if last >= record.latest_at:
        record.latest_right = True
    record.first_right_at = min(first, record.first_right_at or first)
    record.latest_right_at = max(last, record.latest_right_at or last)
    record.retained = record.latest_right_at - record.first_right_at >= RETAINED_AFTER


def quiz_levels(*, user_id: int, question_counts: Mapping[int, int]) -> dict[int, Level]:
    """Levels per quiz id, given each quiz's number of questions (which the caller has: the
    catalog counts them, the quiz page has the content). One statement."""
    if not question_counts:
        return {}
    records = _records(user_id, Q(question__quiz_id__in=list(question_counts)))
    per_quiz: dict[int, list[QuestionRecord]] = defaultdict(list)
    for quiz_id, _guide, record in records.values():
        per_quiz[quiz_id].append(record)
    return {
        quiz_id: level_of(per_quiz[quiz_id], count) for quiz_id, count in question_counts.items()
    }


# A page of the catalog for one learner, in one literal statement: their attempts of the page's
# quizzes (PROGRESS_COLUMNS) and, per question of those quizzes they answered, what
# `_answers_in` sums, by the same rule (an exam's answers only once it is finished). Written
# out because the ORM's building of that UNION of sums cost a page more CPU than running it.
_PAGE = """
SELECT 'attempt', a.quiz_id, NULL, a.finished_at, a.deadline, a.score, a.total, NULL, NULL, NULL
  FROM quizzes_attempt a
 WHERE a.user_id = %s AND a.quiz_id IN ({quizzes})
UNION ALL
SELECT 'answer', q.quiz_id, r.question_id, NULL, NULL, NULL, NULL, MAX(r.answered_at),
       MIN(CASE WHEN r.is_correct THEN r.answered_at END),
       MAX(CASE WHEN r.is_correct THEN r.answered_at END)
  FROM quizzes_answer r
  JOIN quizzes_attempt a ON a.id = r.attempt_id
  JOIN quizzes_question q ON q.id = r.question_id
 WHERE a.user_id = %s AND q.quiz_id IN ({quizzes})
   AND NOT (a.feedback = %s AND a.finished_at IS NULL)
 GROUP BY q.quiz_id, r.question_id
UNION ALL
SELECT 'review', q.quiz_id, v.question_id, NULL, NULL, NULL, NULL, MAX(v.answered_at),
       MIN(CASE WHEN v.is_correct THEN v.answered_at END),
       MAX(CASE WHEN v.is_correct THEN v.answered_at END)
  FROM quizzes_reviewanswer v
  JOIN quizzes_question q ON q.id = v.question_id
 WHERE v.user_id = %s AND q.quiz_id IN ({quizzes})
 GROUP BY q.quiz_id, v.question_id
"""
_SCORE = read_decimal(4)  # Attempt.score's places


def attempts_and_levels(
    *, user_id: int, question_counts: Mapping[int, int]
) -> tuple[list[dict[str, Any]], dict[int, Level]]:
    """The learner's attempts of the quizzes in `question_counts` (rows of PROGRESS_COLUMNS,
    for progress_of_attempts) and the levels of those they attempted, given each quiz's number
    of questions, as `quiz_levels` gives them. One statement."""
    if not question_counts:
        return [], {}
    quiz_ids = list(question_counts)
    sql = _PAGE.format(quizzes=", ".join(["%s"] * len(quiz_ids)))
    params = [user_id, *quiz_ids, user_id, *quiz_ids, Quiz.Feedback.DEFERRED.value, user_id]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *quiz_ids])
        rows = cursor.fetchall()
    attempts: list[dict[str, Any]] = []
    found: dict[int, tuple[int, int, QuestionRecord]] = {}
    for kind, quiz_id, question_id, finished, deadline, score, total, *times in rows:
        if kind == "attempt":
            values = (quiz_id, read_when(finished), read_when(deadline), _SCORE(score), total)
            attempts.append(dict(zip(PROGRESS_COLUMNS, values, strict=True)))
            continue
        latest, first_right, latest_right = (read_when(value) for value in times)
        row = {
            "question_id": question_id,
            "question__quiz_id": quiz_id,
            "question__quiz__guide_id": None,
            "latest_at": latest,
            "first_right_at": first_right,
            "latest_right_at": latest_right,
        }
        _add(found, row)
    attempted = {attempt["quiz_id"] for attempt in attempts}
    per_quiz: dict[int, list[QuestionRecord]] = defaultdict(list)
    for quiz_id, _guide, record in found.values():
        per_quiz[quiz_id].append(record)
    levels = {
        quiz_id: level_of(per_quiz[quiz_id], question_counts[quiz_id]) for quiz_id in attempted
    }
    return attempts, levels


def answered_quiz_levels(*, user_id: int) -> dict[int, Level]:
    """Levels of every published quiz the learner answered a question of (any other quiz is
    Not started). Two statements, whatever the number of quizzes: the answers, and the
    question counts of the quizzes answered."""
    per_quiz: dict[int, list[QuestionRecord]] = defaultdict(list)
    for quiz_id, _guide, record in _records(user_id, Q(question__quiz__is_published=True)).values():
        per_quiz[quiz_id].append(record)
    if not per_quiz:
        return {}
    counts = Question.objects.filter(quiz_id__in=list(per_quiz)).counts_by_quiz()
    return {
        quiz_id: level_of(records, counts.get(quiz_id, 0)) for quiz_id, records in per_quiz.items()
    }


def guide_levels(*, user_id: int, guide_ids: Iterable[int]) -> dict[int, Level]:
    """Levels per guide id, over the questions of the guide's published quizzes. Two
    statements: the questions per guide, and the answers."""
    guide_ids = list(guide_ids)
    if not guide_ids:
        return {}
    published = Q(quiz__guide_id__in=guide_ids, quiz__is_published=True)
    counts = dict(
        Question.objects.filter(published)
        .order_by()
        .values("quiz__guide_id")
        .annotate(questions=Count("pk"))
        .values_list("quiz__guide_id", "questions")
    )
    per_guide: dict[int, list[QuestionRecord]] = defaultdict(list)
    scope = Q(question__quiz__guide_id__in=guide_ids, question__quiz__is_published=True)
    for _quiz, guide_id, record in _records(user_id, scope).values():
        per_guide[guide_id].append(record)
    return {
        guide_id: level_of(per_guide[guide_id], counts.get(guide_id, 0)) for guide_id in guide_ids
    }
