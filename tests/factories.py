"""Small factories for test data; the seed content itself lives in fixtures/."""

from __future__ import annotations

import itertools

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from quizzes.content import quiz_touch
from quizzes.models import Choice, Guide, Question, Quiz

_counter = itertools.count(1)

PASSWORD = "a-long-test-passphrase-42"


def make_user(username: str | None = None, **extra):
    username = username or f"learner{next(_counter)}"
    return get_user_model().objects.create_user(username=username, password=PASSWORD, **extra)


def make_instructor(username: str | None = None):
    user = make_user(username or f"instructor{next(_counter)}", is_staff=True)
    user.groups.add(Group.objects.get(name="Instructors"))
    return user


def make_guide(**fields) -> Guide:
    n = next(_counter)
    defaults = {
        "slug": f"guide-{n}",
        "title_en": f"Guide {n}",
        "title_ar": f"الدليل {n}",
        "url": f"https://example.org/guides/{n}",
    }
    return Guide.objects.create(**{**defaults, **fields})


def make_quiz(questions: int = 3, choices: int = 4, correct: int = 1, **fields) -> Quiz:
    """A published quiz of `questions` questions whose choice number `correct` is right."""
    n = next(_counter)
    defaults = {
        "slug": f"quiz-{n}",
        "title_en": f"Quiz {n}",
        "title_ar": f"اختبار {n}",
        "description_en": "What this quiz covers.",
        "description_ar": "ما يغطيه هذا الاختبار.",
        "difficulty": Quiz.Difficulty.MEDIUM,
        "is_published": True,
    }
    if "guide" not in fields:
        fields["guide"] = make_guide()
    quiz = Quiz.objects.create(**{**defaults, **fields})
    for position in range(1, questions + 1):
        add_question(quiz, position, choices=choices, correct=correct)
    return quiz


def add_question(quiz: Quiz, position: int, choices: int = 4, correct: int = 1) -> Question:
    question = Question.objects.create(
        quiz=quiz,
        position=position,
        prompt_en=f"Question {position} prompt?",
        prompt_ar=f"نص السؤال {position}؟",
        explanation_en=f"Because of reason {position}.",
        explanation_ar=f"بسبب السبب {position}.",
    )
    for choice_position in range(1, choices + 1):
        Choice.objects.create(
            question=question,
            position=choice_position,
            text_en=f"Choice {position}.{choice_position}",
            text_ar=f"الخيار {position}.{choice_position}",
            is_correct=choice_position == correct,
            fraction=1 if choice_position == correct else 0,
        )
    quiz_touch(quiz)  # as the admin does after an edit
    return question


def correct_choice(question: Question) -> Choice:
    return question.choices.get(is_correct=True)


def wrong_choice(question: Question) -> Choice:
    return question.choices.filter(is_correct=False).first()
