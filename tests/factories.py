"""Small factories for test data; the seed content itself lives in fixtures/."""

from __future__ import annotations

import itertools
from decimal import Decimal

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.utils import timezone

from quizzes.content import (
    AcceptedNumber,
    ChoiceData,
    GuideData,
    QuestionData,
    QuizData,
    content_changed,
)
from quizzes.models import (
    AcceptedText,
    Choice,
    Guide,
    MatchPair,
    NumericalAnswer,
    OrderItem,
    Question,
    Quiz,
    equal_weights,
)

_counter = itertools.count(1)

PASSWORD = "a-long-test-passphrase-42"


def make_user(username: str | None = None, *, verified: bool = True, **extra):
    """A learner; with `email`, their address as allauth holds it, verified unless told not."""
    username = username or f"Learner{next(_counter)}"
    user = get_user_model().objects.create_user(username=username, password=PASSWORD, **extra)
    if user.email:
        EmailAddress.objects.create(
            user=user, email=user.email.lower(), primary=True, verified=verified
        )
    return user


def make_instructor(username: str | None = None):
    user = make_user(username or f"Instructor{next(_counter)}", is_staff=True)
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
    content_changed(quiz=quiz)  # as the admin does after an edit
    return question


def correct_choice(question: Question | QuestionData) -> Choice | ChoiceData:
    if isinstance(question, QuestionData):  # the content's read model
        return next(choice for choice in question.choices if choice.is_correct)
    if question.kind == Question.Kind.MULTIPLE:  # one of its right choices, the first
        return question.choices.filter(is_correct=True).order_by("position").first()
    return question.choices.get(is_correct=True)


def wrong_choice(question: Question | QuestionData) -> Choice | ChoiceData | None:
    if isinstance(question, QuestionData):
        return next((choice for choice in question.choices if not choice.is_correct), None)
    return question.choices.filter(is_correct=False).first()


def _question(quiz: Quiz, position: int, kind: str, prompt_en: str, prompt_ar: str) -> Question:
    return Question.objects.create(
        quiz=quiz,
        position=position,
        kind=kind,
        prompt_en=prompt_en,
        prompt_ar=f"{prompt_ar} ({position})؟",
        explanation_en="Because.",
        explanation_ar="لأنّ.",
    )


def add_multiple_question(quiz: Quiz, position: int, choices: int = 4, right=(1, 2)) -> Question:
    """A several-answers question whose choices at `right` positions share the mark equally
    and whose wrong ones take a right one's share away."""
    question = _question(
        quiz, position, "multiple", f"Select every right one ({position})", "اختر كل الصحيح"
    )
    marks = [p in right for p in range(1, choices + 1)]
    for choice_position, weight in enumerate(equal_weights(marks, kind="multiple"), start=1):
        Choice.objects.create(
            question=question,
            position=choice_position,
            text_en=f"Box {position}.{choice_position}",
            text_ar=f"المربع {position}.{choice_position}",
            is_correct=weight > 0,
            fraction=weight,
        )
    return question


def add_truefalse_question(quiz: Quiz, position: int, answer: bool = True) -> Question:
    question = _question(quiz, position, "truefalse", f"Statement {position} holds.", "العبارة")
    for choice_position, (en, ar) in enumerate([("True", "صواب"), ("False", "خطأ")], start=1):
        right = (choice_position == 1) == answer
        Choice.objects.create(
            question=question,
            position=choice_position,
            text_en=en,
            text_ar=ar,
            is_correct=right,
            fraction=int(right),
        )
    return question


def add_numerical_question(quiz: Quiz, position: int, answers=((16, 0, 1),)) -> Question:
    """A numerical question accepting each (value, tolerance, fraction) of `answers`."""
    question = _question(quiz, position, "numerical", f"How many bytes ({position})?", "كم بايتًا")
    for answer_position, (value, tolerance, fraction) in enumerate(answers, start=1):
        NumericalAnswer.objects.create(
            question=question,
            position=answer_position,
            value=Decimal(str(value)),
            tolerance=Decimal(str(tolerance)),
            fraction=Decimal(str(fraction)),
        )
    return question


def add_short_question(
    quiz: Quiz,
    position: int,
    accepted=(("optimizer states", "حالات المحسّن", 1, False), ("states", "", 0.5, False)),
) -> Question:
    """A short-answer question accepting each (English, Arabic, weight, exact) of `accepted`."""
    question = _question(
        quiz, position, "short", f"What does ZeRO-1 shard ({position})?", "ما الذي تجزّئه"
    )
    for answer_position, (en, ar, fraction, exact) in enumerate(accepted, start=1):
        AcceptedText.objects.create(
            question=question,
            position=answer_position,
            text_en=en,
            text_ar=ar,
            fraction=Decimal(str(fraction)),
            exact=exact,
        )
    return question


# ZeRO's stages and what each shards; the last match goes with no stage (a distractor).
ZERO_PAIRS = (
    ("ZeRO-1", "مرحلة ZeRO-1", "optimizer states", "حالات المحسّن"),
    ("ZeRO-2", "مرحلة ZeRO-2", "gradients", "التدرّجات"),
    ("ZeRO-3", "مرحلة ZeRO-3", "parameters", "المعاملات"),
    ("", "", "activations", "التنشيطات"),
)


