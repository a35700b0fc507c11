"""The step's read (quizzes.attempts.state.attempt_read): an attempt with its answers and the
learner's review card in one literal SQL statement, its quiz content found by (quiz id,
version); checked against the ORM's reading of the same rows, every kind of answer, with and
without a deadline, on each database the suite runs on (SQLite, and PostgreSQL in CI)."""

from datetime import timedelta
from decimal import Decimal

import pytest
import time_machine
from django.utils import timezone

from quizzes.attempts.services import attempt_start, attempt_submit_all
from quizzes.attempts.state import attempt_read, attempt_state
from quizzes.content import content_changed
from quizzes.grading import Response
from quizzes.models import Attempt, Question, ReviewCard
from tests.factories import (
    add_multiple_question,
    add_numerical_question,
    correct_choice,
    make_quiz,
    make_typed_quiz,
    make_user,
    wrong_choice,
)
from tests.steps import post_answer

pytestmark = pytest.mark.django_db


def read(user, attempt, card_question_id=None):
    found = attempt_read(
        user_id=user.pk,
        attempt_id=attempt.pk,
        answering=card_question_id is not None,
        question_id=card_question_id,
    )
    assert found is not None
    return found


def card_fields(card: ReviewCard) -> dict:
    return {
        name: getattr(card, name)
        for name in (
            "pk",
            "user_id",
            "question_id",
            "due",
            "state",
            "step",
            "stability",
            "difficulty",
            "last_review",
            "reviews",
            "created_at",
        )
    }


def test_an_attempt_is_read_with_its_answers_in_one_statement_and_no_quiz_row(
    django_assert_num_queries,
):
    learner = make_user()
    quiz = make_quiz(questions=3)
    attempt = attempt_start(user=learner, quiz=quiz)
    first = quiz.questions.get(position=1)
    post_answer(attempt, first, choice=wrong_choice(first))
    read(learner, attempt)  # the content version, built once
    guide_title = quiz.guide.title_en
    in_order = list(quiz.questions.order_by("position").values_list("pk", flat=True))
    picked = wrong_choice(first).text_en

    with django_assert_num_queries(1):
        state, cards = read(learner, attempt, card_question_id=first.pk)
        assert state.quiz.guide.title_en == guide_title
        assert [q.pk for q in state.content.questions] == in_order
        answer = state.answer_for(state.content.question(first.pk))
        assert answer is not None and not answer.is_correct
        assert answer.choice.text_en == picked
        assert cards.card is not None and cards.card.question_id == first.pk  # the miss made it
    assert state.current_number == 2
    assert state.attempt.started_at == attempt.started_at


def test_another_learners_attempt_and_ids_no_row_can_have_read_as_none():
    owner, stranger = make_user(), make_user()
    attempt = attempt_start(user=owner, quiz=make_quiz())
    assert attempt_read(user_id=stranger.pk, attempt_id=attempt.pk) is None
    assert attempt_read(user_id=owner.pk, attempt_id=attempt.pk + 1000) is None
    assert attempt_read(user_id=owner.pk, attempt_id=2**63) is None
    assert attempt_read(user_id=owner.pk, attempt_id=0) is None
    state, card = attempt_read(
        user_id=owner.pk, attempt_id=attempt.pk, answering=True, question_id=2**70
    )
    assert state.attempt.pk == attempt.pk and card is None  # no card read for no such id


def test_an_edit_reaches_the_next_step_read():
    learner = make_user()
    quiz = make_quiz(questions=2)
    attempt = attempt_start(user=learner, quiz=quiz)
    read(learner, attempt)
    Question.objects.filter(quiz=quiz, position=1).update(prompt_en="Edited prompt")
    content_changed(quiz=quiz)
    state, _card = read(learner, attempt)
    assert state.content.at(1).prompt_en == "Edited prompt"


