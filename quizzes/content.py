"""Quiz content as plain data: what learners read, built once per content version and kept in
each process's memory; and the versions themselves.

Every step of an attempt needs the quiz, its questions, their choices or accepted numbers;
they change rarely (an instructor's edit) and are read constantly (a class taking the quiz).
`quiz_content_of` builds them from the ORM once per version of the quiz (`Quiz.updated_at`)
into frozen dataclasses, Markdown already rendered in every language, and keeps them in
this process (`functools.lru_cache`): immutable, so every thread shares them, and nothing is
pickled or copied per request. Templates and grading read them; model instances are for
writes.

Nothing is ever invalidated: every path that edits content (the admin, the importer, the
seed loader, scripts) calls `content_changed` once it is done, which moves the quiz's version
and, once the transaction commits, the catalog's generation (`catalog_generation`), which the
catalog's cache keys hold (the pattern of djangoproject.com's dashboard). Every process reads
the new version from the quiz's row on its next request; a GET never writes.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from types import MappingProxyType

from django.core.cache import cache
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Model, QuerySet
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString

from . import text
from .languages import LANGUAGE_CODES, in_language, right_answers_in_language
from .models import (
    CHOICE_KINDS,
    PART_KINDS,
    AcceptedText,
    Choice,
    MatchPair,
    NumericalAnswer,
    OrderItem,
    Question,
    Quiz,
    search_text_refresh,
)

# Versions kept per process (a version of a long quiz is some tens of KB).
VERSIONS_KEPT = 256
# A version is built again after this long, so that an edit written around `content_changed`
# (a script's raw update) still reaches learners within the hour.
VERSION_SECONDS = 60 * 60
# The long texts, as Markdown (quizzes/text.py).
QUESTION_TEXTS = ("prompt", "explanation")
CHOICE_TEXTS = ("text", "feedback")


def _texts(obj: Model, fields: tuple[str, ...]) -> Mapping[tuple[str, str], SafeString]:
    """`obj`'s Markdown `fields` rendered in every language that has them."""
    return MappingProxyType(
        {
            (name, code): text.render_markdown(value, lang=code)
            for name in fields
            for code in LANGUAGE_CODES
            if (value := getattr(obj, f"{name}_{code}", ""))
        }
    )


@dataclass(frozen=True, slots=True)
class Image:
    """An uploaded image: its stored name, size (known without opening the file) and alt text
    in each language."""

    name: str
    width: int | None
    height: int | None
    alt_en: str
    alt_ar: str

    @property
    def url(self) -> str:
        # Asked of the storage at each render: an object store's links are signed for hours.
        return default_storage.url(self.name)

    @property
    def alt(self) -> str:
        return in_language(self, "alt")


def _translated(obj: Model, *names: str) -> dict[str, str]:
    """`obj`'s translated fields `names` in every language, as keyword arguments
    (`title_en=…, title_ar=…`), empty rather than None."""
    return {
        f"{name}_{code}": getattr(obj, f"{name}_{code}") or ""
        for name in names
        for code in LANGUAGE_CODES
    }


def _image(obj: Model, prefix: str, alt: str) -> Image | None:
    file = getattr(obj, prefix)
    if not file:
        return None
    return Image(
        name=file.name,
        width=getattr(obj, f"{prefix}_width"),
        height=getattr(obj, f"{prefix}_height"),
        **{key.replace(alt, "alt", 1): value for key, value in _translated(obj, alt).items()},
    )


@dataclass(frozen=True, slots=True)
class GuideData:
    pk: int
    slug: str
    url: str
    title_en: str
    title_ar: str

    @property
    def title(self) -> str:
        return in_language(self, "title")

    def __str__(self) -> str:
        return self.title


@dataclass(frozen=True, slots=True)
class QuizData:
    """A quiz's row as learners' pages read it."""

    pk: int
    slug: str
    title_en: str
    title_ar: str
    description_en: str
    description_ar: str
    difficulty: str
    guide: GuideData
    is_published: bool
    feedback: str
    # Confidence with each answer (quizzes/confidence.py: off, ask, marking).
    confidence: str
    time_limit: timedelta | None
    max_attempts: int | None
    opens_at: datetime | None
    closes_at: datetime | None
    shuffle_choices: bool
    questions_per_attempt: int | None
    shuffle_questions: bool
    updated_at: datetime

    @property
    def id(self) -> int:
        return self.pk

    @property
    def title(self) -> str:
        return in_language(self, "title")

    @property
    def is_deferred(self) -> bool:
        return self.feedback == Quiz.Feedback.DEFERRED

    @property
    def has_limits(self) -> bool:
        """Whether starting it depends on more than the attempt in progress."""
        return (
            self.max_attempts is not None
            or self.closes_at is not None
            or self.opens_at is not None
            or self.time_limit is not None
        )

    def get_difficulty_display(self) -> str:
        return str(Quiz.Difficulty(self.difficulty).label)

    def get_absolute_url(self) -> str:
        return reverse("quizzes:detail", args=[self.slug])

    def __str__(self) -> str:
        return self.title


