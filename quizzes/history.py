"""A learner's history in numbers: best and latest score per quiz, and scores over time."""

from __future__ import annotations

from dataclasses import dataclass

from .mastery import Level, guide_levels
from .models import Attempt, Guide, Quiz

CHART_WIDTH = 420
CHART_HEIGHT = 160
CHART_PADDING = 24
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
    """Per quiz the learner finished: the best attempt (by percent), the latest, and a count."""
    best_first = Attempt.objects.filter(user=user).select_related("quiz__guide").best_first()
    summaries: dict[int, QuizSummary] = {}
    for attempt in best_first:
        summary = summaries.get(attempt.quiz_id)
        if summary is None:
            summaries[attempt.quiz_id] = QuizSummary(attempt.quiz, attempt, attempt, 1)
        else:
            summary.attempts += 1
            if attempt.finished_at > summary.latest.finished_at:
                summary.latest = attempt
    return sorted(summaries.values(), key=lambda s: s.latest.finished_at, reverse=True)


@dataclass
class ChartPoint:
    x: float
    y: float
    attempt: Attempt


@dataclass
class ScoreChart:
    points: list[ChartPoint]
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT
    padding: int = CHART_PADDING

    @property
    def is_line(self) -> bool:
        """Enough attempts for a line to show a trend; fewer are listed as bars."""
        return len(self.points) >= CHART_LINE_MIN_POINTS

    @property
    def polyline(self) -> str:
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)

    @property
    def right(self) -> int:
        return self.width - self.padding

    @property
    def gridlines(self) -> list[tuple[int, float]]:
        """(percent, y) for the 0, 50 and 100 % lines."""
        return [(percent, self.y_for(percent)) for percent in (0, 50, 100)]

    def y_for(self, percent: float) -> float:
        usable = self.height - 2 * self.padding
        return self.padding + usable * (1 - percent / 100)


def score_chart(user) -> ScoreChart:
    """The learner's last finished attempts, oldest first, placed on an SVG canvas."""
    attempts = list(
        Attempt.objects.finished()
        .filter(user=user)
        .select_related("quiz")
        .order_by("-finished_at")[:CHART_ATTEMPTS]
    )
    attempts.reverse()
    chart = ScoreChart(points=[])
    usable_width = chart.width - 2 * chart.padding
    step = usable_width / max(len(attempts) - 1, 1)
    for index, attempt in enumerate(attempts):
        x = chart.padding + (step * index if len(attempts) > 1 else usable_width / 2)
        chart.points.append(ChartPoint(x=x, y=chart.y_for(attempt.percent), attempt=attempt))
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
