"""Item analysis of a quiz: how hard each question is and how well it tells learners apart.

Per question, over the analysed attempts that answered it:

- facility: the mean mark of its answers (1 right, 0 wrong, a share for partial credit);
- discrimination index (Moodle's): Pearson's correlation between the question's mark and
  the score on the rest of the quiz (the attempt's total without this question). A
  question that strong learners get right and weak ones get wrong
  scores near 1; below 0.3 it is flagged for review; with no spread it is undefined;
- distribution of the answers over its choices (distractor analysis; for several answers,
  how many ticked each box), and for a numerical question its most common responses;
- for a short-answer question, the most common answers that earned nothing, grouped as the
  grading matches them (quizzes.short_answers.folded: "Adam", "adam" and "ADAM " are one answer);
- for a matching question, the most confused pairs: a prompt and the wrong match picked for
  it, with how many answers did so;
- for an ordering question, how often each item was put in its own place; its facility is
  the mean mark, the share of items in the longest run already in the right order
  (grading.grade_order);
- where learners said how sure they were (quizzes/confidence.py), the confident-error rate:
  of the answers given with a level, the share wrong and "Very sure"; per wrong choice, the
  share of those answers that picked it "Very sure" (the distractor that fools sure
  learners).

By default each learner's first finished attempt is analysed, so that retakes by learners
who have already seen the answers do not flatter the questions.

Everything is summed in the database, one row per question, in integers (marks in
ten-thousandths); Python only divides. The sums need each attempt's total, a grouped
subquery joined back to the answers, which the ORM can only write as a correlated subquery
per answer, so that statement is portable SQL (a CTE, on SQLite and PostgreSQL alike) over
the ORM's query for the attempts.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from django.db.models import Count, F, Prefetch, Q, QuerySet, Window, prefetch_related_objects
from django.db.models.functions import RowNumber

from ..confidence import VERY_SURE
from ..models import Answer, Attempt, Choice, MatchPair, OrderItem, Question, QuestionReport, Quiz
from ..short_answers import folded

DISCRIMINATION_THRESHOLD = 0.3
# Marks are summed as integers in units of a ten-thousandth (Answer.fraction's precision).
MARK_UNITS = 10_000
MOST_COMMON_RESPONSES = 5


@dataclass
class ChoiceStats:
    choice: Choice
    count: int
    share: float | None  # Of the question's answers; None when it has none.
    # Picked "Very sure" in a wrong answer: its share of the answers given with a level.
    confident: int = 0
    confident_share: float | None = None

    @property
    def share_percent(self) -> int | None:
        return None if self.share is None else round(100 * self.share)

    @property
    def confident_percent(self) -> int | None:
        return None if self.confident_share is None else round(100 * self.confident_share)


@dataclass
class ResponseStats:
    """A number learners typed for a numerical question, and how many typed it."""

    number: str
    count: int
    share: float
    # Held by none of the accepted numbers as they stand: the item analysis offers "Accept".
    outside: bool = False

    @property
    def share_percent(self) -> int:
        return round(100 * self.share)


@dataclass
class TypedStats:
    """A short answer that earned nothing (as most learners typed it, and how many typed it
    or a spelling the grading takes for the same); a confused pair (`text`: the prompt,
    `other`: the wrong match picked for it); an ordering item (`count`: put in its place)."""

    text: str
    count: int
    share: float | None
    other: str = ""
    place: int = 0

    @property
    def share_percent(self) -> int | None:
        return None if self.share is None else round(100 * self.share)


@dataclass
class ItemStats:
    question: Question
    answers: int
    facility: float | None
    discrimination: float | None
    choices: list[ChoiceStats]
    open_reports: int = 0  # Learners' reports of a problem, not yet resolved.
    responses: list[ResponseStats] = field(default_factory=list)
    # Short answer: the most common answers that earned nothing; matching: the most confused
    # pairs; ordering: each item in the right order, with how often it was put in its place.
    typed: list[TypedStats] = field(default_factory=list)
    # Answers given with a level, and those wrong and "Very sure" (quizzes/confidence.py).
    leveled: int = 0
    confident_errors: int = 0

    @property
    def confident_error_percent(self) -> int | None:
        """Of the answers given with a level, the percentage wrong and given "Very sure"."""
        return round(100 * self.confident_errors / self.leveled) if self.leveled else None

    @property
    def facility_percent(self) -> int | None:
        return None if self.facility is None else round(100 * self.facility)

    @property
    def discrimination_percent(self) -> int | None:
        """The index as the length of a bar out of 100: a negative index draws none."""
        if self.discrimination is None:
            return None
        return min(max(round(100 * self.discrimination), 0), 100)

    @property
    def flagged(self) -> bool:
        return self.discrimination is not None and self.discrimination < DISCRIMINATION_THRESHOLD


@dataclass
class QuizAnalysis:
    quiz: Quiz
    first_attempts_only: bool
    attempts: int
    items: list[ItemStats]

    @property
    def has_levels(self) -> bool:
        """Whether any answer analysed said how sure its learner was."""
        return any(item.leveled for item in self.items)

    @property
    def flagged_count(self) -> int:
        return sum(1 for item in self.items if item.flagged)

    @property
    def open_reports(self) -> int:
        return sum(item.open_reports for item in self.items)


def analysed_attempts(quiz: Quiz, *, first_attempts_only: bool = True) -> QuerySet[Attempt]:
    """The finished attempts to analyse: each learner's earliest, or all of them."""
    finished = Attempt.objects.finished().filter(quiz=quiz)
    if not first_attempts_only:
        return finished
    # Numbering each learner's attempts takes one sorted pass; "no earlier attempt exists"
    # as a correlated subquery was quadratic on SQLite, which searched it by quiz.
    numbered = finished.annotate(
        number=Window(
            RowNumber(), partition_by=F("user"), order_by=[F("started_at").asc(), F("pk").asc()]
        )
    )
    return Attempt.objects.filter(pk__in=numbered.filter(number=1).values("pk"))


