from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError
from django.utils import translation

from quizzes.attempts.services import attempt_start
from quizzes.models import Answer, Attempt, Choice, Question, validate_choice_set
from tests.factories import add_question, correct_choice, make_quiz, wrong_choice
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


def test_a_question_cannot_have_two_correct_choices_in_the_database(quiz):
    question = quiz.questions.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Choice.objects.filter(pk=wrong_choice(question).pk).update(is_correct=True, fraction=1)


def test_a_choice_marked_right_in_code_without_a_weight_is_worth_the_whole_mark(learner):
    """As a script or the shell writes a question: is_correct=True, no weight."""
    quiz = make_quiz(questions=0)
    question = Question.objects.create(quiz=quiz, position=1, prompt_en="2 + 2?")
    right = Choice.objects.create(question=question, position=1, text_en="4", is_correct=True)
    Choice.objects.create(question=question, position=2, text_en="5")
    assert right.fraction == 1

    attempt = attempt_start(quiz=quiz, user=learner)
    post_answer(attempt, question, choice=right)
    attempt.refresh_from_db()
    assert (attempt.score, attempt.total) == (1, 1)


def test_a_weight_given_with_a_right_choice_is_kept(quiz):
    question = Question.objects.create(
        quiz=quiz, position=9, prompt_en="Which two?", kind=Question.Kind.MULTIPLE
    )
    half = Choice.objects.create(
        question=question, position=1, text_en="Half", is_correct=True, fraction=Decimal("0.5")
    )
    half.refresh_from_db()
    assert half.fraction == Decimal("0.5")


def test_two_questions_of_a_quiz_cannot_share_a_position(quiz):
    with pytest.raises(IntegrityError), transaction.atomic():
        Question.objects.create(quiz=quiz, position=1, prompt_en="Again?", explanation_en="x")


def test_two_choices_of_a_question_cannot_share_a_position(quiz):
    question = quiz.questions.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Choice.objects.create(question=question, position=1, text_en="Same place")


def test_a_learner_has_at_most_one_attempt_in_progress_per_quiz(learner, quiz):
    Attempt.objects.create(user=learner, quiz=quiz)
    with pytest.raises(IntegrityError), transaction.atomic():
        Attempt.objects.create(user=learner, quiz=quiz)


def test_an_attempt_holds_one_answer_per_question(learner, quiz):
    attempt = attempt_start(user=learner, quiz=quiz)
    question = quiz.questions.first()
    post_answer(attempt, question, choice=correct_choice(question))
    with pytest.raises(IntegrityError), transaction.atomic():
        Answer.objects.create(
            attempt=attempt,
            question=question,
            choice=wrong_choice(question),
            correct_choice=correct_choice(question),
            is_correct=False,
        )


@pytest.mark.parametrize(
    ("choices", "message"),
    [
        ([(1, False), (2, False)], "Mark one choice as correct."),
        ([(1, True), (2, True)], "Only one choice may be marked correct; choices 1, 2 are."),
        ([(1, True)], "A question needs at least two choices."),
        ([(1, True), (1, False)], "Two choices share a position"),
    ],
)
def test_choice_sets_that_break_a_question_are_refused_with_a_clear_message(choices, message):
    with pytest.raises(ValidationError) as error:
        validate_choice_set(choices)
    assert any(message in text for text in error.value.messages)


def test_a_well_formed_choice_set_passes_validation():
    validate_choice_set([(1, False), (2, True), (3, False)])


def test_an_answer_keeps_its_correctness_when_the_instructor_changes_the_key(learner, quiz):
    attempt = attempt_start(user=learner, quiz=quiz)
    question = quiz.questions.first()
    old_key = correct_choice(question)
    post_answer(attempt, question, choice=old_key)

    new_key = wrong_choice(question)
    with transaction.atomic():
        Choice.objects.filter(pk=old_key.pk).update(is_correct=False, fraction=0)
        Choice.objects.filter(pk=new_key.pk).update(is_correct=True, fraction=1)

    answer = Answer.objects.get(attempt=attempt, question=question)
    assert answer.is_correct is True
    assert answer.correct_choice_id == old_key.pk


def test_a_finished_score_does_not_change_when_questions_are_added_later(learner):
    quiz = make_quiz(questions=2)
    attempt = attempt_start(user=learner, quiz=quiz)
    for question in quiz.questions.order_by("position"):
        post_answer(attempt, question, choice=correct_choice(question))
    add_question(quiz, 3)
    attempt.refresh_from_db()
    assert (attempt.score, attempt.total, attempt.percent) == (2, 2, 100)


def test_deleting_an_answered_question_or_choice_is_refused(learner, quiz):
    attempt = attempt_start(user=learner, quiz=quiz)
    question = quiz.questions.first()
    chosen = wrong_choice(question)
    post_answer(attempt, question, choice=chosen)
    with pytest.raises(ProtectedError):
        question.delete()
    with pytest.raises(ProtectedError):
        chosen.delete()
    with pytest.raises(ProtectedError):
        quiz.delete()
    assert Answer.objects.filter(attempt=attempt).count() == 1


def test_unanswered_content_can_still_be_deleted(quiz):
    question = quiz.questions.last()
    question.delete()
    assert not Question.objects.filter(pk=question.pk).exists()


def test_a_missing_arabic_field_falls_back_to_english_field_by_field(quiz):
    question = quiz.questions.first()
    question.prompt_ar = ""
    question.save()
    with translation.override("ar"):
        question = Question.objects.get(pk=question.pk)
        assert question.prompt == question.prompt_en
        assert question.explanation == question.explanation_ar
