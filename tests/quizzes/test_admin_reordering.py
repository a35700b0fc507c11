"""Instructors reorder questions and choices, and move the correct mark, in one save.

Each row's own unique check compares it with the rows as stored, so without the formset's
handling (quizzes/admin.py) every one of these edits would be refused, and moving the
correct mark could not be done at all: unticking first leaves a question without an answer.
"""

import pytest

from quizzes.attempts.services import attempt_start
from quizzes.models import Answer, Choice, Question
from tests.admin_posts import choice_rows, page_errors, question_rows, save_question, save_quiz
from tests.factories import add_question, correct_choice, make_user
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, instructor):
    client.force_login(instructor)
    return client


def test_instructor_moves_the_correct_mark_to_another_choice_in_one_save(admin_client, quiz):
    question = quiz.questions.get(position=1)
    old = correct_choice(question)
    new = question.choices.exclude(pk=old.pk).order_by("position").first()

    response = save_question(admin_client, question, choice_rows(question, correct=new.pk))

    assert response.status_code == 302, page_errors(response)
    assert list(question.choices.filter(is_correct=True)) == [new]


def test_a_new_answer_key_counts_for_new_answers_and_not_for_old_ones(admin_client, quiz, learner):
    question = quiz.questions.get(position=1)
    old = correct_choice(question)
    new = question.choices.exclude(pk=old.pk).order_by("position").first()
    before = post_answer(attempt_start(user=learner, quiz=quiz), question, choice=old)

    response = save_question(admin_client, question, choice_rows(question, correct=new.pk))

    assert response.status_code == 302, page_errors(response)
    stored = Answer.objects.get(pk=before.answer.pk)
    assert stored.is_correct and stored.correct_choice_id == old.pk
    after = post_answer(attempt_start(user=make_user(), quiz=quiz), question, choice=new)
    assert after.answer.is_correct and after.answer.correct_choice_id == new.pk


def test_instructor_swaps_two_choices_in_one_save(admin_client, quiz):
    question = quiz.questions.get(position=1)
    first, second = question.choices.order_by("position")[:2]

    response = save_question(
        admin_client, question, choice_rows(question, positions={first.pk: 2, second.pk: 1})
    )

    assert response.status_code == 302, page_errors(response)
    assert list(question.choices.order_by("position")[:2]) == [second, first]
    assert correct_choice(question) == first  # the mark travels with its choice


def test_instructor_swaps_two_questions_in_one_save_and_learners_see_the_new_order(
    admin_client, quiz, learner_client
):
    first, second, third = quiz.questions.order_by("position")

    response = save_quiz(
        admin_client, quiz, question_rows(quiz, positions={first.pk: 2, second.pk: 1})
    )

    assert response.status_code == 302, page_errors(response)
    assert list(quiz.questions.order_by("position")) == [second, first, third]
    page = learner_client.get(f"/en/quizzes/{quiz.slug}/").content.decode()
    assert page.index(second.prompt_en) < page.index(first.prompt_en)


def test_instructor_rotates_every_question_and_gives_a_deleted_ones_place_to_another(
    admin_client, quiz
):
    first, second, third = quiz.questions.order_by("position")
    # Rotate: 1 → 3, 2 → 1, 3 → 2; then delete the new last one's neighbour and close the gap.
    response = save_quiz(
        admin_client,
        quiz,
        question_rows(quiz, positions={first.pk: 3, second.pk: 1, third.pk: 2}),
    )
    assert response.status_code == 302, page_errors(response)
    assert list(quiz.questions.order_by("position")) == [second, third, first]

    response = save_quiz(
        admin_client, quiz, question_rows(quiz, positions={first.pk: 2}, delete={third.pk})
    )

    assert response.status_code == 302, page_errors(response)
    assert list(quiz.questions.order_by("position").values_list("pk", "position")) == [
        (second.pk, 1),
        (first.pk, 2),
    ]


def test_two_questions_still_cannot_share_a_position(admin_client, quiz):
    first, second, _third = quiz.questions.order_by("position")

    response = save_quiz(admin_client, quiz, question_rows(quiz, positions={first.pk: 2}))

    assert response.status_code == 200
    assert "Two questions share a position" in response.content.decode()
    assert list(quiz.questions.order_by("position"))[:2] == [first, second]


def test_two_correct_choices_are_still_refused(admin_client, quiz):
    question = quiz.questions.get(position=1)
    rows = choice_rows(question)
    rows[1]["is_correct"] = "on"

    response = save_question(admin_client, question, rows)

    assert response.status_code == 200
    assert "Only one choice may be marked correct" in response.content.decode()
    assert question.choices.filter(is_correct=True).count() == 1


def test_a_question_added_by_someone_else_meanwhile_is_not_overwritten(admin_client, quiz):
    rows = question_rows(quiz)  # the page as the instructor opened it
    rows.append(
        {
            "quiz": str(quiz.pk),
            "position": "4",
            "kind": "single",
            "prompt_en": "Mine, at 4?",
            "explanation_en": "Mine.",
        }
    )
    theirs = add_question(quiz, 4)  # another instructor saves a question 4 first

    response = save_quiz(admin_client, quiz, rows)

    assert response.status_code == 200
    assert "Reload the page" in response.content.decode()
    assert list(quiz.questions.filter(position=4)) == [theirs]
    assert not Question.objects.filter(prompt_en="Mine, at 4?").exists()


def test_a_choice_marked_correct_by_someone_else_meanwhile_is_not_doubled(admin_client, quiz):
    question = quiz.questions.get(position=1)
    old = correct_choice(question)
    new = question.choices.exclude(pk=old.pk).order_by("position").first()
    rows = choice_rows(question, correct=new.pk)
    # Meanwhile another instructor adds a fifth choice and makes it the right one.
    Choice.objects.filter(pk=old.pk).update(is_correct=False, fraction=0)
    Choice.objects.create(
        question=question, position=5, text_en="Theirs", is_correct=True, fraction=1
    )

    response = save_question(admin_client, question, rows)

    assert response.status_code == 200
    assert "Reload the page" in response.content.decode()
    assert list(question.choices.filter(is_correct=True).values_list("text_en", flat=True)) == [
        "Theirs"
    ]