def discrimination_index(
    n: int, sx: int, sy: int, syy: int, sxy: int, sxx: int | None = None
) -> float | None:
    """Pearson's r of an item score x with the rest-of-test score y, from their sums.

    `sxx` defaults to `sx`, the sum of squares of a 0/1 score. None when either score has
    no spread (everyone right, or everyone wrong, or the same rest score for all).
    """
    if sxx is None:
        sxx = sx
    covariance = n * sxy - sx * sy
    spread_x = n * sxx - sx * sx
    spread_y = n * syy - sy * sy
    if n < 2 or spread_x <= 0 or spread_y <= 0:
        return None
    return covariance / math.sqrt(spread_x * spread_y)


def _item_sums(
    attempts: QuerySet[Attempt],
) -> dict[int, tuple[int, int, int, int, int, int]]:
    """Per question id: (n, Σx, Σy, Σy², Σxy, Σx²) with x the item's mark, y the rest score,
    both in MARK_UNITS (whole numbers, so the sums are exact). One statement: the answers'
    marks, summed here."""
    marks = (
        Answer.objects.filter(attempt__in=attempts.order_by().values("pk"))
        .order_by()
        .values_list("attempt_id", "question_id", "fraction")
    )
    scored = [
        (attempt_id, question_id, int((fraction * MARK_UNITS).to_integral_value(ROUND_HALF_UP)))
        for attempt_id, question_id, fraction in marks
    ]
    totals: dict[int, int] = defaultdict(int)
    for attempt_id, _question, x in scored:
        totals[attempt_id] += x
    sums: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    for attempt_id, question_id, x in scored:
        y = totals[attempt_id] - x
        item = sums[question_id]
        item[0] += 1
        item[1] += x
        item[2] += y
        item[3] += y * y
        item[4] += x * y
        item[5] += x * x
    return {question_id: tuple(item) for question_id, item in sums.items()}


