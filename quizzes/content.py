"""Read-only quiz content (questions and choices), cached per version of the quiz.

Every step of an attempt needs the quiz's questions and choices; they change rarely (an
instructor's edit) and are read constantly (a class taking the quiz). They are cached under
a key holding `Quiz.updated_at`, the content's version, so no invalidation has to reach every
process's cache: every path that edits a quiz's content (the admin, the importer, the seed
loader, scripts) calls `quiz_touch` once it is done, and every process reads the new version
on its next request.
"""

from __future__ import annotations

import copy
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime

from django.core.cache import cache
from django.db.models import Prefetch, QuerySet, prefetch_related_objects
from django.utils import timezone

from . import text
from .models import Choice, NumericalAnswer, Question, Quiz

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


def quiz_touch(quizzes: Quiz | QuerySet[Quiz]) -> None:
    """Move the content version of a quiz (or of every quiz in a queryset) after an edit of
    its content: its text, its questions, their choices or its guide.

    One statement, whatever the number of quizzes; the instances passed get the new version
    too, so the caller's next read of their content sees the edit.
    """
    now = timezone.now()
    if isinstance(quizzes, Quiz):
        Quiz.objects.filter(pk=quizzes.pk).update(updated_at=now)
        quizzes.updated_at = now
    else:
        quizzes.update(updated_at=now)


def _cache_key(quiz_id: int, version: datetime) -> str:
    return f"quiz-content:{quiz_id}:{version.timestamp()}"


@dataclass(frozen=True)
class _Version:
    """One content version as cached: the quiz (with its guide) and its questions."""

    quiz: Quiz
    questions: list[Question]


# Each process also keeps the last versions it read, in memory: a version never changes, so
# this needs no invalidation either, and a step of an attempt costs no cache round trip and
# no unpickling of every question and choice. Entries are shared, read-only, by all requests.
_LOCAL_VERSIONS = 64
_local: dict[str, tuple[float, _Version]] = {}
_local_lock = threading.Lock()


def quiz_content(quiz: Quiz) -> QuizContent:
    """The quiz's questions in order, each with its choices and accepted numbers prefetched.

    `content.quiz` is the caller's instance; the questions share the cached one, a copy made
    when this version was first read."""
    cached = _version(quiz.pk, quiz.updated_at, loaded=quiz)
    return QuizContent(quiz=quiz, questions=cached.questions)


def quiz_content_of(*, quiz_id: int, version: datetime) -> QuizContent:
    """The content of quiz `quiz_id` at `version` (its `updated_at`), quiz and guide included:
    a step of an attempt knows both from the attempt's row and loads no quiz or guide row.

    `content.quiz` is shared by every request that reads this version: read it, never change
    it."""
    cached = _version(quiz_id, version)
    return QuizContent(quiz=cached.quiz, questions=cached.questions)


def _version(quiz_id: int, version: datetime, loaded: Quiz | None = None) -> _Version:
    key = _cache_key(quiz_id, version)
    entry = _local.get(key)
    if entry is not None and entry[0] > time.monotonic():
        return entry[1]
    cached = cache.get(key)
    if not isinstance(cached, _Version):
        cached = _load(quiz_id, loaded)
        cache.set(key, cached, CACHE_SECONDS)
    with _local_lock:
        while len(_local) >= _LOCAL_VERSIONS:
            _local.pop(next(iter(_local)))  # the oldest read
        _local[key] = (time.monotonic() + CACHE_SECONDS, cached)
    return cached


def _load(quiz_id: int, loaded: Quiz | None) -> _Version:
    if loaded is None or not Quiz.guide.is_cached(loaded):
        loaded = Quiz.objects.select_related("guide").get(pk=quiz_id)
    else:
        # A copy: the caller's instance stays theirs, and whatever they later assign to it
        # (a form's unsaved values, an annotation) never reaches the version others read.
        loaded = copy.copy(loaded)
        loaded.guide = copy.copy(loaded.guide)
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
