"""Regrading: the finished attempts' answers marked again under their question's key as it
stands now, after an instructor fixed it (a right choice, weights, accepted numbers and
tolerances, accepted texts and their "exact", pairs, an order).

Two calls, both keyword-only: `regrade_preview` reads and returns plain immutable data (every
answer whose mark would change, with its attempt's score before and after) and changes
nothing; `regrade_apply` writes exactly that preview, attempt by attempt under the attempts'
row locks, each answer only if its mark is still the one previewed (so a regrade applied twice
changes nothing the second time), and the review cards and the trail (`Regrade`,
`RegradedAnswer`, `RegradedAttempt`) with it. The admin's confirmation and the worker's
`regrade_run` task apply a preview only if its `digest` is still the one the instructor saw.

Attempts in progress are not regraded: their answers since the fix are marked by the new key
already, and an exam's saves are marked again as it finishes (`writes.finish_exam`).
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import F
from django.db.models.functions import Coalesce
from django.utils import timezone

from .. import confidence
from ..content import QuestionData, quiz_content
from ..grading import recorded_response, regrade_fields
from ..models import (
    Answer,
    Attempt,
    Question,
    Quiz,
    Regrade,
    RegradedAnswer,
    RegradedAttempt,
    ReviewAnswer,
    ReviewCard,
)
from ..review.badge import badge_forget_if_due_soon
from ..review.scheduler import SCHEDULED_FIELDS, missed_first, moved
from ..signals import attempts_regraded

# Attempts written per transaction: each chunk commits on its own, so the progress shows and
# learners' answers wait on no lock for long.
CHUNK = 500


@dataclass(frozen=True)
class AnswerChange:
    """One answer whose mark changes: before and after (the key's as JSON text)."""

    answer_id: int
    attempt_id: int
    user_id: int
    learner: str
    question_id: int
    position: int
    old_fraction: Decimal
    new_fraction: Decimal
    old_key: str
    new_key: str
    old_correct_choice_id: int | None
    new_correct_choice_id: int | None

    @property
    def was_correct(self) -> bool:
        return self.old_fraction == 1

    @property
    def is_correct(self) -> bool:
        return self.new_fraction == 1


@dataclass(frozen=True)
class AttemptChange:
    """One finished attempt whose score changes, with the answers that change it."""

    attempt_id: int
    user_id: int
    learner: str
    old_score: Decimal
    new_score: Decimal
    total: int
    answers: tuple[AnswerChange, ...]


@dataclass(frozen=True)
class RegradePreview:
    """What a regrade would change, computed without changing anything."""

    quiz_id: int
    quiz_slug: str
    # The one question regraded; None: every question of the quiz.
    question_id: int | None
    # How many finished attempts' answers were marked again.
    answers_checked: int
    attempts: tuple[AttemptChange, ...]

    @property
    def answer_count(self) -> int:
        return sum(len(attempt.answers) for attempt in self.attempts)

    @property
    def attempt_count(self) -> int:
        """Attempts whose score changes (an answer can change without its attempt's score only
        if another one changes the other way by as much)."""
        return sum(1 for attempt in self.attempts if attempt.old_score != attempt.new_score)

    @property
    def changes(self) -> Iterator[AnswerChange]:
        for attempt in self.attempts:
            yield from attempt.answers

    @property
    def digest(self) -> str:
        """A fingerprint of every change: the same preview computed again has the same one."""
        hashed = hashlib.sha256(f"{self.quiz_id}:{self.question_id}".encode())
        for change in self.changes:
            hashed.update(
                f"|{change.answer_id}:{change.old_fraction}>{change.new_fraction}"
                f":{change.new_key}:{change.new_correct_choice_id}".encode()
            )
        return hashed.hexdigest()


def _key_text(key: Any) -> str:
    return json.dumps(key, sort_keys=True, separators=(",", ":"))


_ANSWER_COLUMNS = (
    "pk",
    "attempt_id",
    "question_id",
    "choice_id",
    "correct_choice_id",
    "choice_ids",
    "key",
    "number",
    "text",
    "arrangement",
    "fraction",
)


@dataclass(frozen=True, slots=True)
class _Row:
    pk: int
    attempt_id: int
    question_id: int
    choice_id: int | None
    correct_choice_id: int | None
    choice_ids: list[int]
    key: Any
    number: Decimal | None
    text: str
    arrangement: Any
    fraction: Decimal


def _marker(question: QuestionData) -> Callable[[_Row], dict[str, Any] | None]:
    """Marks a recorded answer to `question` under its key now; the same response is marked
    once (a class types the same few answers)."""
    known: dict[str, dict[str, Any] | None] = {}

    def mark(row: _Row) -> dict[str, Any] | None:
        response = recorded_response(question, row)
        seen = repr(response)
        if seen not in known:
            known[seen] = regrade_fields(question, response)
        return known[seen]

    return mark


def regrade_preview(*, quiz: Quiz, question: Question | None = None) -> RegradePreview:
    """Every finished attempt's answer to `quiz`'s questions (or to `question` alone) whose
    mark under the key as it stands now differs from the mark recorded, by attempt, with each
    attempt's score before and after. Reads only."""
    version = Quiz.objects.filter(pk=quiz.pk).values_list("updated_at", flat=True).get()
    quiz.updated_at = version
    content = quiz_content(quiz)
    questions = {q.pk: q for q in content.questions}
    if question is not None:
        questions = {question.pk: questions[question.pk]} if question.pk in questions else {}
    markers = {pk: _marker(q) for pk, q in questions.items()}
    rows = (
        Answer.objects.filter(
            attempt__quiz_id=quiz.pk,
            attempt__finished_at__isnull=False,
            question_id__in=list(questions),
        )
        .order_by("attempt_id", "question_id")
        .values_list(*_ANSWER_COLUMNS)
    )
    checked = 0
    changed: dict[int, list[tuple[_Row, dict[str, Any]]]] = defaultdict(list)
    for values in rows.iterator(chunk_size=5000):
        row = _Row(*values)
        checked += 1
        fields = markers[row.question_id](row)
        if fields is not None and fields["fraction"] != row.fraction:
            changed[row.attempt_id].append((row, fields))
    attempts = _attempt_changes(changed, questions)
    return RegradePreview(
        quiz_id=quiz.pk,
        quiz_slug=quiz.slug,
        question_id=question.pk if question is not None else None,
        answers_checked=checked,
        attempts=attempts,
    )


def _attempt_changes(
    changed: dict[int, list[tuple[_Row, dict[str, Any]]]], questions: dict[int, QuestionData]
) -> tuple[AttemptChange, ...]:
    found = []
    attempt_rows = Attempt.objects.filter(pk__in=list(changed)).order_by("pk")
    columns = ("pk", "user_id", "user__username", "score", "total")
    for ids in _chunks(list(changed), 5000):
        for pk, user_id, learner, score, total in attempt_rows.filter(pk__in=ids).values_list(
            *columns
        ):
            answers = tuple(
                AnswerChange(
                    answer_id=row.pk,
                    attempt_id=pk,
                    user_id=user_id,
                    learner=learner,
                    question_id=row.question_id,
                    position=questions[row.question_id].position,
                    old_fraction=row.fraction,
                    new_fraction=fields["fraction"],
                    old_key=_key_text(row.key),
                    new_key=_key_text(fields["key"]),
                    old_correct_choice_id=row.correct_choice_id,
                    new_correct_choice_id=fields["correct_choice_id"],
                )
                for row, fields in changed[pk]
            )
            delta = sum((a.new_fraction - a.old_fraction for a in answers), Decimal(0))
            found.append(
                AttemptChange(
                    attempt_id=pk,
                    user_id=user_id,
                    learner=learner,
                    old_score=score,
                    new_score=score + delta,
                    total=total,
                    answers=answers,
                )
            )
    found.sort(key=lambda attempt: attempt.attempt_id)
    return tuple(found)


def _chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def regrade_of(*, preview: RegradePreview, by: Any, now: datetime | None = None) -> Regrade:
    """The `Regrade` row of `preview`, queued: who asked, when, and what it will apply."""
    return Regrade.objects.create(
        quiz_id=preview.quiz_id,
        question_id=preview.question_id,
        by=by,
        digest=preview.digest,
        planned_answers=preview.answer_count,
        requested_at=now or timezone.now(),
    )


def regrade_apply(
    *,
    preview: RegradePreview,
    by: Any = None,
    regrade: Regrade | None = None,
    now: datetime | None = None,
) -> Regrade:
    """Write `preview`: each answer's new mark and key, only where its mark is still the one
    previewed (so applying it twice changes nothing the second time), its attempt's score by
    the same difference, the learners' review cards (a miss now right leaves the review, a
    right answer now wrong enters it as a miss would) and the trail. Attempt by attempt
    under their row locks, CHUNK attempts per transaction, `regrade.done_answers` moving as
    each commits. Returns the `Regrade` (created when none is given), done."""
    now = now or timezone.now()
    if regrade is None:
        regrade = regrade_of(preview=preview, by=by, now=now)
    Regrade.objects.filter(pk=regrade.pk).update(status=Regrade.Status.RUNNING)
    done = answers_changed = attempts_changed = 0
    for attempts in _chunks(list(preview.attempts), CHUNK):
        with transaction.atomic():
            applied = _apply_chunk(regrade, attempts, now)
            done += sum(len(attempt.answers) for attempt in attempts)
            answers_changed += sum(len(attempt.answers) for attempt in applied)
            attempts_changed += sum(1 for a in applied if a.old_score != a.new_score)
            Regrade.objects.filter(pk=regrade.pk).update(done_answers=done)
            if applied:
                attempts_regraded.send(
                    sender=Attempt, attempt_ids=[a.attempt_id for a in applied], at=now
                )
    Regrade.objects.filter(pk=regrade.pk).update(
        status=Regrade.Status.DONE,
        finished_at=timezone.now(),
        answers_changed=answers_changed,
        attempts_changed=attempts_changed,
    )
    regrade.refresh_from_db()
    return regrade


def _apply_chunk(
    regrade: Regrade, attempts: list[AttemptChange], now: datetime
) -> list[AttemptChange]:
    """Apply `attempts`' changes in the caller's transaction; the changes applied (those of
    answers whose mark was still the one previewed), per attempt."""
    ids = [attempt.attempt_id for attempt in attempts]
    scores = dict(
        Attempt.objects.select_for_update()
        .filter(pk__in=ids, finished_at__isnull=False)
        .order_by("pk")
        .values_list("pk", "score")
    )
    answer_ids = [change.answer_id for attempt in attempts for change in attempt.answers]
    marks = dict(Answer.objects.filter(pk__in=answer_ids).values_list("pk", "fraction"))
    applied: list[AttemptChange] = []
    rows: list[AnswerChange] = []
    trail, trail_attempts = [], []
    for attempt in attempts:
        if attempt.attempt_id not in scores:
            continue  # gone since the preview
        answers = tuple(a for a in attempt.answers if marks.get(a.answer_id) == a.old_fraction)
        if not answers:
            continue  # applied already
        delta = sum((a.new_fraction - a.old_fraction for a in answers), Decimal(0))
        old_score = scores[attempt.attempt_id]
        done = AttemptChange(
            attempt_id=attempt.attempt_id,
            user_id=attempt.user_id,
            learner=attempt.learner,
            old_score=old_score,
            new_score=old_score + delta,
            total=attempt.total,
            answers=answers,
        )
        applied.append(done)
        if done.old_score != done.new_score:
            trail_attempts.append(
                RegradedAttempt(
                    regrade=regrade,
                    attempt_id=done.attempt_id,
                    user_id=done.user_id,
                    old_score=done.old_score,
                    new_score=done.new_score,
                    total=done.total,
                    at=now,
                )
            )
        rows.extend(answers)
        for change in answers:
            trail.append(
                RegradedAnswer(
                    regrade=regrade,
                    answer_id=change.answer_id,
                    attempt_id=change.attempt_id,
                    question_id=change.question_id,
                    user_id=change.user_id,
                    old_fraction=change.old_fraction,
                    new_fraction=change.new_fraction,
                    old_key=json.loads(change.old_key),
                    new_key=json.loads(change.new_key),
                    old_correct_choice_id=change.old_correct_choice_id,
                    new_correct_choice_id=change.new_correct_choice_id,
                )
            )
    _write_marks(rows)
    deltas: dict[Decimal, list[int]] = defaultdict(list)
    for done in applied:
        deltas[done.new_score - done.old_score].append(done.attempt_id)
    for delta, attempt_ids in deltas.items():
        if delta:
            # The right side reads the row as it was: the score before the first regrade.
            Attempt.objects.filter(pk__in=attempt_ids).update(
                score_before_regrade=Coalesce("score_before_regrade", "score"),
                score=F("score") + delta,
                regraded_at=now,
            )
    _write_cbm([done.attempt_id for done in applied])
    RegradedAnswer.objects.bulk_create(trail, batch_size=1000)
    RegradedAttempt.objects.bulk_create(trail_attempts, batch_size=1000)
    _move_cards([c for a in applied for c in a.answers if c.was_correct != c.is_correct], now)
    return applied


def _write_cbm(attempt_ids: list[int]) -> None:
    """The certainty-based sums of those of `attempt_ids` marked by certainty, added up again
    from their answers' new marks and the levels given (quizzes/confidence.py)."""
    marked = list(
        Attempt.objects.filter(pk__in=attempt_ids, confidence=confidence.MARKING).values_list(
            "pk", flat=True
        )
    )
    if not marked:
        return
    answers: dict[int, list[tuple[Decimal, int | None]]] = {pk: [] for pk in marked}
    for attempt_id, fraction, level in Answer.objects.filter(attempt_id__in=marked).values_list(
        "attempt_id", "fraction", "confidence"
    ):
        answers[attempt_id].append((fraction, level))
    sums: dict[Decimal, list[int]] = defaultdict(list)
    for attempt_id, marks in answers.items():
        sums[confidence.cbm_sum(marks)].append(attempt_id)
    for cbm, ids in sums.items():
        Attempt.objects.filter(pk__in=ids).update(cbm_score=cbm)


def _write_marks(changes: list[AnswerChange]) -> None:
    """Write the answers' new marks: one UPDATE per distinct new mark and key (a question's
    answers share a few), not one per answer."""
    groups: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    for change in changes:
        values = (change.new_fraction, change.new_key, change.new_correct_choice_id)
        groups[values].append(change.answer_id)
    for (fraction, key, correct_choice_id), ids in groups.items():
        for chunk in _chunks(ids, 5000):
            Answer.objects.filter(pk__in=chunk).update(
                fraction=fraction,
                is_correct=fraction == 1,
                key=json.loads(key),
                correct_choice_id=correct_choice_id,
            )


def _move_cards(changes: Iterable[AnswerChange], now: datetime) -> None:
    """The review queue follows the marks: an answer now wrong moves (or creates) the
    learner's card as a miss at `now`; an answer now right takes the card out of the review
    when no other finished attempt of theirs still misses the question: deleted when only
    quiz answers ever moved it, else moved as a right answer (its review answers stay)."""
    changes = list(changes)
    if not changes:
        return
    pairs = {(c.user_id, c.question_id) for c in changes}
    now_wrong = {(c.user_id, c.question_id) for c in changes if not c.is_correct}
    users = {user for user, _q in pairs}
    questions = {question for _u, question in pairs}
    cards = {
        (card.user_id, card.question_id): card
        for card in ReviewCard.objects.filter(user_id__in=users, question_id__in=questions)
        if (card.user_id, card.question_id) in pairs
    }
    still_missed = {
        pair
        for pair in Answer.objects.filter(
            attempt__user_id__in=users,
            question_id__in=questions,
            is_correct=False,
            attempt__finished_at__isnull=False,
        ).values_list("attempt__user_id", "question_id")
        if pair in pairs
    }
    reviewed = set(
        ReviewAnswer.objects.filter(card__in=[card.pk for card in cards.values()]).values_list(
            "card_id", flat=True
        )
    )
    new, changed, gone, dues = [], [], [], defaultdict(list)
    for pair in sorted(pairs):
        card = cards.get(pair)
        user_id, question_id = pair
        if pair in still_missed:
            if pair in now_wrong:
                if card is None:
                    card = missed_first(user_id=user_id, question_id=question_id, at=now)
                    new.append(card)
                else:
                    dues[user_id].append(card.due)
                    changed.append(moved(card, right=False, at=now))
                dues[user_id].append(card.due)
            continue
        if card is None:
            continue
        dues[user_id].append(card.due)
        if card.pk in reviewed:
            changed.append(moved(card, right=True, at=now))
            dues[user_id].append(card.due)
        else:
            gone.append(card.pk)
    if new:
        ReviewCard.objects.bulk_create(new, ignore_conflicts=True)
    _write_cards(changed)
    if gone:
        ReviewCard.objects.filter(pk__in=gone).delete()
    for user_id, due_times in dues.items():
        badge_forget_if_due_soon(user_id, *due_times)


def _write_cards(cards: list[ReviewCard]) -> None:
    """Save moved cards: one UPDATE per distinct schedule (cards missed at the same moment
    from the same state share one), their answer counts moved by one."""
    groups: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    fields = [name for name in SCHEDULED_FIELDS if name != "reviews"]
    for card in cards:
        groups[tuple(getattr(card, name) for name in fields)].append(card.pk)
    for values, ids in groups.items():
        ReviewCard.objects.filter(pk__in=ids).update(
            reviews=F("reviews") + 1, **dict(zip(fields, values, strict=True))
        )