def _outside(question: Question, number: str) -> bool:
    """Whether no accepted number of `question` (prefetched) holds `number`."""
    value = Decimal(number)
    return not any(
        abs(value - accepted.value) <= accepted.tolerance
        for accepted in question.numerical_answers.all()
    )


def item_analysis(quiz: Quiz, *, first_attempts_only: bool = True) -> QuizAnalysis:
    attempts = analysed_attempts(quiz, first_attempts_only=first_attempts_only)
    sums = _item_sums(attempts)
    questions = list(
        quiz.questions.order_by("position").prefetch_related(
            Prefetch("choices", queryset=Choice.objects.order_by("position"))
        )
    )
    kinds = {question.kind for question in questions}
    if Question.Kind.MATCHING in kinds:
        pairs = MatchPair.objects.order_by("position")
        prefetch_related_objects(questions, Prefetch("pairs", queryset=pairs))
    if Question.Kind.NUMERICAL in kinds:
        prefetch_related_objects(questions, "numerical_answers")
    if Question.Kind.ORDERING in kinds:
        items = OrderItem.objects.order_by("position")
        prefetch_related_objects(questions, Prefetch("order_items", queryset=items))
    open_reports = QuestionReport.objects.open_counts_by_question(quiz)
    answers = Answer.objects.filter(attempt__in=attempts).order_by()
    typed_stats = _typed_stats(questions, answers, kinds)
    distribution = Counter(
        {
            (row["question_id"], row["choice_id"]): row["count"]
            for row in answers.filter(choice__isnull=False)
            .values("question_id", "choice_id")
            .annotate(count=Count("pk"))
        }
    )
    if Question.Kind.MULTIPLE in kinds:
        ticked = answers.filter(question__kind=Question.Kind.MULTIPLE)
        for question_id, choice_ids in ticked.values_list("question_id", "choice_ids"):
            distribution.update((question_id, pk) for pk in choice_ids)
    leveled, sure_picks = _confident_errors(answers, kinds)
    responses: dict[int, Counter] = {}
    if Question.Kind.NUMERICAL in kinds:
        typed = answers.filter(number__isnull=False).values("question_id", "number")
        for row in typed.annotate(count=Count("pk")):
            number = f"{Decimal(row['number']).normalize():f}"
            responses.setdefault(row["question_id"], Counter())[number] += row["count"]
    items = []
    for question in questions:
        n, sx, sy, syy, sxy, sxx = sums.get(question.pk, (0, 0, 0, 0, 0, 0))
        common = responses.get(question.pk, Counter()).most_common(MOST_COMMON_RESPONSES)
        given, wrong_sure = leveled.get(question.pk, (0, 0))
        items.append(
            ItemStats(
                question=question,
                answers=n,
                facility=sx / (n * MARK_UNITS) if n else None,
                discrimination=discrimination_index(n, sx, sy, syy, sxy, sxx),
                responses=[
                    ResponseStats(number, count, count / n, outside=_outside(question, number))
                    for number, count in common
                ],
                choices=[
                    ChoiceStats(
                        choice=choice,
                        count=(count := distribution.get((question.pk, choice.pk), 0)),
                        share=count / n if n else None,
                        confident=(sure := sure_picks.get((question.pk, choice.pk), 0)),
                        confident_share=sure / given if given else None,
                    )
                    for choice in question.choices.all()
                ],
                open_reports=open_reports.get(question.pk, 0),
                typed=typed_stats(question, n),
                leveled=given,
                confident_errors=wrong_sure,
            )
        )
    return QuizAnalysis(
        quiz=quiz,
        first_attempts_only=first_attempts_only,
        attempts=attempts.count(),
        items=items,
    )


