"""Confidence for the instructor (issue 56): the item analysis's confident-error rate per
question and per choice, and each answer's level in the grades report and its CSV."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

import pytest

from quizzes.attempts.services import attempt_start
from quizzes.instructors.item_analysis import item_analysis
from tests import factories
from tests.factories import correct_choice
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def sure_quiz(db):
    """Five learners, two questions (choice 1 right). Question 1's picks and levels:

        learner  pick  level
        L1       1     3      right, very sure
        L2       2     3      wrong, very sure   (choice 2 fools sure learners)
        L3       2     3      wrong, very sure
        L4       3     3      wrong, very sure
        L5       3     1      wrong, not sure

    Question 2: everyone right, "Fairly sure". A sixth learner's answers carry no level
    (an attempt from before the quiz asked)."""
    quiz = factories.make_quiz(questions=2, choices=4, confidence="marking")
    one, two = quiz.questions.order_by("position")
    for n, (pick, level) in enumerate([(1, 3), (2, 3), (2, 3), (3, 3), (3, 1)], start=1):
        attempt = attempt_start(user=factories.make_user(f"l{n}"), quiz=quiz)
        post_answer(attempt, one, choice=one.choices.get(position=pick), confidence=level)
        post_answer(attempt, two, choice=correct_choice(two), confidence=2)
    quiz.confidence = "off"
    quiz.save()
    old = attempt_start(user=factories.make_user("l6"), quiz=quiz)
    post_answer(old, one, choice=one.choices.get(position=2))
    post_answer(old, two, choice=correct_choice(two))
    quiz.confidence = "marking"
    quiz.save()
    return quiz


def test_item_analysis_gives_each_question_and_wrong_choice_its_confident_error_rate(sure_quiz):
    analysis = item_analysis(sure_quiz)
    first, second = analysis.items

    assert analysis.has_levels
    assert (first.answers, first.leveled, first.confident_errors) == (6, 5, 3)
    assert first.confident_error_percent == 60
    assert [(c.choice.position, c.confident, c.confident_percent) for c in first.choices] == [
        (1, 0, 0),
        (2, 2, 40),
        (3, 1, 20),
        (4, 0, 0),
    ]
    assert (second.leveled, second.confident_error_percent) == (5, 0)


def test_the_item_analysis_page_has_the_column_only_where_levels_were_given(
    instructor_client, sure_quiz
):
    page = instructor_client.get(
        f"/en/admin/quizzes/quiz/{sure_quiz.pk}/item-analysis/"
    ).content.decode()
    assert '<th scope="col">Confident errors</th>' in page
    assert "3 of 5 answers with a level" in page
    assert 'Picked very sure: 2 (<bdi dir="ltr">40%</bdi>)' in page
    arabic = instructor_client.get(
        f"/ar/admin/quizzes/quiz/{sure_quiz.pk}/item-analysis/"
    ).content.decode()
    assert "الأخطاء الواثقة" in arabic

    plain = factories.make_quiz(questions=2)
    attempt = attempt_start(user=factories.make_user("l7"), quiz=plain)
    for question in plain.questions.order_by("position"):
        post_answer(attempt, question, choice=correct_choice(question))
    page = instructor_client.get(f"/en/admin/quizzes/quiz/{plain.pk}/item-analysis/")
    assert "Confident errors" not in page.content.decode()


def _csv(response) -> list[list[str]]:
    body = b"".join(response.streaming_content).decode("utf-8")
    return list(csv.reader(io.StringIO(body.removeprefix("\ufeff"))))


def test_the_grades_csv_carries_each_answers_level_the_cbm_sum_and_the_grade(
    instructor_client, sure_quiz
):
    response = instructor_client.get(f"/en/admin/quizzes/quiz/{sure_quiz.pk}/results.csv")
    header, *rows = _csv(response)

    assert header[6:] == [
        "score",
        "total",
        "cbm_score",
        "grade",
        "Q1",
        "Q1 confidence",
        "Q2",
        "Q2 confidence",
    ]
    by_learner = {row[1]: row for row in rows}
    # L1: right very sure (3) and right fairly sure (2): 5 of 6, grade 5 / 2 / 3 × 2 marks.
    assert by_learner["l1"][6:] == ["2", "2", "5", "1.6667", "1", "3", "1", "2"]
    # L2: wrong very sure (−6) and right fairly sure (2): an average below 0, no marks.
    assert by_learner["l2"][6:] == ["1", "2", "-4", "0", "0", "3", "1", "2"]
    # L6 answered before the quiz asked: no levels, no CBM, the score is the grade.
    assert by_learner["l6"][6:] == ["1", "2", "", "1", "0", "", "1", ""]


def test_the_grades_csv_of_a_quiz_that_never_asked_is_as_it_was(instructor_client):
    quiz = factories.make_quiz(questions=2)
    attempt = attempt_start(user=factories.make_user("l8"), quiz=quiz)
    for question in quiz.questions.order_by("position"):
        post_answer(attempt, question, choice=correct_choice(question))
    header, row = _csv(instructor_client.get(f"/en/admin/quizzes/quiz/{quiz.pk}/results.csv"))
    assert header[6:] == ["score", "total", "Q1", "Q2"] and row[6:] == ["2", "2", "1", "1"]


def test_the_grades_report_shows_each_level_and_the_certainty_grade(instructor_client, sure_quiz):
    page = instructor_client.get(f"/en/admin/quizzes/quiz/{sure_quiz.pk}/results/").content.decode()
    level = '<sup class="mark__level" aria-hidden="true">3</sup>'
    assert level + '<span class="visually-hidden">, Very sure</span>' in page
    assert "Marked by certainty: grade" in page
    assert "style=" not in page.split('id="grades"')[1]
    grade = Decimal(5) / 2 / 3
    assert f"{round(100 * grade)}%" in page