@dataclass(frozen=True, slots=True)
class ChoiceData:
    pk: int
    position: int
    text_en: str
    text_ar: str
    feedback_en: str
    feedback_ar: str
    is_correct: bool
    fraction: Decimal
    image: Image | None
    rendered: Mapping[tuple[str, str], SafeString]

    @property
    def id(self) -> int:
        return self.pk

    @property
    def text(self) -> str:
        return in_language(self, "text")

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class AcceptedNumber:
    """A numerical question's accepted number: `value` ± `tolerance`, worth `fraction`."""

    pk: int
    position: int
    value: Decimal
    tolerance: Decimal
    fraction: Decimal
    feedback_en: str
    feedback_ar: str
    rendered: Mapping[tuple[str, str], SafeString]

    def __str__(self) -> str:
        if self.tolerance:
            return f"{self.value.normalize():f} ± {self.tolerance.normalize():f}"
        return f"{self.value.normalize():f}"


@dataclass(frozen=True, slots=True)
class AcceptedTextData:
    """A short-answer question's accepted answer (quizzes.models.AcceptedText)."""

    pk: int
    position: int
    text_en: str
    text_ar: str
    fraction: Decimal
    exact: bool
    feedback_en: str
    feedback_ar: str
    rendered: Mapping[tuple[str, str], SafeString]

    @property
    def text(self) -> str:
        return in_language(self, "text")

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class PairData:
    """A matching question's pair (quizzes.models.MatchPair); no prompt: a distractor."""

    pk: int
    position: int
    prompt_en: str
    prompt_ar: str
    match_en: str
    match_ar: str

    @property
    def is_distractor(self) -> bool:
        return not (self.prompt_en or self.prompt_ar)

    @property
    def prompt(self) -> str:
        return in_language(self, "prompt")

    @property
    def match(self) -> str:
        return in_language(self, "match")


@dataclass(frozen=True, slots=True)
class ItemData:
    """An ordering question's item (quizzes.models.OrderItem), at its place in the right
    order (`position`)."""

    pk: int
    position: int
    text_en: str
    text_ar: str

    @property
    def text(self) -> str:
        return in_language(self, "text")

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class QuestionData:
    pk: int
    quiz: QuizData
    position: int
    kind: str
    prompt_en: str
    prompt_ar: str
    explanation_en: str
    explanation_ar: str
    image: Image | None
    explanation_image: Image | None
    choices: tuple[ChoiceData, ...]
    numbers: tuple[AcceptedNumber, ...]
    rendered: Mapping[tuple[str, str], SafeString]
    # Short answer: the accepted answers; matching: the pairs (distractors last, as written);
    # ordering: the items in the right order.
    texts: tuple[AcceptedTextData, ...] = ()
    pairs: tuple[PairData, ...] = ()
    items: tuple[ItemData, ...] = ()

    @property
    def id(self) -> int:
        return self.pk

    @property
    def prompts(self) -> tuple[PairData, ...]:
        """A matching question's pairs that have a prompt, in the question's order."""
        return tuple(pair for pair in self.pairs if not pair.is_distractor)

    @property
    def quiz_id(self) -> int:
        return self.quiz.pk

    @property
    def prompt(self) -> str:
        return in_language(self, "prompt")

    @property
    def has_choices(self) -> bool:
        return self.kind in CHOICE_KINDS

    @property
    def has_explanation(self) -> bool:
        """Whether there is an explanation to show (a draft's question may have none)."""
        return bool(
            self.explanation_en.strip() or self.explanation_ar.strip() or self.explanation_image
        )

    @property
    def has_parts(self) -> bool:
        """Whether the learner arranges parts of the question (`parts`)."""
        return self.kind in PART_KINDS

    @property
    def parts(self) -> tuple[PairData | ItemData, ...]:
        """What the learner arranges: a matching question's matches (every pair's,
        distractors included), an ordering question's items; none for the other kinds."""
        if self.kind == "matching":
            return self.pairs
        return self.items if self.kind == "ordering" else ()

    def choice(self, choice_id: int | None) -> ChoiceData | None:
        return next((choice for choice in self.choices if choice.pk == choice_id), None)

    @property
    def accepted_texts_now(self) -> list[str]:
        """A short-answer question's answers worth the whole mark as the key stands now, in
        the page's language (right_answers_in_language)."""
        return right_answers_in_language(self.texts)

    @property
    def accepted_numbers_now(self) -> list[str]:
        """The numbers worth the whole mark as the key stands now (for a question left
        unanswered; an answer keeps the key it was marked against)."""
        return [str(number) for number in self.numbers if number.fraction == 1]

    def __str__(self) -> str:
        return f"{self.quiz.slug} #{self.position}"


