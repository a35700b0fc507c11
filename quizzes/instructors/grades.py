"""The grades report of a quiz: a row per attempt, a column per question with its mark.

The filters choose the attempts (each learner's first, best or last, or all of them; finished,
in progress or both); the report pages through them in a fixed number of queries however many
there are (the page's attempts, their answers, the questions, the foot's sums per question, the
histogram's counts per score), and the CSV streams them in chunks.

A question's mark in an attempt comes from `cell_mark` (Python) and `MARK` (the same in SQL):
1 for a right answer, 0 for a wrong one. When questions with partial credit arrive, those two
change and the rest follows.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import timedelta
from decimal import Decimal
from itertools import batched
from urllib.parse import urlencode

from django.core.paginator import Page, Paginator
from django.db.models import (
    Case,
    Count,
    F,
    FloatField,
    Q,
    QuerySet,
    Sum,
    When,
    Window,
)
from django.db.models.functions import Cast, NullIf, RowNumber
from django.http import QueryDict
from django.template.defaultfilters import floatformat
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext as _

from .. import confidence
from ..confidence import LEVEL_NAMES
from ..models import Answer, Attempt, Question, Quiz
from .exports import csv_cell

PER_PAGE = 50
CSV_CHUNK = 1000

# --- Marks: the one place that says what an answer is worth --------------------------------

FULL_MARK = 1
# The mark of an answer in SQL, for sums over many answers: its fraction (partial credit).
MARK = F("fraction")
# The answer's column that `cell_mark` reads, for queries that load no more than they need.
MARK_FIELD = "fraction"


def cell_mark(value: Decimal) -> int | Decimal:
    """What an answer whose MARK_FIELD holds `value` earned: 0 to FULL_MARK."""
    return value


@dataclass(frozen=True)
class Mark:
    """A cell of the grid: the mark, and whether it is all, none or part of the full mark."""

    value: int | Decimal
    # How sure the learner said they were (quizzes/confidence.py); None where not asked.
    level: int | None = None

    @property
    def full(self) -> bool:
        return self.value >= FULL_MARK

    @property
    def none(self) -> bool:
        return self.value <= 0

    @property
    def cell(self) -> str:
        """The grid's cell: a symbol for the eye and a word for a screen reader. Rendered here
        rather than in the template: a page has hundreds of cells."""
        if self.full:
            cell = format_html(_CELL, "mark--right", "✓", _("Right"))
        elif self.none:
            cell = format_html(_CELL, "mark--wrong", "✗", _("Wrong"))
        else:
            cell = format_html('<span class="mark--part">{}</span>', floatformat(self.value, "-2"))
        if self.level is None:
            return cell
        return format_html(_LEVEL, cell, self.level, LEVEL_NAMES[self.level])


_CELL = '<span class="{}" aria-hidden="true">{}</span><span class="visually-hidden">{}</span>'
# A mark with the level given (1 to 3), the level's words for a screen reader.
_LEVEL = (
    '{}<sup class="mark__level" aria-hidden="true">{}</sup>'
    '<span class="visually-hidden">, {}</span>'
)


# --- Which attempts ------------------------------------------------------------------------

WHICH = ("all", "first", "best", "last")
STATES = ("all", "finished", "in_progress")
ORDERS = ("-started", "started", "-score", "score")


@dataclass(frozen=True)
class ReportFilters:
    """The report's query string; anything unknown falls back to the default."""

    which: str = "all"
    state: str = "all"
    order: str = "-started"

    @classmethod
    def from_query(cls, query: QueryDict) -> ReportFilters:
        def pick(name: str, allowed: tuple[str, ...]) -> str:
            value = query.get(name, "")
            return value if value in allowed else allowed[0]

        return cls(
            which=pick("attempts", WHICH),
            state=pick("state", STATES),
            order=pick("o", ORDERS),
        )

    @property
    def chooses_every_attempt(self) -> bool:
        """Every attempt of the quiz, whichever and in whatever state."""
        return self.which == "all" and self.state == "all"

    def query(self, **changes: str) -> str:
        """This report's query string with `changes` (which, state, order), from page 1."""
        filters = replace(self, **changes)
        return "?" + urlencode(
            {"attempts": filters.which, "state": filters.state, "o": filters.order}
        )


