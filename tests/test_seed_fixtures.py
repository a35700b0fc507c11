"""The two seed quizzes users see first: complete, bilingual, keyed."""

import json
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command

from quizzes.content import quiz_content
from quizzes.grading import grade_choices, grade_matches, grade_number, grade_order, grade_text
from quizzes.models import AcceptedText, Choice, MatchPair, OrderItem, Question, Quiz

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

# The answer key, worked out from the material itself (position of the correct choice).
KEY = {
    "zero-sharded-optimizers": [3, 1, 2, 4, 4, 1, 3, 2],
    "activation-recomputation": [2, 4, 1, 3, 4, 2, 3, 1],
}
DIFFICULTY = {"zero-sharded-optimizers": "hard", "activation-recomputation": "medium"}
# After the eight questions of one answer: a short-answer, a matching, an ordering, a
# several-answer, a true-or-false and a number question.
TYPED = {
    "zero-sharded-optimizers": [
        "short",
        "matching",
        "ordering",
        "multiple",
        "truefalse",
        "numerical",
    ],
    "activation-recomputation": [],
}


def test_fixtures_load_with_loaddata_into_an_empty_database():
    call_command("loaddata", *sorted(str(p) for p in FIXTURES.glob("*.json")), verbosity=0)
    assert sorted(Quiz.objects.values_list("slug", flat=True)) == sorted(KEY)


@pytest.mark.parametrize("slug", sorted(KEY))
def test_each_seed_quiz_has_eight_questions_of_four_choices_with_one_correct(seed_quizzes, slug):
    quiz = Quiz.objects.get(slug=slug)
    assert quiz.is_published
    assert quiz.difficulty == DIFFICULTY[slug]
    questions = list(quiz.questions.order_by("position"))
    assert [q.position for q in questions] == list(range(1, 9 + len(TYPED[slug])))
    assert [q.kind for q in questions[8:]] == TYPED[slug]
    for question, key in zip(questions[:8], KEY[slug], strict=True):
        choices = list(question.choices.order_by("position"))
        assert [c.position for c in choices] == [1, 2, 3, 4]
        assert [c.position for c in choices if c.is_correct] == [key]


@pytest.mark.parametrize("slug", sorted(KEY))
def test_every_seed_text_is_present_in_english_and_arabic(seed_quizzes, slug):
    quiz = Quiz.objects.select_related("guide").get(slug=slug)
    texts = [quiz.title_en, quiz.title_ar, quiz.description_en, quiz.description_ar]
    texts += [quiz.guide.title_en, quiz.guide.title_ar]
    for question in Question.objects.filter(quiz=quiz):
        texts += [question.prompt_en, question.prompt_ar]
        texts += [question.explanation_en, question.explanation_ar]
    for choice in Choice.objects.filter(question__quiz=quiz):
        texts += [choice.text_en, choice.text_ar]
    for item in OrderItem.objects.filter(question__quiz=quiz):
        texts += [item.text_en, item.text_ar]
    for pair in MatchPair.objects.filter(question__quiz=quiz):
        texts += [pair.match_en, pair.match_ar]
        assert bool(pair.prompt_en) == bool(pair.prompt_ar)  # a distractor has neither
    assert all(text.strip() for text in texts)


def test_the_zero_quizs_typed_questions_take_the_glossarys_terms_in_both_languages(
    seed_quizzes,
):
    quiz = Quiz.objects.get(slug="zero-sharded-optimizers")
    short, matching, ordering = quiz_content(quiz).questions[8:11]
    # «حالات المُحسِّن» as the glossary writes it, and as learners type it, diacritics or not.
    assert AcceptedText.objects.filter(question_id=short.pk, text_ar="حالات المُحسِّن").exists()
    assert grade_text(short, "حالات المحسن").fraction == 1
    assert grade_text(short, "Optimizer States").fraction == 1
    assert grade_text(short, "المحسّن").fraction == Decimal("0.5")
    assert grade_text(short, "gradients").fraction == 0
    assert [(p.prompt_ar, p.match_ar) for p in matching.pairs] == [
        ("المرحلة الأولى", "حالات المُحسِّن"),
        ("المرحلة الثانية", "التدرّجات"),
        ("المرحلة الثالثة", "المعاملات"),
        ("", "بيانات التدريب"),
    ]
    right = {p.pk: p.pk for p in matching.prompts}
    assert grade_matches(matching, right).fraction == 1
    items = [item.pk for item in ordering.items]
    assert grade_order(ordering, items).fraction == 1
    assert grade_order(ordering, items[::-1]).fraction == Decimal("0.2")


def test_the_zero_quiz_lets_a_learner_try_several_answers_true_or_false_and_a_number(
    seed_quizzes,
):
    quiz = Quiz.objects.get(slug="zero-sharded-optimizers")
    several, true_or_false, number = quiz_content(quiz).questions[11:]
    # Several answers: the glossary's model states, half the mark each, a wrong tick costs half.
    choices = {choice.text_ar: choice for choice in several.choices}
    assert list(choices) == [
        "حالات المُحسِّن",
        "المعاملات",
        "التدرّجات",
        "طبقات كاملة، يحتفظ كل GPU بطبقات خاصة به",
    ]
    right = [choices["حالات المُحسِّن"], choices["التدرّجات"]]
    assert grade_choices(several, right).fraction == 1
    assert grade_choices(several, right[:1]).fraction == Decimal("0.5")
    assert grade_choices(several, [*right[:1], choices["المعاملات"]]).fraction == 0
    # True or false, in the words the kind's choices have in each language.
    assert [(c.text_en, c.text_ar, c.is_correct) for c in true_or_false.choices] == [
        ("True", "صواب", False),
        ("False", "خطأ", True),
    ]
    # A number: 120 GB of model states over 64 GPUs.
    assert grade_number(number, Decimal("1.875")).fraction == 1
    assert grade_number(number, Decimal("1.88")).fraction == 1
    assert grade_number(number, Decimal("1.9")).fraction == 0
    assert grade_number(number, Decimal("120")).fraction == 0
    for question in (several, true_or_false, number):
        assert question.prompt_ar and question.explanation_ar
    assert "ZeRO" in several.prompt_ar and "المرحلة الثانية" in several.prompt_ar


def test_seed_arabic_keeps_technical_names_in_latin_script(seed_quizzes):
    arabic = " ".join(
        q.prompt_ar + q.explanation_ar
        for q in Question.objects.filter(quiz__slug="zero-sharded-optimizers")
    )
    assert "ZeRO" in arabic and "Adam" in arabic and "FSDP" in arabic
    # The machine translation's errors: Adam as a person's name, ZeRO as "the zero".
    assert "آدم" not in arabic
    assert "الصفر" not in arabic


def test_seeding_twice_neither_duplicates_nor_overwrites_an_instructors_edit(seed_quizzes):
    question = Question.objects.get(quiz__slug="zero-sharded-optimizers", position=1)
    question.prompt_ar = ""
    question.save()

    call_command("seed_quizzes", verbosity=0)

    assert Quiz.objects.count() == 2
    assert Question.objects.count() == 22
    question.refresh_from_db()
    assert question.prompt_ar == ""


def test_fixture_files_are_valid_json_with_natural_keys_only():
    for path in FIXTURES.glob("*.json"):
        for obj in json.loads(path.read_text(encoding="utf-8")):
            assert "pk" not in obj
