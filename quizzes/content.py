"""Read-only quiz content (questions and choices), cached per version of the quiz, and the
versions themselves.

Every step of an attempt needs the quiz's questions and choices; they change rarely (an
instructor's edit) and are read constantly (a class taking the quiz). They are cached under
a key holding `Quiz.updated_at`, the content's version, so nothing is ever invalidated: every
path that edits content (the admin, the importer, the seed loader, scripts) calls
`content_changed` once it is done, which moves the quiz's version and, once the transaction
commits, the catalog's generation (`catalog_generation`), which the catalog's cache keys hold
(the pattern of djangoproject.com's dashboard). Every process reads the new versions on its
next request; a GET never writes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime

from django.core.cache import cache, caches
from django.db import transaction
from django.db.models import Prefetch, QuerySet, prefetch_related_objects
from django.utils import timezone

from . import text
from .models import Choice, NumericalAnswer, Question, Quiz
from .search import search_text_refresh

CACHE_SECONDS = 60 * 60
# The long texts, as Markdown (quizzes/text.py).
QUESTION_TEXTS = ("prompt", "explanation")
CHOICE_TEXTS = ("text", "feedback")


@dataclass
class QuizContent:
    quiz: Quiz
    questions: list[Question]
    _by_id: dict[int, Question] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._by_id = {question.pk: question for question in self.questions}

    @property
    def count(self) -> int:
        return len(self.questions)

    def question(self, question_id: int) -> Question | None:
        return self._by_id.get(question_id)

    def at(self, number: int) -> Question | None:
        """The question at 1-based `number` in the quiz's order, or None."""
        if 1 <= number <= len(self.questions):
            return self.questions[number - 1]
        return None

    def number_of(self, question: Question) -> int:
        return self.questions.index(self._by_id[question.pk]) + 1


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


def _cache_key(quiz_id: int, version: datetime) -> str:
    return f"quiz-content:{quiz_id}:{version.timestamp()}"


@dataclass(frozen=True)
class _Version:
    """One content version as cached: the quiz (with its guide) and its questions."""

    quiz: Quiz
    questions: list[Question]


def quiz_content(quiz: Quiz) -> QuizContent:
    """The quiz's questions in order, each with its choices and accepted numbers prefetched.

    `content.quiz` is the caller's instance; the questions hold the cached copy."""
    cached = _version(quiz.pk, quiz.updated_at)
    return QuizContent(quiz=quiz, questions=cached.questions)


def quiz_content_of(*, quiz_id: int, version: datetime) -> QuizContent:
    """The content of quiz `quiz_id` at `version` (its `updated_at`), quiz and guide included:
    a step of an attempt knows both from the attempt's row and loads no quiz or guide row."""
    cached = _version(quiz_id, version)
    return QuizContent(quiz=cached.quiz, questions=cached.questions)


def _version(quiz_id: int, version: datetime) -> _Version:
    # Kept in this process's memory (the `local` cache alias): a version never changes, so
    # no other process needs to hear of a new one, and a step costs no shared-cache round trip.
    key = _cache_key(quiz_id, version)
    local = caches["local"]
    cached = local.get(key)
    if not isinstance(cached, _Version):
        cached = _load(quiz_id)
        local.set(key, cached, CACHE_SECONDS)
    return cached


def _load(quiz_id: int) -> _Version:
    # Read again rather than taken from the caller: whatever the caller assigned to its
    # instance (a form's unsaved values, an annotation) never reaches the version kept.
    loaded = Quiz.objects.select_related("guide").get(pk=quiz_id)
    questions = list(
        Question.objects.filter(quiz_id=quiz_id)
        .order_by("position")
        .prefetch_related(Prefetch("choices", queryset=Choice.objects.order_by("position")))
    )
    # Markdown is rendered here, once per content version, in every language, and cached
    # with the objects: no step of an attempt renders any text.
    for question in questions:
        question.quiz = loaded  # one quiz instance, not one loaded per question
        text.prerender(question, QUESTION_TEXTS)
        for choice in question.choices.all():
            text.prerender(choice, CHOICE_TEXTS)
    # A statement more only for a quiz that asks for numbers.
    numerical = [q for q in questions if q.kind == Question.Kind.NUMERICAL]
    prefetch_related_objects(
        numerical,
        Prefetch("numerical_answers", queryset=NumericalAnswer.objects.order_by("position")),
    )
    return _Version(quiz=loaded, questions=questions)