def _ratio():
    """Score out of total for a finished attempt; NULL in progress (no score yet)."""
    ratio = Cast(F("score"), FloatField()) / NullIf(Cast(F("total"), FloatField()), 0.0)
    return Case(When(finished_at__isnull=False, then=ratio), default=None)


def report_attempts(quiz: Quiz, filters: ReportFilters) -> QuerySet[Attempt]:
    """The attempts the filters choose, sorted as asked (ties: the earlier-started first)."""
    attempts = Attempt.objects.filter(quiz=quiz)
    if filters.state == "finished":
        attempts = attempts.finished()
    elif filters.state == "in_progress":
        attempts = attempts.in_progress()
    if filters.which != "all":
        rank = {
            "first": [F("started_at").asc(), F("pk").asc()],
            "last": [F("started_at").desc(), F("pk").desc()],
            # As the learner's history ranks them: the higher share, then the more recent.
            "best": [F("ratio").desc(nulls_last=True), F("finished_at").desc(), F("pk").desc()],
        }[filters.which]
        numbered = attempts.annotate(
            ratio=_ratio(),
            number=Window(RowNumber(), partition_by=F("user"), order_by=rank),
        )
        attempts = Attempt.objects.filter(pk__in=numbered.filter(number=1).values("pk"))
    descending = filters.order.startswith("-")
    if filters.order.endswith("score"):
        # No score in progress: those last, whichever way.
        key = F("ratio").desc(nulls_last=True) if descending else F("ratio").asc(nulls_last=True)
    else:
        # Never empty; as plain as attempt_report_idx (quiz, started_at descending, id), so that
        # a page is read from it, not sorted out of the quiz's every attempt.
        key = F("started_at").desc() if descending else F("started_at").asc()
    return attempts.annotate(ratio=_ratio()).order_by(key, "started_at", "pk")


# --- The report ----------------------------------------------------------------------------


# A question the attempt did not draw (Quiz.questions_per_attempt): neither right nor wrong.
NOT_DRAWN = "not-drawn"


def drew(attempt: Attempt, question: Question) -> bool:
    """Whether `attempt` took `question` (an attempt that drew none took every question)."""
    return _drew(attempt.question_order, question.pk)


def _drew(question_order: list[int], question_id: int) -> bool:
    return not question_order or question_id in question_order


@dataclass
class Row:
    attempt: Attempt
    # Per question in quiz order; None: not answered; NOT_DRAWN: not one of the attempt's.
    marks: list[Mark | str | None]

    @property
    def duration(self) -> timedelta | None:
        if self.attempt.finished_at is None:
            return None
        return self.attempt.finished_at - self.attempt.started_at

    @property
    def duration_text(self) -> str:
        """H:MM:SS, the same in both languages."""
        if self.duration is None:
            return ""
        seconds = max(int(self.duration.total_seconds()), 0)
        return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


@dataclass
class QuestionFoot:
    question: Question
    answers: int
    marks: int | Decimal

    @property
    def average(self) -> float | None:
        """Mean mark out of FULL_MARK, over the chosen attempts that answered it."""
        return float(self.marks) / self.answers if self.answers else None

    @property
    def average_percent(self) -> int | None:
        average = self.average
        return None if average is None else round(100 * average / FULL_MARK)


@dataclass
class Bar:
    low: int  # Percent, inclusive.
    high: int  # Percent: exclusive, except 100 in the last band.
    count: int
    x: float = 0.0
    y: float = 0.0
    height: float = 0.0
    width: float = 0.0

    @property
    def middle(self) -> float:
        return self.x + self.width / 2


@dataclass
class Histogram:
    """The finished attempts' scores in ten bands of ten percent, placed on an SVG canvas."""

    bars: list[Bar]
    attempts_total: int = 0  # In progress too.
    average_percent: int | None = None  # Mean score of the attempts counted.
    width: int = 480
    height: int = 200
    top: int = 20  # Room for the counts above the bars.
    bottom: int = 24  # Room for the bands' labels below them.
    side: int = 8

    @property
    def baseline(self) -> int:
        return self.height - self.bottom

    @property
    def label_y(self) -> int:
        return self.height - 6

    @property
    def right(self) -> int:
        return self.width - self.side

    @property
    def total(self) -> int:
        return sum(bar.count for bar in self.bars)


