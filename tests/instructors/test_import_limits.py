"""What the importer takes from a parsed GIFT file: its limits, and the kinds it holds."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from quizzes.instructors.imports import (
    MAX_QUESTIONS_PER_FILE,
    GiftImportError,
    quiz_import_gift,
)
from quizzes.models import Choice, Question, Quiz
from tests import factories

pytestmark = pytest.mark.django_db

IMPORT_URL = "/en/admin/quizzes/quiz/import/"


def _questions(count: int) -> str:
    return "\n\n".join(f"Q{n}?{{=a ~b ####Why.}}" for n in range(count))


def _counts() -> tuple[int, int, int]:
    return Quiz.objects.count(), Question.objects.count(), Choice.objects.count()


def test_a_file_of_more_questions_than_the_limit_is_refused_on_the_import_page(
    instructor_client,
):
    before = _counts()
    upload = SimpleUploadedFile(
        "big.gift", _questions(MAX_QUESTIONS_PER_FILE + 1).encode(), content_type="text/plain"
    )

    response = instructor_client.post(IMPORT_URL, {"file": upload})

    assert response.status_code == 200
    assert (
        "The file has more than 1000 questions; at most 1000 can be imported from one file. "
        "Split it into several files."
    ) in response.content.decode()
    assert _counts() == before


def test_a_file_of_exactly_the_limit_is_imported():
    assert MAX_QUESTIONS_PER_FILE == 1000

    result = quiz_import_gift(text=_questions(1000), filename="big.gift")

    assert result.quiz.questions.count() == 1000


def test_questions_that_would_pass_the_last_position_are_refused_and_nothing_is_written():
    quiz = factories.make_quiz(questions=1)
    quiz.questions.update(position=32_766)
    before = _counts()

    with pytest.raises(GiftImportError) as refused:
        quiz_import_gift(text=_questions(2), quiz_slug=quiz.slug)

    assert [str(problem) for problem in refused.value.problems] == [
        "The quiz's questions already reach position 32766; 2 more would pass the highest "
        "position, 32767."
    ]
    assert _counts() == before


def test_a_question_may_take_the_last_position():
    quiz = factories.make_quiz(questions=1)
    quiz.questions.update(position=32_766)

    quiz_import_gift(text=_questions(1), quiz_slug=quiz.slug)

    assert list(quiz.questions.values_list("position", flat=True)) == [32_766, 32_767]


def test_a_question_with_more_answers_than_the_limit_is_refused():
    gift = "Q?{=a" + " ~b" * 32_767 + "}"

    with pytest.raises(GiftImportError) as refused:
        quiz_import_gift(text=gift)

    assert [str(p) for p in refused.value.problems] == [
        "Line 1: The question has 32768 answers; at most 100 are allowed."
    ]
    assert _counts() == (0, 0, 0)


def test_true_false_numerical_and_multiple_answers_are_imported_with_their_weights(
    representative_gift,
):
    result = quiz_import_gift(text=representative_gift)

    by_kind = {question.kind: question for question in result.questions}
    numerical = by_kind["numerical"].numerical_answers.get()
    assert (numerical.value, numerical.tolerance, numerical.fraction) == (1000, 0, 1)
    assert not by_kind["numerical"].choices.exists()
    truefalse = by_kind["truefalse"].choices.order_by("position")
    assert [(c.text_en, c.text_ar, c.fraction) for c in truefalse] == [
        ("True", "صواب", 0),
        ("False", "خطأ", 1),
    ]
    several = by_kind["multiple"].choices.order_by("position")
    assert [(c.text_en, c.is_correct, c.fraction) for c in several] == [
        ("Sound", True, Decimal("0.5")),
        ("Light", True, Decimal("0.5")),
        ("A rock", False, -1),
    ]
    notes = [str(note) for note in result.notes]
    assert not [
        n for n in notes if "skipped" in n and n.startswith(("Line 49", "Line 57", "Line 61"))
    ]


def test_a_multiple_answer_question_keeps_moodles_kind_and_its_negative_weight():
    result = quiz_import_gift(text="A {~%0%a ~%100%b ~%-50%c} wave.")

    question = result.questions[0]
    assert question.kind == "multiple"
    assert list(question.choices.values_list("text_en", "is_correct", "fraction")) == [
        ("a", False, 0),
        ("b", True, 1),
        ("c", False, Decimal("-0.5")),
    ]


def test_partial_credit_on_a_single_answer_question_is_imported():
    result = quiz_import_gift(text="Q?{=a ~%50%b ~c}")

    question = result.questions[0]
    assert question.kind == "single"
    assert list(question.choices.values_list("fraction", flat=True)) == [1, Decimal("0.5"), 0]


def test_a_numerical_question_with_no_answer_worth_the_whole_mark_is_refused():
    with pytest.raises(GiftImportError, match="worth the full mark"):
        quiz_import_gift(text="How many?{#%50%16:1####Count.}")

    assert _counts() == (0, 0, 0)


def test_the_import_page_states_the_limit_in_both_languages(instructor_client):
    english = instructor_client.get(IMPORT_URL).content.decode()
    arabic = instructor_client.get("/ar/admin/quizzes/quiz/import/").content.decode()

    assert f"At most {MAX_QUESTIONS_PER_FILE} questions from one file of at most 2 MB" in english
    assert "ألف سؤال على الأكثر" in arabic