def _confident_errors(
    answers: QuerySet[Answer], kinds: set[str]
) -> tuple[dict[int, tuple[int, int]], Counter]:
    """Per question id, (answers given with a level, those wrong and "Very sure"); per
    (question id, choice id), how many wrong "Very sure" answers picked the choice (a box
    ticked, for several answers). Two statements, three with a question of several answers."""
    with_level = answers.filter(confidence__isnull=False)
    sure_wrong = with_level.filter(confidence=VERY_SURE, is_correct=False)
    leveled = {
        row["question_id"]: (row["given"], row["wrong"])
        for row in with_level.values("question_id").annotate(
            given=Count("pk"),
            wrong=Count("pk", filter=Q(confidence=VERY_SURE, is_correct=False)),
        )
    }
    picks: Counter = Counter(
        {
            (row["question_id"], row["choice_id"]): row["count"]
            for row in sure_wrong.filter(choice__isnull=False)
            .values("question_id", "choice_id")
            .annotate(count=Count("pk"))
        }
    )
    if Question.Kind.MULTIPLE in kinds and leveled:
        ticked = sure_wrong.filter(question__kind=Question.Kind.MULTIPLE)
        for question_id, choice_ids in ticked.values_list("question_id", "choice_ids"):
            picks.update((question_id, pk) for pk in choice_ids)
    return leveled, picks


def _typed_stats(questions: list[Question], answers: QuerySet[Answer], kinds: set[str]):
    """What the answers to short-answer, matching and ordering questions say, one statement
    per kind the quiz has; a function of (question, its number of answers) to the rows."""
    wrong: dict[int, Counter] = defaultdict(Counter)  # (folded text) → count
    spellings: dict[tuple[int, str], Counter] = defaultdict(Counter)
    confused: dict[int, Counter] = defaultdict(Counter)  # (prompt id, match id) → count
    placed: dict[int, Counter] = defaultdict(Counter)  # item id → count
    if Question.Kind.SHORT in kinds:
        rows = answers.filter(question__kind=Question.Kind.SHORT, fraction=0)
        for question_id, text in rows.values_list("question_id", "text"):
            key = folded(text)
            wrong[question_id][key] += 1
            spellings[(question_id, key)][" ".join(text.split())] += 1
    if Question.Kind.MATCHING in kinds:
        rows = answers.filter(question__kind=Question.Kind.MATCHING)
        for question_id, picked, key in rows.values_list("question_id", "arrangement", "key"):
            for prompt, match in (picked or {}).items():
                if match != (key or {}).get(prompt, int(prompt)):
                    confused[question_id][(int(prompt), match)] += 1
    if Question.Kind.ORDERING in kinds:
        rows = answers.filter(question__kind=Question.Kind.ORDERING)
        for question_id, order, key in rows.values_list("question_id", "arrangement", "key"):
            right = list(key or [])
            for index, item in enumerate(order or []):
                if index < len(right) and right[index] == item:
                    placed[question_id][item] += 1

    def stats(question: Question, n: int) -> list[TypedStats]:
        if question.kind == Question.Kind.SHORT:
            return [
                TypedStats(
                    text=spellings[(question.pk, key)].most_common(1)[0][0],
                    count=count,
                    share=count / n if n else None,
                )
                for key, count in wrong[question.pk].most_common(MOST_COMMON_RESPONSES)
            ]
        if question.kind == Question.Kind.MATCHING:
            pairs = {pair.pk: pair for pair in question.pairs.all()}
            return [
                TypedStats(
                    text=pairs[prompt].prompt,
                    other=pairs[match].match,
                    count=count,
                    share=count / n if n else None,
                )
                for (prompt, match), count in confused[question.pk].most_common()
                if prompt in pairs and match in pairs
            ][:MOST_COMMON_RESPONSES]
        if question.kind == Question.Kind.ORDERING:
            return [
                TypedStats(
                    text=item.text,
                    place=place,
                    count=(count := placed[question.pk][item.pk]),
                    share=count / n if n else None,
                )
                for place, item in enumerate(question.order_items.all(), start=1)
            ]
        return []

    return stats