BANDS = 10


def score_histogram(attempts: QuerySet[Attempt], *, rtl: bool = False) -> Histogram:
    """Counts of finished attempts per score band; in right-to-left, 0 % is on the right.

    `attempts_total` counts the attempts in progress too: the report's paginator needs no
    query of its own.
    """
    counts = [0] * BANDS
    percent_sum = 0.0
    attempts_total = 0
    rows = (
        attempts.order_by()
        .values("score", "total", in_progress=Q(finished_at__isnull=True))
        .annotate(count=Count("pk"))
    )
    for row in rows:
        attempts_total += row["count"]
        if row["in_progress"] or not row["total"]:
            continue
        band = min(BANDS * row["score"] // row["total"], BANDS - 1)
        counts[int(band)] += row["count"]
        percent_sum += float(100 * row["score"] / row["total"] * row["count"])
    chart = Histogram(bars=[], attempts_total=attempts_total)
    if sum(counts):
        chart.average_percent = round(percent_sum / sum(counts))
    slot = (chart.width - 2 * chart.side) / BANDS
    usable = chart.baseline - chart.top
    tallest = max(counts) or 1
    for band, count in enumerate(counts):
        step = BANDS - 1 - band if rtl else band
        height = usable * count / tallest
        chart.bars.append(
            Bar(
                low=band * 100 // BANDS,
                high=(band + 1) * 100 // BANDS,
                count=count,
                x=chart.side + step * slot + slot * 0.1,
                width=slot * 0.8,
                y=chart.baseline - height,
                height=height,
            )
        )
    return chart


@dataclass
class GradesReport:
    quiz: Quiz
    filters: ReportFilters
    questions: list[Question]
    page: Page
    rows: list[Row]
    foot: list[QuestionFoot]
    histogram: Histogram


def _marks_by_attempt(attempt_ids: list[int]) -> dict[int, dict[int, Mark]]:
    """Per attempt, per question answered: its mark, for the report's page."""
    return {
        attempt_id: {
            question_id: Mark(cell_mark(value), level)
            for question_id, (value, level) in answered.items()
        }
        for attempt_id, answered in _raw_marks(attempt_ids).items()
    }


def question_feet(
    attempts: QuerySet[Attempt], questions: list[Question], *, every_attempt: bool = False
) -> list[QuestionFoot]:
    """Per question: how many of the chosen attempts answered it, and their marks' sum.

    The answers are found by their questions (an index), not by scanning every answer for the
    chosen attempts; with `every_attempt` (the filters choose all of the quiz's), the answers
    to its questions are those of its attempts, and the attempts are not read at all."""
    answers = Answer.objects.filter(question_id__in=[question.pk for question in questions])
    if not every_attempt:
        answers = answers.filter(attempt__in=attempts.order_by().values("pk"))
    sums = {
        row["question_id"]: row
        for row in answers.order_by()
        .values("question_id")
        .annotate(answers=Count("pk"), marks=Sum(MARK))
    }
    return [
        QuestionFoot(
            question=question,
            answers=sums.get(question.pk, {}).get("answers", 0),
            marks=sums.get(question.pk, {}).get("marks") or 0,
        )
        for question in questions
    ]


def grades_report(
    quiz: Quiz, filters: ReportFilters, *, page_number=None, rtl: bool = False
) -> GradesReport:
    attempts = report_attempts(quiz, filters)
    histogram = score_histogram(attempts, rtl=rtl)
    paginator = Paginator(attempts.select_related("user"), PER_PAGE)
    paginator.count = histogram.attempts_total  # Counted with the histogram's query.
    page = paginator.get_page(page_number)
    questions = list(quiz.questions.order_by("position"))
    marks = _marks_by_attempt([attempt.pk for attempt in page.object_list])
    rows = [
        Row(
            attempt=attempt,
            marks=[
                marks.get(attempt.pk, {}).get(question.pk) if drew(attempt, question) else NOT_DRAWN
                for question in questions
            ],
        )
        for attempt in page.object_list
    ]
    return GradesReport(
        quiz=quiz,
        filters=filters,
        questions=questions,
        page=page,
        rows=rows,
        foot=question_feet(attempts, questions, every_attempt=filters.chooses_every_attempt),
        histogram=histogram,
    )


# --- The same as CSV -----------------------------------------------------------------------


def grades_csv_rows(quiz: Quiz, filters: ReportFilters) -> Iterator[list]:
    """The report's rows as CSV, a column per question (its mark; empty when unanswered).

    Attempts come from the database cursor in chunks, each chunk's answers in one query: a
    report of any size streams in bounded memory.
    """
    questions = list(quiz.questions.order_by("position"))
    chosen = report_attempts(quiz, filters)
    # With confidence (asked now, or by an attempt reported): each answer's level in a column
    # of its own after its mark, and the certainty-based sum and grade (quizzes/confidence.py).
    levels = quiz.confidence != confidence.OFF or chosen.exclude(confidence=confidence.OFF).exists()
    yield [
        "attempt_id",
        "learner",
        "state",
        "started_at",
        "finished_at",
        "duration_seconds",
        "score",
        "total",
        *(["cbm_score", "grade"] if levels else []),
        *(
            column
            for question in questions
            for column in (
                [f"Q{question.position}", f"Q{question.position} confidence"]
                if levels
                else [f"Q{question.position}"]
            )
        ),
    ]
    # Rows as tuples, not model instances: ten thousand attempts stream in about a second.
    attempts = chosen.values_list(
        "pk",
        "user__username",
        "started_at",
        "finished_at",
        "score",
        "total",
        "question_order",
        "cbm_score",
    )
    question_ids = [question.pk for question in questions]
    for chunk in batched(attempts.iterator(chunk_size=CSV_CHUNK), CSV_CHUNK):
        rows = _csv_rows(chunk, question_ids, levels=levels)
        del chunk  # Gone before the next chunk is read: one chunk in memory at a time.
        yield from rows


def _csv_rows(chunk: tuple[tuple, ...], question_ids: list[int], *, levels: bool) -> Iterator[list]:
    marks = _raw_marks([row[0] for row in chunk])
    zone = timezone.get_current_timezone()
    # A mark is one of a few values (0, 1, a share): each written once, not once a cell.
    mark_cells: dict[Decimal, str | int] = {}
    not_drawn = ["not drawn", "not drawn"] if levels else ["not drawn"]
    for pk, username, started_at, finished_at, score, total, order, cbm in chunk:
        finished = finished_at is not None
        cells: list = [
            pk,
            csv_cell(username),
            "finished" if finished else "in_progress",
            started_at.astimezone(zone).isoformat(),
            finished_at.astimezone(zone).isoformat() if finished else "",
            int((finished_at - started_at).total_seconds()) if finished else "",
            csv_cell(score) if finished else "",
            csv_cell(total) if finished else "",
        ]
        if levels:
            cells += [
                csv_cell(cbm) if finished else "",
                csv_cell(confidence.grade_marks(score, cbm, total)) if finished else "",
            ]
        mine = marks.get(pk, {})
        drawn = set(order) if order else None
        for question_id in question_ids:
            if drawn is not None and question_id not in drawn:
                cells += not_drawn
                continue
            mark = mine.get(question_id)
            if mark is None:
                cells += ["", ""] if levels else [""]
                continue
            value, level = mark
            cell = mark_cells.get(value)
            if cell is None:
                cell = mark_cells[value] = csv_cell(cell_mark(value))
            cells.append(cell)
            if levels:
                cells.append("" if level is None else level)
        yield cells


def _raw_marks(attempt_ids: list[int]) -> dict[int, dict[int, tuple[Decimal, int | None]]]:
    """Per attempt, per question answered: its MARK_FIELD and level, as read (one query, no
    model instances: a CSV of ten thousand attempts reads eighty thousand answers)."""
    marks: dict[int, dict[int, tuple[Decimal, int | None]]] = {}
    answers = (
        Answer.objects.filter(attempt_id__in=attempt_ids)
        .order_by()
        .values_list("attempt_id", "question_id", MARK_FIELD, "confidence")
    )
    for attempt_id, question_id, value, level in answers:
        marks.setdefault(attempt_id, {})[question_id] = (value, level)
    return marks


def learner_attempts(user) -> QuerySet[Attempt]:
    """A learner's attempts on every quiz, newest first, for the instructors' record."""
    return Attempt.objects.filter(user=user).select_related("quiz").order_by("-started_at", "-pk")
