"""Item analysis and the CSV export on a quiz of mixed kinds, with partial marks."""

from __future__ import annotations

from decimal import Decimal

import pytest

from quizzes.attempts.services import attempt_start
from quizzes.grading import Response
from quizzes.instructors.exports import attempt_rows
from quizzes.instructors.item_analysis import item_analysis
from quizzes.models import Quiz
from tests import factories
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


def _take(user, quiz: Quiz, single: int, boxes: list[int], truth: int, number: str) -> None:
    """Answer the mixed quiz: choice positions for the choice kinds, a number for the last."""
    attempt = attempt_start(user=user, quiz=quiz)
    questions = list(quiz.questions.order_by("position"))
    picks = [[single], boxes, [truth]]
    for question, positions in zip(questions, picks, strict=False):
        ids = tuple(question.choices.filter(position__in=positions).values_list("pk", flat=True))
        post_answer(attempt, question, response=Response(choice_ids=ids))
    post_answer(attempt, questions[3], response=Response(number=Decimal(number)))


@pytest.fixture
def taken():
    quiz = factories.make_mixed_quiz()
    # Strong learners get everything; weak ones little; partial marks in between.
    _take(factories.make_user("a"), quiz, 1, [1, 2], 1, "16")  # 4
    _take(factories.make_user("b"), quiz, 1, [1], 1, "16.4")  # 3.5
    _take(factories.make_user("c"), quiz, 2, [1, 3], 1, "8")  # 1.5
    _take(factories.make_user("d"), quiz, 2, [3, 4], 2, "8")  # 0.5
    return quiz


def test_facility_is_the_mean_mark_of_each_question(taken):
    analysis = item_analysis(taken)

    assert analysis.attempts == 4
    assert [item.facility for item in analysis.items] == [0.5, 0.375, 0.75, 0.75]
    assert all(item.discrimination is not None for item in analysis.items)
    assert analysis.items[1].discrimination > 0.5


def test_the_boxes_ticked_are_counted_per_choice(taken):
    several = item_analysis(taken).items[1]

    assert [row.count for row in several.choices] == [3, 1, 2, 1]


def test_a_numerical_question_lists_its_most_common_answers(taken):
    number = item_analysis(taken).items[3]

    assert [(row.number, row.count, row.share_percent) for row in number.responses] == [
        ("8", 2, 50),
        ("16", 1, 25),
        ("16.4", 1, 25),
    ]
    assert number.choices == []


def test_the_page_shows_the_numbers_and_the_mean_marks(taken, instructor_client):
    page = instructor_client.get(f"/en/admin/quizzes/quiz/{taken.pk}/item-analysis/")

    html = page.content.decode()
    assert page.status_code == 200
    assert "Most common answers to question 4" in html
    assert '<td dir="ltr">16.4</td>' in html
    assert "38%" in html  # question 2's mean mark, 0.375


def test_the_csv_carries_each_answers_mark_boxes_and_number(taken):
    rows = list(attempt_rows(Quiz.objects.filter(pk=taken.pk)))
    header, body = rows[0], [dict(zip(rows[0], row, strict=True)) for row in rows[1:]]

    by_learner = {}
    for row in body:
        by_learner.setdefault(row["learner"], []).append(row)
    b = by_learner["b"]
    assert "mark" in header and "choices_ticked" in header and "number" in header
    assert b[0]["score"] == "3.5" and b[0]["total"] == 4
    assert [row["question_kind"] for row in b] == ["single", "multiple", "truefalse", "numerical"]
    assert [str(row["mark"]) for row in b] == ["1", "0.5", "1", "1"]
    assert by_learner["c"][1]["choices_ticked"] == "1 3"
    assert b[3]["number"] == "16.4" and b[3]["choice_position"] == ""