@dataclass(frozen=True)
class QuizContent:
    """One version of a quiz: the quiz and its questions in the quiz's order."""

    quiz: QuizData
    questions: tuple[QuestionData, ...]
    _by_id: Mapping[int, QuestionData] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_id = MappingProxyType({question.pk: question for question in self.questions})
        object.__setattr__(self, "_by_id", by_id)

    @property
    def count(self) -> int:
        return len(self.questions)

    def question(self, question_id: int) -> QuestionData | None:
        return self._by_id.get(question_id)

    def at(self, number: int) -> QuestionData | None:
        """The question at 1-based `number` in the quiz's order, or None."""
        if 1 <= number <= len(self.questions):
            return self.questions[number - 1]
        return None


def content_changed(*, quiz: Quiz | QuerySet[Quiz]) -> None:
    """After an edit of content: move the content version of `quiz` (or of every quiz of a
    queryset, whose search text is brought up to date too, as the quizzes may have been
    written around `Quiz.save()`), and the catalog's generation. Call it after any edit of a
    quiz, its questions, their choices or accepted numbers, or its guide, and after quizzes
    are deleted (with the queryset that held them).

    The instances passed get the new version too, so the caller's next read of their content
    sees the edit.
    """
    now = timezone.now()
    if isinstance(quiz, Quiz):
        Quiz.objects.filter(pk=quiz.pk).update(updated_at=now)
        quiz.updated_at = now
    else:
        search_text_refresh(quiz)
        quiz.update(updated_at=now)
    # Now, for this transaction's own next reads, and again once it commits: a listing read
    # by another request in between would have been kept under the new generation with the
    # data from before the commit.
    _catalog_generation_bump()
    transaction.on_commit(_catalog_generation_bump)


# The catalog's generation: one number in the shared cache that every catalog cache key holds.
# Moved after each committed edit; never read back as "the same" after the cache lost it,
# since a lost generation starts again from the clock.
CATALOG_GENERATION_KEY = "catalog:generation"


def catalog_generation() -> int:
    """The catalog's current generation (one cache read)."""
    generation = cache.get(CATALOG_GENERATION_KEY)
    if generation is None:
        cache.add(CATALOG_GENERATION_KEY, time.time_ns(), None)
        generation = cache.get(CATALOG_GENERATION_KEY, 0)
    return int(generation)


def _catalog_generation_bump() -> None:
    try:
        cache.incr(CATALOG_GENERATION_KEY)
    except ValueError:  # not there (evicted, or never read): a new one, past any before
        cache.set(CATALOG_GENERATION_KEY, time.time_ns(), None)


def quiz_content(quiz: Quiz | QuizData) -> QuizContent:
    """The content of `quiz` at the version its instance holds."""
    return quiz_content_of(quiz_id=quiz.pk, version=quiz.updated_at)


