"""A learner's history in numbers: best and latest score per quiz, and scores over time."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, F, Q, Window
from django.db.models.functions import RowNumber

from .mastery import Level, guide_levels
from .models import Attempt, Guide, Quiz

# The canvas (SVG units): room at the start for the percent labels, at the foot for the dates.
CHART_WIDTH = 640
CHART_HEIGHT = 200
CHART_PADDING = 16
CHART_LABELS = 56
CHART_FOOT = 36
CHART_ATTEMPTS = 30
# One or two scores make no trend: a dot alone in an empty card says less than a bar.
CHART_LINE_MIN_POINTS = 3


@dataclass
class QuizSummary:
    quiz: Quiz
    best: Attempt
    latest: Attempt
    attempts: int


def per_quiz(user) -> list[QuizSummary]:
    """Per quiz the learner finished: the best attempt (by percent), the latest, and a count.

    Ranked in the database over the learner's finished attempts, their ids and ranks alone
    (a learner of 2,000 attempts sorts narrow rows, not 2,000 attempts with their quiz and
    guide); then the two attempts per quiz it names are read with their quiz and guide. Two
    statements, whatever the number of attempts."""
    by_quiz = {"partition_by": F("quiz_id")}
    ranked = (
        Attempt.objects.filter(user=user)
        .best_first()
        .annotate(
            best_rank=Window(
                RowNumber(),
                order_by=[F("ratio").desc(nulls_last=True), F("finished_at").desc()],
                **by_quiz,
            ),
            latest_rank=Window(
                RowNumber(), order_by=[F("finished_at").desc(), F("pk").desc()], **by_quiz
            ),
            finished=Window(Count("pk"), **by_quiz),
        )
        .filter(Q(best_rank=1) | Q(latest_rank=1))
        .order_by()
        .values_list("pk", "best_rank", "latest_rank", "finished")
    )
    ranks = list(ranked)
    attempts = Attempt.objects.select_related("quiz__guide").in_bulk([pk for pk, *_ in ranks])
    summaries: dict[int, QuizSummary] = {}
    for pk, best_rank, latest_rank, finished in ranks:
        attempt = attempts[pk]
        summary = summaries.get(attempt.quiz_id)
        if summary is None:
            summary = summaries[attempt.quiz_id] = QuizSummary(
                attempt.quiz, attempt, attempt, finished
            )
        if best_rank == 1:
            summary.best = attempt
        if latest_rank == 1:
            summary.latest = attempt
    return sorted(summaries.values(), key=lambda s: s.latest.finished_at, reverse=True)


@dataclass
class ChartPoint:
    x: float
    y: float
    attempt: Attempt


@dataclass
class ChartTick:
    """A date under the line: the first attempt's, the last one's, one between."""

    x: float
    attempt: Attempt
    anchor: str  # SVG text-anchor, so that the end labels stay inside the canvas


@dataclass
class ScoreChart:
    """Scores over time, oldest first: from the left in English, from the right in Arabic (as
    the page reads), the percent labels on the side the line starts."""

    points: list[ChartPoint]
    right_to_left: bool = False
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT
    padding: int = CHART_PADDING
    labels: int = CHART_LABELS
    foot: int = CHART_FOOT
    ticks: list[ChartTick] = field(default_factory=list)

    @property
    def is_line(self) -> bool:
        """Enough attempts for a line to show a trend; fewer are listed as bars."""
        return len(self.points) >= CHART_LINE_MIN_POINTS

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)

    @property
    def plot_start(self) -> int:
        """The plot's left edge."""
        return self.padding if self.right_to_left else self.labels

    @property
    def plot_end(self) -> int:
        """The plot's right edge."""
        return self.width - (self.labels if self.right_to_left else self.padding)

    @property
    def label_x(self) -> int:
        """Where the percent labels end (they are drawn anchored at their end)."""
        return self.width - 4 if self.right_to_left else self.labels - 6

    @property
    def plot_bottom(self) -> float:
        return self.height - self.foot

    @property
    def tick_y(self) -> float:
        return self.plot_bottom + 22

    @property
    def gridlines(self) -> list[tuple[int, float]]:
        """(percent, y) for the 0, 50 and 100 % lines."""
        return [(percent, self.y_for(percent)) for percent in (0, 50, 100)]

    def y_for(self, percent: float) -> float:
        usable = self.plot_bottom - 2 * self.padding
        return self.padding + usable * (1 - percent / 100)


def score_chart(user, *, right_to_left: bool = False) -> ScoreChart:
    """The learner's last finished attempts, oldest first, placed on an SVG canvas."""
    attempts = list(
        Attempt.objects.finished()
        .filter(user=user)
        .select_related("quiz")
        .order_by("-finished_at")[:CHART_ATTEMPTS]
    )
    attempts.reverse()
    chart = ScoreChart(points=[], right_to_left=right_to_left)
    start, end = chart.plot_start + chart.padding, chart.plot_end - chart.padding
    usable_width = end - start
    step = usable_width / max(len(attempts) - 1, 1)
    for index, attempt in enumerate(attempts):
        offset = step * index if len(attempts) > 1 else usable_width / 2
        x = end - offset if right_to_left else start + offset
        chart.points.append(ChartPoint(x=x, y=chart.y_for(attempt.grade_percent), attempt=attempt))
    if chart.points:
        # The dates read in the page's direction (text-anchor "start" is the right end of a
        # right-to-left text): the oldest's starts at its point, the latest's ends at its.
        ends = ("start", "end")
        first, last = chart.points[0], chart.points[-1]
        chart.ticks = [ChartTick(first.x, first.attempt, ends[0])]
        if len(chart.points) >= 5:
            middle = chart.points[len(chart.points) // 2]
            chart.ticks.append(ChartTick(middle.x, middle.attempt, "middle"))
        if len(chart.points) > 1:
            chart.ticks.append(ChartTick(last.x, last.attempt, ends[1]))
    return chart


@dataclass
class GuideMastery:
    guide: Guide
    level: Level


def guide_mastery(user, summaries: list[QuizSummary]) -> list[GuideMastery]:
    """Mastery per guide of the quizzes the learner finished, guides by title."""
    guides = {summary.quiz.guide_id: summary.quiz.guide for summary in summaries}
    levels = guide_levels(user_id=user.pk, guide_ids=guides)
    return [
        GuideMastery(guide, levels[guide.pk])
        for guide in sorted(guides.values(), key=lambda guide: guide.title)
    ]