@pytest.mark.parametrize("finish", [False, True], ids=["in progress", "finished"])
def test_the_literal_statement_reads_what_the_orm_reads(finish):
    """Every column the step reads, of answers of choices and numbers, as the ORM gives it:
    times with their zone, decimals to their places, JSON as lists and dicts, a learner's
    review card."""
    learner = make_user()
    quiz = make_quiz(
        questions=1, feedback="deferred", time_limit=timedelta(minutes=30), shuffle_choices=True
    )
    add_multiple_question(quiz, 2)
    number = add_numerical_question(quiz, 3, answers=((Decimal("1.41"), Decimal("0.005"), 1),))
    content_changed(quiz=quiz)
    with time_machine.travel(timezone.now(), tick=False):
        attempt = attempt_start(user=learner, quiz=quiz)
    single, several = quiz.questions.get(position=1), quiz.questions.get(position=2)
    post_answer(attempt, single, choice=wrong_choice(single))
    ticked = [choice.pk for choice in several.choices.all()][:2]
    post_answer(attempt, several, response=Response(choice_ids=tuple(ticked)))
    post_answer(attempt, number, response=Response(number=Decimal("1.4123")))
    if finish:
        attempt_submit_all(user=learner, attempt_id=attempt.pk)  # the exam's misses make cards
    attempt = Attempt.objects.get(pk=attempt.pk)

    by_sql, cards = read(learner, attempt, card_question_id=single.pk)
    card = cards.card
    by_orm = attempt_state(attempt)

    assert by_sql.attempt == by_orm.attempt
    assert by_sql.attempt.deadline is not None and by_sql.attempt.deadline.tzinfo is not None
    assert by_sql.answers == by_orm.answers
    assert len(by_sql.answers) == 3
    assert by_sql.answers[number.pk].number == Decimal("1.4123000000")
    assert len(by_sql.answers[several.pk].key.weights) == 4  # several answers' key
    if finish:
        assert by_sql.attempt.is_finished and by_sql.attempt.score == by_orm.attempt.score
        stored = ReviewCard.objects.get(user=learner, question=single)
        assert card is not None and card_fields(card) == card_fields(stored)
    else:
        assert card is None  # an exam moves no card before the end
    assert read(learner, attempt)[0].answers == by_sql.answers  # the step's read without cards


@pytest.mark.parametrize("finish", [False, True], ids=["in progress", "finished"])
def test_the_literal_statement_reads_typed_matched_and_ordered_answers_as_the_orm(finish):
    """A short answer's text, a matching answer's matches (a dict) and an ordering answer's
    order (a list), with their keys, in an attempt without a deadline, read by the statement
    as the ORM reads them; a miss's card with them."""
    learner = make_user()
    quiz = make_typed_quiz()
    short, matching, ordering = quiz.questions.order_by("position")
    attempt = attempt_start(user=learner, quiz=quiz)
    pairs = [pair.pk for pair in matching.pairs.order_by("position") if pair.prompt_en]
    items = list(ordering.order_items.order_by("position").values_list("pk", flat=True))
    post_answer(attempt, short, response=Response(text="  States "))
    swapped = ((pairs[0], pairs[1]), (pairs[1], pairs[0]), *((p, p) for p in pairs[2:]))
    post_answer(attempt, matching, response=Response(arrangement=swapped))
    if finish:
        post_answer(attempt, ordering, response=Response(arrangement=tuple(reversed(items))))
    attempt = Attempt.objects.get(pk=attempt.pk)

    by_sql, cards = read(learner, attempt, card_question_id=matching.pk)
    by_orm = attempt_state(attempt)

    assert by_sql.attempt == by_orm.attempt and by_sql.attempt.deadline is None
    assert by_sql.attempt.is_finished is finish
    assert by_sql.answers == by_orm.answers
    assert by_sql.answers[short.pk].text == "  States "
    assert isinstance(by_sql.answers[matching.pk].arrangement, dict)
    assert by_sql.answers[matching.pk].key.matches  # matching's key, by prompt
    if finish:
        assert by_sql.answers[ordering.pk].arrangement == list(reversed(items))
        assert by_sql.answers[ordering.pk].key.order == tuple(items)
    stored = ReviewCard.objects.get(user=learner, question=matching)  # the swap missed
    assert cards.card is not None and card_fields(cards.card) == card_fields(stored)


def test_a_right_answer_is_read_as_right_with_its_mark():
    learner = make_user()
    quiz = make_quiz(questions=2)
    attempt = attempt_start(user=learner, quiz=quiz)
    first = quiz.questions.get(position=1)
    post_answer(attempt, first, choice=correct_choice(first))
    state, _card = read(learner, attempt)
    answer = state.answers[first.pk]
    assert answer.is_correct and answer.fraction == Decimal("1.0000")
    assert state.answers == attempt_state(attempt).answers