def quiz_content_of(*, quiz_id: int, version: datetime) -> QuizContent:
    """The content of quiz `quiz_id` at `version` (its `updated_at`), quiz and guide included:
    a step of an attempt knows both from the attempt's row and loads no quiz or guide row."""
    return _version(quiz_id, version, int(time.monotonic() // VERSION_SECONDS))


def content_cache_clear() -> None:
    """Forget every version this process keeps (tests, whose ids and clocks repeat)."""
    _version.cache_clear()


@functools.lru_cache(maxsize=VERSIONS_KEPT)
def _version(quiz_id: int, version: datetime, _hour: int) -> QuizContent:
    # Read again rather than taken from the caller: whatever the caller assigned to its
    # instance (a form's unsaved values, an annotation) never reaches the version kept.
    return _build(Quiz.objects.select_related("guide").get(pk=quiz_id))


def _build(loaded: Quiz) -> QuizContent:
    guide = loaded.guide
    quiz = QuizData(
        pk=loaded.pk,
        slug=loaded.slug,
        **_translated(loaded, "title", "description"),
        difficulty=loaded.difficulty,
        guide=GuideData(
            pk=guide.pk,
            slug=guide.slug,
            url=guide.url,
            **_translated(guide, "title"),
        ),
        is_published=loaded.is_published,
        feedback=loaded.feedback,
        confidence=loaded.confidence,
        time_limit=loaded.time_limit,
        max_attempts=loaded.max_attempts,
        opens_at=loaded.opens_at,
        closes_at=loaded.closes_at,
        shuffle_choices=loaded.shuffle_choices,
        questions_per_attempt=loaded.questions_per_attempt,
        shuffle_questions=loaded.shuffle_questions,
        updated_at=loaded.updated_at,
    )
    rows = list(Question.objects.filter(quiz_id=loaded.pk).order_by("position"))
    choices: dict[int, list[ChoiceData]] = {row.pk: [] for row in rows}
    for choice in Choice.objects.filter(question__quiz_id=loaded.pk).order_by("position"):
        choices[choice.question_id].append(
            ChoiceData(
                pk=choice.pk,
                position=choice.position,
                **_translated(choice, "text", "feedback"),
                is_correct=choice.is_correct,
                fraction=choice.fraction,
                image=_image(choice, "image", "image_alt"),
                rendered=_texts(choice, CHOICE_TEXTS),
            )
        )
    numbers: dict[int, list[AcceptedNumber]] = {row.pk: [] for row in rows}
    if any(row.kind == Question.Kind.NUMERICAL for row in rows):
        accepted = NumericalAnswer.objects.filter(question__quiz_id=loaded.pk)
        for number in accepted.order_by("position"):
            numbers[number.question_id].append(
                AcceptedNumber(
                    pk=number.pk,
                    position=number.position,
                    value=number.value,
                    tolerance=number.tolerance,
                    fraction=number.fraction,
                    **_translated(number, "feedback"),
                    rendered=_texts(number, ("feedback",)),
                )
            )
    texts, pairs, items = _typed_parts(loaded.pk, rows)
    questions = tuple(
        QuestionData(
            pk=row.pk,
            quiz=quiz,
            position=row.position,
            kind=row.kind,
            **_translated(row, "prompt", "explanation"),
            image=_image(row, "image", "image_alt"),
            explanation_image=_image(row, "explanation_image", "explanation_image_alt"),
            choices=tuple(choices[row.pk]),
            numbers=tuple(numbers[row.pk]),
            rendered=_texts(row, QUESTION_TEXTS),
            texts=tuple(texts.get(row.pk, ())),
            pairs=tuple(pairs.get(row.pk, ())),
            items=tuple(items.get(row.pk, ())),
        )
        for row in rows
    )
    return QuizContent(quiz=quiz, questions=questions)


def _typed_parts(
    quiz_id: int, rows: list[Question]
) -> tuple[dict[int, list[AcceptedTextData]], dict[int, list[PairData]], dict[int, list[ItemData]]]:
    """The parts of the quiz's short-answer, matching and ordering questions, by question id
    (a statement each, only for a quiz that has the kind)."""
    kinds = {row.kind for row in rows}
    texts: dict[int, list[AcceptedTextData]] = {}
    pairs: dict[int, list[PairData]] = {}
    items: dict[int, list[ItemData]] = {}
    if Question.Kind.SHORT in kinds:
        for accepted in AcceptedText.objects.filter(question__quiz_id=quiz_id).order_by("position"):
            texts.setdefault(accepted.question_id, []).append(
                AcceptedTextData(
                    pk=accepted.pk,
                    position=accepted.position,
                    fraction=accepted.fraction,
                    exact=accepted.exact,
                    rendered=_texts(accepted, ("feedback",)),
                    **_translated(accepted, "text", "feedback"),
                )
            )
    if Question.Kind.MATCHING in kinds:
        for pair in MatchPair.objects.filter(question__quiz_id=quiz_id).order_by("position"):
            pairs.setdefault(pair.question_id, []).append(
                PairData(pk=pair.pk, position=pair.position, **_translated(pair, "prompt", "match"))
            )
    if Question.Kind.ORDERING in kinds:
        for item in OrderItem.objects.filter(question__quiz_id=quiz_id).order_by("position"):
            items.setdefault(item.question_id, []).append(
                ItemData(pk=item.pk, position=item.position, **_translated(item, "text"))
            )
    return texts, pairs, items
