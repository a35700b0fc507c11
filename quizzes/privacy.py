"""What the quizzes hold about a learner, for "Download my data" (accounts.privacy).

Each function returns one section of the export as plain JSON-ready data; the sections that
grow with a learner's use (attempts, review cards) are generators over rows read in chunks
(then the chunk's answers in one statement), so that the export streams in bounded memory.
An answer's question (its prompt, choices, pairs and items) is read once per question, not
once per answer, and at most EXPORT_CONTENT_KEPT questions and quizzes are kept at a time.
Rows, not model instances, where there are thousands: fewer objects to make, and none of the
reference cycles an instance with an image holds, which pile up until the collector passes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import batched
from typing import Any, Protocol

from .models import (
    Answer,
    Attempt,
    Choice,
    MatchPair,
    OrderItem,
    Question,
    QuestionReport,
    Quiz,
    ReviewAnswer,
    ReviewCard,
)

# Cards read at a time (a card has an answer or a few), and attempts (ten answers or more),
# each chunk's answers in one statement: what the export holds at once, whatever its size.
EXPORT_CHUNK = 200
EXPORT_ATTEMPTS_CHUNK = 25
# Questions (and quizzes) kept between chunks; beyond this many they are read again.
EXPORT_CONTENT_KEPT = 250


def iso(value) -> str | None:
    """A moment as ISO 8601, or None."""
    return value.isoformat() if value is not None else None


# What an answer says about correctness: withheld (null) while an exam is running, or the
# export would tell the right choice, and changing a pick and downloading again would tell
# whether the new one is right.
VERDICT_FIELDS = ("correct_choice", "mark", "is_correct")


@dataclass(frozen=True, slots=True)
class QuestionText:
    """What an export says of a question: its place, prompt and kind, and its parts' texts
    (choices by id; matching pairs and ordering items by id, in the question's order)."""

    position: int
    prompt: str
    kind: str
    choices: dict[int, str] = field(default_factory=dict)
    pairs: dict[int, tuple[str, str]] = field(default_factory=dict)  # id → (prompt, match)
    items: dict[int, str] = field(default_factory=dict)


def questions_text(ids: Iterable[int]) -> dict[int, QuestionText]:
    """The questions of `ids` as an export writes them: four statements, however many.

    Rows, not model instances: an instance with an image (a question, its parts) holds a
    reference cycle, which only the garbage collector frees, so that thousands of them would
    pile up between its passes."""
    ids = list(ids)
    found = {
        pk: QuestionText(position, prompt, kind)
        for pk, position, prompt, kind in Question.objects.filter(pk__in=ids).values_list(
            "pk", "position", "prompt", "kind"
        )
    }
    for question_id, pk, text in Choice.objects.filter(question_id__in=ids).values_list(
        "question_id", "pk", "text"
    ):
        found[question_id].choices[pk] = text
    pairs = MatchPair.objects.filter(question_id__in=ids).order_by("question_id", "position")
    for question_id, pk, prompt, match in pairs.values_list("question_id", "pk", "prompt", "match"):
        found[question_id].pairs[pk] = (prompt, match)
    items = OrderItem.objects.filter(question_id__in=ids).order_by("question_id", "position")
    for question_id, pk, text in items.values_list("question_id", "pk", "text"):
        found[question_id].items[pk] = text
    return found


def _quizzes_text(ids: Iterable[int]) -> dict[int, tuple[str, str]]:
    """Per quiz id: its slug and title (one statement)."""
    quizzes = Quiz.objects.filter(pk__in=list(ids)).values_list("pk", "slug", "title")
    return {pk: (slug, title) for pk, slug, title in quizzes}


class _Kept[T]:
    """What one export has read of the content (questions, quizzes), by id: read once, and
    read again past EXPORT_CONTENT_KEPT (a learner's attempts come back to the same quizzes;
    memory stays bounded whatever they answered)."""

    def __init__(self, read: Callable[[set[int]], dict[int, T]]) -> None:
        self.read = read
        self.kept: dict[int, T] = {}

    def of(self, ids: set[int]) -> dict[int, T]:
        missing = ids - self.kept.keys()
        if missing:
            if len(self.kept) + len(missing) > EXPORT_CONTENT_KEPT:
                self.kept = {pk: self.kept[pk] for pk in ids - missing}
            self.kept.update(self.read(missing))
        return self.kept


class AnswerColumns(Protocol):
    """What `response_export` reads of an answer (an `Answer`, a `ReviewAnswer` or a row)."""

    question_id: int
    choice_id: int | None
    correct_choice_id: int | None
    choice_ids: list[int]
    number: Decimal | None
    text: str
    arrangement: Any
    fraction: Decimal
    is_correct: bool
    confidence: int | None


def response_export(
    answer: AnswerColumns,
    *,
    shows_feedback: bool = True,
    question: QuestionText | None = None,
) -> dict:
    """What the learner answered, whatever the question's kind: the choice picked, the
    choices ticked, the number or the text typed, the matches picked or the order given;
    and, when the rules allow it, the right choice and the mark it earned. `question` is the
    answer's (read from it when not given)."""
    if question is None:
        question = questions_text([answer.question_id])[answer.question_id]
    texts = question.choices
    response = {
        "choice": texts.get(answer.choice_id),
        "correct_choice": texts.get(answer.correct_choice_id),
        "choices_ticked": [texts.get(pk) for pk in answer.choice_ids or []],
        "number": answer.number,
        "text": answer.text or None,
        "arrangement": _arrangement(answer, question),
        "mark": answer.fraction,
        "is_correct": answer.is_correct,
        # How sure the learner said they were (1 not sure, 2 fairly, 3 very); null where the
        # quiz did not ask. Their own word, not a verdict: kept while an exam runs.
        "confidence": answer.confidence,
    }
    if not shows_feedback:
        response.update(dict.fromkeys(VERDICT_FIELDS))
    return response


def _arrangement(answer: AnswerColumns, question: QuestionText) -> list | None:
    """A matching answer as the prompts with the match picked for each, in the question's
    order; an ordering answer as the items in the learner's order (the learner's own
    response: nothing about which is right)."""
    if question.kind == Question.Kind.MATCHING:
        pairs = question.pairs
        picked = answer.arrangement or {}
        return [
            {"prompt": prompt, "match": _match_of(pairs, picked[str(pk)])}
            for pk, (prompt, _match) in pairs.items()
            if str(pk) in picked
        ]
    if question.kind == Question.Kind.ORDERING:
        return [question.items.get(pk) for pk in answer.arrangement or []]
    return None


def _match_of(pairs: dict[int, tuple[str, str]], pk: object) -> str | None:
    found = pairs.get(pk) if isinstance(pk, int) else None
    return found[1] if found else None


# An answer's columns an export reads (as a row: `response_export` reads them by name).
_ANSWER_COLUMNS = (
    "question_id",
    "choice_id",
    "correct_choice_id",
    "choice_ids",
    "number",
    "text",
    "arrangement",
    "fraction",
    "is_correct",
    "confidence",
    "answered_at",
)


def _answers_of(
    model: type[Answer] | type[ReviewAnswer], owner: str, owners: list[int], *extra: str
) -> dict[int, list[Any]]:
    """The answers of `owners` (attempts or cards, by id) in the order given, by owner: rows
    with _ANSWER_COLUMNS and `extra`, one statement."""
    by_owner: dict[int, list[Any]] = defaultdict(list)
    answers = (
        model.objects.filter(**{f"{owner}__in": owners})
        .order_by("answered_at", "pk")
        .values_list(f"{owner}_id", *_ANSWER_COLUMNS, *extra, named=True)
    )
    for answer in answers:
        by_owner[answer[0]].append(answer)
    return by_owner


def _labels(choices: Iterable[tuple[Any, Any]]) -> dict[Any, str]:
    """A field's choices as the words an export writes (in the request's language)."""
    return {value: str(label) for value, label in choices}


def attempts_export(user) -> Iterator[dict]:
    attempts = Attempt.objects.filter(user=user).order_by("started_at", "pk")
    questions, quizzes = _Kept(questions_text), _Kept(_quizzes_text)
    for chunk in batched(
        attempts.iterator(chunk_size=EXPORT_ATTEMPTS_CHUNK), EXPORT_ATTEMPTS_CHUNK
    ):
        items = _attempts_items(chunk, questions, quizzes)
        del chunk  # Gone before the next chunk is read: one chunk in memory at a time.
        yield from items


def _attempts_items(
    chunk: tuple[Attempt, ...],
    questions: _Kept[QuestionText],
    quizzes: _Kept[tuple[str, str]],
) -> Iterator[dict]:
    answers = _answers_of(Answer, "attempt", [attempt.pk for attempt in chunk])
    texts = questions.of({a.question_id for mine in answers.values() for a in mine})
    quiz = quizzes.of({attempt.quiz_id for attempt in chunk})
    for attempt in chunk:
        shows = attempt.shows_feedback
        slug, title = quiz[attempt.quiz_id]
        yield {
            "quiz": slug,
            "quiz_title": title,
            "started_at": iso(attempt.started_at),
            "finished_at": iso(attempt.finished_at),
            # Scored only when it finishes; an unfinished exam tells nothing about marks.
            "score": attempt.score if shows else None,
            "total": attempt.total if shows else None,
            # Whether each answer said how sure (quizzes/confidence.py: off, ask, marking), and
            # marked by certainty, the sum of the CBM marks and the grade it maps to.
            "confidence": attempt.confidence,
            "certainty_based_score": attempt.cbm_score if shows else None,
            "certainty_based_grade": attempt.grade_score
            if shows and attempt.cbm_score is not None
            else None,
            "answers": [
                {
                    "question": texts[answer.question_id].position,
                    "prompt": texts[answer.question_id].prompt,
                    **response_export(
                        answer, shows_feedback=shows, question=texts[answer.question_id]
                    ),
                    "answered_at": iso(answer.answered_at),
                }
                for answer in answers[attempt.pk]
            ],
        }


def review_cards_export(user) -> Iterator[dict]:
    cards = (
        ReviewCard.objects.filter(user=user)
        .order_by("created_at", "pk")
        .values_list(*_CARD_COLUMNS, named=True)
    )
    questions = _Kept(questions_text)
    for chunk in batched(cards.iterator(chunk_size=EXPORT_CHUNK), EXPORT_CHUNK):
        items = _cards_items(chunk, questions)
        del chunk  # As the attempts': one chunk at a time.
        yield from items


_CARD_COLUMNS = (
    "pk",
    "question_id",
    "question__quiz__slug",
    "created_at",
    "due",
    "state",
    "stability",
    "difficulty",
    "last_review",
    "sure_miss",
)


def _cards_items(chunk: tuple[Any, ...], questions: _Kept[QuestionText]) -> Iterator[dict]:
    answers = _answers_of(ReviewAnswer, "card", [card.pk for card in chunk], "rating")
    texts = questions.of(
        {card.question_id for card in chunk}
        | {a.question_id for mine in answers.values() for a in mine}
    )
    states, ratings = _labels(ReviewCard.State.choices), _labels(ReviewAnswer.Rating.choices)
    for card in chunk:
        question = texts[card.question_id]
        yield {
            "quiz": card.question__quiz__slug,
            "question": question.position,
            "prompt": question.prompt,
            "created_at": iso(card.created_at),
            "due": iso(card.due),
            "state": states.get(card.state, card.state),
            "stability": card.stability,
            "difficulty": card.difficulty,
            "last_review": iso(card.last_review),
            "missed_when_very_sure": card.sure_miss,
            "answers": [
                {
                    **response_export(answer, question=texts[answer.question_id]),
                    "answered_at": iso(answer.answered_at),
                    "rating": ratings.get(answer.rating) if answer.rating else None,
                }
                for answer in answers[card.pk]
            ],
        }


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
