"""Every path that edits a quiz's content moves its version, so no process serves old content.

Content is cached per version (`quizzes.content`); the version moves through one explicit
call, `content_changed`, made by each editing path — never by a signal that a bulk write skips.
"""

from __future__ import annotations

import pytest

from quizzes.content import content_changed, quiz_content, quiz_content_of
from quizzes.instructors.imports import quiz_import_gift
from quizzes.models import Question, Quiz
from tests.admin_posts import choice_rows, question_rows, save_guide, save_question, save_quiz
from tests.factories import make_quiz

pytestmark = pytest.mark.django_db


def version(quiz: Quiz):
    return Quiz.objects.values_list("updated_at", flat=True).get(pk=quiz.pk)


@pytest.fixture
def editor(client, instructor):
    client.force_login(instructor)
    return client


def test_saving_a_quiz_with_its_questions_in_the_admin_moves_its_version(editor, quiz):
    before = version(quiz)
    rows = question_rows(quiz)
    rows[0]["prompt_en"] = "Reworded in the quiz's page?"

    response = save_quiz(editor, quiz, rows)

    assert response.status_code == 302
    assert version(quiz) > before
    assert quiz_content(Quiz.objects.get(pk=quiz.pk)).at(1).prompt == "Reworded in the quiz's page?"


def test_saving_a_question_with_its_choices_in_the_admin_moves_its_quizs_version(editor, quiz):
    question = quiz.questions.get(position=1)
    other = make_quiz(questions=1)
    before, other_before = version(quiz), version(other)
    rows = choice_rows(question)
    rows[0]["text_en"] = "A reworded choice"

    response = save_question(editor, question, rows)

    assert response.status_code == 302
    assert version(quiz) > before
    assert version(other) == other_before  # only the quiz edited
    content = quiz_content(Quiz.objects.get(pk=quiz.pk))
    assert content.at(1).choices[0].text == "A reworded choice"


def test_deleting_a_question_in_the_admin_moves_its_quizs_version(editor, quiz):
    question = quiz.questions.get(position=3)
    before = version(quiz)

    response = editor.post(f"/en/admin/quizzes/question/{question.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert version(quiz) > before
    assert quiz_content(Quiz.objects.get(pk=quiz.pk)).count == 2


def test_deleting_questions_from_the_admins_list_moves_each_quizs_version(editor, quiz):
    other = make_quiz(questions=2)
    doomed = [quiz.questions.get(position=3).pk, other.questions.get(position=2).pk]
    before, other_before = version(quiz), version(other)

    response = editor.post(
        "/en/admin/quizzes/question/",
        {"action": "delete_selected", "_selected_action": doomed, "post": "yes"},
    )

    assert response.status_code == 302
    assert not Question.objects.filter(pk__in=doomed).exists()
    assert version(quiz) > before and version(other) > other_before


def test_renaming_a_guide_in_the_admin_moves_the_version_of_its_quizzes(editor, quiz):
    guide = quiz.guide
    before = version(quiz)

    response = save_guide(editor, guide, title_en="A renamed guide")

    assert response.status_code == 302
    assert version(quiz) > before


def test_importing_gift_into_a_quiz_moves_its_version(quiz):
    before = version(quiz)

    quiz_import_gift(
        text="::q::Which is right? {=This one ~That one}\n",
        filename="more.gift",
        quiz_slug=quiz.slug,
    )

    assert version(quiz) > before
    assert quiz_content(Quiz.objects.get(pk=quiz.pk)).count == 4


def test_content_changed_moves_every_quiz_of_a_queryset_in_two_statements(
    quiz, django_assert_num_queries
):
    """One to read the quizzes' search text (nothing to write when it is up to date), one to
    move their versions."""
    other = make_quiz(questions=1)
    before, other_before = version(quiz), version(other)

    with django_assert_num_queries(2):
        content_changed(quiz=Quiz.objects.filter(pk__in=[quiz.pk, other.pk]))

    assert version(quiz) > before and version(other) > other_before


def test_an_edit_made_in_code_reaches_learners_once_it_calls_content_changed(quiz):
    question = quiz.questions.get(position=1)
    quiz_content(quiz)  # cached, as a learner's step leaves it
    question.prompt_en = "Changed in code"
    question.save()

    content_changed(quiz=quiz)

    assert quiz_content(Quiz.objects.get(pk=quiz.pk)).at(1).prompt == "Changed in code"


def test_a_callers_unsaved_change_to_its_quiz_never_reaches_the_cached_version(quiz):
    """An admin form writes its values onto the instance before it validates them: what one
    request does to its own quiz object must not show to learners reading the same version."""
    mine = Quiz.objects.select_related("guide").get(pk=quiz.pk)
    quiz_content(mine)  # this version is first read, and cached, from the caller's instance

    mine.title_en = "An unsaved draft"
    mine.guide.title_en = "Another unsaved draft"

    shared = quiz_content_of(quiz_id=quiz.pk, version=quiz.updated_at)
    assert shared.quiz.title_en == quiz.title_en
    assert shared.questions[0].quiz.title_en == quiz.title_en
    assert shared.quiz.guide.title_en == quiz.guide.title_en