def add_matching_question(quiz: Quiz, position: int, pairs=ZERO_PAIRS) -> Question:
    question = _question(
        quiz, position, "matching", f"Match each stage ({position})", "طابق كل مرحلة"
    )
    for pair_position, (prompt_en, prompt_ar, match_en, match_ar) in enumerate(pairs, start=1):
        MatchPair.objects.create(
            question=question,
            position=pair_position,
            prompt_en=prompt_en,
            prompt_ar=prompt_ar,
            match_en=match_en,
            match_ar=match_ar,
        )
    return question


PIPELINE_STEPS = (
    ("forward", "التمرير الأمامي"),
    ("backward", "التمرير الخلفي"),
    ("all-reduce", "الاختزال الشامل"),
    ("optimizer step", "خطوة المحسّن"),
)


def add_ordering_question(quiz: Quiz, position: int, items=PIPELINE_STEPS) -> Question:
    question = _question(
        quiz, position, "ordering", f"Put the steps in order ({position})", "رتّب الخطوات"
    )
    for item_position, (en, ar) in enumerate(items, start=1):
        OrderItem.objects.create(question=question, position=item_position, text_en=en, text_ar=ar)
    return question


def make_typed_quiz(**fields) -> Quiz:
    """A published quiz of a short-answer, a matching and an ordering question."""
    quiz = make_quiz(questions=0, **fields)
    add_short_question(quiz, 1)
    add_matching_question(quiz, 2)
    add_ordering_question(quiz, 3)
    content_changed(quiz=quiz)
    return quiz


def make_mixed_quiz(**fields) -> Quiz:
    """A published quiz of one question of each kind: single, multiple, true/false, number."""
    quiz = make_quiz(questions=1, **fields)
    add_multiple_question(quiz, 2)
    add_truefalse_question(quiz, 3)
    add_numerical_question(quiz, 4, answers=((16, 0.5, 1), (8, 0, 0.5)))
    content_changed(quiz=quiz)
    return quiz


# Content as the read model holds it (quizzes/content.py), for the rules' own tests: no
# database.
def quiz_data(**fields) -> QuizData:
    guide = GuideData(pk=1, slug="guide", url="https://example.org/", title_en="Guide", title_ar="")
    defaults = {
        "pk": 1,
        "slug": "quiz",
        "title_en": "Quiz",
        "title_ar": "",
        "description_en": "",
        "description_ar": "",
        "difficulty": "medium",
        "guide": guide,
        "is_published": True,
        "feedback": "immediate",
        "confidence": "off",
        "time_limit": None,
        "max_attempts": None,
        "opens_at": None,
        "closes_at": None,
        "shuffle_choices": False,
        "questions_per_attempt": None,
        "shuffle_questions": False,
        "updated_at": timezone.now(),
    }
    return QuizData(**{**defaults, **fields})


def choice_data(**fields) -> ChoiceData:
    defaults = {
        "pk": 1,
        "position": 1,
        "text_en": "A choice",
        "text_ar": "",
        "feedback_en": "",
        "feedback_ar": "",
        "is_correct": False,
        "fraction": Decimal(0),
        "image": None,
        "rendered": {},
    }
    return ChoiceData(**{**defaults, **fields})


def number_data(**fields) -> AcceptedNumber:
    defaults = {
        "pk": 1,
        "position": 1,
        "value": Decimal(0),
        "tolerance": Decimal(0),
        "fraction": Decimal(1),
        "feedback_en": "",
        "feedback_ar": "",
        "rendered": {},
    }
    return AcceptedNumber(**{**defaults, **fields})


def question_data(*, kind: str, choices=(), numbers=(), **fields) -> QuestionData:
    defaults = {
        "pk": 1,
        "quiz": quiz_data(),
        "position": 1,
        "kind": kind,
        "prompt_en": "A question?",
        "prompt_ar": "",
        "explanation_en": "Because.",
        "explanation_ar": "",
        "image": None,
        "explanation_image": None,
        "choices": tuple(choices),
        "numbers": tuple(numbers),
        "rendered": {},
    }
    return QuestionData(**{**defaults, **fields})


# A quiz's mix of kinds as instructors write them: of each 60 questions, 36 of one answer, 6 of
# several, 4 true or false, 4 numbers, 4 short answers, 3 matching and 3 ordering.
KIND_MIX = (
    ["single"] * 36
    + ["multiple"] * 6
    + ["truefalse"] * 4
    + ["numerical"] * 4
    + ["short"] * 4
    + ["matching"] * 3
    + ["ordering"] * 3
)
_ADD_KIND = {
    "single": add_question,
    "multiple": add_multiple_question,
    "truefalse": add_truefalse_question,
    "numerical": add_numerical_question,
    "short": add_short_question,
    "matching": add_matching_question,
    "ordering": add_ordering_question,
}


def make_quiz_of_every_kind(questions: int = 100, **fields) -> Quiz:
    """A published quiz of `questions` questions of every kind, in KIND_MIX's proportions, the
    kinds spread through it (a quiz at the size instructors write)."""
    quiz = make_quiz(questions=0, **fields)
    for position in range(1, questions + 1):
        kind = KIND_MIX[(position * 37) % len(KIND_MIX)]
        _ADD_KIND[kind](quiz, position)
    content_changed(quiz=quiz)
    return quiz
