"""What the quizzes hold about a learner, for "Download my data" (accounts.privacy).

Each function returns one section of the export as plain JSON-ready data; the sections that
grow with a learner's use (attempts, review cards) are iterators over rows read in chunks
(EXPORT_CHUNK at a time, with their answers), so that the export streams in bounded memory.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Prefetch

from .models import (
    Answer,
    Attempt,
    MatchPair,
    OrderItem,
    Question,
    QuestionReport,
    ReviewAnswer,
    ReviewCard,
)

# Attempts or cards read at a time, each chunk's answers (and their questions) in one statement.
EXPORT_CHUNK = 200


def iso(value) -> str | None:
    """A moment as ISO 8601, or None."""
    return value.isoformat() if value is not None else None


# What an answer says about correctness: withheld (null) while an exam is running, or the
# export would tell the right choice, and changing a pick and downloading again would tell
# whether the new one is right.
VERDICT_FIELDS = ("correct_choice", "mark", "is_correct")


def response_export(answer: Answer | ReviewAnswer, *, shows_feedback: bool = True) -> dict:
    """What the learner answered, whatever the question's kind: the choice picked, the
    choices ticked, the number or the text typed, the matches picked or the order given;
    and, when the rules allow it, the right choice and the mark it earned."""
    texts = {choice.pk: choice.text for choice in answer.question.choices.all()}
    response = {
        "choice": texts.get(answer.choice_id),
        "correct_choice": texts.get(answer.correct_choice_id),
        "choices_ticked": [texts.get(pk) for pk in answer.choice_ids or []],
        "number": answer.number,
        "text": answer.text or None,
        "arrangement": _arrangement(answer),
        "mark": answer.fraction,
        "is_correct": answer.is_correct,
        # How sure the learner said they were (1 not sure, 2 fairly, 3 very); null where the
        # quiz did not ask. Their own word, not a verdict: kept while an exam runs.
        "confidence": answer.confidence,
    }
    if not shows_feedback:
        response.update(dict.fromkeys(VERDICT_FIELDS))
    return response


def _arrangement(answer: Answer | ReviewAnswer) -> list | None:
    """A matching answer as the prompts with the match picked for each, in the question's
    order; an ordering answer as the items in the learner's order (the learner's own
    response: nothing about which is right)."""
    kind = answer.question.kind
    if kind == Question.Kind.MATCHING:
        pairs = {pair.pk: pair for pair in answer.question.pairs.all()}
        picked = answer.arrangement or {}
        return [
            {"prompt": pair.prompt, "match": getattr(pairs.get(picked[str(pk)]), "match", None)}
            for pk, pair in pairs.items()
            if str(pk) in picked
        ]
    if kind == Question.Kind.ORDERING:
        items = {item.pk: item.text for item in answer.question.order_items.all()}
        return [items.get(pk) for pk in answer.arrangement or []]
    return None


def _answers(model: type[Answer] | type[ReviewAnswer]):
    """Answers in the order given, each with its question's choices, pairs and items (one
    statement each)."""
    return (
        model.objects.select_related("question")
        .prefetch_related(
            "question__choices",
            Prefetch("question__pairs", queryset=MatchPair.objects.order_by("position")),
            Prefetch("question__order_items", queryset=OrderItem.objects.order_by("position")),
        )
        .order_by("answered_at", "pk")
    )


def attempts_export(user) -> Iterator[dict]:
    attempts = (
        Attempt.objects.filter(user=user)
        .select_related("quiz")
        .prefetch_related(Prefetch("answers", queryset=_answers(Answer)))
        .order_by("started_at", "pk")
    )
    return (
        {
            "quiz": attempt.quiz.slug,
            "quiz_title": attempt.quiz.title,
            "started_at": iso(attempt.started_at),
            "finished_at": iso(attempt.finished_at),
            # Scored only when it finishes; an unfinished exam tells nothing about marks.
            "score": attempt.score if attempt.shows_feedback else None,
            "total": attempt.total if attempt.shows_feedback else None,
            # Whether each answer said how sure (quizzes/confidence.py: off, ask, marking), and
            # marked by certainty, the sum of the CBM marks and the grade it maps to.
            "confidence": attempt.confidence,
            "certainty_based_score": attempt.cbm_score if attempt.shows_feedback else None,
            "certainty_based_grade": attempt.grade_score
            if attempt.shows_feedback and attempt.cbm_score is not None
            else None,
            "answers": [
                {
                    "question": answer.question.position,
                    "prompt": answer.question.prompt,
                    **response_export(answer, shows_feedback=attempt.shows_feedback),
                    "answered_at": iso(answer.answered_at),
                }
                for answer in attempt.answers.all()
            ],
        }
        for attempt in attempts.iterator(chunk_size=EXPORT_CHUNK)
    )


def review_cards_export(user) -> Iterator[dict]:
    cards = (
        ReviewCard.objects.filter(user=user)
        .select_related("question__quiz")
        .prefetch_related(Prefetch("answers", queryset=_answers(ReviewAnswer)))
        .order_by("created_at", "pk")
    )
    return (
        {
            "quiz": card.question.quiz.slug,
            "question": card.question.position,
            "prompt": card.question.prompt,
            "created_at": iso(card.created_at),
            "due": iso(card.due),
            "state": card.get_state_display(),
            "stability": card.stability,
            "difficulty": card.difficulty,
            "last_review": iso(card.last_review),
            "missed_when_very_sure": card.sure_miss,
            "answers": [
                {
                    **response_export(answer),
                    "answered_at": iso(answer.answered_at),
                    "rating": answer.get_rating_display() if answer.rating else None,
                }
                for answer in card.answers.all()
            ],
        }
        for card in cards.iterator(chunk_size=EXPORT_CHUNK)
    )


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
