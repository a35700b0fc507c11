"""What the quizzes hold about a learner, for "Download my data" (accounts.privacy).

Each function returns one section of the export as plain JSON-ready data.
"""

from __future__ import annotations

from django.db.models import Prefetch

from .models import Answer, Attempt, QuestionReport


def iso(value) -> str | None:
    """A moment as ISO 8601, or None."""
    return value.isoformat() if value is not None else None


def attempts_export(user) -> list[dict]:
    answers = Answer.objects.select_related("question", "choice", "correct_choice").order_by(
        "answered_at", "pk"
    )
    attempts = (
        Attempt.objects.filter(user=user)
        .select_related("quiz")
        .prefetch_related(Prefetch("answers", queryset=answers))
        .order_by("started_at", "pk")
    )
    return [
        {
            "quiz": attempt.quiz.slug,
            "quiz_title": attempt.quiz.title,
            "started_at": iso(attempt.started_at),
            "finished_at": iso(attempt.finished_at),
            "score": attempt.score,
            "total": attempt.total,
            "answers": [
                {
                    "question": answer.question.position,
                    "prompt": answer.question.prompt,
                    "choice": answer.choice.text,
                    "correct_choice": answer.correct_choice.text,
                    "is_correct": answer.is_correct,
                    "answered_at": iso(answer.answered_at),
                }
                for answer in attempt.answers.all()
            ],
        }
        for attempt in attempts
    ]


def reports_export(user) -> list[dict]:
    reports = (
        QuestionReport.objects.filter(user=user)
        .select_related("question__quiz")
        .order_by("created_at", "pk")
    )
    return [
        {
            "quiz": report.question.quiz.slug,
            "question": report.question.position,
            "prompt": report.question.prompt,
            "reason": report.reason,
            "text": report.text,
            "created_at": iso(report.created_at),
            "resolved_at": iso(report.resolved_at),
        }
        for report in reports
    ]
