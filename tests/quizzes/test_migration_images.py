"""Migration 0018 (images) goes back to 0017 and forward again, keeping questions and choices."""

import pytest
from django.core.management import call_command
from django.db import connection

from tests.factories import make_quiz


def _migrate_everything_forward() -> None:
    """Back to the latest migration of every app: going back in `quizzes` also unapplied the
    apps that depend on it (lti), which the rest of the suite needs."""
    call_command("migrate", verbosity=0)


def _columns(table: str) -> set[str]:
    with connection.cursor() as cursor:
        return {
            column.name for column in connection.introspection.get_table_description(cursor, table)
        }


# Transactional: SQLite changes its schema outside a transaction. Its flush afterwards makes the
# content types anew (post_migrate), as the browser tests' flushes do.
@pytest.mark.django_db(transaction=True)
def test_the_images_migration_runs_back_and_forward_with_content_in_place():
    quiz = make_quiz(questions=2)

    call_command("migrate", "quizzes", "0017", verbosity=0)
    assert "image" not in _columns("quizzes_question")
    assert "image_alt_en" not in _columns("quizzes_choice")
    _migrate_everything_forward()

    assert {"image", "image_width", "image_alt_en", "explanation_image_alt_ar"} <= _columns(
        "quizzes_question"
    )
    assert {"image", "image_height", "image_alt_ar"} <= _columns("quizzes_choice")
    assert quiz.questions.count() == 2
    assert not quiz.questions.first().image


@pytest.mark.django_db(transaction=True)
def test_the_draws_migration_runs_back_and_forward_with_attempts_in_place():
    """Migration 0016 (Quiz.questions_per_attempt, shuffle_questions, Attempt.question_order)
    back to 0015 and forward again, through the search's and the images' migrations."""
    quiz = make_quiz(questions=2)

    call_command("migrate", "quizzes", "0015", verbosity=0)
    assert "question_order" not in _columns("quizzes_attempt")
    assert "questions_per_attempt" not in _columns("quizzes_quiz")
    _migrate_everything_forward()

    assert "question_order" in _columns("quizzes_attempt")
    assert {"questions_per_attempt", "shuffle_questions"} <= _columns("quizzes_quiz")
    assert quiz.questions.count() == 2
